#pragma once
// y = beta * y: the whole apply of every operator when alpha == 0 (or x is empty).
#include <Kokkos_Core.hpp>

namespace Sprocket {
namespace Impl {

/// y = beta * y for a rank-1 View (beta == 0 writes zeros without reading y, so NaN in y does not
/// propagate, as KokkosSparse::spmv).
template <class ExecSpace, class YView, class Scalar>
void scale_only(const ExecSpace& space, Scalar beta, const YView& y) {
  Kokkos::parallel_for(
      "Sprocket::scale_only", Kokkos::RangePolicy<ExecSpace>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i); });
}

}  // namespace Impl
}  // namespace Sprocket
