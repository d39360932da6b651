#pragma once
// CUDA BSR SpMV kernels (paper: bsr-spmv, Eberhardt and Hoemmen, "GPUs" slides), adapted to
// Sprocket's ROW-MAJOR blocks (value (r, c) of block k at values[k*b*b + r*b + c]; the paper's
// blocks are column-major). Same semantics as the portable kernel (impl/bsr_spmv/bsr_spmv_kokkos.hpp);
// hand-written kernels (impl/bsr_spmv/cuda/bsr_spmv_cuda_kernels.cuh) launched on the execution-space
// instance's stream. One launch per apply (mode N, rank-1 x and y: the plan splits rank-2 x and y
// into columns); apply returns without waiting for the GPU (launch errors are checked with
// cudaGetLastError, which does not block).
//
// Kernels, lane mappings and why (every launch uses blocks of 256 threads = 8 warps):
//
//   by_block (b <= 8)  The paper's by-block algorithm. One warp per block row, grid
//       ceil(block rows / 8) blocks. The lanes spread over the scalars of a block: a lane owns one
//       (row, column) position and multiplies that entry of the block by x[col*b + column].
//       b*b <= 32 (b <= 5): floor(32/b^2) consecutive blocks per warp step (b = 1: 32, 2: 8,
//       3: 3, 4: 2, 5: 1), lanes past floor(32/b^2)*b^2 idle. b = 6..8 (b*b > 32): one block per
//       step in two passes of floor(32/b) whole rows each (6: 5+1 rows, 7: 4+3, 8: 4+4), one
//       accumulator per pass in each lane; a pass is whole rows of a row-major block, so its
//       scalars are contiguous and the lane's column is the same in both passes (one x load per
//       block serves both). Either way every warp-wide value load is one contiguous run of up to
//       32 scalars (fully coalesced), as in the paper. At the end of the block row a segmented
//       shuffle-down sums each row over its b lanes (ceil(log2 b) steps) and then over the
//       blocks of a step; the lane of column 0 writes the row. The block size is a template
//       parameter (1..8: the lane layout, loops and reductions are compile-time). Larger b would
//       need more passes and accumulators and is what by_column does anyway, hence the limit 8
//       (bsr_kernel_supports).
//
//   by_column (b <= 32)  The paper's by-column algorithm assigns lanes to the columns of
//       consecutive blocks and lets each walk its column, which is contiguous in column-major
//       storage. With row-major blocks a column is strided, but the paper's property that
//       matters, coalesced value reads, is kept by the same lane -> (block, column) assignment
//       read row by row: lane l < floor(32/b)*b owns column c = l % b of every floor(32/b)-th
//       block starting at l / b, loads x[col*b + c] once per block and walks the b rows with one
//       accumulator per row (acc[r] += value(r, c) * x_c). At a fixed r the warp reads row r of
//       its floor(32/b) blocks: runs of b contiguous scalars, so every load is coalesced (each run
//       fills whole 32-byte sectors except at its two ends) for any b up to 32, and x is read once per
//       (block, column), not b times. The rejected alternative, a lane per (block, row) reading
//       its b contiguous values, makes every warp-wide load touch up to 32 different sectors
//       (lanes b scalars apart) and leans on L1 to reuse them. The price of the column mapping is
//       b accumulators per lane (template capacity NR = 4, 8, 16 or 32, the next power of two
//       >= b) and a cross-lane reduction per block row: a reduce-scatter butterfly (NR - 1 + 5 -
//       log2 NR shuffles: 6 for NR = 4, 31 for NR = 32, against 5 * b for a full butterfly per
//       row) after which lane l holds row l >> (5 - log2 NR).
//       One warp per block row, grid ceil(block rows / 8).
//
//   row_per_thread (any b <= 32, best b >= 16)  The paper's row-per-thread algorithm with x
//       in shared memory. A group of b consecutive lanes per block row (floor(32/b) groups per
//       warp, so b <= 16 packs several block rows into a warp; lanes past the groups idle), lane
//       r owns scalar row r. The group stages the x segments of 8 blocks at a time (lane r loads
//       entry r of each segment: coalesced) into shared memory (8 warps * 8 blocks * 32 scalars:
//       16 KiB for double), __syncwarp(group mask), then each lane walks its row's b contiguous
//       values in each block against the staged segment (broadcast within the group; groups are
//       interleaved so different groups hit different banks). No cross-lane reduction. With
//       row-major blocks lane r's b values are contiguous but the warp's loads at one step are b
//       scalars apart: the reads rely on L1 line reuse across the c loop (the paper's coalescing
//       of val belongs to column-major blocks). Grid ceil(block rows / (8 * floor(32/b))).
//
// Every kernel writes every scalar row (rows of empty block rows get beta*y, or 0 when beta == 0
// and y is not read): y(row) = beta == 0 ? alpha*sum : beta*y(row) + alpha*sum. Grids are
// computed in int64 and clamped to grid_limit(space) (max_grid_blocks on a GPU); the kernels loop
// grid-stride over block rows. Every launch decision is bsr_kernel_launch and
// bsr_by_column_capacity (plain functions), and every launch goes through SPROCKET_CUDA_LAUNCH, so
// the CPU emulation of the kernels (unit_tests/cuda_emulation/, SPROCKET_CUDA_EMULATION) runs this
// same launcher with an emulated device as the execution space
// (unit_tests/bsr_spmv/test_bsr_spmv_cuda_emulated.cpp). x and y go in as data() and stride(0):
// LayoutLeft, LayoutRight and LayoutStride column subviews. Scalars other than float and double
// (or y of another type than the scalar) take the portable kernel (routed by
// impl/bsr_spmv/bsr_spmv_dispatch.hpp). The plan rejects block sizes a kernel does not support;
// the launcher checks again and throws InvalidArgument.
#include <Kokkos_Core.hpp>

#include "Sprocket_Error.hpp"
#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"

#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "impl/bsr_spmv/cuda/bsr_spmv_cuda_kernels.cuh"
#include "impl/common/cuda/cuda_launch.hpp"

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Largest block size of by_block (mirrors bsr_kernel_supports).
inline constexpr int bsr_by_block_max_b = 8;

/// by_column's compiled accumulator capacity NR for block size b (1..32): the next power of two
/// >= b, at least 4 (one instantiation covers b = 1..4).
constexpr int bsr_by_column_capacity(int b) { return b <= 4 ? 4 : b <= 8 ? 8 : b <= 16 ? 16 : 32; }

/// Block rows one thread block of `kernel` covers per grid-stride turn: one per warp (by_block,
/// by_column), floor(32 / b) per warp (row_per_thread's row groups).
inline int64_t bsr_block_rows_per_block(BsrKernel kernel, int b) {
  return kernel == BsrKernel::row_per_thread ? int64_t(bsr_warps_per_block) * (bsr_warp_size / b)
                                             : int64_t(bsr_warps_per_block);
}

/// The launch of `kernel` (by_block, by_column, row_per_thread) over num_block_rows block rows of
/// block size b: blocks of bsr_block_threads (the kernels' __launch_bounds__), no dynamic shared
/// memory (row_per_thread's staging array is static), ceil(block rows / block rows per block)
/// blocks clamped to `limit` (grid_limit(space)).
inline KernelLaunch bsr_kernel_launch(BsrKernel kernel, int b, int64_t num_block_rows, int64_t limit) {
  KernelLaunch launch;
  launch.grid = grid_blocks(num_block_rows, bsr_block_rows_per_block(kernel, b), limit);
  launch.block = bsr_block_threads;
  launch.shared_bytes = 0;
  launch.launch_bound = bsr_block_threads;
  return launch;
}

/// Raw pointers and strides of one apply.
template <class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
struct BsrCudaArgs {
  cudaStream_t stream;
  int64_t grid_limit;
  const Offset* row_map;
  const Ordinal* entries;
  const Value* values;
  int64_t num_block_rows;
  int b;
  Scalar alpha, beta;
  const XValue* x;
  int64_t x_stride;
  YValue* y;
  int64_t y_stride;
};

template <int B, class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
void bsr_launch_by_block(const BsrCudaArgs<Offset, Ordinal, Value, XValue, YValue, Scalar>& a) {
  const KernelLaunch launch = bsr_kernel_launch(BsrKernel::by_block, a.b, a.num_block_rows, a.grid_limit);
  SPROCKET_CUDA_LAUNCH(launch, a.stream, bsr_by_block_kernel<B, Offset, Ordinal, Value, XValue, YValue, Scalar>)(
      a.row_map, a.entries, a.values, a.num_block_rows, a.alpha, a.x, a.x_stride, a.beta, a.y, a.y_stride);
  check_launch("Sprocket::bsr_spmv", "bsr_by_block_kernel");
}

template <int NR, class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
void bsr_launch_by_column(const BsrCudaArgs<Offset, Ordinal, Value, XValue, YValue, Scalar>& a) {
  const KernelLaunch launch = bsr_kernel_launch(BsrKernel::by_column, a.b, a.num_block_rows, a.grid_limit);
  SPROCKET_CUDA_LAUNCH(launch, a.stream, bsr_by_column_kernel<NR, Offset, Ordinal, Value, XValue, YValue, Scalar>)(
      a.row_map, a.entries, a.values, a.num_block_rows, a.b, a.alpha, a.x, a.x_stride, a.beta, a.y, a.y_stride);
  check_launch("Sprocket::bsr_spmv", "bsr_by_column_kernel");
}

template <class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
void bsr_launch_row_per_thread(const BsrCudaArgs<Offset, Ordinal, Value, XValue, YValue, Scalar>& a) {
  const KernelLaunch launch = bsr_kernel_launch(BsrKernel::row_per_thread, a.b, a.num_block_rows, a.grid_limit);
  SPROCKET_CUDA_LAUNCH(launch, a.stream, bsr_row_per_thread_kernel<Offset, Ordinal, Value, XValue, YValue, Scalar>)(
      a.row_map, a.entries, a.values, a.num_block_rows, a.b, a.alpha, a.x, a.x_stride, a.beta, a.y, a.y_stride);
  check_launch("Sprocket::bsr_spmv", "bsr_row_per_thread_kernel");
}

template <class Args>
void bsr_launch(BsrKernel kernel, const Args& a) {
  SPROCKET_REQUIRE(a.b >= 1 && a.b <= bsr_warp_size, "Sprocket::bsr_spmv (CUDA): block size ", a.b,
                   " outside [1, ", bsr_warp_size, "]");
  switch (kernel) {
    case BsrKernel::by_block:
      switch (a.b) {
        case 1: return bsr_launch_by_block<1>(a);
        case 2: return bsr_launch_by_block<2>(a);
        case 3: return bsr_launch_by_block<3>(a);
        case 4: return bsr_launch_by_block<4>(a);
        case 5: return bsr_launch_by_block<5>(a);
        case 6: return bsr_launch_by_block<6>(a);
        case 7: return bsr_launch_by_block<7>(a);
        case 8: return bsr_launch_by_block<8>(a);
        default:
          throw InvalidArgument("Sprocket::bsr_spmv (CUDA): by_block supports block sizes up to " +
                                std::to_string(bsr_by_block_max_b) + ", not " + std::to_string(a.b));
      }
    case BsrKernel::by_column:
      switch (bsr_by_column_capacity(a.b)) {
        case 4: return bsr_launch_by_column<4>(a);
        case 8: return bsr_launch_by_column<8>(a);
        case 16: return bsr_launch_by_column<16>(a);
        default: return bsr_launch_by_column<32>(a);
      }
    case BsrKernel::row_per_thread: return bsr_launch_row_per_thread(a);
    default:
      throw InvalidArgument(std::string("Sprocket::bsr_spmv (CUDA): kernel ") + to_string(kernel) +
                            " is not a CUDA BSR kernel");
  }
}

/// Backend::native on Kokkos::Cuda: y = alpha * A * x + beta * y (mode N) for rank-1 x and y with
/// the analysis's kernel (by_block, by_column, row_per_thread). float or double only, y of the
/// scalar type (raw_kernel_supported_v; the dispatch sends other types to the portable kernel).
/// Space is Kokkos::Cuda, or the emulated device of the CPU emulation tests
/// (unit_tests/cuda_emulation/): stream_of, grid_limit are found by argument-dependent lookup.
template <class Space, class BsrType, class XView, class YView, class Scalar>
void bsr_spmv_apply(const Space& space, const BsrSpmvAnalysis<BsrType>& an, Scalar alpha, const XView& x,
                    Scalar beta, const YView& y) {
  static_assert(XView::rank == 1 && YView::rank == 1, "Sprocket::bsr_spmv (CUDA): x and y must be rank 1 here");
  using YValue = typename YView::non_const_value_type;
  static_assert(raw_kernel_supported_v<Scalar, YValue>,
                "Sprocket::bsr_spmv (CUDA): float or double, y of the scalar type (the dispatch routes others)");
  using SpaceMemory = typename Space::memory_space;
  static_assert(Kokkos::SpaceAccessibility<SpaceMemory, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<SpaceMemory, typename YView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<SpaceMemory, typename BsrType::memory_space>::accessible,
                "Sprocket::bsr_spmv (CUDA): A, x and y must be accessible from the execution space");
  const BsrType& A = an.A;
  using Offset = typename BsrType::row_map_type::non_const_value_type;
  using Ordinal = typename BsrType::entries_type::non_const_value_type;
  using Value = typename BsrType::values_type::non_const_value_type;
  using XValue = typename XView::non_const_value_type;
  const int64_t num_block_rows = A.num_block_rows();
  if (num_block_rows <= 0 || y.extent(0) == 0) return;
  ProfilingRegion region("Sprocket::bsr_spmv::cuda");
  const BsrCudaArgs<Offset, Ordinal, Value, XValue, YValue, Scalar> args{stream_of(space),
                                                                        grid_limit(space),
                                                                        A.row_map.data(),
                                                                        A.entries.data(),
                                                                        A.values.data(),
                                                                        num_block_rows,
                                                                        A.block_size(),
                                                                        alpha,
                                                                        beta,
                                                                        x.data(),
                                                                        static_cast<int64_t>(x.stride(0)),
                                                                        y.data(),
                                                                        static_cast<int64_t>(y.stride(0))};
  bsr_launch(an.kernel, args);
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
