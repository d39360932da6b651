#pragma once
/// \file Sprocket_Preconditioners.hpp
/// Preconditioners as MultiVectorOperators: apply(X, Y) computes Y = M^{-1} X for a block of
/// vectors, so every solver takes them through the same interface as the operator itself (and an
/// AMG can join later without touching the solvers).
///
///   auto M = Sprocket::make_jacobi(A);                      // D^{-1}
///   auto M = Sprocket::make_block_jacobi(A, 4);             // inverses of the 4 x 4 diagonal blocks
///   auto M = Sprocket::make_block_jacobi(bsr);              // inverses of a BsrMatrix's diagonal blocks
///   auto M = Sprocket::make_chebyshev(A, cheb_options);     // Chebyshev polynomial in D^{-1} A
///   auto M = Sprocket::make_incomplete_cholesky(A);         // (L L^T)^{-1}, A symmetric positive definite
///   auto M = Sprocket::make_incomplete_lu(A, ilu_options);  // (L U)^{-1}, ILU(k), with row matching
///   Sprocket::block_gmres(*op, B, X, gmres_options, M.get());
///   std::cout << M->describe();
///
/// Setup reads A once (diagonal extraction on the device; the small inversions on the host) and
/// throws InvalidArgument naming the row or block when A cannot give a preconditioner: a zero or
/// missing diagonal entry (Jacobi, Chebyshev with Jacobi scaling), a singular diagonal block
/// (block-Jacobi), a non-square A, bad options. Preconditioners copy what they need (inverse
/// diagonal, inverse blocks, factors, the reordered copy of A in Chebyshev's SpMM plan): later
/// changes of A's values are not seen; build the preconditioner again after changing them (or, for
/// incomplete LU, call update_values).
///
/// apply() overwrites Y and never reads it; X and Y must not alias. Jacobi and block-Jacobi may
/// be applied concurrently; Chebyshev, incomplete Cholesky and incomplete LU keep work vectors and
/// may not.
#include <Kokkos_Core.hpp>
#include <memory>
#include <string>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_MultiVectorOperator.hpp"

namespace Sprocket {

/// Chebyshev polynomial preconditioner: `degree` steps of Chebyshev iteration from a zero
/// initial guess on A y = x, preconditioned by D = diag(A) (jacobi_scaling) or by nothing, i.e.
/// y = p(D^{-1} A) D^{-1} x with p of degree `degree - 1` (degree - 1 applications of A per
/// apply; degree 1 is D^{-1} / theta). The polynomial is the one that is smallest on
/// [lambda_min, lambda_max] of D^{-1} A; meant for matrices whose D^{-1} A has a real, positive
/// spectrum (symmetric positive definite A and the like).
struct ChebyshevOptions {
  int degree = 3;
  /// Largest eigenvalue of D^{-1} A (or A). 0: estimated by `power_iterations` steps of the power
  /// method from a fixed pseudo-random vector, times 1.1 for safety.
  double lambda_max = 0;
  /// Smallest eigenvalue the polynomial targets. 0: lambda_max / eig_ratio (the polynomial damps
  /// the upper part of the spectrum, where Jacobi-like smoothing pays).
  double lambda_min = 0;
  double eig_ratio = 30;
  int power_iterations = 15;
  bool jacobi_scaling = true;
};

/// Threshold incomplete Cholesky (ICT) of a symmetric positive definite A, A ~= L L^T.
struct IncompleteCholeskyOptions {
  /// Entries of column j of L smaller than drop_tolerance * ||A(j:n, j)||_1 are dropped (MATLAB
  /// ichol's 'ict' rule). 0 drops nothing: the complete Cholesky factorization in A's own
  /// ordering (an exact solve; fill can be large for big 3-D problems). Smaller values: more
  /// fill, fewer solver iterations.
  double drop_tolerance = 1e-3;
  /// When a pivot is not positive (dropping can make that happen even for SPD A) the
  /// factorization restarts on A + alpha diag(A): alpha = initial_shift, then x10 per retry,
  /// max_attempts factorizations in all.
  double initial_shift = 1e-3;
  int max_attempts = 8;
  /// How the triangular solves run: columns (host, one column of the block per thread,
  /// sequential along the rows), levels (level-scheduled kernels on the device, one per level),
  /// or automatic: columns where the host can read the device's memory, levels elsewhere (GPU).
  enum class TriangularSolve { automatic, columns, levels };
  TriangularSolve solve = TriangularSolve::automatic;
  /// Symmetric ordering P A P^T factored instead of A: natural (A's own), amd (approximate
  /// minimum degree, SuiteSparse AMD: far less fill, so a complete or nearly complete factorization
  /// of a 3-D or shell problem stays cheap) or rcm (reverse Cuthill-McKee, a narrow band).
  enum class Ordering { natural, amd, rcm };
  Ordering ordering = Ordering::natural;
};

/// ILU(k) of a square, generally nonsymmetric A: A ~= L U with the fill of level <= k (level 0:
/// A's own pattern, ILU(0)), optionally after a row matching that puts large entries on the
/// diagonal (matrices with zero diagonal entries) and a bandwidth-reducing symmetric reordering.
struct IncompleteLuOptions {
  /// levels_of_fill: ILU(k), the pattern fixed by `level` before any value is seen (symbolic once;
  /// update_values refactors on it). threshold: ILUT with column pivoting (ILUTP, as SciPy's
  /// spilu): what is kept depends on the values (drop_tolerance, fill_factor), and a column whose
  /// diagonal entry is too small is swapped for a larger one (pivot_threshold); for the hardest
  /// matrices (circuit matrices such as rajat01, where ILU(k) meets exactly zero pivots).
  enum class Method { levels_of_fill, threshold };
  Method method = Method::levels_of_fill;
  /// Level of fill k: an entry (i, j) created through pivot k gets lev(i, k) + lev(k, j) + 1
  /// (A's entries 0) and is kept when <= level. More levels: more fill, fewer iterations.
  int level = 0;
  /// ILUT: entries below drop_tolerance x ||row i||_2 are dropped; each row of L and of U keeps
  /// at most fill_factor x nnz(row i of A) entries (its largest); the row's diagonal is the pivot
  /// unless it is below pivot_threshold x the largest candidate of U's row (0: never pivot).
  double drop_tolerance = 1e-4;
  double fill_factor = 10;
  double pivot_threshold = 0.1;
  /// Row permutation from a maximum-product matching (MC64-like: the product of the diagonal's
  /// moduli is the largest over all row permutations) with its scaling (|scaled entries| <= 1,
  /// diagonal 1). automatic: when a diagonal entry of A is zero or missing.
  enum class Matching { automatic, on, off };
  Matching matching = Matching::automatic;
  /// Symmetric reordering of the (matched) matrix before the factorization: none, reverse
  /// Cuthill-McKee on the pattern of B + B^T (narrower band), or approximate minimum degree
  /// (SuiteSparse AMD: less fill for ILU(k) with k > 0 and ILUT).
  enum class Reorder { none, rcm, amd };
  Reorder reorder = Reorder::none;
  /// ILU(k): when a pivot |u_ii| falls below 1e-12 of its row's largest entry the factorization
  /// restarts on A + alpha diag(sign(a_ii) max_j |a_ij|): alpha = initial_shift, then x10 per
  /// retry, max_attempts factorizations in all. (ILUT replaces a zero pivot, one below 1e-12
  /// ||row i||_2, by ||row i||_2 and counts it: a singular A keeps a bounded preconditioner.)
  double initial_shift = 1e-3;
  int max_attempts = 8;
  /// As for incomplete Cholesky: host columns, device levels, or automatic.
  IncompleteCholeskyOptions::TriangularSolve solve = IncompleteCholeskyOptions::TriangularSolve::automatic;
};

/// Y = D^{-1} X, D = diag(A) (duplicates summed). Throws InvalidArgument naming the first row
/// whose diagonal is zero, missing or not finite, and for a non-square A.
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<Preconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_jacobi(const CrsType& A);

/// Block-Jacobi over b x b diagonal blocks of a CRS matrix cut every `block_size` rows (when b
/// does not divide the rows, the last block is smaller): each block is inverted by LU with partial
/// pivoting (host, double) and the inverses applied on the device. Throws InvalidArgument naming
/// the block and its rows when one is singular, and for block_size < 1 or a non-square A.
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<Preconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_block_jacobi(const CrsType& A, int block_size);

/// Block-Jacobi over the diagonal blocks of a Sprocket::BsrMatrix (its own block size). A block
/// row without a stored diagonal block counts as singular.
template <class BsrType, std::enable_if_t<is_bsr_matrix_v<BsrType>, int> = 0>
std::shared_ptr<Preconditioner<typename BsrType::value_type, typename BsrType::device_type>>
make_block_jacobi(const BsrType& A);

/// Chebyshev over a CRS matrix, applied through a Sprocket::SpmmPlan of A (whole blocks at once).
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<Preconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_chebyshev(const CrsType& A, const ChebyshevOptions& options = {});

/// Chebyshev over any operator (SpMM plan, BSR plan, ...) with the diagonal of A given as a
/// rank-1 View on the operator's device (an empty View, or jacobi_scaling = false: no scaling).
template <class Scalar, class Device, class DiagonalView>
std::shared_ptr<Preconditioner<Scalar, Device>> make_chebyshev(std::shared_ptr<MultiVectorOperator<Scalar, Device>> A,
                                                                const DiagonalView& diagonal,
                                                                const ChebyshevOptions& options = {});

/// Incomplete Cholesky of a CRS matrix (host factorization; triangular solves on the host or
/// level-scheduled on the device, see impl/precond/incomplete_cholesky.hpp). Throws InvalidArgument when A is not square, not
/// symmetric (naming the pair of entries), has a diagonal entry that is not positive (naming the
/// row), or breaks down at every shift.
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<Preconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_incomplete_cholesky(const CrsType& A, const IncompleteCholeskyOptions& options = {});

template <class Scalar, class Device>
class IncompleteLuPreconditioner;

/// ILU(k) or ILUT of a CRS matrix: orderings, pattern and factorization on the host in double,
/// triangular solves on the host or level-scheduled on the device (impl/precond/incomplete_lu.hpp);
/// update_values(A) refactors for new values on the same pattern (ILU(k): without the symbolic
/// work; ILUT: a whole factorization, the orderings kept).
/// Throws InvalidArgument when A is not square, is structurally singular (matching), or hits a
/// zero pivot at every shift (naming the row).
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<IncompleteLuPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_incomplete_lu(const CrsType& A, const IncompleteLuOptions& options = {});

}  // namespace Sprocket

#include "impl/precond/block_jacobi.hpp"
#include "impl/precond/chebyshev.hpp"
#include "impl/precond/incomplete_cholesky.hpp"
#include "impl/precond/incomplete_lu.hpp"
#include "impl/precond/jacobi.hpp"
