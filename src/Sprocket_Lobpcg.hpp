#pragma once
/// \file Sprocket_Lobpcg.hpp
/// LOBPCG (Knyazev's locally optimal block preconditioned conjugate gradient) for a few of the
/// smallest or largest eigenpairs of a symmetric operator A, or of the pencil (A, M) with M
/// symmetric positive definite:  A x = lambda M x.
///
///   auto A = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(crs));
///   auto T = Sprocket::make_jacobi(crs);                        // optional preconditioner ~ A^{-1}
///   Kokkos::View<double**, Kokkos::LayoutLeft, Device> X("X", n, 5);   // zero: random start
///   Sprocket::LobpcgOptions opt;
///   opt.nev = 5;
///   auto result = Sprocket::lobpcg(*A, X, opt, T.get());
///   if (result.status == Sprocket::SolverStatus::converged) use(result.eigenvalues, X);
///
/// Each iteration spans the block basis [X P W]: X the current Ritz vectors, W = T R the
/// preconditioned residuals R = A X - M X Lambda of the pairs not yet converged, P the previous
/// update directions, and takes the best m Ritz pairs of A in that space (Rayleigh-Ritz, solved
/// on the host by LAPACK dsygv). What keeps it from failing where other implementations do
/// (Cholesky of an ill-conditioned Gram matrix: SciPy, IterativeSolvers.jl, Anasazi) is that the
/// basis is kept M-orthonormal, so the Gram matrix of the Rayleigh-Ritz step is the identity up
/// to rounding:
///  - W is projected out of [X P] and orthonormalized by SVQB twice, dropping directions that are
///    numerically dependent instead of dividing by them;
///  - P is formed in the small space orthogonal to the new X (Hetmaniuk and Lehoucq), so [X P]
///    needs no n-long orthogonalization;
///  - if the Gram matrix still drifts from the identity, the small solve fails or W vanishes
///    against [X P], P is dropped for that iteration (a restart, counted in
///    LobpcgResult::restarts), and if that is not enough X is re-orthonormalized from its
///    explicit products.
/// Soft locking: pairs whose residual meets the tolerance stay in X (and in every Rayleigh-Ritz
/// step) but contribute no W and P columns. Convergence is declared only after A X (and M X) are
/// recomputed explicitly and the residuals checked again; NaN never passes a check.
///
/// Scalar float or double on any Kokkos device: the n-long blocks live on the device (Sprocket's
/// own block kernels, double accumulation), the small dense work is on the host in double.
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_SolverCommon.hpp"

namespace Sprocket {

/// Which end of the spectrum: algebraically smallest or largest eigenvalues.
enum class Which { smallest, largest };
/// Options of lobpcg: how many eigenpairs and from which end, tolerance, limits, block size.
struct LobpcgOptions {
  /// Number of eigenpairs wanted: 1 <= nev, and 3 * block size <= n (the basis [X P W] must fit).
  int nev = 1;
  Which which = Which::smallest;  ///< which end of the spectrum the wanted eigenvalues come from
  /// Relative residual ||A x - lambda M x|| / (|lambda| ||x||) each wanted pair must reach (2-norms).
  /// |lambda| below sqrt(eps) * ||A||_est (eps of Scalar, ||A||_est the largest |Ritz value| seen)
  /// is numerically zero and is replaced by that floor, so a zero eigenvalue gives no division
  /// by zero. Must be positive.
  double tol = 1e-8;
  /// Iterations at most (0: only the Rayleigh-Ritz step on the initial block).
  int max_iterations = 500;
  /// Columns of X iterated, nev <= block_size. 0: nev plus guard vectors (below), which speed up
  /// convergence of the last wanted pairs when the spectrum is clustered (as it usually is).
  /// Guard pairs need not converge. Default: nev + max(2, nev / 2), reduced so 3 * block <= n.
  int block_size = 0;
  /// Seed of the random initial block (columns not given in X, guard columns).
  unsigned seed = 0;
  /// Called after every iteration with the worst relative residual of the unconverged wanted
  /// pairs and how many wanted pairs have converged.
  SolverCallback on_iteration;
  /// Small problems on one thread: on a host space with several threads (Kokkos::OpenMP), a
  /// solve with n * block_size below this (the block size actually iterated) runs wholly on the
  /// calling thread (A, M, T and the block kernels), where every parallel region would cost a
  /// thread barrier (and, on a loaded machine, a scheduler time slice). 0: never. The result is
  /// the same up to rounding. Default: the crossover of one against two threads on an idle 2-core
  /// machine, n * block between 3500 and 6000 (perf_tests/results/block-ops-2026-11-26.md: one
  /// thread 1.27x faster at 576 x 6, equal at 1024 x 6, two threads 1.18x faster at 2304 x 6).
  /// On a loaded machine one thread wins far beyond it, so raise it where other work shares the
  /// cores.
  int64_t single_thread_below = 4096;
};
/// What lobpcg returns: how it ended, eigenvalues, residuals, history and timings.
struct LobpcgResult {
  SolverStatus status = SolverStatus::max_iterations;  ///< how the solve ended (see lobpcg)
  int iterations = 0;  ///< iterations run
  /// The nev Ritz values, most wanted first: ascending for Which::smallest, descending for
  /// Which::largest. Filled whatever the status (the best approximations found).
  std::vector<double> eigenvalues;
  /// Relative residual of each pair, recomputed from explicit A x and M x at the end.
  std::vector<double> residuals;
  /// Per iteration: the relative residual of each wanted pair after that iteration.
  std::vector<std::vector<double>> history;
  /// setup: allocation and preparation of the initial block, without its operator applies;
  /// operator_apply: every apply of A and M; preconditioner: applies of T; orthogonalization:
  /// everything else inside the iterations (inner products, block updates, the small dense
  /// eigenproblems, residuals); total: the whole call.
  SolverTimings timings;
  /// How it ended, in words (why it stopped, worst residual, restarts, repaired initial columns).
  std::string message;
  /// Times P was dropped because the basis lost orthogonality or the small eigensolve failed.
  int restarts = 0;
  /// The solve ran on the calling thread alone (LobpcgOptions::single_thread_below).
  bool single_thread = false;
};

/// Computes options.nev eigenpairs of A x = lambda x (M == nullptr) or A x = lambda M x.
///
/// A must be symmetric (M symmetric positive definite); neither is checked beyond what the
/// iteration notices. T, when given, must be symmetric positive definite and should approximate
/// (A - sigma M)^{-1} for sigma below the wanted eigenvalues, i.e. A^{-1} for the smallest of an
/// SPD A (Jacobi, block-Jacobi, Chebyshev, incomplete Cholesky, later AMG). For a badly
/// conditioned A only a T close to A^{-1} helps: make_incomplete_cholesky(A) (drop tolerance 1e-4)
/// takes the smallest of bcsstk13 (condition 1e10) to 1e-8 in about 100 iterations, where Jacobi
/// needs many thousands. For Which::largest an A^{-1}-like T points at the wrong end of the
/// spectrum and slows convergence badly (Jacobi on a matrix with a widely varying diagonal: no
/// convergence in thousands of iterations); pass none, or an approximation of
/// (sigma M - A)^{-1} with sigma just above the largest eigenvalue (incomplete Cholesky of
/// sigma I - A: a cheap shift-and-invert of the top, 3-10x fewer iterations on the shared matrices).
///
/// Convergence takes roughly sqrt(1 / gap) iterations per digit, gap the distance between the
/// last wanted eigenvalue and eigenvalue block_size + 1 relative to the spread of T A's spectrum:
/// tight clusters at the cut of the block and ill-conditioned A without a good T need thousands
/// of iterations (they end with max_iterations, not with a wrong answer), a larger block_size or
/// a better T helps.
///
/// X: n x nev. On entry, the initial guess (columns that are zero or linearly dependent on the
/// others, and an all-zero X, are replaced by random vectors from options.seed); an X with
/// extent(1) == 0 means "start from random and do not return eigenvectors". On return, the
/// M-orthonormal Ritz vectors, in the order of LobpcgResult::eigenvalues (the best
/// approximations when not converged).
///
/// Status: converged when every wanted pair meets tol on explicitly recomputed residuals;
/// max_iterations when the limit came first; breakdown when the iteration cannot continue (A, M
/// or T produced NaN/Inf, M is not positive definite, the basis could not be repaired);
/// invalid_input when X holds NaN/Inf. The message says which.
///
/// Throws InvalidArgument for a non-square A, M or T of another size, nev < 1, a block size
/// below nev or with 3 * block size > n, tol <= 0, max_iterations < 0, X of the wrong shape.
///
/// Scalar and Device are deduced from A alone, so X may be any View convertible to
/// Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device> and T, M may be nullptr or pointers to
/// derived operators.
template <class Scalar, class Device>
LobpcgResult lobpcg(const MultiVectorOperator<Scalar, Device>& A,
                    const typename MultiVectorOperator<Scalar, Device>::multivector& X,
                    const LobpcgOptions& options = {},
                    const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* T = nullptr,
                    const typename Impl::NonDeduced<MultiVectorOperator<Scalar, Device>>::type* M = nullptr);

/// The same, with every kernel queued on the execution-space instance `space` and only that
/// instance fenced (A, T and M are applied through their execution-space overload).
template <class Scalar, class Device>
LobpcgResult lobpcg(const typename Device::execution_space& space, const MultiVectorOperator<Scalar, Device>& A,
                    const typename MultiVectorOperator<Scalar, Device>::multivector& X,
                    const LobpcgOptions& options = {},
                    const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* T = nullptr,
                    const typename Impl::NonDeduced<MultiVectorOperator<Scalar, Device>>::type* M = nullptr);

}  // namespace Sprocket

#include "impl/solvers/lobpcg_impl.hpp"
