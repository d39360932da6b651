#pragma once
// What the preconditioner tests share: applying a preconditioner to a host block (Y poisoned
// first), A X with A's values rounded to the Scalar under test, error norms, and the message of
// an expected InvalidArgument.
#include <algorithm>
#include <cmath>
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "sprocket_test_utils.hpp"

namespace Sprocket {
namespace test {

/// Y = M^{-1} X through the operator interface, Y poisoned first.
template <class Scalar, class Device>
HostDense apply(const Preconditioner<Scalar, Device>& M, const HostDense& X) {
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  const MV x = to_view<MV>(X, "X");
  const MV y("Y", X.num_rows, X.num_cols);
  poison(y);
  M.apply(x, y);
  return to_host_dense(y);
}

/// Y = A X on the host with A's values rounded to Scalar.
template <class Scalar>
HostDense times(const HostCsr& A, const HostDense& X) {
  HostDense Y(A.num_rows, X.num_cols, 0.0);
  for (int64_t q = 0; q < X.num_cols; ++q)
    for (int64_t i = 0; i < A.num_rows; ++i)
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        Y(i, q) += static_cast<double>(static_cast<Scalar>(A.values[k])) * X(A.entries[k], q);
  return Y;
}

inline double max_abs_difference(const HostDense& a, const HostDense& b) {
  double m = 0;
  for (size_t i = 0; i < a.data.size(); ++i) m = max_keeping_nan(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

inline double max_abs(const HostDense& a) {
  double m = 0;
  for (double v : a.data) m = std::max(m, std::fabs(v));
  return m;
}

/// The message of the InvalidArgument f throws, or "(nothing thrown)".
template <class F>
std::string thrown_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

/// What the preconditioner tests bring into scope with `using namespace test::precond_tests`:
/// the helpers above and the default device's CRS and multivector types.
namespace precond_tests {
using test::apply;
using test::max_abs;
using test::max_abs_difference;
using test::thrown_message;
using test::times;
using Device = Kokkos::DefaultExecutionSpace::device_type;
template <class Scalar>
using CrsOf = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
template <class Scalar>
using MultiVectorOf = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
}  // namespace precond_tests

}  // namespace test
}  // namespace Sprocket
