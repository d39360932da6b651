#pragma once
/// \file Sprocket_Preconditioners.hpp
/// Preconditioners as MultiVectorOperators: apply(X, Y) computes Y = M^{-1} X for a block of
/// vectors, so every solver takes them through the same interface as the operator itself (an AMG
/// V-cycle included).
///
///   auto M = Sprocket::make_jacobi(A);                      // D^{-1}
///   auto M = Sprocket::make_block_jacobi(A, 4);             // inverses of the 4 x 4 diagonal blocks
///   auto M = Sprocket::make_block_jacobi(bsr);              // inverses of a BsrMatrix's diagonal blocks
///   auto M = Sprocket::make_chebyshev(A, cheb_options);     // Chebyshev polynomial in D^{-1} A
///   auto M = Sprocket::make_incomplete_cholesky(A);         // (L L^T)^{-1}, A symmetric positive definite
///   auto M = Sprocket::make_incomplete_lu(A, ilu_options);  // (L U)^{-1}, ILU(k), with row matching
///   auto M = Sprocket::make_cholesky(A, direct_options);    // (A - sigma I)^{-1} by CHOLMOD, SPD
///   auto M = Sprocket::make_lu(A, direct_options);          // (A - sigma I)^{-1} by UMFPACK, any A
///   auto M = Sprocket::make_smoothed_aggregation(A);        // one AMG V-cycle
///   Sprocket::block_gmres(*op, B, X, gmres_options, M.get());
///   std::cout << M->describe();
///
/// Setup reads A once (diagonal extraction on the device; the small inversions on the host) and
/// throws InvalidArgument naming the row or block when A cannot give a preconditioner: a zero or
/// missing diagonal entry (Jacobi, Chebyshev with Jacobi scaling), a singular diagonal block
/// (block-Jacobi), a non-square A, bad options. Preconditioners copy what they need (inverse
/// diagonal, inverse blocks, factors, the reordered copy of A in Chebyshev's SpMM plan): later
/// changes of A's values are seen after M->update_values(A) (or update_values(space, A)), which
/// every preconditioner has (Sprocket_Operator.hpp: "Values"): A must have the setup's pattern
/// (Jacobi and block-Jacobi: its size), and the preconditioner is recomputed from A's new values,
/// reusing what the pattern decided (orderings, symbolic factorizations, aggregates). The
/// factories return the concrete preconditioner types (each converts to
/// std::shared_ptr<Preconditioner<Scalar, Device>>), so update_values is in reach.
///
/// apply() overwrites Y and never reads it; X and Y must not alias. Jacobi and block-Jacobi may
/// be applied concurrently; Chebyshev, incomplete Cholesky, incomplete LU, smoothed
/// aggregation and the direct factorizations (Cholesky, LU: work blocks and CHOLMOD's workspace)
/// keep work vectors and may not.
#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <vector>

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
  int degree = 3;  ///< Chebyshev steps per apply (>= 1): degree - 1 applications of A
  /// Largest eigenvalue of D^{-1} A (or A). 0: estimated by `power_iterations` steps of the power
  /// method from a fixed pseudo-random vector, times 1.1 for safety.
  double lambda_max = 0;
  /// Smallest eigenvalue the polynomial targets. 0: lambda_max / eig_ratio (the polynomial damps
  /// the upper part of the spectrum, where Jacobi-like smoothing pays).
  double lambda_min = 0;
  double eig_ratio = 30;  ///< lambda_max / lambda_min when lambda_min is 0 (> 1)
  int power_iterations = 15;  ///< power-method steps estimating lambda_max when it is 0 (>= 1)
  bool jacobi_scaling = true;  ///< precondition the iteration by D = diag(A); false: by nothing
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
  int max_attempts = 8;  ///< factorizations in all, the first on A itself (>= 1)
  /// How the triangular solves run: columns (host, one column of the block per thread,
  /// sequential along the rows), levels (level-scheduled kernels on the device, one per level),
  /// or automatic: columns where the host can read the device's memory, levels elsewhere (GPU).
  enum class TriangularSolve { automatic, columns, levels };
  TriangularSolve solve = TriangularSolve::automatic;  ///< how the triangular solves run
  /// Symmetric ordering P A P^T factored instead of A: natural (A's own), amd (approximate
  /// minimum degree, SuiteSparse AMD: far less fill, so a complete or nearly complete factorization
  /// of a 3-D or shell problem stays cheap) or rcm (reverse Cuthill-McKee, a narrow band).
  enum class Ordering { natural, amd, rcm };
  Ordering ordering = Ordering::natural;  ///< the symmetric ordering factored
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
  Method method = Method::levels_of_fill;  ///< ILU(k) or ILUT
  /// Level of fill k: an entry (i, j) created through pivot k gets lev(i, k) + lev(k, j) + 1
  /// (A's entries 0) and is kept when <= level. More levels: more fill, fewer iterations.
  int level = 0;
  /// ILUT: entries below drop_tolerance x ||row i||_2 are dropped; each row of L and of U keeps
  /// at most fill_factor x nnz(row i of A) entries (its largest); the row's diagonal is the pivot
  /// unless it is below pivot_threshold x the largest candidate of U's row (0: never pivot).
  double drop_tolerance = 1e-4;
  double fill_factor = 10;  ///< ILUT: most entries kept per row of L and of U, as a multiple of A's row (above)
  /// ILUT: the diagonal pivots unless below this fraction of the largest candidate (above)
  double pivot_threshold = 0.1;
  /// Row permutation from a maximum-product matching (MC64-like: the product of the diagonal's
  /// moduli is the largest over all row permutations) with its scaling (|scaled entries| <= 1,
  /// diagonal 1). automatic: when a diagonal entry of A is zero or missing.
  enum class Matching { automatic, on, off };
  Matching matching = Matching::automatic;  ///< whether the row matching runs
  /// Symmetric reordering of the (matched) matrix before the factorization: none, reverse
  /// Cuthill-McKee on the pattern of B + B^T (narrower band), or approximate minimum degree
  /// (SuiteSparse AMD: less fill for ILU(k) with k > 0 and ILUT).
  enum class Reorder { none, rcm, amd };
  Reorder reorder = Reorder::none;  ///< the symmetric reordering
  /// ILU(k): when a pivot |u_ii| falls below 1e-12 of its row's largest entry the factorization
  /// restarts on A + alpha diag(sign(a_ii) max_j |a_ij|): alpha = initial_shift, then x10 per
  /// retry, max_attempts factorizations in all. (ILUT replaces a zero pivot, one below 1e-12
  /// ||row i||_2, by ||row i||_2 and counts it: a singular A keeps a bounded preconditioner.)
  double initial_shift = 1e-3;
  int max_attempts = 8;  ///< ILU(k): factorizations in all, the first on A itself (>= 1)
  /// As for incomplete Cholesky: host columns, device levels, or automatic.
  IncompleteCholeskyOptions::TriangularSolve solve = IncompleteCholeskyOptions::TriangularSolve::automatic;
};

/// Smoothed-aggregation algebraic multigrid (one V-cycle per apply), for symmetric positive
/// definite and similar matrices from elliptic problems (Poisson, elasticity): aggregates of
/// strongly connected nodes, a prolongator from the near null space smoothed by one damped
/// Jacobi step, Galerkin coarse matrices R A P by SpGEMM, Chebyshev or Jacobi smoothing, dense LU
/// on the coarsest level (impl/precond/smoothed_aggregation.hpp).
struct SmoothedAggregationOptions {
  /// Unknowns per node (FEM degrees of freedom per grid point, rows p*b .. p*b + b - 1): strength
  /// and aggregation work on nodes, so a node's unknowns stay together. 0: detected from A's
  /// pattern (Sprocket::detect_block_size).
  int block_size = 1;
  /// Near null space (the modes the coarse levels must represent), column-major rows x
  /// near_null_space_columns. Empty: the constant per unknown of a node (block_size columns, the
  /// translations for elasticity); for elasticity the rigid-body modes (rigid_body_modes) make
  /// coarse levels far better.
  std::vector<double> near_null_space;
  int near_null_space_columns = 0;  ///< columns of near_null_space when it is not empty
  /// Node J is a strong neighbour of I when ||A_IJ||_F > strength_threshold sqrt(||A_II||_F
  /// ||A_JJ||_F); weak connections are ignored by the aggregation (0: all stored entries count).
  double strength_threshold = 0.0;
  /// P = (I - (prolongator_damping / lambda_max(D^{-1} A)) D^{-1} A) P_tentative.
  double prolongator_damping = 4.0 / 3.0;
  /// Coarsening stops at a level with at most coarse_size rows (solved by dense LU) or after
  /// max_levels levels (the coarsest must then still fit a dense LU: at most 20000 rows).
  int max_levels = 10;
  int64_t coarse_size = 500;  ///< rows at which coarsening stops (>= 1)
  /// The smoother of every level but the coarsest: Chebyshev or damped Jacobi.
  enum class Smoother { chebyshev, jacobi };
  Smoother smoother = Smoother::chebyshev;  ///< the smoother used
  /// Chebyshev smoother (degree, eig_ratio, power_iterations; lambda_max is estimated per level
  /// by the power method on D^{-1} A_l, also for the Jacobi smoother and the prolongator).
  /// Degree 4 (three applications of A_l per sweep): on gen:poisson3d n=64 and gen:elasticity
  /// n=24 it took 10-25% fewer V-cycles than degree 3 for about the same time to solution.
  ChebyshevOptions chebyshev = ChebyshevOptions{4};
  /// Jacobi smoother: X += (jacobi_damping / lambda_max(D^{-1} A)) D^{-1} (B - A X).
  double jacobi_damping = 4.0 / 3.0;
  /// Smoother applications before and after the coarse correction.
  int smoother_sweeps = 1;
};

/// The rigid-body modes of an elastic body as a near null space: `coordinates` (x, y[, z]) per
/// node, `dimension` 2 or 3 unknowns per node (unknown a of node p is row p * dimension + a).
/// Column-major (nodes * dimension) x 6 (3-D) or x 3 (2-D); set near_null_space_columns to match.
std::vector<double> rigid_body_modes(const std::vector<double>& coordinates, int dimension);

/// Complete sparse factorizations of A - shift I on the host in double (SuiteSparse): Cholesky
/// (CHOLMOD, A symmetric and A - shift I positive definite) or LU with pivoting (UMFPACK, any
/// square A with A - shift I nonsingular). The library chooses the fill-reducing ordering
/// (CHOLMOD: AMD, or METIS when AMD's fill is poor) and the kind of factorization (supernodal or
/// simplicial; UMFPACK's symmetric or unsymmetric strategy). Exact solves (to rounding): as a
/// preconditioner the direct answer, and with shift inside the spectrum the shift-invert operator
/// for eigenvalues near it (LOBPCG on (A - shift I)^{-1}, Which::largest, gives mu = 1 / (lambda
/// - shift)).
struct DirectFactorizationOptions {
  /// sigma of the factored A - sigma I (0: A itself).
  double shift = 0;
};

/// Y = D^{-1} X, D = diag(A) (duplicates summed). Throws InvalidArgument naming the first row
/// whose diagonal is zero, missing or not finite, and for a non-square A.
template <class Scalar, class Device>
class JacobiPreconditioner;
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<JacobiPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_jacobi(const CrsType& A);  ///< builds the Jacobi preconditioner of A, in A's scalar type on A's device

/// Block-Jacobi over b x b diagonal blocks of a CRS matrix cut every `block_size` rows (when b
/// does not divide the rows, the last block is smaller): each block is inverted by LU with partial
/// pivoting (host, double) and the inverses applied on the device. Throws InvalidArgument naming
/// the block and its rows when one is singular, and for block_size < 1 or a non-square A.
template <class Scalar, class Device>
class BlockJacobiPreconditioner;
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<BlockJacobiPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
/// Builds the block-Jacobi preconditioner of A over diagonal blocks of `block_size` rows
make_block_jacobi(const CrsType& A, int block_size);

/// Block-Jacobi over the diagonal blocks of a Sprocket::BsrMatrix (its own block size). A block
/// row without a stored diagonal block counts as singular.
template <class BsrType, std::enable_if_t<is_bsr_matrix_v<BsrType>, int> = 0>
std::shared_ptr<BlockJacobiPreconditioner<typename BsrType::value_type, typename BsrType::device_type>>
make_block_jacobi(const BsrType& A);

/// Chebyshev over a CRS matrix, applied through a Sprocket::SpmmPlan of A (whole blocks at once).
template <class Scalar, class Device>
class ChebyshevPreconditioner;
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<ChebyshevPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
/// Builds the Chebyshev preconditioner of A with `options`
make_chebyshev(const CrsType& A, const ChebyshevOptions& options = {});

/// Chebyshev over any operator (SpMM plan, BSR plan, ...) with the diagonal of A given as a
/// rank-1 View on the operator's device (an empty View, or jacobi_scaling = false: no scaling).
template <class Scalar, class Device, class DiagonalView>
std::shared_ptr<ChebyshevPreconditioner<Scalar, Device>> make_chebyshev(
    std::shared_ptr<MultiVectorOperator<Scalar, Device>> A, const DiagonalView& diagonal,
    const ChebyshevOptions& options = {});

/// The same over what make_operator(plan) returns (a std::shared_ptr<PlanOperator<Plan>>, which
/// the overload above cannot deduce from).
template <class Plan, class DiagonalView>
std::shared_ptr<ChebyshevPreconditioner<typename Plan::scalar_type, typename Plan::device_type>> make_chebyshev(
    std::shared_ptr<PlanOperator<Plan>> A, const DiagonalView& diagonal, const ChebyshevOptions& options = {}) {
  using Operator = MultiVectorOperator<typename Plan::scalar_type, typename Plan::device_type>;
  return make_chebyshev(std::shared_ptr<Operator>(std::move(A)), diagonal, options);
}

/// Incomplete Cholesky of a CRS matrix (host factorization; triangular solves on the host or
/// level-scheduled on the device, see impl/precond/incomplete_cholesky.hpp). Throws InvalidArgument when A is not square, not
/// symmetric (naming the pair of entries), has a diagonal entry that is not positive (naming the
/// row), or breaks down at every shift.
template <class Scalar, class Device>
class IncompleteCholeskyPreconditioner;
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<IncompleteCholeskyPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
/// Builds the incomplete Cholesky preconditioner of an SPD A
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

template <class Scalar, class Device>
class SmoothedAggregationPreconditioner;

/// Smoothed-aggregation AMG of a square CRS matrix (setup: aggregation on the host, Galerkin
/// products by SpgemmPlan on A's device; V-cycle on the device). update_values(A) re-runs the
/// numeric products for new values on the same pattern. Throws InvalidArgument for a non-square
/// A, bad options, a zero diagonal entry on any level (naming the row), or a singular coarsest
/// matrix.
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<SmoothedAggregationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_smoothed_aggregation(const CrsType& A, const SmoothedAggregationOptions& options = {});

template <class Scalar, class Device>
class DirectFactorizationPreconditioner;

/// Cholesky of a symmetric CRS matrix shifted: Y = (A - sigma I)^{-1} X by CHOLMOD
/// (impl/precond/direct_factorization_preconditioner.hpp; float or double, factored in double on
/// the host, X and Y copied through host mirrors on a GPU). update_values(A) refactors new values
/// on the same pattern without the symbolic analysis. Throws InvalidArgument when A is not
/// square, not symmetric (naming the pair of entries), or A - sigma I is not positive definite
/// (naming the column of A where the factorization stopped); ResourceError when CHOLMOD runs out
/// of memory.
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<DirectFactorizationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_cholesky(const CrsType& A, const DirectFactorizationOptions& options = {});

/// LU with pivoting of a square CRS matrix shifted: Y = (A - sigma I)^{-1} X by UMFPACK, as
/// make_cholesky otherwise. Throws InvalidArgument when A is not square or A - sigma I is singular
/// (with UMFPACK's status); ResourceError when UMFPACK runs out of memory.
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
std::shared_ptr<DirectFactorizationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_lu(const CrsType& A, const DirectFactorizationOptions& options = {});

}  // namespace Sprocket

#include "impl/precond/block_jacobi.hpp"
#include "impl/precond/direct_factorization_preconditioner.hpp"
#include "impl/precond/chebyshev.hpp"
#include "impl/precond/incomplete_cholesky.hpp"
#include "impl/precond/incomplete_lu.hpp"
#include "impl/precond/jacobi.hpp"
#include "impl/precond/smoothed_aggregation.hpp"
