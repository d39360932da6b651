#pragma once
/// \file smoothed_aggregation_setup.hpp
/// The host side of smoothed-aggregation AMG (Vanek, Mandel and Brezina, "Algebraic multigrid by
/// smoothed aggregation for second and fourth order elliptic problems", Computing 56, 1996),
/// in double, compiled once into the library (smoothed_aggregation_setup.cpp): what is sequential
/// by nature or small (the strength graph, the aggregation, the tentative prolongator's local
/// QR factorizations, the coarsest level's dense LU). The products (A P, R A P) run on the
/// device through SpgemmPlan (smoothed_aggregation.hpp).
///
/// Unknowns are grouped into nodes: node I owns the consecutive rows [node_ptr[I],
/// node_ptr[I + 1]) (on the finest level the `block_size` unknowns of a FEM node, on coarse levels
/// the near-null-space components an aggregate kept). Strength, aggregation and the prolongator's
/// sparsity work on nodes, so the unknowns of one node always stay together.
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

/// The strong connections between nodes, as a symmetric-by-construction-if-A-is graph in CSR
/// (no self loops). Node J is strongly connected to node I when ||A_IJ||_F > theta
/// sqrt(||A_II||_F ||A_JJ||_F) (for one unknown per node: |a_ij| > theta sqrt(|a_ii a_jj|)), with
/// A_IJ the block of rows of I and columns of J. weight holds ||A_IJ||_F (aggregation prefers the
/// strongest neighbour).
struct StrengthGraph {
  int64_t num_nodes = 0;
  std::vector<int64_t> ptr{0};
  std::vector<int64_t> adj;
  std::vector<double> weight;
};

/// node_ptr of `num_rows` unknowns in nodes of `block_size` (the last node may be smaller).
std::vector<int64_t> uniform_nodes(int64_t num_rows, int block_size);

/// The strength graph of A (square, any row order, duplicates summed into their block's norm).
/// theta = 0 keeps every stored entry whose block is not zero.
StrengthGraph strength_graph(const HostCsr& A, const std::vector<int64_t>& node_ptr, double theta);

/// Aggregates of a strength graph: aggregate[I] in [0, count) or -1 for a node left out (a node
/// without strong neighbours, e.g. a Dirichlet row: its prolongator row is zero and the smoother
/// alone handles it). Three passes in node order: (1) a node whose strong neighbours are all free
/// starts an aggregate with them; (2) a free node joins the aggregate of its strongest neighbour
/// aggregated in pass 1; (3) what is still free starts aggregates with its free neighbours.
struct Aggregates {
  std::vector<int64_t> aggregate;
  int64_t count = 0;
  int64_t left_out = 0;
};
Aggregates aggregate_nodes(const StrengthGraph& graph);

/// Tentative prolongator: for aggregate a with rows r_a (the rows of its nodes, in order) and the
/// near null space B (num_rows x k, column-major), the thin QR B(r_a, :) = Q_a R_a gives P's rows
/// r_a in columns [offset_a, offset_a + rank_a) (values Q_a) and the coarse near null space's rows
/// there (values R_a). A column of B(r_a, :) that is (numerically) a combination of the earlier
/// ones (norm after orthogonalization below 1e-8 of its norm before) is dropped, so aggregates can
/// keep fewer than k coarse unknowns; coarse node a owns [offset_a, offset_a + rank_a).
struct TentativeProlongator {
  HostCsr P;                             ///< num_rows x num_coarse
  std::vector<double> coarse_null_space;  ///< num_coarse x k, column-major
  std::vector<int64_t> coarse_node_ptr;   ///< one coarse node per aggregate (rank_a unknowns; > 0)
  int64_t dropped_columns = 0;            ///< columns of B dropped over all aggregates
};
TentativeProlongator tentative_prolongator(const Aggregates& aggregates, const std::vector<int64_t>& node_ptr,
                                           const std::vector<double>& null_space, int null_space_columns);

/// Smoothed prolongator P = Pt - omega D^{-1} (A Pt), given AP = A Pt (rows sorted; contains Pt's
/// pattern when A stores its diagonal, which is checked) and D's inverse: P has AP's pattern, and
/// positions (optional) receives, per entry of Pt, its position in P.
HostCsr smoothed_prolongator(const HostCsr& tentative, const HostCsr& AP, const std::vector<double>& inverse_diagonal,
                             double omega, std::vector<int64_t>* positions);

/// Dense LU with partial pivoting of the coarsest matrix (LAPACK dgetrf), solve by dgetrs.
struct DenseLu {
  int64_t n = 0;
  std::vector<double> lu;  ///< column-major n x n
  std::vector<int> pivots;
};
/// Throws InvalidArgument naming `who` when the matrix is singular (the zero pivot's column).
DenseLu dense_lu(const HostCsr& A, const std::string& who);
/// X (n x s, column-major, leading dimension n) overwritten by A^{-1} X.
void dense_lu_solve(const DenseLu& f, double* X, int64_t s);

}  // namespace precond
}  // namespace Impl

/// Public (Sprocket_Preconditioners.hpp documents it); declared here too for the .cpp, which
/// does not include the Kokkos headers.
std::vector<double> rigid_body_modes(const std::vector<double>& coordinates, int dimension);

}  // namespace Sprocket
