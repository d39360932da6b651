#pragma once
/// \file block_gmres_kernels.hpp
/// The device kernels only block GMRES needs: a scaled column copy into the basis, the
/// residual B - A X of the active columns and the scatter of the solution update. The
/// tall-and-skinny products, gathers, random fill and finiteness scan it shares with LOBPCG
/// and the preconditioners are in impl/blocks/block_ops.hpp. Free functions (nvcc refuses
/// extended lambdas in private member functions); each runs on the given execution-space
/// instance.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace Sprocket {
namespace Impl {
namespace gmres {

/// dst(:, d) = factor * src(:, s) (columns of LayoutLeft multivectors).
template <class ExecSpace, class SrcView, class DstView>
void scaled_column_copy(const ExecSpace& space, const SrcView& src, int64_t s, double factor, const DstView& dst,
                        int64_t d) {
  using Value = typename DstView::non_const_value_type;
  Kokkos::parallel_for(
      "Sprocket::block_gmres::scaled_column_copy", Kokkos::RangePolicy<ExecSpace>(space, 0, dst.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { dst(i, d) = static_cast<Value>(factor * static_cast<double>(src(i, s))); });
}

/// R(:, q) = B(:, cols(q)) - R(:, q): turns A X(:, cols) held in R into the residual.
template <class ExecSpace, class BView, class RView, class Cols>
void residual_from_product(const ExecSpace& space, const BView& B, const Cols& cols, const RView& R) {
  const int64_t n = static_cast<int64_t>(R.extent(0)), k = static_cast<int64_t>(cols.extent(0));
  Kokkos::parallel_for(
      "Sprocket::block_gmres::residual", Kokkos::RangePolicy<ExecSpace>(space, 0, n * k),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        R(i, q) = B(i, cols(q)) - R(i, q);
      });
}

/// X(:, cols(q)) += D(:, q).
template <class ExecSpace, class DView, class XView, class Cols>
void scatter_add_columns(const ExecSpace& space, const DView& D, const Cols& cols, const XView& X) {
  const int64_t n = static_cast<int64_t>(X.extent(0)), k = static_cast<int64_t>(cols.extent(0));
  Kokkos::parallel_for(
      "Sprocket::block_gmres::scatter_add", Kokkos::RangePolicy<ExecSpace>(space, 0, n * k),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        X(i, cols(q)) += D(i, q);
      });
}

}  // namespace gmres
}  // namespace Impl
}  // namespace Sprocket
