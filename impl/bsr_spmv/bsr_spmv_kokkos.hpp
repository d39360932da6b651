#pragma once
// Portable Kokkos BSR SpMV (any execution space): a thread per scalar row (block row I = row / b,
// row i = row % b inside the block), walking the block row's blocks and the b columns of each.
// Mode T scatters alpha * A^T x with atomics after scaling y by beta (every backend's mode T for
// a matrix not declared symmetric: impl/bsr_spmv/bsr_spmv_dispatch.hpp).
#include <Kokkos_Core.hpp>

#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"

namespace Sprocket {
namespace Impl {
namespace kokkos {

/// Backend::portable's one kernel, row_per_thread: y = alpha * A * x + beta * y.
template <class ExecSpace, class BsrType, class XView, class YView, class Scalar>
void bsr_spmv_apply(const ExecSpace& space, const BsrSpmvAnalysis<BsrType>& an, Scalar alpha, const XView& x,
                    Scalar beta, const YView& y) {
  const BsrType& A = an.A;
  const int64_t b = A.block_size();
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::portable", Kokkos::RangePolicy<ExecSpace>(space, 0, int64_t(A.numRows())),
      KOKKOS_LAMBDA(const int64_t row) {
        const int64_t I = row / b, i = row % b;
        Scalar sum = 0;
        for (int64_t k = row_map(I); k < int64_t(row_map(I + 1)); ++k) {
          const int64_t base = k * b * b + i * b, col = int64_t(entries(k)) * b;
          for (int64_t c = 0; c < b; ++c) sum += Scalar(values(base + c)) * Scalar(x(col + c));
        }
        y(row) = beta == Scalar(0) ? alpha * sum : beta * y(row) + alpha * sum;
      });
}

/// y = alpha * A^T * x + beta * y: scales y, then scatters with atomics.
template <class ExecSpace, class BsrType, class XView, class YView, class Scalar>
void bsr_spmv_transpose(const ExecSpace& space, const BsrSpmvAnalysis<BsrType>& an, Scalar alpha, const XView& x,
                        Scalar beta, const YView& y) {
  const BsrType& A = an.A;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::transpose_scale", Kokkos::RangePolicy<ExecSpace>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i); });
  const int64_t b = A.block_size();
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  // The padded kernel's plan reads its padded copy in mode T too (rows of `stride` scalars), so
  // both modes use the same values (Sprocket_Operator.hpp: "Values").
  const bool padded = an.kernel == BsrKernel::padded;
  const auto values = padded ? an.padded : A.values;
  const int64_t stride = padded ? (b + 7) / 8 * 8 : b;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::transpose_scatter", Kokkos::RangePolicy<ExecSpace>(space, 0, int64_t(A.numRows())),
      KOKKOS_LAMBDA(const int64_t row) {
        const int64_t I = row / b, i = row % b;
        const Scalar xr = alpha * Scalar(x(row));
        for (int64_t k = row_map(I); k < int64_t(row_map(I + 1)); ++k) {
          const int64_t base = (k * b + i) * stride, col = int64_t(entries(k)) * b;
          for (int64_t c = 0; c < b; ++c) Kokkos::atomic_add(&y(col + c), Scalar(values(base + c)) * xr);
        }
      });
}

}  // namespace kokkos
}  // namespace Impl
}  // namespace Sprocket
