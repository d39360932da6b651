#pragma once
/// \file block_gmres.hpp
/// Restarted block GMRES with deflation (declared in Sprocket_BlockGmres.hpp; the algorithm is
/// summarized there). Block GMRES: O'Leary's block Krylov methods as in Saad, "Iterative Methods
/// for Sparse Linear Systems", 2nd ed., section 6.12; deflation of dependent directions in the
/// spirit of Robbé and Sadkane, "Exact and inexact breakdowns in the block GMRES method" (2006).
///
/// Numbers that decide behaviour, and why:
///  - residual blocks (at a restart): a right-hand side whose remainder, after removing the
///    directions of the columns before it, is below max(1000 eps(double), 10 eps(Scalar)) of
///    its norm is a combination of them (duplicate / dependent columns: two Gram-Schmidt passes
///    leave a few eps of a dependent vector) and gets no basis vector; so does a remainder below
///    0.1 tol ||b||, which cannot keep its column from converging (inexact deflation; its norm
///    is added to the column's estimate).
///  - Arnoldi blocks: a direction is dropped only when its remainder is below 10 eps(Scalar) of
///    ||A M^{-1} v||: rounding, nothing else. A larger threshold would cut directions of an
///    ill-conditioned A M^{-1} whose small remainders matter (a dropped remainder e enters the
///    residual as e times the solution coefficient, which is huge exactly there: watt_2 with
///    Jacobi stalls at 1e-3 with a 1e-13 threshold). Keeping a near-dependent direction is safe:
///    re-orthogonalization makes its normalized remainder orthogonal to working precision and
///    the Hessenberg matrix records its true (tiny) norm, so the Arnoldi relation stays exact.
///  - rank_tol = eps(Scalar): an R diagonal of the Hessenberg QR below eps times the largest
///    column of H carries no information (the QR's backward error is that size): A M^{-1} is
///    singular on the Krylov space, the cycle stops before that column.
///  - re-orthogonalization: a third block pass when the second removed more than half of a
///    column ("twice is enough" unless the vector nearly lies in the basis); in the
///    column-by-column path, a pass against the whole basis when the in-block passes cancel 99%
///    of a column (its tiny remainder would otherwise carry the old basis' rounding, amplified
///    by the normalization).
///  - Cholesky QR inside a block only when every pivot keeps 1% of its column's squared norm:
///    the Gram matrix then resolves the block to full precision after two rounds; anything
///    closer to dependence goes column by column, where the remainders are computed exactly.
///  - stagnation: 3 consecutive cycles improving no column's true residual by 0.01%. Restarted
///    GMRES from the same residual builds the same Krylov space, so a cycle without progress is
///    followed by more of them; three (not one) leave room for rounding-level improvements.
///  - a cycle that ended because every estimate met the tolerance while the true residual did
///    not makes later cycles aim at tol * min(0.5, tol / true residual), down to 1e-3 tol.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "impl/solvers/block_gmres_kernels.hpp"
#include "impl/solvers/block_gmres_dense.hpp"

namespace Sprocket {
namespace Impl {
namespace gmres {

inline bool is_finite(double v) { return v - v == 0.0; }

template <class Scalar, class Device>
class BlockGmresSolver {
 public:
  using operator_type = MultiVectorOperator<Scalar, Device>;
  using multivector = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using const_multivector = Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>;
  using coefficient_view = Kokkos::View<double*, Device>;
  using index_view = Kokkos::View<int*, Device>;

  BlockGmresSolver(const operator_type& A, const const_multivector& B, const multivector& X,
                   const BlockGmresOptions& options, const operator_type* M)
      : A_(A), M_(M), B_(B), X_(X), options_(options) {
    const int64_t n = A.num_rows();
    SPROCKET_REQUIRE(A.num_cols() == n, "block_gmres: A must be square, it is ", n, " x ", A.num_cols());
    SPROCKET_REQUIRE(static_cast<int64_t>(B.extent(0)) == n && static_cast<int64_t>(X.extent(0)) == n,
                     "block_gmres: A is ", n, " x ", n, " but B has ", B.extent(0), " rows and X ",
                     X.extent(0));
    SPROCKET_REQUIRE(B.extent(1) == X.extent(1), "block_gmres: B has ", B.extent(1), " columns but X has ",
                     X.extent(1));
    SPROCKET_REQUIRE(M == nullptr || (M->num_rows() == n && M->num_cols() == n), "block_gmres: A is ", n,
                     " x ", n, " but the preconditioner is ", M ? M->num_rows() : 0, " x ",
                     M ? M->num_cols() : 0);
    SPROCKET_REQUIRE(options.block_size >= 0, "block_gmres: block_size = ", options.block_size,
                     " (use 0 for all right-hand sides in one block, or s >= 1)");
    SPROCKET_REQUIRE(options.restart >= 1, "block_gmres: restart = ", options.restart, " (must be >= 1)");
    SPROCKET_REQUIRE(options.max_iterations >= 0, "block_gmres: max_iterations = ", options.max_iterations,
                     " (must be >= 0)");
    SPROCKET_REQUIRE(options.tol > 0 && is_finite(options.tol), "block_gmres: tol = ", options.tol,
                     " (must be positive and finite)");
    n_ = n;
    p_ = static_cast<int>(X.extent(1));
    s_ = options.block_size == 0 ? p_ : std::min(options.block_size, p_);
    m_ = options.restart;
    const double eps = std::numeric_limits<Scalar>::epsilon();
    residual_deflation_tol_ = std::max(1e3 * std::numeric_limits<double>::epsilon(), 10 * eps);
    arnoldi_deflation_tol_ = 10 * eps;
    rank_tol_ = eps;
  }

  BlockGmresResult solve() {
    Kokkos::Timer total;
    total_timer_ = &total;
    result_.residuals.assign(p_, 0.0);
    if (p_ == 0) {
      result_.message = "block_gmres: no right-hand sides (B has 0 columns)";
      result_.timings.total = total.seconds();
      return result_;
    }
    setup();
    if (result_.status == SolverStatus::invalid_input) {
      result_.timings.total = total.seconds();
      return result_;
    }
    struct GroupOutcome {
      int first, last;
      SolverStatus status;
      std::string message;
    };
    std::vector<GroupOutcome> failed;
    for (int g0 = 0; g0 < p_; g0 += s_) {
      const int g1 = std::min(p_, g0 + s_);
      std::string message;
      const SolverStatus status = solve_group(g0, g1, message);
      if (status != SolverStatus::converged) failed.push_back({g0, g1 - 1, status, message});
    }
    final_residuals();
    std::ostringstream os;
    double worst = 0;
    int worst_column = 0;
    for (int q = 0; q < p_; ++q)
      if (!(result_.residuals[q] <= worst) && !std::isnan(worst)) worst = result_.residuals[q], worst_column = q;
    if (failed.empty()) {
      if (worst <= options_.tol) {
        result_.status = SolverStatus::converged;
        os << "block_gmres: converged: " << p_ << " right-hand side" << (p_ > 1 ? "s" : "")
           << ", largest true relative residual " << worst << " <= tol " << options_.tol << " after "
           << result_.iterations << " block iteration" << (result_.iterations == 1 ? "" : "s");
      } else {  // every group met tol, the final recomputation (other rounding) did not
        result_.status = SolverStatus::stagnation;
        os << "block_gmres: column " << worst_column << " recomputed at the end has true relative residual "
           << worst << " > tol " << options_.tol << " (rounding-level disagreement with the solve)";
      }
    } else {
      result_.status = failed.front().status;
      os << "block_gmres: " << to_string(result_.status) << " (largest true relative residual " << worst
         << " in column " << worst_column << ", tol " << options_.tol << ")";
      for (const auto& f : failed) {
        os << "; columns " << f.first;
        if (f.last != f.first) os << "-" << f.last;
        os << ": " << to_string(f.status) << ": " << f.message;
      }
    }
    result_.message = os.str();
    result_.timings.total = total.seconds();
    return result_;
  }

 private:
  // ---- setup and bookkeeping ----------------------------------------------------------------

  void setup() {
    Kokkos::Timer timer;
    const int64_t basis_cols = static_cast<int64_t>(m_ + 1) * s_;
    V_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::V"), n_, basis_cols);
    W_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::W"), n_, s_);
    Z_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::Z"), n_, s_);
    R_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::R"), n_, s_);
    const int64_t max_coefficients = basis_cols * s_;
    coefficients_ = coefficient_view("Sprocket::block_gmres::coefficients", max_coefficients);
    coefficients_host_ = Kokkos::create_mirror_view(coefficients_);
    columns_ = index_view("Sprocket::block_gmres::columns", s_);
    columns_host_ = Kokkos::create_mirror_view(columns_);
    workspace_ = InnerProductWorkspace<Device>(std::max<int64_t>(max_coefficients, s_));
    lsq_ = std::make_unique<BlockHessenbergLeastSquares>(static_cast<int>(basis_cols), m_ * s_, s_);

    bnorm_.assign(p_, 0.0);
    current_.assign(p_, 0.0);
    converged_.assign(p_, false);
    int64_t bad = first_nonfinite_column(B_);
    if (bad >= 0) {
      fail_input("right-hand side column " + std::to_string(bad) + " holds NaN or Inf");
      return;
    }
    if (options_.random_initial_guess) {
      fill_random(X_, 0x5350524F434B4554ull);  // fixed seed ("SPROCKET"): reproducible runs
    } else if ((bad = first_nonfinite_column(X_)) >= 0) {
      fail_input("initial guess column " + std::to_string(bad) + " holds NaN or Inf");
      return;
    }
    for (int g0 = 0; g0 < p_; g0 += s_) {
      const int g1 = std::min(p_, g0 + s_);
      const auto Bg = Kokkos::subview(B_, Kokkos::ALL(), std::make_pair(g0, g1));
      inner_products(workspace_, Bg, Bg, true, &bnorm_[g0]);
    }
    std::vector<int> nonzero;
    for (int q = 0; q < p_; ++q) {
      bnorm_[q] = std::sqrt(bnorm_[q]);
      if (bnorm_[q] == 0) {  // b = 0: x = 0 solves it exactly; the relative residual is 0 by definition
        Kokkos::deep_copy(Kokkos::subview(X_, Kokkos::ALL(), q), Scalar(0));
        converged_[q] = true;
      } else {
        nonzero.push_back(q);
      }
    }
    result_.timings.setup = timer.seconds();
    // Initial residuals (for the history of columns whose group has not started yet, and the
    // exact-initial-guess case).
    for (size_t i = 0; i < nonzero.size(); i += s_) {
      std::vector<int> cols(nonzero.begin() + i, nonzero.begin() + std::min(nonzero.size(), i + s_));
      const std::vector<double> rel = true_residuals(cols);
      for (size_t j = 0; j < cols.size(); ++j) {
        current_[cols[j]] = rel[j];
        converged_[cols[j]] = rel[j] <= options_.tol;
      }
    }
  }

  void fail_input(const std::string& what) {
    result_.status = SolverStatus::invalid_input;
    result_.message = "block_gmres: invalid input: " + what;
    result_.residuals.assign(p_, std::numeric_limits<double>::quiet_NaN());
  }

  multivector columns_of(const multivector& V, int64_t begin, int64_t end) const {
    return Kokkos::subview(V, Kokkos::ALL(), std::make_pair(begin, end));
  }

  coefficient_view upload(const std::vector<double>& values) {
    const int64_t count = static_cast<int64_t>(values.size());
    SPROCKET_REQUIRE(count <= static_cast<int64_t>(coefficients_.extent(0)), "block_gmres: ", count,
                     " coefficients exceed the workspace");
    for (int64_t i = 0; i < count; ++i) coefficients_host_(i) = values[i];
    const auto range = Kokkos::pair<int64_t, int64_t>(0, count);
    Kokkos::deep_copy(Kokkos::subview(coefficients_, range), Kokkos::subview(coefficients_host_, range));
    return Kokkos::subview(coefficients_, range);
  }

  index_view upload_columns(const std::vector<int>& cols) {
    for (size_t i = 0; i < cols.size(); ++i) columns_host_(i) = cols[i];
    const auto range = Kokkos::pair<int64_t, int64_t>(0, static_cast<int64_t>(cols.size()));
    Kokkos::deep_copy(Kokkos::subview(columns_, range), Kokkos::subview(columns_host_, range));
    return Kokkos::subview(columns_, range);
  }

  void apply_operator(const multivector& in, const multivector& out) {
    Kokkos::Timer timer;
    A_.apply(in, out);
    Kokkos::fence();
    result_.timings.operator_apply += timer.seconds();
  }

  void apply_preconditioner(const multivector& in, const multivector& out) {
    Kokkos::Timer timer;
    M_->apply(in, out);
    Kokkos::fence();
    result_.timings.preconditioner += timer.seconds();
  }

  std::vector<double> column_norms(const multivector& W) {
    std::vector<double> sq(W.extent(1));
    inner_products(workspace_, W, W, true, sq.data());
    for (double& v : sq) v = std::sqrt(v);
    return sq;
  }

  /// R(:, 0:k) = B(:, cols) - A X(:, cols); returns ||r|| / ||b|| per column.
  std::vector<double> true_residuals(const std::vector<int>& cols) {
    const int64_t k = static_cast<int64_t>(cols.size());
    const auto idx = upload_columns(cols);
    const multivector Xa = columns_of(W_, 0, k), Rk = columns_of(R_, 0, k);
    gather_columns(X_, idx, Xa);
    apply_operator(Xa, Rk);
    residual_from_product(B_, idx, Rk);
    std::vector<double> rel = column_norms(Rk);
    for (int64_t j = 0; j < k; ++j) rel[j] /= bnorm_[cols[j]];
    return rel;
  }

  void final_residuals() {
    std::vector<int> nonzero;
    for (int q = 0; q < p_; ++q)
      if (bnorm_[q] > 0) nonzero.push_back(q);
    for (size_t i = 0; i < nonzero.size(); i += s_) {
      std::vector<int> cols(nonzero.begin() + i, nonzero.begin() + std::min(nonzero.size(), i + s_));
      const std::vector<double> rel = true_residuals(cols);
      for (size_t j = 0; j < cols.size(); ++j) result_.residuals[cols[j]] = rel[j];
    }
  }

  void record_iteration() {
    result_.history.push_back(current_);
    if (!options_.on_iteration) return;
    SolverIterationInfo info;
    info.iteration = result_.iterations;
    for (int q = 0; q < p_; ++q) {
      if (current_[q] <= options_.tol) ++info.converged;
      else info.worst_residual = std::max(info.worst_residual, current_[q]);
    }
    info.elapsed_seconds = total_timer_->seconds();
    options_.on_iteration(info);
  }

  // ---- orthonormalization with deflation ----------------------------------------------------

  struct OrthoOutcome {
    int accepted = 0;
    /// (N + accepted) x count, column-major: column c of the block equals the basis V(:, 0:N +
    /// accepted) times this column, plus the dropped remainder.
    std::vector<double> coefficients;
    std::vector<double> dropped;  ///< norm of each column's discarded remainder (0 if kept)
    bool nonfinite = false;
  };

  /// Orthonormalizes the block B (n x count) against V(:, 0:N) and within itself, writing the
  /// accepted directions to V(:, N), V(:, N+1), ... For N > 0, B must be V(:, N:N+count) (the
  /// Arnoldi block computed in place); for N = 0 (a residual block) it is any other multivector.
  /// A column whose remainder is at most max(deflation tolerance * its norm, floor[c]) is
  /// dropped.
  ///
  /// Against the old basis: block classical Gram-Schmidt, two passes (a third when the second
  /// removed more than half of a column). Inside the block, when its Gram matrix is well
  /// conditioned (every Cholesky pivot keeps 1% of its column's squared norm) and no column is to
  /// be dropped: Cholesky QR twice (two operator-free passes, independent of the block size).
  /// Otherwise column by column: two projections against the columns accepted so far, one more
  /// against the whole basis if they cancelled 99% of the column, then the drop test on the
  /// exact remainder.
  OrthoOutcome orthonormalize(const multivector& B, int N, const std::vector<double>& floor) {
    Kokkos::Timer timer;
    const int count = static_cast<int>(B.extent(1));
    const int ld = N + count;
    OrthoOutcome out;
    out.dropped.assign(count, 0.0);
    std::vector<double> coef(static_cast<size_t>(ld) * count, 0.0);
    std::vector<double> gram(static_cast<size_t>(count) * count), ref(count);
    auto diagonal_norms = [&](const std::vector<double>& g) {
      std::vector<double> d(count);
      for (int c = 0; c < count; ++c) d[c] = std::sqrt(g[static_cast<size_t>(c) * count + c]);
      return d;
    };
    auto finish = [&]() {
      const int rows = N + out.accepted;
      out.coefficients.assign(static_cast<size_t>(rows) * count, 0.0);
      for (int c = 0; c < count; ++c)
        for (int a = 0; a < rows; ++a)
          out.coefficients[static_cast<size_t>(c) * rows + a] = coef[static_cast<size_t>(c) * ld + a];
      Kokkos::fence();
      result_.timings.orthogonalization += timer.seconds();
      return out;
    };
    if (N == 0) {
      inner_products(workspace_, B, B, false, gram.data());
      ref = diagonal_norms(gram);
    } else {
      // One reduction gives both V^T B (rows 0..N-1) and B^T B (rows N..): B sits right after V.
      const multivector Vb = columns_of(V_, 0, N), VB = columns_of(V_, 0, N + count);
      std::vector<double> T(static_cast<size_t>(ld) * count), G(static_cast<size_t>(N) * count);
      for (int pass = 0; pass < 3; ++pass) {
        inner_products(workspace_, VB, B, false, T.data());
        for (int c = 0; c < count; ++c) {
          for (int a = 0; a < N; ++a) {
            G[static_cast<size_t>(c) * N + a] = T[static_cast<size_t>(c) * ld + a];
            coef[static_cast<size_t>(c) * ld + a] += T[static_cast<size_t>(c) * ld + a];
          }
          for (int a = 0; a < count; ++a) gram[static_cast<size_t>(c) * count + a] = T[static_cast<size_t>(c) * ld + N + a];
        }
        const std::vector<double> before = diagonal_norms(gram);
        if (pass == 0) ref = before;
        block_update(-1.0, Vb, upload(G), 1.0, B);
        if (pass == 0) continue;  // the first pass always gets a second
        inner_products(workspace_, B, B, false, gram.data());
        const std::vector<double> after = diagonal_norms(gram);
        bool again = false;
        for (int c = 0; c < count; ++c) again = again || after[c] < 0.5 * before[c];
        if (!again) break;
      }
    }
    const std::vector<double> norms = diagonal_norms(gram);
    for (int c = 0; c < count; ++c) out.nonfinite = out.nonfinite || !is_finite(ref[c]) || !is_finite(norms[c]);
    if (out.nonfinite) return finish();
    std::vector<double> threshold(count);
    bool keep_all = true;
    for (int c = 0; c < count; ++c) {
      threshold[c] = std::max((N == 0 ? residual_deflation_tol_ : arnoldi_deflation_tol_) * ref[c],
                              floor.empty() ? 0.0 : floor[c]);
      keep_all = keep_all && norms[c] > threshold[c];
    }
    const multivector destination = columns_of(V_, N, N + count);
    std::vector<double> R1, R2;
    if (keep_all && cholesky_upper(gram, count, 1e-2, R1)) {
      if (count == 1) {
        scaled_column_copy(B, 0, 1.0 / R1[0], V_, N);
        coef[N] = R1[0];
        out.accepted = 1;
        return finish();
      }
      // Q1 = B R1^{-1} into scratch, then Q = Q1 R2^{-1} into the basis (B itself for Arnoldi,
      // which the first product has finished reading).
      const multivector scratch = columns_of(W_, 0, count);
      block_update(1.0, B, upload(invert_upper(R1, count)), 0.0, scratch);
      inner_products(workspace_, scratch, scratch, false, gram.data());
      if (cholesky_upper(gram, count, 1e-2, R2)) {
        block_update(1.0, scratch, upload(invert_upper(R2, count)), 0.0, destination);
        const std::vector<double> R = multiply(R2, R1, count);
        for (int c = 0; c < count; ++c)
          for (int a = 0; a <= c; ++a) coef[static_cast<size_t>(c) * ld + N + a] = R[static_cast<size_t>(c) * count + a];
        out.accepted = count;
        return finish();
      }
      // (the second Gram is far from the identity only through rounding trouble: B is intact,
      // fall through to the column-by-column path)
    }
    for (int c = 0; c < count; ++c) {
      const multivector bc = columns_of(B, c, c + 1);
      const int k = out.accepted;
      double norm = norms[c];
      auto project_out = [&](int begin, int end) {  // bc -= V(:, begin:end) V(:, begin:end)^T bc
        const multivector Vs = columns_of(V_, begin, end);
        std::vector<double> t(end - begin);
        inner_products(workspace_, Vs, bc, false, t.data());
        for (int a = begin; a < end; ++a) coef[static_cast<size_t>(c) * ld + a] += t[a - begin];
        block_update(-1.0, Vs, upload(t), 1.0, bc);
      };
      if (k > 0) {
        project_out(N, N + k);
        project_out(N, N + k);
        norm = column_norms(bc)[0];
        if (N > 0 && norm < 1e-2 * norms[c]) {
          project_out(0, N + k);
          norm = column_norms(bc)[0];
        }
      }
      if (!is_finite(norm)) {
        out.nonfinite = true;
        break;
      }
      if (!(norm > threshold[c])) {
        out.dropped[c] = norm;
        ++deflated_;
        continue;
      }
      scaled_column_copy(B, c, 1.0 / norm, V_, N + k);
      coef[static_cast<size_t>(c) * ld + N + k] = norm;
      ++out.accepted;
    }
    return finish();
  }

  // ---- one group of right-hand sides --------------------------------------------------------

  SolverStatus solve_group(int g0, int g1, std::string& message) {
    std::vector<int> active;
    for (int q = g0; q < g1; ++q)
      if (!converged_[q]) active.push_back(q);
    std::vector<double> previous(p_, 0.0);
    double implicit_factor = 1;  // a cycle ends when every estimate <= implicit_factor * tol
    bool estimate_claimed = false, singular_seen = false, first_cycle = true;
    int stagnant_cycles = 0, group_iterations = 0;
    const double tol = options_.tol;
    std::ostringstream os;
    while (!active.empty()) {
      // 1. true residual of the active columns; converged ones leave the block
      const std::vector<double> rel = true_residuals(active);
      double worst = 0, progress = 0;
      for (size_t j = 0; j < active.size(); ++j) {
        current_[active[j]] = rel[j];
        if (!is_finite(rel[j])) {
          os << "the residual of column " << active[j]
             << " is NaN or Inf (the operator or the preconditioner produced non-finite values)";
          message = os.str();
          return SolverStatus::breakdown;
        }
        worst = std::max(worst, rel[j]);
        if (!first_cycle) progress = std::max(progress, 1 - rel[j] / previous[active[j]]);
      }
      if (!first_cycle) stagnant_cycles = progress < 1e-4 ? stagnant_cycles + 1 : 0;
      if (estimate_claimed && worst > tol)  // the estimate was optimistic: aim lower
        implicit_factor = std::max(1e-3, implicit_factor * std::min(0.5, tol / worst));
      std::vector<int> still_active;
      for (size_t j = 0; j < active.size(); ++j) {
        if (rel[j] <= tol) {
          converged_[active[j]] = true;
        } else {
          // compact the residual block: column j moves to position still_active.size() <= j
          const int to = static_cast<int>(still_active.size());
          if (to != static_cast<int>(j)) Kokkos::deep_copy(columns_of(R_, to, to + 1), columns_of(R_, j, j + 1));
          still_active.push_back(active[j]);
        }
      }
      if (still_active.empty()) return SolverStatus::converged;
      if (stagnant_cycles >= 3) {
        os << "the true relative residual (worst " << worst << ") improved by less than 0.01% in 3 consecutive "
           << "restart cycles";
        if (singular_seen) {
          os << "; A M^-1 is numerically singular on the Krylov space (a dependent Hessenberg column)";
          message = os.str();
          return SolverStatus::breakdown;
        }
        message = os.str();
        return SolverStatus::stagnation;
      }
      if (group_iterations >= options_.max_iterations) {
        os << "reached max_iterations = " << options_.max_iterations << " block steps with worst true relative "
           << "residual " << worst;
        message = os.str();
        return SolverStatus::max_iterations;
      }
      active = still_active;
      for (int q : active) previous[q] = current_[q];
      const int k = static_cast<int>(active.size());

      // 2. the first basis block from the residuals, deflated
      std::vector<double> floor(k);
      for (int j = 0; j < k; ++j) floor[j] = 0.1 * tol * bnorm_[active[j]];
      const OrthoOutcome start = orthonormalize(columns_of(R_, 0, k), 0, floor);
      if (start.nonfinite || start.accepted == 0) {
        os << "the residual block could not be orthonormalized (non-finite values)";
        message = os.str();
        return SolverStatus::breakdown;
      }
      const std::vector<double> dropped = start.dropped;
      lsq_->reset(start.coefficients, start.accepted, k, rank_tol_);

      // 3.-4. block Arnoldi steps, least squares updated per step
      int basis_prev = 0, basis = start.accepted, steps = 0;
      bool nonfinite = false;
      estimate_claimed = false;
      while (steps < m_ && group_iterations < options_.max_iterations) {
        const int rj = basis - basis_prev;
        const multivector Vj = columns_of(V_, basis_prev, basis), Wj = columns_of(V_, basis, basis + rj);
        if (M_) {
          const multivector Zj = columns_of(Z_, 0, rj);
          apply_preconditioner(Vj, Zj);
          apply_operator(Zj, Wj);
        } else {
          apply_operator(Vj, Wj);
        }
        const OrthoOutcome step = orthonormalize(Wj, basis, {});
        ++steps;
        ++group_iterations;
        ++result_.iterations;
        if (step.nonfinite) {
          nonfinite = true;
          record_iteration();
          break;
        }
        Kokkos::Timer timer;
        const int used = lsq_->append_columns(step.coefficients.data(), rj, basis + step.accepted);
        bool all_met = true;
        for (int j = 0; j < k; ++j) {
          const double r = lsq_->residual_norm(j), d = dropped[j];
          current_[active[j]] = std::sqrt(r * r + d * d) / bnorm_[active[j]];
          all_met = all_met && current_[active[j]] <= implicit_factor * tol;
        }
        result_.timings.orthogonalization += timer.seconds();
        record_iteration();
        if (used < rj) {
          singular_seen = true;
          break;
        }
        basis_prev = basis;
        basis += step.accepted;
        if (all_met) {
          estimate_claimed = true;
          break;
        }
        if (step.accepted == 0) break;  // invariant subspace: the space holds the solution
      }

      // 5. X(:, active) += M^{-1} V Y
      const int used_columns = lsq_->num_columns();
      if (used_columns > 0) {
        Kokkos::Timer timer;
        const std::vector<double> Y = lsq_->solve();
        const multivector Zk = columns_of(Z_, 0, k);
        block_update(1.0, columns_of(V_, 0, used_columns), upload(Y), 0.0, Zk);
        Kokkos::fence();
        result_.timings.orthogonalization += timer.seconds();
        const auto idx = upload_columns(active);
        if (M_) {
          const multivector Wk = columns_of(W_, 0, k);
          apply_preconditioner(Zk, Wk);
          scatter_add_columns(Wk, idx, X_);
        } else {
          scatter_add_columns(Zk, idx, X_);
        }
      }
      if (nonfinite) {
        os << "the operator or the preconditioner produced NaN or Inf at block iteration " << result_.iterations;
        message = os.str();
        return SolverStatus::breakdown;
      }
      if (used_columns == 0) {
        os << "A M^-1 maps the residual block to (numerically) zero: the operator is singular on it";
        message = os.str();
        return SolverStatus::breakdown;
      }
      first_cycle = false;
    }
    return SolverStatus::converged;
  }

  const operator_type& A_;
  const operator_type* M_;
  const_multivector B_;
  multivector X_;
  BlockGmresOptions options_;
  int64_t n_ = 0;
  int p_ = 0, s_ = 1, m_ = 1;
  double residual_deflation_tol_ = 0, arnoldi_deflation_tol_ = 0, rank_tol_ = 0;

  multivector V_, W_, Z_, R_;
  coefficient_view coefficients_;
  typename coefficient_view::HostMirror coefficients_host_;
  index_view columns_;
  typename index_view::HostMirror columns_host_;
  InnerProductWorkspace<Device> workspace_;
  std::unique_ptr<BlockHessenbergLeastSquares> lsq_;

  std::vector<double> bnorm_, current_;
  std::vector<bool> converged_;
  int64_t deflated_ = 0;
  BlockGmresResult result_;
  Kokkos::Timer* total_timer_ = nullptr;

 public:
  int64_t deflated_directions() const { return deflated_; }
};

}  // namespace gmres
}  // namespace Impl

template <class Scalar, class Device>
BlockGmresResult block_gmres(
    const MultiVectorOperator<Scalar, Device>& A,
    const typename Impl::non_deduced<Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>>::type& B,
    const typename Impl::non_deduced<Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>>::type& X,
    const BlockGmresOptions& options, const typename Impl::non_deduced<Preconditioner<Scalar, Device>>::type* M) {
  Impl::gmres::BlockGmresSolver<Scalar, Device> solver(A, B, X, options, M);
  BlockGmresResult result = solver.solve();
  result.deflated_directions = solver.deflated_directions();
  return result;
}

}  // namespace Sprocket
