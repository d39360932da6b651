#pragma once
/// \file Sprocket_MultiVectorOperator.hpp
/// The interface solvers see: Y = op(X) on blocks of vectors. Every Sprocket plan (SpmvPlan,
/// BsrSpmvPlan, SpmmPlan) and every preconditioner satisfies it, so a solver never knows which
/// kernel (or which preconditioner, later an AMG built on SpGEMM) sits behind it.
///
///   auto A = Sprocket::make_operator(Sprocket::SpmmPlan<Crs>(crs));  // shared_ptr<MultiVectorOperator>
///   A->apply(X, Y);                                                 // Y = A X (Y overwritten)
///
/// Multi-vectors are LayoutLeft (column-major, as Belos/Tpetra/Anasazi multivectors): column j
/// of X is a contiguous vector.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace Sprocket {

template <class Scalar, class Device>
class MultiVectorOperator {
 public:
  using scalar_type = Scalar;
  using device_type = Device;
  using execution_space = typename Device::execution_space;
  using multivector = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using const_multivector = Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>;

  virtual ~MultiVectorOperator() = default;
  virtual int64_t num_rows() const = 0;
  virtual int64_t num_cols() const = 0;
  /// Y = op(X): X is num_cols() x s, Y is num_rows() x s, Y is overwritten (never read).
  virtual void apply(const const_multivector& X, const multivector& Y) const = 0;
  /// Y = op(X) ordered on the instance `space`: it may read X once the work queued on `space`
  /// before the call is done, and Y is ready once `space` is fenced (solvers fence only their own
  /// instance). This default, for operators that run on the default instance, waits for `space`
  /// first and for the default instance after; an operator that can queue its kernels on
  /// `space` overrides it.
  virtual void apply(const execution_space& space, const const_multivector& X, const multivector& Y) const {
    space.fence();
    apply(X, Y);
    execution_space().fence();
  }
  /// Human-readable: what the operator is and what its analysis chose.
  virtual std::string describe() const = 0;
};

/// A preconditioner is an operator (Y = M^{-1} X, approximately): the same interface.
template <class Scalar, class Device>
using Preconditioner = MultiVectorOperator<Scalar, Device>;

/// Wraps any plan with apply("N", alpha, X, beta, Y) and describe() (SpmvPlan, BsrSpmvPlan,
/// SpmmPlan) as a MultiVectorOperator.
template <class Plan>
class PlanOperator final
    : public MultiVectorOperator<typename Plan::scalar_type, typename Plan::device_type> {
  using base = MultiVectorOperator<typename Plan::scalar_type, typename Plan::device_type>;

 public:
  explicit PlanOperator(Plan plan) : plan_(std::move(plan)) {}
  int64_t num_rows() const override { return plan_.num_rows(); }
  int64_t num_cols() const override { return plan_.num_cols(); }
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    using S = typename Plan::scalar_type;
    plan_.apply("N", S(1), X, S(0), Y);
  }
  /// The plan's kernels queue on `space` itself: no fence here.
  void apply(const typename base::execution_space& space, const typename base::const_multivector& X,
             const typename base::multivector& Y) const override {
    using S = typename Plan::scalar_type;
    plan_.apply(space, "N", S(1), X, S(0), Y);
  }
  std::string describe() const override { return plan_.describe(); }
  /// New values of the plan's matrix, forwarded to Plan::update_values (same pattern, checked):
  /// every later apply uses them.
  template <class Matrix>
  void update_values(const Matrix& A) {
    plan_.update_values(A);
  }
  template <class Matrix>
  void update_values(const typename base::execution_space& space, const Matrix& A) {
    plan_.update_values(space, A);
  }
  const Plan& plan() const { return plan_; }
  Plan& plan() { return plan_; }

 private:
  Plan plan_;
};

/// The plan as a MultiVectorOperator (the concrete PlanOperator, so that update_values stays in
/// reach; it converts to std::shared_ptr<MultiVectorOperator<...>>).
template <class Plan>
std::shared_ptr<PlanOperator<Plan>> make_operator(Plan plan) {
  return std::make_shared<PlanOperator<Plan>>(std::move(plan));
}

}  // namespace Sprocket
