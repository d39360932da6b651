#pragma once
// CUDA specialization of the SpMV kernel family (paper: autotuned-spmv, Section III-B). Same
// semantics and schedule as the portable path (impl/spmv/spmv_kokkos.hpp); hand-written kernels
// (impl/spmv/cuda/spmv_cuda_kernels.cuh) launched on the execution-space instance's stream.
//
// The executor walks the bins of the device schedule, one launch per bin by its kernel, then the
// split rows (two launches). Bins are disjoint sets of rows and every launch goes to the same
// stream, so the launches need no synchronization between them, and apply returns without
// waiting for the GPU (launch errors are checked with cudaGetLastError, which does not block).
//
// Kernels and launch configurations (every block has 256 threads, the paper's work-group size:
// 8 warps, enough to hide latency, small enough for 8 resident blocks per SM):
//   thread_per_row  kernel-serial. One thread per slot (virtual row vi, row j < U in it), so
//                   num_vrows * U threads, ceil(num_vrows * U / 256) blocks; slots past the end
//                   of a short virtual row idle. For large U consecutive threads take consecutive
//                   rows: row_map and y accesses coalesce. Suits rows of a few entries.
//   subvectorX      kernel-subvectorX, X in {2, 4, 8, 16, 32}. X consecutive lanes of a warp per
//                   slot, 256 / X slots per block, ceil(num_vrows * U * X / 256) blocks. The lanes
//                   stride over the row (coalesced entries/values), then a butterfly of
//                   __shfl_xor_sync over the group's lanes, with the group's own mask so groups
//                   of a warp may diverge; lane 0 of the group writes y. The paper stages the
//                   products in local memory and reduces there; registers and shuffles do the
//                   same reduction without shared memory or barriers.
//   team_per_row    kernel-vector. One block per virtual row (num_vrows blocks), rows in turn;
//                   the 256 threads stride over the row, reduce per warp with shuffles, then warp
//                   0 reduces the 8 warp sums from shared memory. Two shared buffers used
//                   alternately make one __syncthreads per row enough.
//   split_row       not in the paper (rows of 10^5+ entries would serialize one block). A
//                   grid-stride kernel scales y(r) by beta for the split rows (beta == 0 writes 0
//                   without reading y), then one block per chunk of split_chunk entries reduces
//                   its chunk as team_per_row does and thread 0 does atomicAdd(&y(r), alpha *
//                   partial). Chunks of one row add in any order: float results may differ in the
//                   last bits from run to run.
//   row_blocks      not in the paper (SpmvBinning::row_blocks). Rows packed at analysis into
//                   blocks of at most 1024 entries and 256 rows, one 256-thread block each, in one
//                   launch: the threads stage the block's products in shared memory reading its
//                   entries consecutively, so every block does the same work whatever the row
//                   lengths, then lanes per row (a power of two, rows * lanes <= 256) sum each
//                   row's products. A row of more than 1024 entries is a block alone, reduced as
//                   team_per_row does; split rows' chunks are blocks of the same launch, after
//                   the split-scale launch. SpmvBinning::row_blocks_merge sums the staged
//                   products along the merge path instead (an equal share of row ends and
//                   entries per thread, a segmented scan across threads; same launch).
//
// Single-bin schedules (regular rows) run with direct rows: the slot is the row, so the kernel
// reads row_map first instead of the virtual-row list and its bounds (two dependent loads fewer
// per row). thread_per_row and subvectorX read each entry's column through a reader
// (spmv_cuda_kernels.cuh): A's own indices, the plan's 16-bit offsets col - row, or a row-pattern
// id per row into an int16 dictionary, as the schedule chose (SpmvOptions::compress_indices); the
// other kernels read A's own indices, and the schedule compresses only schedules without them.
//
// Every kernel writes every row of its virtual rows, empty rows included, as
// y(r) = beta == 0 ? alpha * sum : beta * y(r) + alpha * sum (NaN in y does not propagate when
// beta == 0). Grid sizes are computed in int64 and clamped to grid_limit(space) (max_grid_blocks
// on a GPU); the kernels loop grid-stride, so counts beyond 2^31 - 1 threads are covered. x and
// y are passed as data() and stride(0), which covers LayoutLeft, LayoutRight and the
// LayoutStride column subviews the plan makes of rank-2 LayoutRight Views. Read-only arrays go
// through __ldg.
//
// Scalars other than float and double (or y of another type than the scalar) have no native
// atomicAdd / shuffle here: impl/spmv/spmv_dispatch.hpp sends them to the portable path.
//
// Every launch decision (grid, block, shared bytes, __launch_bounds__) is a plain function below
// (spmv_bin_launch, spmv_split_scale_launch, spmv_split_chunk_launch), and every launch goes
// through SPROCKET_CUDA_LAUNCH (impl/common/cuda/cuda_launch.hpp). spmv_apply is a template over
// the execution space: Kokkos::Cuda in the CUDA build, the emulated device of the test-only CPU
// emulation (SPROCKET_CUDA_EMULATION, unit_tests/spmv/test_spmv_cuda_emulated.cpp), which runs
// this same launcher and kernels with small forced grids.
#include <Kokkos_Core.hpp>

#include "Sprocket_Error.hpp"
#include "impl/spmv/spmv_analysis.hpp"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "impl/common/cuda/cuda_launch.hpp"
#include "impl/spmv/cuda/spmv_cuda_kernels.cuh"

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Raw pointers and strides of one apply, the stream and the grid clamp (grid_limit(space)).
template <class Offset, class Ordinal, class XValue, class Scalar>
struct SpmvCudaArgs {
  cudaStream_t stream;
  int64_t grid_limit;
  const Offset* row_map;
  const Ordinal* entries;
  const Scalar* values;
  const Ordinal* bounds;
  Scalar alpha, beta;
  const XValue* x;
  int64_t x_stride;
  Scalar* y;
  int64_t y_stride;
  bool direct_rows;  ///< SpmvDeviceSchedule::direct_rows: the slots of the one bin are the rows
  int64_t rows;
};

/// 256-thread blocks (spmv_block_size, the constant every kernel's __launch_bounds__ names), no
/// dynamic shared memory, `grid` blocks.
inline KernelLaunch spmv_launch_of(unsigned grid) {
  KernelLaunch launch;
  launch.grid = grid;
  launch.block = spmv_block_size;
  launch.shared_bytes = 0;
  launch.launch_bound = spmv_block_size;
  return launch;
}

/// Launch of one bin of num_vrows virtual rows of U = rows_per_vrow slots each, by its kernel:
/// thread_per_row one thread per slot, subvectorX X lanes per slot, team_per_row one block per
/// virtual row; grids clamped to `limit` (the kernels loop grid-stride). split_row bins never
/// reach here (make_device_schedule turns them into split rows): grid 0.
inline KernelLaunch spmv_bin_launch(SpmvKernel kernel, int64_t num_vrows, int64_t rows_per_vrow, int64_t limit) {
  const int64_t slots = num_vrows * rows_per_vrow;
  const int lanes = spmv_kernel_lanes(kernel);  // 1 for thread_per_row, X for subvectorX
  switch (kernel) {
    case SpmvKernel::thread_per_row:
    case SpmvKernel::subvector2:
    case SpmvKernel::subvector4:
    case SpmvKernel::subvector8:
    case SpmvKernel::subvector16:
    case SpmvKernel::subvector32: return spmv_launch_of(grid_blocks(slots * lanes, spmv_block_size, limit));
    case SpmvKernel::team_per_row: return spmv_launch_of(grid_blocks(num_vrows, 1, limit));
    default: return spmv_launch_of(0);
  }
}

/// Split rows, first pass: one thread per split row.
inline KernelLaunch spmv_split_scale_launch(int64_t num_split_rows, int64_t limit) {
  return spmv_launch_of(grid_blocks(num_split_rows, spmv_block_size, limit));
}

/// Split rows, second pass: one block per chunk.
inline KernelLaunch spmv_split_chunk_launch(int64_t num_split_chunks, int64_t limit) {
  return spmv_launch_of(grid_blocks(num_split_chunks, 1, limit));
}

/// Row blocks (SpmvBinning::row_blocks): one block per row block and per split-row chunk.
inline KernelLaunch spmv_row_blocks_launch(int64_t num_row_blocks, int64_t num_split_chunks, int64_t limit) {
  return spmv_launch_of(grid_blocks(num_row_blocks + num_split_chunks, 1, limit));
}

/// The slots a thread_per_row or subvectorX launch walks and the virtual rows they map through:
/// with direct rows (SpmvDeviceSchedule::direct_rows: one bin of every row in order) the slots
/// are the rows and the kernels get no virtual-row list (nullptr); otherwise num_vrows * U slots
/// through the bin's list. The grid is spmv_bin_launch's either way (at most U - 1 idle slots).
template <class Args, class Bin>
int64_t spmv_bin_slots(const Args& a, const Bin& bin) {
  return a.direct_rows ? a.rows : bin.num_vrows * bin.rows_per_vrow;
}
template <class Args, class Bin>
auto spmv_bin_vrows(const Args& a, const Bin& bin) {
  return a.direct_rows ? nullptr : bin.vrows.data();
}

template <int X, class Offset, class Ordinal, class XValue, class Scalar, class Bin, class Columns>
void spmv_launch_subvector(const SpmvCudaArgs<Offset, Ordinal, XValue, Scalar>& a, const Bin& bin,
                           const Columns& columns, const KernelLaunch& launch) {
  SPROCKET_CUDA_LAUNCH(launch, a.stream, spmv_subvector_kernel<X, Offset, Columns, Ordinal, XValue, Scalar>)(
      a.row_map, columns, a.values, spmv_bin_vrows(a, bin), a.bounds, spmv_bin_slots(a, bin), bin.rows_per_vrow,
      a.alpha, a.x, a.x_stride, a.beta, a.y, a.y_stride);
  check_launch("Sprocket::spmv", "spmv_subvector_kernel");
}

/// One bin by its kernel. thread_per_row and subvectorX read the entries' columns through
/// `columns` (the schedule's compressed copy or A's own indices); team_per_row always reads A's
/// own (the schedule compresses only schedules without it).
template <class Offset, class Ordinal, class XValue, class Scalar, class Bin, class Columns>
void spmv_launch_bin(const SpmvCudaArgs<Offset, Ordinal, XValue, Scalar>& a, const Bin& bin, const Columns& columns) {
  if (bin.num_vrows <= 0) return;
  const KernelLaunch launch = spmv_bin_launch(bin.kernel, bin.num_vrows, bin.rows_per_vrow, a.grid_limit);
  switch (bin.kernel) {
    case SpmvKernel::thread_per_row:
      SPROCKET_CUDA_LAUNCH(launch, a.stream, spmv_thread_per_row_kernel<Offset, Columns, Ordinal, XValue, Scalar>)(
          a.row_map, columns, a.values, spmv_bin_vrows(a, bin), a.bounds, spmv_bin_slots(a, bin), bin.rows_per_vrow,
          a.alpha, a.x, a.x_stride, a.beta, a.y, a.y_stride);
      check_launch("Sprocket::spmv", "spmv_thread_per_row_kernel");
      break;
    case SpmvKernel::subvector2: spmv_launch_subvector<2>(a, bin, columns, launch); break;
    case SpmvKernel::subvector4: spmv_launch_subvector<4>(a, bin, columns, launch); break;
    case SpmvKernel::subvector8: spmv_launch_subvector<8>(a, bin, columns, launch); break;
    case SpmvKernel::subvector16: spmv_launch_subvector<16>(a, bin, columns, launch); break;
    case SpmvKernel::subvector32: spmv_launch_subvector<32>(a, bin, columns, launch); break;
    case SpmvKernel::team_per_row:
      SPROCKET_CUDA_LAUNCH(launch, a.stream, spmv_team_per_row_kernel<Offset, Ordinal, XValue, Scalar>)(
          a.row_map, a.entries, a.values, bin.vrows.data(), a.bounds, bin.num_vrows, a.alpha, a.x, a.x_stride,
          a.beta, a.y, a.y_stride);
      check_launch("Sprocket::spmv", "spmv_team_per_row_kernel");
      break;
    default:
      throw InvalidArgument("Sprocket::spmv (CUDA): bin with kernel " + std::string(to_string(bin.kernel)) +
                            " reached the per-bin launcher");
  }
}

template <class Offset, class Ordinal, class XValue, class Scalar, class Sched>
void spmv_launch_split_rows(const SpmvCudaArgs<Offset, Ordinal, XValue, Scalar>& a, const Sched& s) {
  if (s.num_split_rows <= 0) return;
  const KernelLaunch scale = spmv_split_scale_launch(s.num_split_rows, a.grid_limit);
  SPROCKET_CUDA_LAUNCH(scale, a.stream, spmv_split_scale_kernel<Ordinal, Scalar>)(s.split_rows.data(),
                                                                                 s.num_split_rows, a.beta, a.y,
                                                                                 a.y_stride);
  check_launch("Sprocket::spmv", "spmv_split_scale_kernel");
  if (s.num_split_chunks <= 0) return;
  const KernelLaunch chunks = spmv_split_chunk_launch(s.num_split_chunks, a.grid_limit);
  SPROCKET_CUDA_LAUNCH(chunks, a.stream, spmv_split_chunk_kernel<Offset, Ordinal, XValue, Scalar>)(
      a.row_map, a.entries, a.values, s.split_rows.data(), s.split_chunk_begin.data(), s.chunk_split_index.data(),
      s.num_split_chunks, s.split_chunk, a.alpha, a.x, a.x_stride, a.y, a.y_stride);
  check_launch("Sprocket::spmv", "spmv_split_chunk_kernel");
}

/// The row-block kernel with its rows summed by lanes per row or along the merge path (MergeSum).
template <bool MergeSum, class Offset, class Ordinal, class XValue, class Scalar, class Sched>
void spmv_launch_row_blocks_kernel(const SpmvCudaArgs<Offset, Ordinal, XValue, Scalar>& a, const Sched& s,
                                   const KernelLaunch& launch, int64_t num_blocks) {
  SPROCKET_CUDA_LAUNCH(launch, a.stream, spmv_row_blocks_kernel<MergeSum, Offset, Ordinal, XValue, Scalar>)(
      a.row_map, a.entries, a.values, a.bounds, num_blocks, s.split_row_threshold, s.split_rows.data(),
      s.split_chunk_begin.data(), s.chunk_split_index.data(), s.num_split_chunks, s.split_chunk, a.alpha, a.x,
      a.x_stride, a.beta, a.y, a.y_stride);
}

/// Row blocks: the split rows scaled by beta (when there are any), then one launch for the row
/// blocks and the split rows' chunks.
template <class Offset, class Ordinal, class XValue, class Scalar, class Sched>
void spmv_launch_row_blocks(const SpmvCudaArgs<Offset, Ordinal, XValue, Scalar>& a, const Sched& s) {
  const int64_t num_blocks = static_cast<int64_t>(s.vrow_bounds.extent(0)) - 1;
  if (s.num_split_rows > 0) {
    const KernelLaunch scale = spmv_split_scale_launch(s.num_split_rows, a.grid_limit);
    SPROCKET_CUDA_LAUNCH(scale, a.stream, spmv_split_scale_kernel<Ordinal, Scalar>)(s.split_rows.data(),
                                                                                   s.num_split_rows, a.beta, a.y,
                                                                                   a.y_stride);
    check_launch("Sprocket::spmv", "spmv_split_scale_kernel");
  }
  if (num_blocks + s.num_split_chunks <= 0) return;
  const KernelLaunch launch = spmv_row_blocks_launch(num_blocks, s.num_split_chunks, a.grid_limit);
  if (s.row_block_merge)
    spmv_launch_row_blocks_kernel<true>(a, s, launch, num_blocks);
  else
    spmv_launch_row_blocks_kernel<false>(a, s, launch, num_blocks);
  check_launch("Sprocket::spmv", "spmv_row_blocks_kernel");
}

/// y = alpha * A * x + beta * y for rank-1 x and y (mode N), every bin then the split rows, on
/// `space`: Kokkos::Cuda, or the emulated device of the CPU emulation (stream_of, grid_limit are
/// found by argument-dependent lookup). Float and double with y of the scalar's type only
/// (raw_kernel_supported_v; the dispatch sends other types to the portable path).
template <class Space, class CrsType, class XView, class YView, class Scalar>
void spmv_apply(const Space& space, const SpmvAnalysis<CrsType>& analysis, Scalar alpha, const XView& x,
                Scalar beta, const YView& y) {
  static_assert(XView::rank == 1 && YView::rank == 1, "Sprocket::spmv (CUDA): x and y must be rank 1 here");
  using YValue = typename YView::non_const_value_type;
  static_assert(raw_kernel_supported_v<Scalar, YValue>,
                "Sprocket::spmv (CUDA): only float and double with y of the scalar's type; "
                "impl/spmv/spmv_dispatch.hpp routes other types to the portable path");
  using AMatrix = CrsType;
  const CrsType& A = analysis.A;
  const auto& s = analysis.schedule;
  using SpaceMemory = typename Space::memory_space;
  static_assert(Kokkos::SpaceAccessibility<SpaceMemory, typename XView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<SpaceMemory, typename YView::memory_space>::accessible,
                "Sprocket::spmv (CUDA): x and y must be accessible from the execution space");
  using Offset = typename AMatrix::non_const_size_type;
  using Ordinal = typename AMatrix::non_const_ordinal_type;
  static_assert(std::is_same_v<typename AMatrix::non_const_value_type, Scalar> && std::is_same_v<YValue, Scalar>,
                "Sprocket::spmv (CUDA): A's values and y are of the plan's scalar type");
  using XValue = typename XView::non_const_value_type;
  using BoundsValue = typename decltype(s.vrow_bounds)::non_const_value_type;
  static_assert(std::is_same_v<BoundsValue, Ordinal>, "Sprocket::spmv (CUDA): schedule and matrix ordinals differ");

  ProfilingRegion region("Sprocket::spmv::cuda");
  const SpmvCudaArgs<Offset, Ordinal, XValue, Scalar> args{
      stream_of(space),
      grid_limit(space),
      A.graph.row_map.data(),
      A.graph.entries.data(),
      A.values.data(),
      s.vrow_bounds.data(),
      alpha,
      beta,
      x.data(),
      static_cast<int64_t>(x.stride(0)),
      y.data(),
      static_cast<int64_t>(y.stride(0)),
      s.direct_rows,
      static_cast<int64_t>(A.numRows())};
  if (s.row_blocks) return spmv_launch_row_blocks(args, s);
  const auto launch_bins = [&](const auto& columns) {
    for (const auto& bin : s.bins) spmv_launch_bin(args, bin, columns);
  };
  if (s.row_pattern.extent(0) > 0)
    launch_bins(SpmvPatternColumns{s.row_pattern.data(), s.pattern_begin.data(), s.pattern_offsets16.data()});
  else if (s.col_offsets.extent(0) > 0)
    launch_bins(SpmvOffsetColumns{s.col_offsets.data()});
  else
    launch_bins(SpmvStoredColumns<Ordinal>{A.graph.entries.data()});
  spmv_launch_split_rows(args, s);
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
