#pragma once
/// \file orderings.hpp
/// Host-side orderings computed once per matrix before an incomplete LU factorization, compiled
/// into the library (orderings.cpp):
///  - a maximum-product transversal with its scaling (the MC64 "job 5" idea of Duff & Koster):
///    a row permutation that puts large entries on the diagonal, so an ILU without pivoting
///    meets no zero pivots on matrices such as west0479 whose diagonal is mostly empty, and a
///    scaling after which every entry has modulus <= 1 with the diagonal at 1;
///  - reverse Cuthill-McKee on the pattern of A + A^T, which narrows the band of the factors
///    (less fill for a level-based ILU, better locality in the triangular solves).
/// Both take a HostCsr whose rows may be unsorted and hold duplicate columns (summed first).
/// Errors throw Sprocket::InvalidArgument with a message that starts with `who`.
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

struct Matching {
  /// row_of[j]: the row of A placed at position j, so that (P A)(j, j) = A(row_of[j], j) is an entry of A,
  /// and the product of |(P A)(j, j)| over j is the largest possible.
  std::vector<int64_t> row_of;
  /// Scaling from the dual variables: with Dr = diag(row_scale), Dc = diag(col_scale), the matrix
  /// Dr A Dc has |entries| <= 1 and its matched entries have modulus 1 (up to roundoff).
  std::vector<double> row_scale, col_scale;
};

/// Maximum-product transversal of the square matrix A. Duplicate entries are summed first;
/// entries that are (or sum to) zero are not usable. With the column maxima m_j = max_k |a_kj|,
/// the weights c_ij = log m_j - log |a_ij| >= 0 turn the largest product into a minimum-cost
/// perfect bipartite matching, found by successive shortest augmenting paths (Dijkstra with a
/// binary heap over reduced costs c_ij - u_i - v_j >= 0, dual potentials u on rows, v on
/// columns), after a greedy matching on the zero-reduced-cost entries of the initial duals
/// (which already matches nearly every column of a diagonally dominant matrix, whatever its
/// row order). The final duals give row_scale[i] = exp(u_i), col_scale[j] = exp(v_j) / m_j:
/// |row_scale[i] a_ij col_scale[j]| = exp(-(c_ij - u_i - v_j)) <= 1, with equality on the
/// matched entries.
/// Cost: greedy plus a few searches on FEM-like and banded matrices (n = 3e5, 8e6 entries: about
/// a second on one core); unstructured random patterns are the hard case, where the last
/// augmentations each visit most rows (uniform random, n = 1e5, 26 per row: about 10 s).
/// Throws InvalidArgument (message starting with `who`) when A is not square, when an entry is
/// not finite, or when A is structurally singular (the message gives how many columns no
/// maximum matching can cover). A 0 x 0 matrix gives empty vectors.
Matching maximum_product_matching(const HostCsr& A, const std::string& who);

/// Reverse Cuthill-McKee ordering of the square matrix A, on the pattern of A + A^T without its
/// diagonal (values, explicit zeros included, and duplicates do not matter).
/// new_to_old[k]: the old index placed at position k. Each connected component starts from a
/// pseudo-peripheral node (found by repeated BFS from a minimum-degree node), neighbours visited in increasing degree.
/// In detail: components are taken in order of their minimum-degree node (smallest degree,
/// then smallest index); from that node, breadth-first searches move to the minimum-degree node
/// of the last level as long as the number of levels grows (George & Liu); the Cuthill-McKee
/// order of a component is the breadth-first order from the node found, each node's unvisited
/// neighbours appended by increasing degree, ties by increasing index; the concatenation over
/// all components is then reversed as a whole, which never enlarges the envelope (Liu & Sherman)
/// and keeps the bandwidth. Throws InvalidArgument (message starting with `who`) when A is not
/// square or its structure is inconsistent.
std::vector<int64_t> reverse_cuthill_mckee(const HostCsr& A, const std::string& who);

/// Approximate minimum degree ordering (SuiteSparse AMD, Debian libamd) of the square matrix A,
/// on the pattern of A + A^T: a fill-reducing ordering for Cholesky and LU factorizations.
/// new_to_old[k]: the old index placed at position k. Throws InvalidArgument (message starting
/// with `who`) when A is not square or AMD rejects it, ResourceError when AMD runs out of memory.
std::vector<int64_t> approximate_minimum_degree(const HostCsr& A, const std::string& who);

/// B(i, j) = r_i A(row_perm[i], col_perm[j]) c_j with r = row_scale, c = col_scale indexed by B's
/// rows and columns (empty: 1), rows of B sorted. A: square, rows sorted and duplicate-free.
HostCsr permuted_scaled_copy(const HostCsr& A, const std::vector<int64_t>& row_perm,
                             const std::vector<int64_t>& col_perm, const std::vector<double>& row_scale = {},
                             const std::vector<double>& col_scale = {});

/// q with q[p[k]] = k (old_to_new from new_to_old and back). Throws InvalidArgument when p is
/// not a permutation of 0 .. p.size() - 1.
std::vector<int64_t> inverse_permutation(const std::vector<int64_t>& p);

/// Bandwidth of the symmetrically permuted P A P^T, P given by new_to_old: the largest
/// |new(i) - new(j)| over the stored entries (i, j) of A (explicit zeros included), 0 when A has
/// no off-diagonal entry. Throws InvalidArgument when A is not square or new_to_old is not a
/// permutation of its size.
int64_t bandwidth(const HostCsr& A, const std::vector<int64_t>& new_to_old);

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
