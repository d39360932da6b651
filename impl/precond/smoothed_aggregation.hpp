#pragma once
/// \file smoothed_aggregation.hpp
/// Smoothed-aggregation algebraic multigrid as a preconditioner: one V-cycle per apply.
///
/// Setup, level by level (A_0 = A, with its duplicates summed):
///  1. strength graph and aggregates of A_l's nodes, tentative prolongator Pt_l from the near
///     null space (smoothed_aggregation_setup.hpp, host, double);
///  2. the level's operator (an SpMM plan of A_l) and smoother (Chebyshev in D^{-1} A_l, or
///     damped Jacobi), with lambda_max(D^{-1} A_l) from the power method;
///  3. the smoothed prolongator P_l = Pt_l - (damping / lambda_max) D^{-1} A_l Pt_l, R_l = P_l^T,
///     and the Galerkin product A_{l+1} = R_l (A_l P_l): three SpGEMMs, each through its own
///     SpgemmPlan kept for update_values (new values on the same pattern: numeric passes only,
///     no aggregation and no symbolic work);
/// until A_l has at most coarse_size rows (or max_levels is reached, or aggregation stops
/// coarsening): the coarsest level is solved by dense LU (LAPACK, host).
///
/// The V-cycle on a block of s right-hand sides B (X from zero, every step on whole blocks):
///   X = S B;  T = B - A X;  X_c = V(R T);  X += P X_c;  X += S (B - A X)
/// with S the smoother's approximate inverse (Chebyshev from a zero guess, or Jacobi sweeps), so
/// the cycle is symmetric for symmetric A and S, and usable inside CG-like and LOBPCG solvers.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Spgemm.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/precond/chebyshev.hpp"
#include "impl/precond/jacobi.hpp"
#include "impl/precond/precond_common.hpp"
#include "impl/precond/smoothed_aggregation_setup.hpp"

namespace Sprocket {

namespace Impl {
namespace precond {

/// T = B - T (the residual once T holds A X).
template <class BView, class TView>
void subtract_from(const BView& B, const TView& T) {
  using ExecSpace = typename TView::execution_space;
  const int64_t s = static_cast<int64_t>(T.extent(1));
  Kokkos::parallel_for(
      "Sprocket::amg::residual", Kokkos::RangePolicy<ExecSpace>(0, T.extent(0)), KOKKOS_LAMBDA(const int64_t i) {
        for (int64_t j = 0; j < s; ++j) T(i, j) = B(i, j) - T(i, j);
      });
}

/// y = factor * x (device code in a free function: nvcc refuses extended lambdas whose enclosing
/// function names a private type, as the builder's functions do).
template <class XView, class YView>
void scale_into(double factor, const XView& x, const YView& y) {
  using Scalar = typename YView::non_const_value_type;
  const Scalar f = static_cast<Scalar>(factor);
  Kokkos::parallel_for(
      "Sprocket::amg::scale", Kokkos::RangePolicy<typename YView::execution_space>(0, y.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { y(i) = f * x(i); });
}

/// X += T.
template <class TView, class XView>
void add_to(const TView& T, const XView& X) {
  using ExecSpace = typename XView::execution_space;
  const int64_t s = static_cast<int64_t>(X.extent(1));
  Kokkos::parallel_for(
      "Sprocket::amg::correct", Kokkos::RangePolicy<ExecSpace>(0, X.extent(0)), KOKKOS_LAMBDA(const int64_t i) {
        for (int64_t j = 0; j < s; ++j) X(i, j) += T(i, j);
      });
}

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
class SmoothedAggregationPreconditioner;

namespace Impl {
namespace precond {

/// Builds the hierarchy (friend of the preconditioner so that make_ and update_values share it).
template <class CrsType>
struct SmoothedAggregationBuilder;

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
class SmoothedAggregationPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;
  using MV = typename base::multivector;
  using ConstMV = typename base::const_multivector;
  using Operator = MultiVectorOperator<Scalar, Device>;

 public:
  /// One level's numbers, for describe() and the tests.
  struct LevelInfo {
    int64_t rows = 0, nnz = 0;
    int64_t aggregates = 0, left_out = 0, dropped_columns = 0;  ///< of the aggregation below it
    double lambda_max = 0;                                       ///< of D^{-1} A (estimate)
  };

  int64_t num_rows() const override { return levels_.empty() ? 0 : levels_.front().info.rows; }
  int64_t num_cols() const override { return num_rows(); }
  int num_levels() const { return static_cast<int>(levels_.size()); }
  const LevelInfo& level(int l) const { return levels_.at(l).info; }
  /// Copies, for inspection and the tests: A_l (A_0 is A with duplicates summed), and P_l, the
  /// smoothed prolongator from level l + 1 to level l (l < num_levels() - 1).
  HostCsr level_matrix(int l) const { return levels_.at(l).matrix(); }
  HostCsr prolongator(int l) const {
    SPROCKET_REQUIRE(l >= 0 && l + 1 < num_levels(), "SmoothedAggregationPreconditioner::prolongator: level ", l,
                     " of ", num_levels(), " has no prolongator");
    return levels_[l].prolongator();
  }
  /// sum of nnz(A_l) / nnz(A_0) and sum of rows(A_l) / rows(A_0).
  double operator_complexity() const {
    double s = 0;
    for (const auto& L : levels_) s += static_cast<double>(L.info.nnz);
    return levels_.empty() || levels_[0].info.nnz == 0 ? 1.0 : s / static_cast<double>(levels_[0].info.nnz);
  }
  double grid_complexity() const {
    double s = 0;
    for (const auto& L : levels_) s += static_cast<double>(L.info.rows);
    return levels_.empty() || levels_[0].info.rows == 0 ? 1.0 : s / static_cast<double>(levels_[0].info.rows);
  }

  /// New values of A on the pattern of the setup (duplicates summed): the Galerkin products
  /// re-run through their plans' numeric passes (aggregates, tentative prolongators and every
  /// symbolic product kept), the smoothers and the coarsest LU are rebuilt.
  template <class CrsType>
  void update_values(const CrsType& A);
  /// The same, ordered after the work queued on `space`.
  template <class CrsType>
  void update_values(const typename Device::execution_space& space, const CrsType& A) {
    space.fence();
    update_values(A);
  }

  using base::apply;  // the execution-space overload
  void apply(const ConstMV& X, const MV& Y) const override {
    Impl::precond::check_apply("SmoothedAggregationPreconditioner::apply", num_rows(), X, Y);
    const int64_t s = static_cast<int64_t>(X.extent(1));
    if (num_rows() == 0 || s == 0) return;
    size_work(s);
    vcycle(0, X, Y);
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "smoothed aggregation AMG<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": " << levels_.size() << " levels, V-cycle; ";
    os << smoother_text_ << "; strength threshold " << options_.strength_threshold << ", block size " << block_size_
       << ", near null space " << null_space_columns_ << " column(s) (" << null_space_origin_
       << "), prolongator damping " << options_.prolongator_damping << " / lambda_max; coarsest ("
       << coarse_.n << " rows) by dense LU; operator complexity ";
    os.precision(3);
    os << operator_complexity() << ", grid complexity " << grid_complexity() << "\n";
    for (size_t l = 0; l < levels_.size(); ++l) {
      const LevelInfo& i = levels_[l].info;
      os << "  level " << l << ": " << i.rows << " rows, nnz " << i.nnz;
      if (l + 1 < levels_.size())
        os << ", lambda_max(D^-1 A) " << i.lambda_max << ", " << i.aggregates << " aggregates (" << i.left_out
           << " nodes left out, " << i.dropped_columns << " null-space columns dropped)";
      os << "\n";
    }
    std::string text = os.str();
    text.pop_back();
    return text;
  }

 private:
  template <class CrsType>
  friend struct Impl::precond::SmoothedAggregationBuilder;

  struct Level {
    LevelInfo info;
    std::shared_ptr<const Operator> A, P, R, smoother;
    std::function<HostCsr()> matrix, prolongator;
    mutable MV B, X, T, Z;  // right-hand side and solution (coarse levels), residual, correction
  };

  SmoothedAggregationPreconditioner() = default;

  void size_work(int64_t s) const {
    for (size_t l = 0; l < levels_.size(); ++l) {
      const Level& L = levels_[l];
      const int64_t n = L.info.rows;
      if (static_cast<int64_t>(L.T.extent(1)) == s && static_cast<int64_t>(L.T.extent(0)) == n) continue;
      auto make = [&](const char* name) { return MV(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)), n, s); };
      L.T = make("Sprocket::amg::T");
      L.Z = make("Sprocket::amg::Z");
      if (l > 0) {
        L.B = make("Sprocket::amg::B");
        L.X = make("Sprocket::amg::X");
      }
    }
    if (static_cast<int64_t>(coarse_host_.size()) < coarse_.n * s) coarse_host_.resize(coarse_.n * s);
  }

  /// X = S B, then sweeps - 1 more: X += S (B - A X).
  void smooth_from_zero(const Level& L, const ConstMV& B, const MV& X) const {
    L.smoother->apply(B, X);
    for (int sweep = 1; sweep < smoother_sweeps_; ++sweep) smooth(L, B, X);
  }
  /// X += S (B - A X).
  void smooth(const Level& L, const ConstMV& B, const MV& X) const {
    L.A->apply(X, L.T);
    Impl::precond::subtract_from(B, L.T);
    L.smoother->apply(L.T, L.Z);
    Impl::precond::add_to(L.Z, X);
  }

  void vcycle(size_t l, const ConstMV& B, const MV& X) const {
    const Level& L = levels_[l];
    if (l + 1 == levels_.size()) {
      coarse_solve(B, X);
      return;
    }
    smooth_from_zero(L, B, X);
    L.A->apply(X, L.T);
    Impl::precond::subtract_from(B, L.T);
    const Level& C = levels_[l + 1];
    L.R->apply(L.T, C.B);
    vcycle(l + 1, C.B, C.X);
    L.P->apply(C.X, L.T);
    Impl::precond::add_to(L.T, X);
    for (int sweep = 0; sweep < smoother_sweeps_; ++sweep) smooth(L, B, X);
  }

  void coarse_solve(const ConstMV& B, const MV& X) const {
    const int64_t n = coarse_.n, s = static_cast<int64_t>(B.extent(1));
    const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
    for (int64_t j = 0; j < s; ++j)
      for (int64_t i = 0; i < n; ++i) coarse_host_[i + j * n] = static_cast<double>(b(i, j));
    Impl::precond::dense_lu_solve(coarse_, coarse_host_.data(), s);
    const auto x = Kokkos::create_mirror_view(Kokkos::HostSpace(), X);
    for (int64_t j = 0; j < s; ++j)
      for (int64_t i = 0; i < n; ++i) x(i, j) = static_cast<Scalar>(coarse_host_[i + j * n]);
    Kokkos::deep_copy(X, x);
  }

  std::vector<Level> levels_;
  Impl::precond::DenseLu coarse_;
  mutable std::vector<double> coarse_host_;
  SmoothedAggregationOptions options_;
  int block_size_ = 1, null_space_columns_ = 1, smoother_sweeps_ = 1;
  std::string null_space_origin_, smoother_text_;
  std::shared_ptr<void> builder_;  // the SpGEMM plans and level matrices update_values re-runs
  std::string builder_type_;       // which SmoothedAggregationBuilder<CrsType> builder_ holds

};

namespace Impl {
namespace precond {

template <class CrsType>
struct SmoothedAggregationBuilder {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  using Precond = SmoothedAggregationPreconditioner<Scalar, Device>;
  using Level = typename Precond::Level;
  using Plan = SpgemmPlan<CrsType>;
  static constexpr const char* who = "make_smoothed_aggregation";

  /// What a level keeps for update_values: its matrix and the three products' plans and results.
  struct LevelData {
    CrsType A;  // A_l (A_0: the summed, sorted copy of the user's A)
    HostCsr tentative_host;
    CrsType tentative, APt, P, R, AP;
    std::unique_ptr<Plan> apt_plan, ap_plan, rap_plan;
  };
  std::vector<LevelData> data;
  HostCsr a0_pattern;  // A_0's summed pattern: update_values' input must have it

  static void copy_values(const std::vector<double>& from, const CrsType& to) {
    auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), to.values);
    for (size_t k = 0; k < from.size(); ++k) host(k) = static_cast<Scalar>(from[k]);
    Kokkos::deep_copy(to.values, host);
  }

  /// The level's operator and smoother from its matrix (and lambda_max of D^{-1} A); returns D^{-1}
  /// on the host (empty for the coarsest level, which has neither).
  static std::vector<double> build_level_operators(const SmoothedAggregationOptions& o, Level& L, const CrsType& A,
                                                   bool coarsest) {
    L.info.rows = A.numRows();
    L.info.nnz = static_cast<int64_t>(A.nnz());
    if (coarsest) return {};
    auto op = make_operator(SpmmPlan<CrsType>(A));
    const auto dinv = inverse_diagonal(A, who, " (smoothed aggregation scales by the diagonal of every level)");
    const double estimate = power_method(*op, dinv, o.chebyshev.power_iterations);
    SPROCKET_REQUIRE(estimate > 0 && std::isfinite(estimate), who, ": the power method found no positive largest ",
                     "eigenvalue of D^-1 A on a level of ", A.numRows(), " rows (estimate ", estimate, ")");
    L.info.lambda_max = estimate;
    if (o.smoother == SmoothedAggregationOptions::Smoother::chebyshev) {
      ChebyshevOptions c = o.chebyshev;
      c.lambda_max = 1.1 * estimate;  // as make_chebyshev's own estimate would be
      L.smoother = make_chebyshev(std::shared_ptr<const MultiVectorOperator<Scalar, Device>>(op), dinv, c);
    } else {
      // (jacobi_damping / lambda_max) D^{-1}, i.e. damping relative to the level's spectrum.
      auto scaled = Kokkos::View<Scalar*, Device>("Sprocket::amg::jacobi", dinv.extent(0));
      scale_into(o.jacobi_damping / estimate, dinv, scaled);
      L.smoother = std::make_shared<JacobiPreconditioner<Scalar, Device>>(scaled);
    }
    L.A = op;
    const auto dinv_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dinv);
    std::vector<double> out(dinv_host.extent(0));
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(dinv_host(i));
    return out;
  }

  /// P = Pt - omega D^{-1} A Pt from the plan's numeric A Pt, R = P^T, A P, R A P (into next, the
  /// next level's matrix: created on the first call, its values rewritten after).
  void galerkin(const SmoothedAggregationOptions& o, Level& L, LevelData& D, const std::vector<double>& dinv,
                CrsType* next, bool first) {
    const double omega = o.prolongator_damping / L.info.lambda_max;
    if (first) {
      D.apt_plan = std::make_unique<Plan>(D.A, D.tentative);
      D.APt = D.apt_plan->numeric(D.A, D.tentative);
    } else {
      D.apt_plan->numeric(D.A, D.tentative, D.APt);
    }
    const HostCsr P = smoothed_prolongator(D.tentative_host, to_host_csr(D.APt), dinv, omega, nullptr);
    const HostCsr R = transpose(P);
    if (first) {
      D.P = to_crs<CrsType>(P, "Sprocket::amg::P");
      D.R = to_crs<CrsType>(R, "Sprocket::amg::R");
      D.ap_plan = std::make_unique<Plan>(D.A, D.P);
      D.AP = D.ap_plan->numeric(D.A, D.P);
      D.rap_plan = std::make_unique<Plan>(D.R, D.AP);
      *next = D.rap_plan->numeric(D.R, D.AP);
    } else {
      copy_values(P.values, D.P);
      copy_values(R.values, D.R);
      D.ap_plan->numeric(D.A, D.P, D.AP);
      D.rap_plan->numeric(D.R, D.AP, *next);
    }
    L.P = make_operator(SpmmPlan<CrsType>(D.P));
    L.prolongator = [P = D.P] { return to_host_csr(P); };
    L.R = make_operator(SpmmPlan<CrsType>(D.R));
  }

  static std::shared_ptr<Precond> build(const CrsType& A, const SmoothedAggregationOptions& o) {
    SPROCKET_REQUIRE(A.numRows() == A.numCols(), who, ": A must be square, it is ", A.numRows(), " x ", A.numCols());
    SPROCKET_REQUIRE(o.block_size >= 0, who, ": block_size = ", o.block_size, " (0: detect, else >= 1)");
    SPROCKET_REQUIRE(o.max_levels >= 1, who, ": max_levels = ", o.max_levels, " (must be >= 1)");
    SPROCKET_REQUIRE(o.coarse_size >= 1, who, ": coarse_size = ", o.coarse_size, " (must be >= 1)");
    SPROCKET_REQUIRE(o.prolongator_damping >= 0 && o.prolongator_damping < 2, who, ": prolongator_damping = ",
                     o.prolongator_damping, " (must be in [0, 2))");
    SPROCKET_REQUIRE(o.smoother_sweeps >= 1, who, ": smoother_sweeps = ", o.smoother_sweeps, " (must be >= 1)");
    SPROCKET_REQUIRE(o.jacobi_damping > 0 && o.jacobi_damping < 2, who, ": jacobi_damping = ", o.jacobi_damping,
                     " (must be in (0, 2))");
    SPROCKET_REQUIRE(o.chebyshev.power_iterations >= 1, who, ": chebyshev.power_iterations = ",
                     o.chebyshev.power_iterations, " (must be >= 1)");
    auto M = std::shared_ptr<Precond>(new Precond());
    auto self = std::make_shared<SmoothedAggregationBuilder>();
    M->options_ = o;
    M->smoother_sweeps_ = o.smoother_sweeps;
    HostCsr h = summed_host_copy(A, who);
    const int64_t n = h.num_rows;
    const int b = o.block_size > 0 ? o.block_size : std::max(1, detect_block_size(h));
    M->block_size_ = b;
    std::vector<double> null_space;
    int k = 0;
    if (o.near_null_space.empty()) {
      k = std::max(1, static_cast<int>(std::min<int64_t>(b, std::max<int64_t>(n, 1))));
      null_space.assign(static_cast<size_t>(n) * k, 0.0);
      for (int64_t r = 0; r < n; ++r) null_space[r + static_cast<size_t>(r % b) * n] = 1;
      M->null_space_origin_ = b == 1 ? "constant" : "constant per unknown of a node";
    } else {
      k = o.near_null_space_columns;
      SPROCKET_REQUIRE(k >= 1 && static_cast<int64_t>(o.near_null_space.size()) == n * k, who,
                       ": the near null space has ", o.near_null_space.size(), " values, expected rows x columns = ",
                       n, " x ", k);
      null_space = o.near_null_space;
      M->null_space_origin_ = "given";
    }
    M->null_space_columns_ = k;
    {
      std::ostringstream os;
      if (o.smoother == SmoothedAggregationOptions::Smoother::chebyshev)
        os << "Chebyshev smoother, degree " << o.chebyshev.degree << " (eig ratio " << o.chebyshev.eig_ratio << ")";
      else
        os << "Jacobi smoother, damping " << o.jacobi_damping << " / lambda_max";
      os << ", " << o.smoother_sweeps << " sweep(s) before and after";
      M->smoother_text_ = os.str();
    }
    std::vector<int64_t> node_ptr = uniform_nodes(n, b);
    self->a0_pattern = h;
    CrsType level_matrix = to_crs<CrsType>(h, "Sprocket::amg::A0");
    HostCsr level_host = std::move(h);
    for (int l = 0;; ++l) {
      self->data.emplace_back();
      M->levels_.emplace_back();
      LevelData& D = self->data.back();
      Level& L = M->levels_.back();
      D.A = level_matrix;
      const int64_t rows = level_host.num_rows;
      L.matrix = [A = level_matrix] { return to_host_csr(A); };
      bool coarsest = rows <= o.coarse_size || l + 1 == o.max_levels;
      TentativeProlongator T;
      if (!coarsest) {
        const StrengthGraph G = strength_graph(level_host, node_ptr, o.strength_threshold);
        const Aggregates agg = aggregate_nodes(G);
        L.info.aggregates = agg.count;
        L.info.left_out = agg.left_out;
        if (agg.count == 0) {
          coarsest = true;
        } else {
          T = tentative_prolongator(agg, node_ptr, null_space, k);
          L.info.dropped_columns = T.dropped_columns;
          // No coarsening left (e.g. no strong connections): this level is the coarsest.
          coarsest = T.P.num_cols == 0 || T.P.num_cols >= rows;
        }
      }
      if (coarsest) {
        L.info = {};
        build_level_operators(o, L, level_matrix, true);
        M->coarse_ = dense_lu(level_host, who);
        break;
      }
      const std::vector<double> dinv = build_level_operators(o, L, level_matrix, false);
      D.tentative_host = std::move(T.P);
      D.tentative = to_crs<CrsType>(D.tentative_host, "Sprocket::amg::tentative");
      CrsType next;
      self->galerkin(o, L, D, dinv, &next, true);
      level_matrix = next;
      level_host = to_host_csr(next);
      node_ptr = std::move(T.coarse_node_ptr);
      null_space = std::move(T.coarse_null_space);
    }
    M->builder_ = self;
    M->builder_type_ = typeid(SmoothedAggregationBuilder).name();
    return M;
  }

  void refresh(Precond& M, const CrsType& A) {
    const HostCsr h = summed_host_copy(A, "SmoothedAggregationPreconditioner::update_values");
    SPROCKET_REQUIRE(h.num_rows == a0_pattern.num_rows && h.num_cols == a0_pattern.num_cols &&
                         h.row_map == a0_pattern.row_map && h.entries == a0_pattern.entries,
                     "SmoothedAggregationPreconditioner::update_values: A (", h.num_rows, " x ", h.num_cols, ", ",
                     h.nnz(), " entries once duplicates are summed) does not have the pattern of the setup (",
                     a0_pattern.num_rows, " x ", a0_pattern.num_cols, ", ", a0_pattern.nnz(), " entries)");
    copy_values(h.values, data[0].A);
    const SmoothedAggregationOptions& o = M.options_;
    for (size_t l = 0; l < data.size(); ++l) {
      Level& L = M.levels_[l];
      LevelData& D = data[l];
      if (l + 1 == data.size()) {
        M.coarse_ = dense_lu(to_host_csr(D.A), who);
        break;
      }
      const std::vector<double> dinv = build_level_operators(o, L, D.A, false);
      galerkin(o, L, D, dinv, &data[l + 1].A, false);
    }
  }
};

}  // namespace precond
}  // namespace Impl

template <class Scalar, class Device>
template <class CrsType>
void SmoothedAggregationPreconditioner<Scalar, Device>::update_values(const CrsType& A) {
  static_assert(std::is_same_v<typename CrsType::non_const_value_type, Scalar> &&
                    std::is_same_v<typename CrsType::device_type, Device>,
                "update_values: A must have the preconditioner's scalar type and device");
  using Builder = Impl::precond::SmoothedAggregationBuilder<CrsType>;
  SPROCKET_REQUIRE(builder_type_ == typeid(Builder).name(), "SmoothedAggregationPreconditioner::update_values: A's ",
                   "CrsMatrix type (offset type) differs from the one of the setup");
  static_cast<Builder*>(builder_.get())->refresh(*this, A);
}

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<SmoothedAggregationPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_smoothed_aggregation(const CrsType& A, const SmoothedAggregationOptions& options) {
  return Impl::precond::SmoothedAggregationBuilder<CrsType>::build(A, options);
}

}  // namespace Sprocket
