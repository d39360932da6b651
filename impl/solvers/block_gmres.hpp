#pragma once
/// \file block_gmres.hpp
/// Restarted block GMRES with deflation (declared in Sprocket_BlockGmres.hpp; the algorithm is
/// summarized there). Block GMRES: O'Leary's block Krylov methods as in Saad, "Iterative Methods
/// for Sparse Linear Systems", 2nd ed., section 6.12; deflation of dependent directions in the
/// spirit of Robbé and Sadkane, "Exact and inexact breakdowns in the block GMRES method" (2006).
///
/// Numbers that decide behaviour, and why:
///  - residual blocks (at a restart): a right-hand side whose remainder, after removing the
///    directions of the columns before it, is below e = max(1000 eps(double), 10 eps(Scalar))
///    times its residual's norm or times ||b|| is a combination of them and gets no basis vector:
///    two Gram-Schmidt passes leave a few eps of a dependent vector, and residuals of dependent
///    right-hand sides computed after a cycle differ by the rounding of b - A x, which scales
///    with ||b||, not with the (by then small) residual. Anything above is a direction the block
///    still has: it is kept, however small, so independent right-hand sides keep their rank
///    across restarts. (Dropping a remainder below 0.1 tol ||b||, an inexact deflation, would
///    still let the column converge, but it lost directions of independent right-hand sides
///    whose residuals were 1.4% apart; the block then no longer spans the residuals.) A dropped
///    remainder's norm is added to its column's estimate.
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
#include "impl/blocks/block_ops.hpp"
#include "impl/blocks/dense_matrix.hpp"
#include "impl/common/workspace_memory.hpp"
#include "impl/solvers/block_gmres_dense.hpp"
#include "impl/solvers/block_gmres_kernels.hpp"
#include "impl/solvers/solver_threads.hpp"

namespace Sprocket {
namespace Impl {
namespace gmres {

using blocks::DenseMatrix;

inline bool is_finite(double v) { return v - v == 0.0; }

template <class Scalar, class Device>
class BlockGmresSolver {
 public:
  using operator_type = MultiVectorOperator<Scalar, Device>;
  using execution_space = typename Device::execution_space;
  using multivector = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using const_multivector = Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>;

  // Numbers that decide behaviour (the file comment says why at length).
  /// Cholesky QR of a block only when every pivot keeps this fraction of its column's squared
  /// norm: the Gram matrix then resolves the block to full precision after two rounds.
  static constexpr double cholesky_min_pivot_fraction = 1e-2;
  /// A third block Gram-Schmidt pass when the second left a column below this fraction of its
  /// norm before that pass ("twice is enough" unless the vector nearly lies in the basis).
  static constexpr double block_reorthogonalization_ratio = 0.5;
  /// Column-by-column path: a pass against the whole basis when the in-block passes left a
  /// column below this fraction of its norm (its remainder would carry the basis' rounding).
  static constexpr double column_reorthogonalization_ratio = 1e-2;
  /// A cycle makes progress when some column's true residual drops by this relative amount.
  static constexpr double min_cycle_progress = 1e-4;
  /// Cycles in a row without progress before stagnation is declared (one could be rounding).
  static constexpr int max_stagnant_cycles = 3;
  /// An optimistic estimate shrinks the implicit target by at least this factor per cycle...
  static constexpr double max_target_shrink = 0.5;
  /// ...down to this fraction of tol (aiming lower than that only chases rounding).
  static constexpr double min_target_factor = 1e-3;

  BlockGmresSolver(const execution_space& space, const operator_type& A, const const_multivector& B,
                   const multivector& X, const BlockGmresOptions& options, const operator_type* M)
      : space_(space), A_(A), M_(M), B_(B), X_(X), options_(options) {
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
    SPROCKET_REQUIRE(options.single_thread_below >= 0, "block_gmres: single_thread_below = ",
                     options.single_thread_below, " (must be >= 0; 0 = never)");
    n_ = n;
    p_ = static_cast<int>(X.extent(1));
    s_ = options.block_size == 0 ? p_ : std::min(options.block_size, p_);
    m_ = options.restart;
    const double eps = std::numeric_limits<Scalar>::epsilon();
    // A residual column this close to the span of the ones before it is a combination of them:
    // two Gram-Schmidt passes leave a few eps of a dependent vector.
    residual_deflation_tol_ = std::max(1e3 * std::numeric_limits<double>::epsilon(), 10 * eps);
    // An Arnoldi direction is dropped only when its remainder is rounding, nothing else.
    arnoldi_deflation_tol_ = 10 * eps;
    // An R diagonal of the Hessenberg QR below eps times H's largest column carries no information.
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
    // The basis (restart + 1 blocks) and three blocks of work, checked before any is allocated:
    // a large restart x block on a large n is refused with its size, not an allocation failure.
    // (The small dense matrices of the least-squares problem are O(basis_cols^2).)
    const int64_t vectors_bytes = Impl::workspace_bytes({n_, basis_cols + 3 * int64_t{s_}, int64_t{sizeof(Scalar)}});
    const int64_t dense_bytes = Impl::workspace_bytes({basis_cols, basis_cols + 2 * int64_t{s_}, int64_t{sizeof(double)}});
    Impl::require_space_memory<execution_space>(
        vectors_bytes, "block_gmres: the Krylov basis and work blocks (n = " + std::to_string(n_) + ", restart " +
                           std::to_string(m_) + ", block " + std::to_string(s_) + ")");
    require_host_memory(dense_bytes, "block_gmres: the least-squares matrices (" + std::to_string(basis_cols) +
                                         " basis columns)");
    V_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::V"), n_, basis_cols);
    W_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::W"), n_, s_);
    Z_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::Z"), n_, s_);
    R_ = multivector(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::R"), n_, s_);
    // Small matrices: V^T B for the whole basis and a block (basis_cols x s) at most; blocks
    // written: s columns at most.
    workspace_ = blocks::Workspace<Device>(space_, n_, s_, basis_cols * s_);
    lsq_ = std::make_unique<BlockHessenbergLeastSquares>(static_cast<int>(basis_cols), m_ * s_, s_);

    bnorm_.assign(p_, 0.0);
    current_.assign(p_, 0.0);
    converged_.assign(p_, false);
    int64_t bad = blocks::first_nonfinite_column(space_, B_);
    if (bad >= 0) {
      fail_input("right-hand side column " + std::to_string(bad) + " holds NaN or Inf");
      return;
    }
    if (options_.random_initial_guess) {
      blocks::fill_random(space_, X_, 0x5350524F434B4554ull);  // fixed seed ("SPROCKET"): reproducible runs
    } else if ((bad = blocks::first_nonfinite_column(space_, X_)) >= 0) {
      fail_input("initial guess column " + std::to_string(bad) + " holds NaN or Inf");
      return;
    }
    for (int g0 = 0; g0 < p_; g0 += s_) {
      const int g1 = std::min(p_, g0 + s_);
      const auto Bg = Kokkos::subview(B_, Kokkos::ALL(), std::make_pair(g0, g1));
      const std::vector<double> sq = blocks::column_dots(workspace_, Bg, Bg);
      std::copy(sq.begin(), sq.end(), bnorm_.begin() + g0);
    }
    std::vector<int> nonzero;
    for (int q = 0; q < p_; ++q) {
      bnorm_[q] = std::sqrt(bnorm_[q]);
      if (bnorm_[q] == 0) {  // b = 0: x = 0 solves it exactly; the relative residual is 0 by definition
        Kokkos::deep_copy(space_, Kokkos::subview(X_, Kokkos::ALL(), q), Scalar(0));
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

  void apply_operator(const multivector& in, const multivector& out) {
    Kokkos::Timer timer;
    A_.apply(space_, in, out);
    space_.fence();
    result_.timings.operator_apply += timer.seconds();
  }

  void apply_preconditioner(const multivector& in, const multivector& out) {
    Kokkos::Timer timer;
    M_->apply(space_, in, out);
    space_.fence();
    result_.timings.preconditioner += timer.seconds();
  }

  std::vector<double> column_norms(const multivector& W) {
    std::vector<double> sq = blocks::column_dots(workspace_, W, W);
    for (double& v : sq) v = std::sqrt(v);
    return sq;
  }

  /// R(:, 0:k) = B(:, cols) - A X(:, cols); returns ||r|| / ||b|| per column.
  std::vector<double> true_residuals(const std::vector<int>& cols) {
    const int64_t k = static_cast<int64_t>(cols.size());
    const auto idx = blocks::upload_columns(workspace_, cols);
    const multivector Xa = columns_of(W_, 0, k), Rk = columns_of(R_, 0, k);
    blocks::gather_columns(space_, X_, idx, Xa);
    apply_operator(Xa, Rk);
    residual_from_product(space_, B_, idx, Rk);
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
      info.worst_residual = std::max(info.worst_residual, current_[q]);
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

  /// Work of one orthonormalize call: the block B (n x count) after N basis columns.
  struct OrthoBlock {
    multivector B;
    int N = 0, count = 0;
    DenseMatrix coef;  ///< (N + count) x count: B's coefficients on the basis, as they are found
    DenseMatrix gram;  ///< count x count: B^T B as last computed
    std::vector<double> reference;  ///< column norms before any projection (the deflation scale)
  };

  static std::vector<double> diagonal_norms(const DenseMatrix& G) {
    std::vector<double> d(G.cols);
    for (int c = 0; c < G.cols; ++c) d[c] = std::sqrt(G(c, c));
    return d;
  }

  /// Block classical Gram-Schmidt of ob.B against V(:, 0:N): two passes, a third when the second
  /// removed more than half of a column. Fills ob.gram (B^T B after the last pass) and
  /// ob.reference (norms before the first).
  void project_out_basis(OrthoBlock& ob) {
    const int N = ob.N, count = ob.count;
    // One reduction gives both V^T B (rows 0..N-1) and B^T B (rows N..): B sits right after V.
    const multivector Vb = columns_of(V_, 0, N), VB = columns_of(V_, 0, N + count);
    DenseMatrix G(N, count);
    for (int pass = 0; pass < 3; ++pass) {
      const DenseMatrix T = blocks::gram(workspace_, VB, ob.B, false);
      for (int c = 0; c < count; ++c) {
        for (int a = 0; a < N; ++a) {
          G(a, c) = T(a, c);
          ob.coef(a, c) += T(a, c);
        }
        for (int a = 0; a < count; ++a) ob.gram(a, c) = T(N + a, c);
      }
      const std::vector<double> before = diagonal_norms(ob.gram);
      if (pass == 0) ob.reference = before;
      if (pass == 0) {  // the first pass always gets a second
        blocks::combine(workspace_, -1.0, Vb, G, 1.0, ob.B);
        continue;
      }
      // The update and B^T B after it in one pass over B (one parallel region on the host).
      ob.gram = blocks::combine_gram(workspace_, -1.0, Vb, G, 1.0, ob.B);
      const std::vector<double> after = diagonal_norms(ob.gram);
      bool again = false;
      for (int c = 0; c < count; ++c) again = again || after[c] < block_reorthogonalization_ratio * before[c];
      if (!again) break;
    }
  }

  /// Cholesky QR, twice, of the block into V(:, N:N+count) when its Gram matrix is well
  /// conditioned. False (B intact) when a Cholesky factorization refuses.
  bool cholesky_qr(OrthoBlock& ob, OrthoOutcome& out) {
    const int N = ob.N, count = ob.count;
    DenseMatrix R1, R2;
    if (!blocks::cholesky_upper(ob.gram, cholesky_min_pivot_fraction, R1)) return false;
    if (count == 1) {
      scaled_column_copy(space_, ob.B, 0, 1.0 / R1(0, 0), V_, N);
      ob.coef(N, 0) = R1(0, 0);
      out.accepted = 1;
      return true;
    }
    // Q1 = B R1^{-1} into scratch, then Q = Q1 R2^{-1} into the basis (B itself for Arnoldi,
    // which the first product has finished reading).
    const multivector scratch = columns_of(W_, 0, count);
    const DenseMatrix gram2 = blocks::combine_gram(workspace_, 1.0, ob.B, blocks::invert_upper(R1), 0.0, scratch);
    // (the second Gram is far from the identity only through rounding trouble: B is intact)
    if (!blocks::cholesky_upper(gram2, cholesky_min_pivot_fraction, R2)) return false;
    blocks::combine(workspace_, 1.0, scratch, blocks::invert_upper(R2), 0.0, columns_of(V_, N, N + count));
    const DenseMatrix R = blocks::multiply(R2, R1);
    for (int c = 0; c < count; ++c)
      for (int a = 0; a <= c; ++a) ob.coef(N + a, c) = R(a, c);
    out.accepted = count;
    return true;
  }

  /// Column by column: two projections against the columns accepted so far, one more against
  /// the whole basis if they cancelled 99% of the column, then the drop test on the exact
  /// remainder (deflation).
  void orthonormalize_columns(OrthoBlock& ob, const std::vector<double>& threshold, OrthoOutcome& out) {
    const int N = ob.N, count = ob.count;
    const std::vector<double> norms = diagonal_norms(ob.gram);
    for (int c = 0; c < count; ++c) {
      const multivector bc = columns_of(ob.B, c, c + 1);
      const int k = out.accepted;
      double norm = norms[c];
      auto project_out = [&](int begin, int end) {  // bc -= V(:, begin:end) V(:, begin:end)^T bc
        const multivector Vs = columns_of(V_, begin, end);
        const DenseMatrix t = blocks::gram(workspace_, Vs, bc, false);
        for (int a = begin; a < end; ++a) ob.coef(a, c) += t(a - begin, 0);
        blocks::combine(workspace_, -1.0, Vs, t, 1.0, bc);
      };
      if (k > 0) {
        project_out(N, N + k);
        project_out(N, N + k);
        norm = column_norms(bc)[0];
        if (N > 0 && norm < column_reorthogonalization_ratio * norms[c]) {
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
        ++result_.deflated_directions;
        continue;
      }
      scaled_column_copy(space_, ob.B, c, 1.0 / norm, V_, N + k);
      ob.coef(N + k, c) = norm;
      ++out.accepted;
    }
  }

  /// Orthonormalizes the block B (n x count) against V(:, 0:N) and within itself, writing the
  /// accepted directions to V(:, N), V(:, N+1), ... For N > 0, B must be V(:, N:N+count) (the
  /// Arnoldi block computed in place); for N = 0 (a residual block) it is any other multivector.
  /// A column whose remainder is at most max(deflation tolerance * its norm, floor[c]) is
  /// dropped. Against the old basis: project_out_basis. Inside the block, when no column is to
  /// be dropped: cholesky_qr (two operator-free passes, independent of the block size);
  /// otherwise, or when it refuses, orthonormalize_columns.
  OrthoOutcome orthonormalize(const multivector& B, int N, const std::vector<double>& floor) {
    Kokkos::Timer timer;
    OrthoBlock ob;
    ob.B = B;
    ob.N = N;
    ob.count = static_cast<int>(B.extent(1));
    ob.coef = DenseMatrix(N + ob.count, ob.count);
    ob.gram = DenseMatrix(ob.count, ob.count);
    OrthoOutcome out;
    out.dropped.assign(ob.count, 0.0);
    auto finish = [&]() {
      const int rows = N + out.accepted;
      out.coefficients.assign(static_cast<size_t>(rows) * ob.count, 0.0);
      for (int c = 0; c < ob.count; ++c)
        for (int a = 0; a < rows; ++a) out.coefficients[static_cast<size_t>(c) * rows + a] = ob.coef(a, c);
      space_.fence();
      result_.timings.orthogonalization += timer.seconds();
      return out;
    };
    if (N == 0) {
      ob.gram = blocks::gram(workspace_, B, B, true);
      ob.reference = diagonal_norms(ob.gram);
    } else {
      project_out_basis(ob);
    }
    const std::vector<double> norms = diagonal_norms(ob.gram);
    for (int c = 0; c < ob.count; ++c)
      out.nonfinite = out.nonfinite || !is_finite(ob.reference[c]) || !is_finite(norms[c]);
    if (out.nonfinite) return finish();
    std::vector<double> threshold(ob.count);
    bool keep_all = true;
    for (int c = 0; c < ob.count; ++c) {
      threshold[c] = std::max((N == 0 ? residual_deflation_tol_ : arnoldi_deflation_tol_) * ob.reference[c],
                              floor.empty() ? 0.0 : floor[c]);
      keep_all = keep_all && norms[c] > threshold[c];
    }
    if (keep_all && cholesky_qr(ob, out)) return finish();
    orthonormalize_columns(ob, threshold, out);
    return finish();
  }

  // ---- one group of right-hand sides --------------------------------------------------------

  /// What a group carries from one restart cycle to the next.
  struct GroupState {
    std::vector<int> active;       ///< columns not converged yet
    std::vector<double> previous;  ///< each column's true residual at the start of the last cycle
    double implicit_factor = 1;    ///< a cycle ends when every estimate <= implicit_factor * tol
    bool estimate_claimed = false, singular_seen = false, first_cycle = true;
    int stagnant_cycles = 0, iterations = 0;
    std::ostringstream message;
  };

  /// Step 1 of a cycle: the true residuals of the active columns into R_ (compacted to the
  /// columns still active); converged ones leave the block, progress and the implicit target
  /// are updated. Returns false with `status` set when the group is done.
  bool check_true_residuals(GroupState& g, SolverStatus& status) {
    const double tol = options_.tol;
    const std::vector<double> rel = true_residuals(g.active);
    double worst = 0, progress = 0;
    for (size_t j = 0; j < g.active.size(); ++j) {
      current_[g.active[j]] = rel[j];
      if (!is_finite(rel[j])) {
        g.message << "the residual of column " << g.active[j]
                  << " is NaN or Inf (the operator or the preconditioner produced non-finite values)";
        status = SolverStatus::breakdown;
        return false;
      }
      worst = std::max(worst, rel[j]);
      if (!g.first_cycle) progress = std::max(progress, 1 - rel[j] / g.previous[g.active[j]]);
    }
    if (!g.first_cycle) g.stagnant_cycles = progress < min_cycle_progress ? g.stagnant_cycles + 1 : 0;
    if (g.estimate_claimed && worst > tol)  // the estimate was optimistic: aim lower
      g.implicit_factor = std::max(min_target_factor, g.implicit_factor * std::min(max_target_shrink, tol / worst));
    std::vector<int> still_active;
    for (size_t j = 0; j < g.active.size(); ++j) {
      if (rel[j] <= tol) {
        converged_[g.active[j]] = true;
      } else {
        // compact the residual block: column j moves to position still_active.size() <= j
        const int to = static_cast<int>(still_active.size());
        if (to != static_cast<int>(j))
          Kokkos::deep_copy(space_, columns_of(R_, to, to + 1), columns_of(R_, j, j + 1));
        still_active.push_back(g.active[j]);
      }
    }
    if (still_active.empty()) {
      status = SolverStatus::converged;
      return false;
    }
    if (g.stagnant_cycles >= max_stagnant_cycles) {
      g.message << "the true relative residual (worst " << worst << ") improved by less than 0.01% in "
                << max_stagnant_cycles << " consecutive restart cycles";
      if (g.singular_seen) {
        g.message << "; A M^-1 is numerically singular on the Krylov space (a dependent Hessenberg column)";
        status = SolverStatus::breakdown;
      } else {
        status = SolverStatus::stagnation;
      }
      return false;
    }
    if (g.iterations >= options_.max_iterations) {
      g.message << "reached max_iterations = " << options_.max_iterations << " block steps with worst true "
                << "relative residual " << worst;
      status = SolverStatus::max_iterations;
      return false;
    }
    g.active = still_active;
    for (int q : g.active) g.previous[q] = current_[q];
    return true;
  }

  enum class StepResult { next, converged_estimate, invariant_subspace, singular, nonfinite };

  /// One block Arnoldi step from basis block V(:, basis_prev:basis): W = A M^{-1} V_j
  /// orthonormalized into the basis, the least-squares problem extended, the estimates checked
  /// against the implicit target (the convergence check of the cycle).
  StepResult arnoldi_step(GroupState& g, const std::vector<double>& dropped, int& basis_prev, int& basis) {
    const int k = static_cast<int>(g.active.size());
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
    ++g.iterations;
    ++result_.iterations;
    if (step.nonfinite) {
      record_iteration();
      return StepResult::nonfinite;
    }
    Kokkos::Timer timer;
    const int used = lsq_->append_columns(step.coefficients.data(), rj, basis + step.accepted);
    bool all_met = true;
    for (int j = 0; j < k; ++j) {
      const double r = lsq_->residual_norm(j), d = dropped[j];
      current_[g.active[j]] = std::sqrt(r * r + d * d) / bnorm_[g.active[j]];
      all_met = all_met && current_[g.active[j]] <= g.implicit_factor * options_.tol;
    }
    result_.timings.orthogonalization += timer.seconds();
    record_iteration();
    if (used < rj) return StepResult::singular;
    basis_prev = basis;
    basis += step.accepted;
    if (all_met) return StepResult::converged_estimate;
    if (step.accepted == 0) return StepResult::invariant_subspace;  // the space holds the solution
    return StepResult::next;
  }

  /// Step 5 of a cycle: X(:, active) += M^{-1} V Y from the least-squares minimizer Y.
  void update_solution(const GroupState& g) {
    const int k = static_cast<int>(g.active.size());
    Kokkos::Timer timer;
    const std::vector<double> y = lsq_->solve();
    DenseMatrix Y(lsq_->num_columns(), k);
    Y.data = y;
    const multivector Zk = columns_of(Z_, 0, k);
    blocks::combine(workspace_, 1.0, columns_of(V_, 0, lsq_->num_columns()), Y, 0.0, Zk);
    space_.fence();
    result_.timings.orthogonalization += timer.seconds();
    const auto idx = blocks::upload_columns(workspace_, g.active);
    if (M_) {
      const multivector Wk = columns_of(W_, 0, k);
      apply_preconditioner(Zk, Wk);
      scatter_add_columns(space_, Wk, idx, X_);
    } else {
      scatter_add_columns(space_, Zk, idx, X_);
    }
  }

  /// One restart cycle on the (already compacted) residual block: deflated first basis block,
  /// Arnoldi steps until an exit, then the solution update. Returns false with `status` when
  /// the group cannot go on.
  bool restart_cycle(GroupState& g, SolverStatus& status) {
    const int k = static_cast<int>(g.active.size());
    // 2. the first basis block from the residuals, deflated
    // Dependence to the rounding of b - A x, which scales with ||b||.
    std::vector<double> floor(k);
    for (int j = 0; j < k; ++j) floor[j] = residual_deflation_tol_ * bnorm_[g.active[j]];
    const OrthoOutcome start = orthonormalize(columns_of(R_, 0, k), 0, floor);
    if (start.nonfinite || start.accepted == 0) {
      g.message << "the residual block could not be orthonormalized (non-finite values)";
      status = SolverStatus::breakdown;
      return false;
    }
    lsq_->reset(start.coefficients, start.accepted, k, rank_tol_);
    ++result_.cycles;

    // 3.-4. block Arnoldi steps, least squares updated per step
    int basis_prev = 0, basis = start.accepted, steps = 0;
    bool nonfinite = false;
    g.estimate_claimed = false;
    while (steps < m_ && g.iterations < options_.max_iterations) {
      ++steps;
      const StepResult r = arnoldi_step(g, start.dropped, basis_prev, basis);
      if (r == StepResult::next) continue;
      nonfinite = r == StepResult::nonfinite;
      g.singular_seen = g.singular_seen || r == StepResult::singular;
      g.estimate_claimed = r == StepResult::converged_estimate;
      break;
    }

    // 5. X(:, active) += M^{-1} V Y
    const int used_columns = lsq_->num_columns();
    if (used_columns > 0) update_solution(g);
    if (nonfinite) {
      g.message << "the operator or the preconditioner produced NaN or Inf at block iteration " << result_.iterations;
      status = SolverStatus::breakdown;
      return false;
    }
    if (used_columns == 0) {
      g.message << "A M^-1 maps the residual block to (numerically) zero: the operator is singular on it";
      status = SolverStatus::breakdown;
      return false;
    }
    g.first_cycle = false;
    return true;
  }

  SolverStatus solve_group(int g0, int g1, std::string& message) {
    GroupState g;
    for (int q = g0; q < g1; ++q)
      if (!converged_[q]) g.active.push_back(q);
    g.previous.assign(p_, 0.0);
    SolverStatus status = SolverStatus::converged;
    while (!g.active.empty()) {
      if (!check_true_residuals(g, status)) break;  // 1. true residuals; converged columns leave
      if (!restart_cycle(g, status)) break;         // 2.-5.
    }
    message = g.message.str();
    return status;
  }

  execution_space space_;
  const operator_type& A_;
  const operator_type* M_;
  const_multivector B_;
  multivector X_;
  BlockGmresOptions options_;
  int64_t n_ = 0;
  int p_ = 0, s_ = 1, m_ = 1;
  double residual_deflation_tol_ = 0, arnoldi_deflation_tol_ = 0, rank_tol_ = 0;

  multivector V_, W_, Z_, R_;
  blocks::Workspace<Device> workspace_;
  std::unique_ptr<BlockHessenbergLeastSquares> lsq_;

  std::vector<double> bnorm_, current_;
  std::vector<bool> converged_;
  BlockGmresResult result_;
  Kokkos::Timer* total_timer_ = nullptr;
};

}  // namespace gmres
}  // namespace Impl

template <class Scalar, class Device>
BlockGmresResult block_gmres(
    const typename Device::execution_space& space, const MultiVectorOperator<Scalar, Device>& A,
    const typename Impl::NonDeduced<Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>>::type& B,
    const typename Impl::NonDeduced<Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>>::type& X,
    const BlockGmresOptions& options, const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* M) {
  Impl::gmres::BlockGmresSolver<Scalar, Device> solver(space, A, B, X, options, M);  // validates
  const int64_t p = static_cast<int64_t>(X.extent(1));
  const int64_t s = options.block_size == 0 ? p : std::min<int64_t>(options.block_size, p);
  const bool one_thread = Impl::solvers::runs_on_one_thread(space, A.num_rows(), s, options.single_thread_below);
  BlockGmresResult result = Impl::solvers::run_solve(space, one_thread, [&] { return solver.solve(); });
  result.single_thread = one_thread;
  return result;
}

template <class Scalar, class Device>
BlockGmresResult block_gmres(
    const MultiVectorOperator<Scalar, Device>& A,
    const typename Impl::NonDeduced<Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>>::type& B,
    const typename Impl::NonDeduced<Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>>::type& X,
    const BlockGmresOptions& options, const typename Impl::NonDeduced<Preconditioner<Scalar, Device>>::type* M) {
  return block_gmres<Scalar, Device>(typename Device::execution_space(), A, B, X, options, M);
}

}  // namespace Sprocket
