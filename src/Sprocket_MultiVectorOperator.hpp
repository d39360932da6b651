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
/// Y = op(X) on blocks of vectors: the interface solvers see (plans and preconditioners alike).
template <class Scalar, class Device>
class MultiVectorOperator {
 public:
  using scalar_type = Scalar;  ///< scalar type of X and Y
  using device_type = Device;  ///< Kokkos device of X and Y
  using execution_space = typename Device::execution_space;  ///< execution space of Device
  using multivector = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;  ///< writable LayoutLeft block of vectors (Y)
  /// Read-only LayoutLeft block of vectors (X)
  using const_multivector = Kokkos::View<const Scalar**, Kokkos::LayoutLeft, Device>;

  /// Operators are held by std::shared_ptr (the factories return one) and are not copied: a copy
  /// of a preconditioner would share its workspaces and its factors' update_values. A second,
  /// independent one comes from the factory again; a plan (copies independent) may be copied
  /// before make_operator.
  MultiVectorOperator(const MultiVectorOperator&) = delete;
  /// Not copy-assignable, for the same reason.
  MultiVectorOperator& operator=(const MultiVectorOperator&) = delete;
  virtual ~MultiVectorOperator() = default;
  virtual int64_t num_rows() const = 0;  ///< rows of op: the rows of Y
  virtual int64_t num_cols() const = 0;  ///< columns of op: the rows of X
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

 protected:
  MultiVectorOperator() = default;  ///< for derived operators only
  /// A derived operator may be moved (nothing is shared by a move).
  MultiVectorOperator(MultiVectorOperator&&) = default;
  /// A derived operator may be move-assigned.
  MultiVectorOperator& operator=(MultiVectorOperator&&) = default;
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
  explicit PlanOperator(Plan plan) : plan_(std::move(plan)) {}  ///< wraps `plan` (moved in)
  int64_t num_rows() const override { return plan_.num_rows(); }  ///< the plan's rows
  int64_t num_cols() const override { return plan_.num_cols(); }  ///< the plan's columns
  /// Y = op(X): the plan's apply("N", 1, X, 0, Y)
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
  /// update_values(A) ordered on the execution-space instance `space`
  template <class Matrix>
  void update_values(const typename base::execution_space& space, const Matrix& A) {
    plan_.update_values(space, A);
  }
  const Plan& plan() const { return plan_; }  ///< the wrapped plan
  Plan& plan() { return plan_; }  ///< the wrapped plan, modifiable

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
