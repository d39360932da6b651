#pragma once
/// \file Sprocket_BlockGmres.hpp
/// Restarted block GMRES for A X = B with several right-hand sides.
///
///   auto A = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(crs));
///   auto M = Sprocket::make_jacobi(crs);                         // optional, right preconditioning
///   Sprocket::BlockGmresOptions opts;  opts.block_size = 4;  opts.tol = 1e-8;
///   auto result = Sprocket::block_gmres(*A, B, X, opts, M.get()); // X: initial guess in, solution out
///   if (result.status != Sprocket::SolverStatus::converged) std::cerr << result.message;
///
/// The right-hand sides are solved in groups of `block_size` columns (0: all at once). For a
/// group, each restart cycle
///   1. computes the true residual R = B - A X of the columns not yet converged (a column whose
///      ||b - Ax|| / ||b|| <= tol leaves the block: converged directions are dropped);
///   2. orthonormalizes R with deflation: a column that is a combination of the others to
///      rounding (duplicate or dependent right-hand sides: a remainder below about 1000 eps of
///      its residual or of ||b||) adds no basis vector, its right-hand side is still solved
///      through the others'; independent right-hand sides keep their directions;
///   3. runs up to `restart` block Arnoldi steps W = A M^{-1} V_j, the whole block through one
///      operator apply, orthogonalized against the basis by two passes of block classical
///      Gram-Schmidt (a third when a pass cancels more than half a column) and inside the block
///      by Cholesky QR (twice) when the block is well conditioned, column by column with
///      re-orthogonalization otherwise; a direction whose remainder is rounding (below 10 eps
///      of its norm) is dropped (exact breakdown of that direction: the block shrinks instead
///      of dividing by ~0);
///   4. solves the least-squares problem of every column with one Householder QR of the block
///      Hessenberg matrix (host, LAPACK), updated per step, which gives each column's residual
///      estimate for free; the cycle ends when every estimate meets the tolerance, the block
///      vanishes (invariant subspace) or `restart` steps are done;
///   5. updates X += M^{-1} V Y.
/// Convergence is always decided on the true residual: an estimate that met the tolerance
/// while the true residual did not makes the next cycle aim lower.
///
/// Statuses: converged (every column's true relative residual <= tol; a zero right-hand side
/// gives x = 0 with residual 0, an exact initial guess converges at iteration 0);
/// max_iterations (`max_iterations` block steps in a group); stagnation (three cycles in a row
/// improved no column's true residual by 0.01%); breakdown (A M^{-1} is numerically singular
/// on the Krylov space and the solve cannot progress, or the operator produced NaN/Inf);
/// invalid_input (NaN/Inf in B or in the initial guess). Bad arguments (shapes, options) throw
/// InvalidArgument. Reported numbers are never NaN for a converged solve.
///
/// Long vectors (the basis, X, B) stay on the Device; the small dense work (Hessenberg QR,
/// coefficient blocks) runs on the host in double.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_SolverCommon.hpp"

namespace Sprocket {
/// Options of block_gmres: block size, restart length, iteration limit, tolerance, callback.
struct BlockGmresOptions {
  /// s: right-hand sides solved together; 0 = all in one block, else groups of s columns.
  int block_size = 0;
  /// m: block Arnoldi steps per restart cycle (>= 1).
  int restart = 30;
  /// Block Arnoldi steps allowed for each group of right-hand sides, over all its cycles.
  int max_iterations = 1000;
  /// Target of ||b - A x|| / ||b|| for every column (> 0).
  double tol = 1e-8;
  /// Called after every block Arnoldi step.
  SolverCallback on_iteration;
  /// Replace X by random values in [-1, 1) (hashed from a fixed seed: reproducible) before
  /// solving, instead of using it as the initial guess.
  bool random_initial_guess = false;
  /// Small problems on one thread: on a host space with several threads (Kokkos::OpenMP), a
  /// solve with n * s below this (n rows, s the block size actually used) runs wholly on the
  /// calling thread (operator, preconditioner, block kernels), where every parallel region would
  /// cost a thread barrier (and, on a loaded machine, a scheduler time slice). 0: never. The
  /// result is the same up to rounding. Default: the crossover of one against two threads on an
  /// idle 2-core machine, n * s between 2300 and 4000 (perf_tests/results/block-ops-2026-11-26.md:
  /// equal at 576 x 4, two threads 1.33x faster at 1024 x 4). On a loaded machine one thread
  /// wins far beyond it, so raise it where other work shares the cores.
  int64_t single_thread_below = 2048;
};
/// What block_gmres returns: how the solve ended, step and cycle counts, residuals, timings.
struct BlockGmresResult {
  /// How the solve ended; with several groups, the status of the first group that failed
  SolverStatus status = SolverStatus::converged;
  /// Block Arnoldi steps, summed over the groups of right-hand sides.
  int iterations = 0;
  /// Restart cycles, summed over the groups: a cycle ends after `restart` steps or earlier (an
  /// estimate that met the tolerance, an invariant subspace), so there can be more than
  /// iterations / restart of them.
  int cycles = 0;
  /// True relative residual ||b - A x|| / ||b|| of every column, recomputed from the returned
  /// X at the end (0 for a zero right-hand side).
  std::vector<double> residuals;
  /// One entry per block Arnoldi step: every column's relative residual as known then (the
  /// least-squares estimate for the columns being iterated, the last true residual for the
  /// others).
  std::vector<std::vector<double>> history;
  SolverTimings timings;  ///< wall-clock split of the solve, in seconds
  std::string message;  ///< how the solve ended, in words (the failing groups and why)
  /// Directions that added no basis vector (deflation), counted by the solver as it drops them:
  /// dependent or negligible residual columns at a restart and vanishing directions of Arnoldi
  /// blocks (diagnostics).
  int64_t deflated_directions = 0;
  /// The solve ran on the calling thread alone (BlockGmresOptions::single_thread_below).
  bool single_thread = false;
};

/// Solves A X = B by restarted block GMRES with optional right preconditioning
/// (A M^{-1} U = B, X = M^{-1} U). B and X are n x p, A (and M) n x n. Scalar and Device come
/// from A; B and X convert from any compatible View.
template <class Scalar, class Device>
BlockGmresResult block_gmres(
    const MultiVectorOperator<Scalar, Device>& A,
    const typename Impl::NonDeduced<Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>>::type& B,
    const typename Impl::NonDeduced<Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>>::type& X,
    const BlockGmresOptions& options = {},
    const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* M = nullptr);

/// The same, with every kernel queued on the execution-space instance `space` and only that
/// instance fenced (the operators are applied through their execution-space overload).
template <class Scalar, class Device>
BlockGmresResult block_gmres(
    const typename Device::execution_space& space, const MultiVectorOperator<Scalar, Device>& A,
    const typename Impl::NonDeduced<Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>>::type& B,
    const typename Impl::NonDeduced<Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>>::type& X,
    const BlockGmresOptions& options = {},
    const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* M = nullptr);

}  // namespace Sprocket

#include "impl/solvers/block_gmres.hpp"
