#pragma once
// Host (OpenMP / Serial) specialization of the SpMV kernel family.
//
// One parallel region: each host thread owns a contiguous, nnz-balanced range of virtual rows
// (built at analysis) and streams through it in row order, running for each virtual row the
// kernel its bin chose. On a CPU a "sub-vector of X lanes per row" is X interleaved partial sums
// inside one thread: the row's entries k = l, l+X, l+2X, ... go to accumulator l, and the X sums
// are combined at the end. Independent accumulators break the floating-point add chain that
// makes the plain loop latency-bound (measured on the 2-core EPYC CI machine: 1.3-1.5x on
// rows of 81-162 entries, none on rows of 7), while the compiler is free to keep them in
// registers. Rows the analysis marked team_per_row or split_row are cut into chunks that all
// threads share, after the main region, with atomic adds (there are few such rows).
#include <Kokkos_Core.hpp>

#include "impl/spmv/spmv_device_schedule.hpp"
#include "impl/spmv/spmv_kokkos.hpp"

namespace Sprocket {
namespace Impl {
namespace host {

/// Column of entry k: the matrix's own index, or row + 16-bit offset (compressed indices).
template <class Entry>
struct PlainColumns {
  const Entry* __restrict entries;
  KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t, int64_t k) const { return entries[k]; }
};
struct OffsetColumns {
  const int16_t* __restrict offsets;
  KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t row, int64_t k) const { return row + offsets[k]; }
};

/// (row r of A) . x with X interleaved accumulators.
template <int X, class Scalar, class Value, class Columns, class XView>
KOKKOS_FORCEINLINE_FUNCTION Scalar row_dot(const Value* __restrict values, const Columns& col, int64_t row,
                                           int64_t begin, int64_t end, const XView& x) {
  Scalar s[X];
  for (int l = 0; l < X; ++l) s[l] = Scalar(0);
  int64_t k = begin;
  for (; k + X <= end; k += X) {
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 32
#endif
    for (int l = 0; l < X; ++l) s[l] += Scalar(values[k + l]) * Scalar(x(col(row, k + l)));
  }
  for (int l = 0; k < end; ++k, ++l) s[l] += Scalar(values[k]) * Scalar(x(col(row, k)));
  for (int w = X / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) s[l] += s[l + w];
  return s[0];
}

template <int X, class AMatrix, class Columns, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void rows_with_lanes(const AMatrix& A, const Columns& col, int64_t r0, int64_t r1,
                                                 Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  const auto* row_map = A.graph.row_map.data();
  const auto* values = A.values.data();
  if (beta == Scalar(0)) {
    for (int64_t r = r0; r < r1; ++r)
      y(r) = alpha * row_dot<X, Scalar>(values, col, r, int64_t(row_map[r]), int64_t(row_map[r + 1]), x);
  } else {
    for (int64_t r = r0; r < r1; ++r)
      y(r) = beta * y(r) + alpha * row_dot<X, Scalar>(values, col, r, int64_t(row_map[r]), int64_t(row_map[r + 1]), x);
  }
}

/// The fused pass over one thread's part of the virtual rows.
template <class AMatrix, class Columns, class Kernels, class Bounds, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void part_rows(const AMatrix& A, const Columns& col, const Kernels& kernels,
                                           const Bounds& bounds, int64_t v0, int64_t v1, Scalar alpha,
                                           const XView& x, Scalar beta, const YView& y) {
  for (int64_t v = v0; v < v1; ++v) {
    const int64_t r0 = bounds(v), r1 = bounds(v + 1);
    switch (static_cast<SpmvKernel>(kernels(v))) {
      case SpmvKernel::thread_per_row: rows_with_lanes<1>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector2: rows_with_lanes<2>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector4: rows_with_lanes<4>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector8: rows_with_lanes<8>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector16: rows_with_lanes<16>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector32: rows_with_lanes<32>(A, col, r0, r1, alpha, x, beta, y); break;
      default: break;  // split rows: after the fused pass
    }
  }
}

template <class ExecSpace, class AMatrix, class Sched, class XView, class YView, class Scalar>
void spmv_apply(const ExecSpace& space, const AMatrix& A, const Sched& s, Scalar alpha, const XView& x,
                Scalar beta, const YView& y) {
  using Entry = typename AMatrix::non_const_ordinal_type;
  const auto offsets = s.col_offsets;
  const Entry* entries = A.graph.entries.data();
  const auto parts = s.part_begin;
  const auto kernels = s.vrow_kernel;
  const auto bounds = s.vrow_bounds;
  const int64_t num_parts = s.num_parts;
  Kokkos::parallel_for(
      "Sprocket::spmv::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, num_parts),
      KOKKOS_LAMBDA(const int64_t p) {
        if (offsets.extent(0) > 0)
          part_rows(A, OffsetColumns{offsets.data()}, kernels, bounds, parts(p), parts(p + 1), alpha, x, beta, y);
        else
          part_rows(A, PlainColumns<Entry>{entries}, kernels, bounds, parts(p), parts(p + 1), alpha, x, beta, y);
      });
  if (s.num_split_rows > 0) {
    // Few rows, each cut into chunks of split_chunk entries spread over all threads.
    const auto split_rows = s.split_rows;
    const auto chunk_begin = s.split_chunk_begin;
    const auto chunk_index = s.chunk_split_index;
    const int64_t chunk = s.split_chunk;
    const auto* row_map = A.graph.row_map.data();
    const auto* values = A.values.data();
    Kokkos::parallel_for(
        "Sprocket::spmv::host_split_scale", Kokkos::RangePolicy<ExecSpace>(space, 0, s.num_split_rows),
        KOKKOS_LAMBDA(const int64_t i) {
          const auto r = split_rows(i);
          y(r) = beta == Scalar(0) ? Scalar(0) : beta * y(r);
        });
    Kokkos::parallel_for(
        "Sprocket::spmv::host_split", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, s.num_split_chunks),
        KOKKOS_LAMBDA(const int64_t c) {
          const auto i = chunk_index(c);
          const auto r = split_rows(i);
          const int64_t row_end = row_map[r + 1];
          const int64_t begin = row_map[r] + (c - chunk_begin(i)) * chunk;
          const int64_t end = begin + chunk < row_end ? begin + chunk : row_end;
          const Scalar partial = row_dot<8, Scalar>(values, PlainColumns<Entry>{entries}, int64_t(r), begin, end, x);
          Kokkos::atomic_add(&y(r), alpha * partial);
        });
  }
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
