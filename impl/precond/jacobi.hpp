#pragma once
/// \file jacobi.hpp
/// Jacobi preconditioner: Y = D^{-1} X with D = diag(A), one multiply per entry.
#include <Kokkos_Core.hpp>
#include <memory>
#include <sstream>
#include <string>

#include "impl/precond/precond_common.hpp"

namespace Sprocket {

template <class Scalar, class Device>
class JacobiPreconditioner final : public Preconditioner<Scalar, Device> {
  using base = Preconditioner<Scalar, Device>;

 public:
  explicit JacobiPreconditioner(Kokkos::View<Scalar*, Device> inverse_diagonal)
      : inverse_diagonal_(inverse_diagonal) {}
  int64_t num_rows() const override { return static_cast<int64_t>(inverse_diagonal_.extent(0)); }
  int64_t num_cols() const override { return num_rows(); }
  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    Impl::precond::check_apply("JacobiPreconditioner::apply", num_rows(), X, Y);
    Impl::precond::scale_rows(inverse_diagonal_, X, Y);
  }
  std::string describe() const override {
    std::ostringstream os;
    os << "Jacobi preconditioner<" << (std::is_same_v<Scalar, float> ? "float" : "double") << "> on "
       << Device::execution_space::name() << ": Y = D^-1 X, D = diag(A), " << num_rows() << " rows";
    return os.str();
  }
  /// D^{-1} on the device.
  const Kokkos::View<Scalar*, Device>& inverse_diagonal() const { return inverse_diagonal_; }

  /// New values of A: D^{-1} from A's diagonal (InvalidArgument for another size or a zero or
  /// non-finite diagonal entry). Jacobi reads only the diagonal: any pattern of the same size.
  template <class CrsType>
  void update_values(const CrsType& A) {
    update_values(typename Device::execution_space(), A);
  }
  template <class CrsType>
  void update_values(const typename Device::execution_space& space, const CrsType& A) {
    static_assert(std::is_same_v<typename CrsType::non_const_value_type, Scalar> &&
                      std::is_same_v<typename CrsType::device_type, Device>,
                  "JacobiPreconditioner::update_values: A must have the preconditioner's scalar type and device");
    const char* who = "JacobiPreconditioner::update_values";
    SPROCKET_REQUIRE(A.numRows() == num_rows() && A.numCols() == num_rows(), who, ": A is ", A.numRows(), " x ",
                     A.numCols(), ", the preconditioner ", num_rows(), " x ", num_rows());
    Sprocket::validate(A, who);
    const auto fresh = Impl::precond::inverse_diagonal(A, who);
    Kokkos::deep_copy(space, inverse_diagonal_, fresh);
    space.fence();
  }

 private:
  Kokkos::View<Scalar*, Device> inverse_diagonal_;
};

template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int>>
std::shared_ptr<JacobiPreconditioner<typename CrsType::non_const_value_type, typename CrsType::device_type>>
make_jacobi(const CrsType& A) {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  Sprocket::validate(A, "make_jacobi");  // the diagonal is read through A's row map and columns
  return std::make_shared<JacobiPreconditioner<Scalar, Device>>(Impl::precond::inverse_diagonal(A, "make_jacobi"));
}

}  // namespace Sprocket
