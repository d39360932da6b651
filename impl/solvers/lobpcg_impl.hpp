#pragma once
/// \file lobpcg_impl.hpp
/// The LOBPCG iteration behind Sprocket::lobpcg (src/Sprocket_Lobpcg.hpp).
///
/// Storage: three n x 3m blocks S, AS = A S and MS = M S (MS is S itself when M is the
/// identity) hold the basis [X | P | W] side by side: X in columns [0, m), P in [m, m + np), W in
/// [m + np, m + np + nw). AS and MS are kept in step with S by applying the same small
/// coefficient matrices (implicit products), so one iteration applies A, M and T only to the new
/// W columns. Implicit products drift by rounding; they are recomputed explicitly every
/// refresh_interval iterations and before convergence is declared.
///
/// One iteration, with R = AX - MX Lambda already known for the current X:
///  1. active = pairs whose relative residual exceeds tol (soft locking: the others stay in X);
///  2. W = T R(:, active), projected out of [X P] and SVQB-orthonormalized, twice (the first M W
///     explicit, the second updated; without M the second round is skipped when the first one
///     provably sufficed); then AW = A W;
///  3. Rayleigh-Ritz on [X P W]: GA = S^T AS, GM = S^T MS (GM is the identity up to rounding);
///     if GM is not close to the identity or dsygv fails, retry without P, then rebuild X;
///  4. new X = S Cx (the m wanted Ritz vectors), new P = S Y with Y the W and P parts of the
///     active Ritz vectors made GM-orthonormal and GM-orthogonal to Cx in the small space;
///  5. new residuals.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_SolverCommon.hpp"
#include "impl/common/workspace_memory.hpp"
#include "impl/solvers/lobpcg_dense.hpp"
#include "impl/solvers/lobpcg_kernels.hpp"
#include "impl/solvers/solver_threads.hpp"

namespace Sprocket {
namespace Impl {
namespace lobpcg {

using blocks::all_finite;
using blocks::column_dots;
using blocks::combine;
using blocks::combine_gram;
using blocks::distance_from_identity;
using blocks::fill_random;
using blocks::first_nonfinite_column;
using blocks::gather_columns;
using blocks::gram;
using blocks::principal_submatrix;
using blocks::symmetric_definite_eigen;

/// The block size LOBPCG iterates for these options on an n x n operator (validated).
inline int block_size_for(const LobpcgOptions& options, int64_t n) {
  SPROCKET_REQUIRE(options.nev >= 1, "lobpcg: nev must be at least 1 (got ", options.nev, ")");
  SPROCKET_REQUIRE(int64_t{3} * options.nev <= n, "lobpcg: nev = ", options.nev, " is too large for n = ", n,
                   ": the basis [X P W] needs 3 * nev <= n (use a dense eigensolver for so few rows)");
  if (options.block_size != 0) {
    SPROCKET_REQUIRE(options.block_size >= options.nev, "lobpcg: block_size = ", options.block_size,
                     " must be 0 (automatic) or at least nev = ", options.nev);
    SPROCKET_REQUIRE(int64_t{3} * options.block_size <= n, "lobpcg: block_size = ", options.block_size,
                     " is too large for n = ", n, ": the basis [X P W] needs 3 * block_size <= n");
    return options.block_size;
  }
  const int guard = std::max(2, options.nev / 2);
  return static_cast<int>(std::min<int64_t>(int64_t{options.nev} + guard, n / 3));
}

template <class Scalar, class Device>
class Solver {
 public:
  using Operator = MultiVectorOperator<Scalar, Device>;
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using ConstMV = Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>;
  using ExecSpace = typename Device::execution_space;
  using Clock = std::chrono::steady_clock;

  /// Explicit A X and M X every this many iterations, so implicit products cannot drift far.
  static constexpr int refresh_interval = 50;
  /// Consecutive rebuilds of X (step 3's last resort) after which the iteration gives up.
  static constexpr int max_consecutive_rebuilds = 3;

  Solver(const ExecSpace& space, const Operator& A, const Operator* M, const Operator* T, const LobpcgOptions& options,
         int64_t n, int m)
      : space_(space),
        A_(A), M_(M), T_(T), options_(options), n_(n), m_(m), k_(options.nev) {
    const double eps = std::numeric_limits<Scalar>::epsilon();
    // SVQB keeps directions down to a singular value ratio of about 10 sqrt(eps): beyond that a
    // direction is mostly rounding noise (the second orthogonalization round cleans what passes).
    drop_ratio_ = 100 * eps;
    // A Gram matrix this close to the identity is perfectly conditioned for dsygv; a basis
    // further off has lost orthogonality (normal drift is orders of magnitude smaller).
    gram_tolerance_ = 10 * std::sqrt(eps);
    // An initial block is accepted as M-orthonormal at this distance from the identity.
    orthonormal_tolerance_ = 1000 * eps;
    zero_floor_ = std::sqrt(eps);
  }

  LobpcgResult run(const MV& X_user);

 private:
  MV cols(const MV& V, int begin, int end) const {
    return Kokkos::subview(V, Kokkos::ALL, std::make_pair(begin, end));
  }
  MV X() const { return cols(S_, 0, m_); }
  MV AX() const { return cols(AS_, 0, m_); }
  MV MX() const { return cols(MS_, 0, m_); }

  double seconds_since(Clock::time_point start) const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  void apply_A(const MV& in, const MV& out) {
    const auto start = Clock::now();
    A_.apply(space_, ConstMV(in), out);
    space_.fence();
    result_.timings.operator_apply += seconds_since(start);
  }
  /// out = M in; only called when M is given.
  void apply_M(const MV& in, const MV& out) {
    const auto start = Clock::now();
    M_->apply(space_, ConstMV(in), out);
    space_.fence();
    result_.timings.operator_apply += seconds_since(start);
  }
  void apply_T(const MV& in, const MV& out) {
    const auto start = Clock::now();
    T_->apply(space_, ConstMV(in), out);
    space_.fence();
    result_.timings.preconditioner += seconds_since(start);
  }

  /// V(:, dst .. dst + C.cols) = V(:, src .. src + C.rows) C; the ranges may overlap (in place on
  /// the host, through the work block on a device).
  void transform_columns(const MV& V, int src, const DenseMatrix& C, int dst) {
    if (C.cols == 0) return;
    const MV in = cols(V, src, src + C.rows);
    if constexpr (Workspace<Device>::on_host) {
      combine(ws_, 1.0, in, C, 0.0, cols(V, dst, dst + C.cols));
    } else {
      const MV out = cols(work_, 0, C.cols);
      combine(ws_, 1.0, in, C, 0.0, out);
      Kokkos::deep_copy(space_, cols(V, dst, dst + C.cols), out);
    }
  }
  /// The same transform on S, AS (when with_A) and MS (when M is given).
  void transform_basis(int src, const DenseMatrix& C, int dst, bool with_A) {
    transform_columns(S_, src, C, dst);
    if (with_A) transform_columns(AS_, src, C, dst);
    if (M_) transform_columns(MS_, src, C, dst);
  }

  /// Indices of the `count` wanted Ritz values among theta (ascending): the first ones for the
  /// smallest end, the last ones (largest first) for the largest.
  std::vector<int> wanted(const std::vector<double>& theta, int count) const {
    std::vector<int> order(count);
    const int s = static_cast<int>(theta.size());
    for (int i = 0; i < count; ++i) order[i] = options_.which == Which::smallest ? i : s - 1 - i;
    return order;
  }

  void note_norm_estimate(const std::vector<double>& theta) {
    for (double t : theta)
      if (std::isfinite(t)) norm_estimate_ = std::max(norm_estimate_, std::fabs(t));
  }

  /// M-orthonormalizes X by SVQB passes, replacing dependent or zero columns by random ones;
  /// leaves MX = M X explicit. False when no M-orthonormal block can be built (M not positive
  /// definite, NaN from M).
  bool orthonormalize_X() {
    for (int pass = 0; pass < 6; ++pass) {
      if (M_) apply_M(X(), MX());
      const DenseMatrix G = gram(ws_, X(), MX(), true);
      if (!all_finite(G)) return false;
      if (distance_from_identity(G) <= orthonormal_tolerance_) return true;
      const DenseMatrix T = orthonormalizing_transform(G, drop_ratio_);
      transform_columns(S_, 0, T, 0);
      if (T.cols < m_) {
        fill_random(space_, cols(S_, T.cols, m_), random_stream(++random_draws_));
        replaced_columns_ += m_ - T.cols;
      }
    }
    return false;
  }

  uint64_t random_stream(uint64_t draw) const {
    return (uint64_t{options_.seed} + 1) * 0xD1B54A32D192ED03ull + draw * 0x9E3779B97F4A7C15ull;
  }

  /// Rayleigh-Ritz on X alone from AX and MX: rotates X, AX, MX to the Ritz vectors (sorted most
  /// wanted first) and sets lambda_. False when the small problem fails.
  bool rayleigh_ritz_X() {
    const DenseMatrix GA = gram(ws_, X(), AX(), true);
    const DenseMatrix GM = gram(ws_, X(), MX(), true);
    std::vector<double> theta;
    DenseMatrix C;
    if (!all_finite(GA) || !all_finite(GM) || !symmetric_definite_eigen(GA, GM, theta, C)) return false;
    note_norm_estimate(theta);
    const std::vector<int> order = wanted(theta, m_);
    DenseMatrix Cx(m_, m_);
    lambda_.assign(m_, 0.0);
    for (int c = 0; c < m_; ++c) {
      lambda_[c] = theta[order[c]];
      for (int i = 0; i < m_; ++i) Cx(i, c) = C(i, order[c]);
    }
    transform_basis(0, Cx, 0, true);
    return true;
  }

  /// R = AX - MX Lambda and the relative residuals of all m pairs.
  void compute_residuals() {
    const std::vector<double> norms = residuals_and_norms(ws_, X(), AX(), MX(), lambda_, R_);
    relres_.assign(m_, 0.0);
    const double floor = zero_floor_ * norm_estimate_;
    for (int j = 0; j < m_; ++j) {
      const double scale = std::max(std::fabs(lambda_[j]), floor) * std::sqrt(norms[m_ + j]);
      const double r = std::sqrt(norms[j]);
      relres_[j] = scale > 0 ? r / scale : (r == 0 ? 0.0 : std::numeric_limits<double>::infinity());
      if (!std::isfinite(lambda_[j])) relres_[j] = std::numeric_limits<double>::quiet_NaN();
    }
  }

  /// Explicit A X (and M X), Rayleigh-Ritz on X, residuals: what convergence is judged on.
  bool refresh_explicit() {
    if (M_) apply_M(X(), MX());
    apply_A(X(), AX());
    if (!rayleigh_ritz_X()) return false;
    compute_residuals();
    return true;
  }

  bool wanted_converged() const {
    for (int j = 0; j < k_; ++j)
      if (!(relres_[j] <= options_.tol)) return false;
    return true;
  }
  bool residuals_finite() const {
    for (int j = 0; j < m_; ++j)
      if (std::isnan(relres_[j])) return false;
    return true;
  }

  /// Projects W = S(:, wb .. wb + na) out of Q = S(:, 0 .. wb) and SVQB-orthonormalizes it, two
  /// rounds; returns the number of W columns left (their MW in MS when M is given).
  int orthogonalize_W(int wb, int na) {
    const MV Q = cols(S_, 0, wb);
    const MV MQ = cols(MS_, 0, wb);
    int width = na;
    for (int round = 0; round < 2; ++round) {
      const MV W = cols(S_, wb, wb + width);
      const MV MW = cols(MS_, wb, wb + width);
      // Without M, lengths before the projection tell whether one round is enough (below).
      std::vector<double> before;
      DenseMatrix C, G;
      if (M_) {
        C = gram(ws_, MQ, W, false);
        for (double& c : C.data) c = -c;
        combine(ws_, 1.0, Q, C, 1.0, W);
        if (round == 0)
          apply_M(W, MW);
        else
          combine(ws_, 1.0, MQ, C, 1.0, MW);
        G = gram(ws_, W, MW, true);
      } else {
        // One product gives Q^T W and W^T W (W sits right after Q in S), and the update of W
        // and its Gram matrix are one more pass (one parallel region each on the host).
        const DenseMatrix T = gram(ws_, cols(S_, 0, wb + width), W, false);
        C = DenseMatrix(wb, width);
        for (int j = 0; j < width; ++j)
          for (int a = 0; a < wb; ++a) C(a, j) = -T(a, j);
        if (round == 0)
          for (int j = 0; j < width; ++j) before.push_back(T(wb + j, j));
        G = combine_gram(ws_, 1.0, Q, C, 1.0, W);
      }
      if (!all_finite(G)) return -1;
      double conditioning = 0;
      const DenseMatrix T = orthonormalizing_transform(G, drop_ratio_, &conditioning);
      if (T.cols == 0) return 0;
      transform_columns(S_, wb, T, wb);
      if (M_) transform_columns(MS_, wb, T, wb);
      // One round is enough when no column lost more than 30% of its length to the projection
      // (what is left of Q in it is then of the order eps, the Daniel-Gragg-Kaufman-Stewart
      // criterion) and SVQB kept every column of a well-conditioned block (its error is of the
      // order eps / conditioning).
      bool one_round_enough = !before.empty() && T.cols == width && conditioning >= 1e-4;
      for (int j = 0; one_round_enough && j < width; ++j) one_round_enough = G(j, j) >= 0.5 * before[j];
      width = T.cols;
      if (one_round_enough) break;
    }
    return width;
  }

  enum class StepOutcome { ok, rebuilt, breakdown };

  /// Last resort when the basis cannot be used: drop P and W, rebuild X from its explicit
  /// products.
  StepOutcome rebuild_X(const std::string& why) {
    if (np_ > 0) ++result_.restarts;
    np_ = 0;
    if (++consecutive_rebuilds_ > max_consecutive_rebuilds) {
      breakdown_message_ = "no progress after " + std::to_string(max_consecutive_rebuilds) +
                           " rebuilds of X in a row (" + why + ")";
      return StepOutcome::breakdown;
    }
    if (!orthonormalize_X()) {
      breakdown_message_ = "X could not be M-orthonormalized (" + why + "); is M positive definite?";
      return StepOutcome::breakdown;
    }
    apply_A(X(), AX());
    if (!rayleigh_ritz_X()) {
      breakdown_message_ = "the Rayleigh-Ritz problem on X failed (" + why + ")";
      return StepOutcome::breakdown;
    }
    compute_residuals();
    return StepOutcome::rebuilt;
  }

  /// One LOBPCG iteration (steps 1-5 of the file comment).
  StepOutcome step() {
    std::vector<int> active;
    for (int j = 0; j < m_; ++j)
      if (!(relres_[j] <= options_.tol)) active.push_back(j);
    const int na = static_cast<int>(active.size());

    int wb = 0, nw = 0;
    for (;;) {
      wb = m_ + np_;
      const MV W = cols(S_, wb, wb + na);
      if (T_) {
        const MV gathered = cols(work_, 0, na);
        gather_columns(ws_, R_, active, gathered);
        apply_T(gathered, W);
      } else {
        gather_columns(ws_, R_, active, W);
      }
      nw = orthogonalize_W(wb, na);
      if (nw < 0) {
        breakdown_message_ = "NaN or Inf in the preconditioned residuals (from A, M or the preconditioner)";
        return StepOutcome::breakdown;
      }
      if (nw > 0) break;
      if (np_ == 0) return rebuild_X("the preconditioned residuals lie in the span of X");
      np_ = 0;  // W vanished against [X P]: try again against X alone
      ++result_.restarts;
    }
    apply_A(cols(S_, wb, wb + nw), cols(AS_, wb, wb + nw));

    const int s = wb + nw;
    const DenseMatrix GA = gram(ws_, cols(S_, 0, s), cols(AS_, 0, s), true);
    const DenseMatrix GM = gram(ws_, cols(S_, 0, s), cols(MS_, 0, s), true);
    if (!all_finite(GA) || !all_finite(GM)) {
      breakdown_message_ = "NaN or Inf in the Rayleigh-Ritz matrices (A, M or the preconditioner produced them)";
      return StepOutcome::breakdown;
    }
    std::vector<std::vector<int>> candidates;
    std::vector<int> full(s);
    for (int i = 0; i < s; ++i) full[i] = i;
    candidates.push_back(full);
    if (np_ > 0) {
      std::vector<int> without_p;
      for (int i = 0; i < s; ++i)
        if (i < m_ || i >= wb) without_p.push_back(i);
      candidates.push_back(without_p);
    }
    std::vector<double> theta;
    DenseMatrix C, GMb;
    const std::vector<int>* basis = nullptr;
    for (const auto& candidate : candidates) {
      GMb = principal_submatrix(GM, candidate);
      if (distance_from_identity(GMb) > gram_tolerance_) continue;
      if (!symmetric_definite_eigen(principal_submatrix(GA, candidate), GMb, theta, C)) continue;
      basis = &candidate;
      break;
    }
    if (!basis) return rebuild_X("the Gram matrix of [X W] is far from the identity");
    if (basis->size() < full.size()) ++result_.restarts;
    consecutive_rebuilds_ = 0;
    note_norm_estimate(theta);

    const int sb = static_cast<int>(basis->size());
    const std::vector<int> order = wanted(theta, m_);
    DenseMatrix Cx(sb, m_);
    for (int c = 0; c < m_; ++c)
      for (int i = 0; i < sb; ++i) Cx(i, c) = C(i, order[c]);
    const DenseMatrix Y = conjugate_direction_coefficients(GMb, Cx, m_, active, drop_ratio_);
    // Coefficients of [new X | new P] on the full basis (zero rows for a dropped P).
    DenseMatrix coeff(s, m_ + Y.cols);
    for (int i = 0; i < sb; ++i) {
      for (int c = 0; c < m_; ++c) coeff((*basis)[i], c) = Cx(i, c);
      for (int c = 0; c < Y.cols; ++c) coeff((*basis)[i], m_ + c) = Y(i, c);
    }
    transform_basis(0, coeff, 0, true);
    np_ = Y.cols;
    lambda_.assign(m_, 0.0);
    for (int c = 0; c < m_; ++c) lambda_[c] = theta[order[c]];
    compute_residuals();
    return StepOutcome::ok;
  }

  std::vector<double> wanted_residuals() const { return std::vector<double>(relres_.begin(), relres_.begin() + k_); }

  ExecSpace space_;
  const Operator& A_;
  const Operator* M_;
  const Operator* T_;
  LobpcgOptions options_;
  int64_t n_;
  int m_, k_;
  double drop_ratio_ = 0, gram_tolerance_ = 0, orthonormal_tolerance_ = 0, zero_floor_ = 0;

  MV S_, AS_, MS_, work_, R_;
  Workspace<Device> ws_;
  int np_ = 0;
  std::vector<double> lambda_, relres_;
  double norm_estimate_ = 0;
  int replaced_columns_ = 0;
  uint64_t random_draws_ = 0;
  int consecutive_rebuilds_ = 0;
  std::string breakdown_message_;
  LobpcgResult result_;
};

template <class Scalar, class Device>
LobpcgResult Solver<Scalar, Device>::run(const MV& X_user) {
  const auto start = Clock::now();
  const auto finish = [&](SolverStatus status, std::string message) {
    result_.status = status;
    result_.eigenvalues.assign(lambda_.begin(), lambda_.begin() + std::min<int>(k_, lambda_.size()));
    if (!relres_.empty()) result_.residuals = wanted_residuals();
    if (replaced_columns_ > 0)
      message += "; " + std::to_string(replaced_columns_) +
                 " initial columns were zero or linearly dependent and were replaced by random vectors";
    if (result_.restarts > 0) message += "; P dropped " + std::to_string(result_.restarts) + " times";
    result_.message = std::move(message);
    if (X_user.extent(1) > 0 && !lambda_.empty()) {
      Kokkos::deep_copy(space_, X_user, cols(S_, 0, k_));
      space_.fence();
    }
    result_.timings.total = seconds_since(start);
    return result_;
  };

  // Setup: the blocks, the initial X.
  using Kokkos::view_alloc;
  using Kokkos::WithoutInitializing;
  // The blocks (S, AS, MS with 3 m columns each, work, R), checked before any is allocated.
  const int64_t block_columns = (M_ ? 9 : 6) * int64_t{m_} + (Workspace<Device>::on_host ? 2 : 3) * int64_t{m_};
  Impl::require_space_memory<typename Device::execution_space>(
      Impl::workspace_bytes({n_, block_columns, int64_t{sizeof(typename MV::value_type)}}),
      "lobpcg: the search-space blocks (n = " + std::to_string(n_) + ", block " + std::to_string(m_) + ")");
  S_ = MV(view_alloc(WithoutInitializing, "Sprocket::lobpcg::S"), n_, 3 * m_);
  AS_ = MV(view_alloc(WithoutInitializing, "Sprocket::lobpcg::AS"), n_, 3 * m_);
  MS_ = M_ ? MV(view_alloc(WithoutInitializing, "Sprocket::lobpcg::MS"), n_, 3 * m_) : S_;
  // The work block holds gathered residuals; on a device also the output of block transforms.
  work_ = MV(view_alloc(WithoutInitializing, "Sprocket::lobpcg::work"), n_, Workspace<Device>::on_host ? m_ : 2 * m_);
  R_ = MV(view_alloc(WithoutInitializing, "Sprocket::lobpcg::R"), n_, m_);
  ws_ = Workspace<Device>(space_, n_, 3 * m_, int64_t{3 * m_} * (3 * m_));

  bool given = X_user.extent(1) > 0;
  if (given) {
    if (first_nonfinite_column(space_, X_user) >= 0)
      return finish(SolverStatus::invalid_input, "the initial X holds NaN or Inf");
    Kokkos::deep_copy(space_, cols(S_, 0, k_), X_user);
    fill_random(space_, cols(S_, k_, m_), random_stream(0));
    const std::vector<double> lengths = column_dots(ws_, cols(S_, 0, k_), cols(S_, 0, k_));
    given = std::any_of(lengths.begin(), lengths.end(), [](double l) { return l != 0.0; });
  }
  if (!given) fill_random(space_, X(), random_stream(0));  // no X, or an all-zero one
  const bool orthonormal = orthonormalize_X();
  // A random start has nothing to repair worth a remark.
  if (!given) replaced_columns_ = 0;
  if (!orthonormal) {
    result_.timings.setup = seconds_since(start) - result_.timings.operator_apply;
    return finish(SolverStatus::breakdown,
                  "the initial block could not be M-orthonormalized (NaN/Inf from M, or M not positive definite)");
  }
  apply_A(X(), AX());
  const bool initial_rr = rayleigh_ritz_X();
  result_.timings.setup = seconds_since(start) - result_.timings.operator_apply;
  if (!initial_rr) return finish(SolverStatus::breakdown, "the Rayleigh-Ritz problem on the initial block failed "
                                                          "(NaN/Inf from A or M?)");
  compute_residuals();

  const auto loop_start = Clock::now();
  const double applies_at_loop = result_.timings.operator_apply + result_.timings.preconditioner;
  const auto close_loop_timing = [&] {
    result_.timings.orthogonalization =
        seconds_since(loop_start) - (result_.timings.operator_apply + result_.timings.preconditioner - applies_at_loop);
  };
  int iteration = 0;
  bool converged = residuals_finite() && wanted_converged();
  while (!converged && iteration < options_.max_iterations) {
    const StepOutcome outcome = step();
    ++iteration;
    result_.iterations = iteration;
    if (outcome == StepOutcome::breakdown) {
      close_loop_timing();
      return finish(SolverStatus::breakdown, "breakdown at iteration " + std::to_string(iteration) + ": " +
                                                 breakdown_message_);
    }
    bool ok = residuals_finite();
    if (ok && (wanted_converged() || iteration % refresh_interval == 0)) ok = refresh_explicit();
    if (!ok) {
      close_loop_timing();
      return finish(SolverStatus::breakdown, "breakdown at iteration " + std::to_string(iteration) +
                                                 ": NaN in the residuals or the Rayleigh-Ritz problem");
    }
    converged = wanted_converged();
    result_.history.push_back(wanted_residuals());
    if (options_.on_iteration) {
      SolverIterationInfo info;
      info.iteration = iteration;
      for (int j = 0; j < k_; ++j) {
        if (relres_[j] <= options_.tol) ++info.converged;
        info.worst_residual = std::max(info.worst_residual, relres_[j]);
      }
      info.elapsed_seconds = seconds_since(start);
      options_.on_iteration(info);
    }
  }
  // The final residuals come from explicit products whatever happened above.
  if (!converged && iteration > 0 && !refresh_explicit()) {
    close_loop_timing();
    return finish(SolverStatus::breakdown, "breakdown: the final Rayleigh-Ritz problem failed");
  }
  converged = residuals_finite() && wanted_converged();
  close_loop_timing();
  std::ostringstream os;
  if (converged) {
    os << "converged: " << k_ << " pairs to relative residual " << options_.tol << " in " << iteration
       << " iterations";
    return finish(SolverStatus::converged, os.str());
  }
  int done = 0, worst = 0;
  for (int j = 0; j < k_; ++j) {
    if (relres_[j] <= options_.tol) ++done;
    if (!(relres_[j] <= relres_[worst])) worst = j;
  }
  os << "not converged after " << iteration << " iterations: " << done << " of " << k_
     << " pairs reached relative residual " << options_.tol << ", worst " << relres_[worst] << " (pair " << worst
     << ")";
  return finish(SolverStatus::max_iterations, os.str());
}

}  // namespace lobpcg
}  // namespace Impl

template <class Scalar, class Device>
LobpcgResult lobpcg(const typename Device::execution_space& space, const MultiVectorOperator<Scalar, Device>& A,
                    const typename MultiVectorOperator<Scalar, Device>::multivector& X, const LobpcgOptions& options,
                    const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* T,
                    const typename Impl::NonDeduced<MultiVectorOperator<Scalar, Device>>::type* M) {
  const int64_t n = A.num_rows();
  SPROCKET_REQUIRE(A.num_cols() == n, "lobpcg: A must be square (got ", A.num_rows(), " x ", A.num_cols(), ")");
  if (M)
    SPROCKET_REQUIRE(M->num_rows() == n && M->num_cols() == n, "lobpcg: M is ", M->num_rows(), " x ",
                     M->num_cols(), ", A is ", n, " x ", n);
  if (T)
    SPROCKET_REQUIRE(T->num_rows() == n && T->num_cols() == n, "lobpcg: the preconditioner is ", T->num_rows(),
                     " x ", T->num_cols(), ", A is ", n, " x ", n);
  SPROCKET_REQUIRE(options.tol > 0 && std::isfinite(options.tol), "lobpcg: tol must be positive (got ", options.tol,
                   ")");
  SPROCKET_REQUIRE(options.max_iterations >= 0, "lobpcg: max_iterations must be >= 0 (got ", options.max_iterations,
                   ")");
  SPROCKET_REQUIRE(options.single_thread_below >= 0, "lobpcg: single_thread_below must be >= 0, 0 = never (got ",
                   options.single_thread_below, ")");
  const int m = Impl::lobpcg::block_size_for(options, n);
  SPROCKET_REQUIRE(X.extent(1) == 0 || (static_cast<int64_t>(X.extent(0)) == n &&
                                        static_cast<int64_t>(X.extent(1)) == options.nev),
                   "lobpcg: X is ", X.extent(0), " x ", X.extent(1), ", expected ", n, " x ", options.nev,
                   " (or extent(1) == 0 for a random start)");
  Impl::lobpcg::Solver<Scalar, Device> solver(space, A, M, T, options, n, m);
  const bool one_thread = Impl::solvers::runs_on_one_thread(space, n, m, options.single_thread_below);
  LobpcgResult result = Impl::solvers::run_solve(space, one_thread, [&] { return solver.run(X); });
  result.single_thread = one_thread;
  return result;
}

template <class Scalar, class Device>
LobpcgResult lobpcg(const MultiVectorOperator<Scalar, Device>& A,
                    const typename MultiVectorOperator<Scalar, Device>::multivector& X, const LobpcgOptions& options,
                    const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* T,
                    const typename Impl::NonDeduced<MultiVectorOperator<Scalar, Device>>::type* M) {
  return lobpcg<Scalar, Device>(typename Device::execution_space(), A, X, options, T, M);
}

}  // namespace Sprocket
