#pragma once
// __global__ kernels of the CUDA BSR SpMV family (paper: bsr-spmv, Eberhardt and Hoemmen, adapted
// to row-major blocks); the launcher, the launch configurations and the reasons for the lane
// mappings are in impl/bsr_spmv/cuda/bsr_spmv_cuda.hpp. Every kernel computes, for each block row I
// and each row r < b of it (scalar row I * b + r),
//   y[row] = beta == 0 ? alpha * sum : beta * y[row] + alpha * sum,
//   sum    = sum over blocks k of block row I, c < b: values[k*b*b + r*b + c] * x[entries[k]*b + c]
// and writes every scalar row, rows of empty block rows included (sum = 0).
//
// Arguments are raw pointers: the BSR arrays (Offset row_map, Ordinal entries, Value values) and
// x and y as pointer + stride, so that rank-1 column subviews of LayoutRight rank-2 Views
// (LayoutStride) work as they are. Index arithmetic is int64_t; grids are clamped on the host and
// every kernel loops grid-stride over its work (block rows), so any number of block rows is
// covered. All loops that contain warp shuffles or __syncwarp are uniform over the lanes named in
// the mask: every lane of a warp walks the same block row (by_block, by_column), every lane of a
// row group the same block row (row_per_thread).
#include <Kokkos_Core.hpp>

#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <cstdint>
#include <type_traits>

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Threads per block of every BSR kernel: 8 warps, as the CSR kernels.
inline constexpr int bsr_block_threads = 256;
inline constexpr int bsr_warp_size = 32;
inline constexpr int bsr_warps_per_block = bsr_block_threads / bsr_warp_size;
/// row_per_thread: blocks whose x segments are staged in shared memory at a time (per row group).
inline constexpr int bsr_x_chunk = 8;
inline constexpr unsigned bsr_full_mask = 0xffffffffu;

/// y = beta == 0 ? alpha * sum : beta * y + alpha * sum; beta == 0 never reads y.
template <class Scalar, class YValue>
__device__ __forceinline__ void bsr_store(YValue* y, Scalar alpha, Scalar sum, Scalar beta) {
  if (beta == Scalar(0))
    *y = static_cast<YValue>(alpha * sum);
  else
    *y = static_cast<YValue>(beta * static_cast<Scalar>(*y) + alpha * sum);
}

/// First block row of the calling warp and the stride between a warp's block rows (one warp per
/// block row, grid-stride).
__device__ __forceinline__ int64_t bsr_warp_index() {
  return static_cast<int64_t>(blockIdx.x) * (blockDim.x / bsr_warp_size) + threadIdx.x / bsr_warp_size;
}
__device__ __forceinline__ int64_t bsr_warp_count() {
  return static_cast<int64_t>(gridDim.x) * (blockDim.x / bsr_warp_size);
}

/// Lane layout of by_block for a compile-time block size B (the warp covers a "tile" of
/// rows_per_pass rows x B columns of a block, and blocks_per_step such tiles of consecutive
/// blocks):
///   B*B <= 32 (B <= 5): the whole block is one tile (rows_per_pass = B, passes = 1) and
///     floor(32 / B^2) consecutive blocks are covered per step: B = 1: 32 blocks, 2: 8, 3: 3 (27
///     lanes), 4: 2, 5: 1 (25 lanes);
///   B*B > 32 (B = 6..8): one block per step, rows_per_pass = floor(32 / B) rows per tile and
///     passes = ceil(B / rows_per_pass) tiles per block, one accumulator per pass in each lane:
///     B = 6: 5 + 1 rows (30 lanes), 7: 4 + 3 rows (28 lanes), 8: 4 + 4 rows (32 lanes).
/// Lane l < active_lanes: tile index blk = l / tile, t = l % tile, row in tile t / B, column
/// t % B. A tile is rows_per_pass whole rows of a row-major block, so a tile is contiguous in
/// values and the column of a lane is the same in every pass (one x load serves all passes); the
/// tiles of one step (consecutive blocks) are contiguous too: the warp's value loads of a pass
/// are one contiguous run of active_lanes scalars (fully coalesced).
template <int B>
struct BsrByBlockShape {
  static_assert(B >= 1 && B <= 32, "block size");
  static constexpr int block_scalars = B * B;
  static constexpr int rows_per_pass = block_scalars <= bsr_warp_size ? B : bsr_warp_size / B;
  static constexpr int passes = (B + rows_per_pass - 1) / rows_per_pass;
  static constexpr int tile = rows_per_pass * B;
  static constexpr int blocks_per_step = block_scalars <= bsr_warp_size ? bsr_warp_size / block_scalars : 1;
  static constexpr int active_lanes = blocks_per_step * tile;
  static_assert(active_lanes <= bsr_warp_size && rows_per_pass * passes >= B, "lane layout");
};

/// by_block: one warp per block row; each active lane owns one (row, column) position of a
/// tile (one per pass) and multiplies its entry of every blocks_per_step-th block of the block row
/// by x[entries[k] * B + column]. At the end of the block row, per pass: a segmented shuffle-down
/// sum over the B lanes of a row (the lanes t = row * B .. row * B + B - 1 of a tile), then over
/// the blocks_per_step tiles (lanes tile apart); the lane of column 0 in tile 0 holds the row sum
/// and writes y.
template <int B, class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
__global__ void __launch_bounds__(bsr_block_threads)
    bsr_by_block_kernel(const Offset* __restrict__ row_map, const Ordinal* __restrict__ entries,
                        const Value* __restrict__ values, int64_t num_block_rows, Scalar alpha,
                        const XValue* __restrict__ x, int64_t x_stride, Scalar beta, YValue* y, int64_t y_stride) {
  using Shape = BsrByBlockShape<B>;
  constexpr int R = Shape::rows_per_pass, P = Shape::passes, T = Shape::tile, S = Shape::blocks_per_step;
  const int lane = threadIdx.x % bsr_warp_size;
  const int blk = lane / T, t = lane % T, row_in_tile = t / B, c = t % B;
  const bool active = lane < Shape::active_lanes;
  const int64_t warp_count = bsr_warp_count();
  for (int64_t I = bsr_warp_index(); I < num_block_rows; I += warp_count) {
    const int64_t first = static_cast<int64_t>(ldg(row_map + I));
    const int64_t last = static_cast<int64_t>(ldg(row_map + I + 1));
    Scalar acc[P];
#pragma unroll
    for (int p = 0; p < P; ++p) acc[p] = Scalar(0);
    if (active) {
#pragma unroll 2
      for (int64_t k = first + blk; k < last; k += S) {
        const Scalar xc =
            static_cast<Scalar>(ldg(x + (static_cast<int64_t>(ldg(entries + k)) * B + c) * x_stride));
        const Value* tile = values + k * Shape::block_scalars + t;
#pragma unroll
        for (int p = 0; p < P; ++p)
          if (p * R + row_in_tile < B) acc[p] += static_cast<Scalar>(ldg(tile + p * T)) * xc;
      }
    }
    // Every lane of the warp reaches the shuffles (the loop above reconverges; I is warp-uniform).
#pragma unroll
    for (int p = 0; p < P; ++p) {
      Scalar v = acc[p];
      // Segmented over the B lanes of a row: after the step with offset o, lane c holds the sum
      // of columns [c, min(c + 2o, B)), so column 0 ends with the whole row.
#pragma unroll
      for (int o = 1; o < B; o *= 2) {
        const Scalar s = __shfl_down_sync(bsr_full_mask, v, o);
        if (c + o < B) v += s;
      }
      // The same over the S tiles of a step (lanes T apart).
#pragma unroll
      for (int o = 1; o < S; o *= 2) {
        const Scalar s = __shfl_down_sync(bsr_full_mask, v, o * T);
        if (blk + o < S) v += s;
      }
      acc[p] = v;
    }
    if (blk == 0 && c == 0) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const int r = p * R + row_in_tile;
        if (r < B) bsr_store(y + (I * B + r) * y_stride, alpha, acc[p], beta);
      }
    }
  }
}

/// Sums NR accumulators (one per row of the block, NR a power of two <= 32) over the 32 lanes of
/// a warp with a reduce-scatter butterfly: at step s (lane offset 16 >> s) each lane keeps the
/// half of its remaining accumulators selected by its lane bit and receives the partner's copy of
/// that half, so the count halves every step (NR/2 + NR/4 + ... + 1 = NR - 1 shuffles); the
/// remaining 5 - log2(NR) steps are a plain butterfly on the one value left. Lane l ends with the
/// total of row l >> (5 - log2(NR)) in acc[0] (lanes sharing a row hold the same total).
template <int Half, int Offset, int NR, class Scalar>
__device__ __forceinline__ void bsr_reduce_scatter_step(Scalar (&acc)[NR], int lane) {
  if constexpr (Half >= 1) {
    const bool upper = (lane & Offset) != 0;
#pragma unroll
    for (int i = 0; i < Half; ++i) {
      const Scalar send = upper ? acc[i] : acc[i + Half];
      const Scalar keep = upper ? acc[i + Half] : acc[i];
      acc[i] = keep + __shfl_xor_sync(bsr_full_mask, send, Offset);
    }
    bsr_reduce_scatter_step<Half / 2, Offset / 2>(acc, lane);
  }
}

template <int NR, class Scalar>
__device__ __forceinline__ Scalar bsr_rows_warp_sum(Scalar (&acc)[NR], int lane) {
  static_assert(NR >= 1 && NR <= bsr_warp_size && (NR & (NR - 1)) == 0, "NR: power of two <= 32");
  bsr_reduce_scatter_step<NR / 2, bsr_warp_size / 2>(acc, lane);
  Scalar v = acc[0];
#pragma unroll
  for (int offset = bsr_warp_size / 2 / NR; offset >= 1; offset /= 2) v += __shfl_xor_sync(bsr_full_mask, v, offset);
  return v;
}

__host__ __device__ constexpr int bsr_ilog2(int n) { return n <= 1 ? 0 : 1 + bsr_ilog2(n / 2); }

/// by_column: one warp per block row; lane l < floor(32 / b) * b owns column c = l % b of
/// every floor(32 / b)-th block of the block row, starting at block l / b. Per block it loads
/// x[entries[k] * b + c] once and walks the b rows of its column, acc[r] += value(r, c) * x_c;
/// at a fixed r the warp's loads are the r-th rows of its floor(32 / b) blocks, runs of b
/// contiguous scalars (coalesced). NR >= b (a power of two) is the accumulator capacity; at the
/// end of the block row bsr_rows_warp_sum combines the per-row partials of all lanes.
template <int NR, class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
__global__ void __launch_bounds__(bsr_block_threads)
    bsr_by_column_kernel(const Offset* __restrict__ row_map, const Ordinal* __restrict__ entries,
                         const Value* __restrict__ values, int64_t num_block_rows, int b, Scalar alpha,
                         const XValue* __restrict__ x, int64_t x_stride, Scalar beta, YValue* y, int64_t y_stride) {
  constexpr int shift = bsr_ilog2(bsr_warp_size) - bsr_ilog2(NR);  // lanes per row after the reduction: 1 << shift
  const int lane = threadIdx.x % bsr_warp_size;
  const int blocks_per_step = bsr_warp_size / b;
  const int blk = lane / b, c = lane % b;
  const bool active = blk < blocks_per_step;
  const int64_t bb = static_cast<int64_t>(b) * b;
  const int64_t warp_count = bsr_warp_count();
  for (int64_t I = bsr_warp_index(); I < num_block_rows; I += warp_count) {
    const int64_t first = static_cast<int64_t>(ldg(row_map + I));
    const int64_t last = static_cast<int64_t>(ldg(row_map + I + 1));
    Scalar acc[NR];
#pragma unroll
    for (int r = 0; r < NR; ++r) acc[r] = Scalar(0);
    if (active) {
      for (int64_t k = first + blk; k < last; k += blocks_per_step) {
        const Scalar xc =
            static_cast<Scalar>(ldg(x + (static_cast<int64_t>(ldg(entries + k)) * b + c) * x_stride));
        const Value* column = values + k * bb + c;
#pragma unroll
        for (int r = 0; r < NR; ++r)
          if (r < b) acc[r] += static_cast<Scalar>(ldg(column + static_cast<int64_t>(r) * b)) * xc;
      }
    }
    const Scalar sum = bsr_rows_warp_sum(acc, lane);
    const int r = lane >> shift;
    if ((lane & ((1 << shift) - 1)) == 0 && r < b) bsr_store(y + (I * b + r) * y_stride, alpha, sum, beta);
  }
}

/// row_per_thread: a row group of b consecutive lanes per block row (floor(32 / b) groups per
/// warp, lanes past groups * b idle), lane r of a group owns scalar row r. The group walks its
/// block row in chunks of bsr_x_chunk blocks: lane r loads entry r of each chunk block's x segment
/// (b contiguous entries of x per block: coalesced) into shared memory, __syncwarp over the group,
/// then every lane walks its row's b contiguous values of each chunk block against the staged
/// segment (a shared-memory broadcast within the group). Staged entries are interleaved by group,
/// xs[(j * b + c) * groups + g], so the groups of a warp read consecutive words at the same step
/// (no bank conflicts). The second __syncwarp keeps the next chunk's stores behind this chunk's
/// reads.
template <class Offset, class Ordinal, class Value, class XValue, class YValue, class Scalar>
__global__ void __launch_bounds__(bsr_block_threads)
    bsr_row_per_thread_kernel(const Offset* __restrict__ row_map, const Ordinal* __restrict__ entries,
                              const Value* __restrict__ values, int64_t num_block_rows, int b, Scalar alpha,
                              const XValue* __restrict__ x, int64_t x_stride, Scalar beta, YValue* y,
                              int64_t y_stride) {
  SPROCKET_CUDA_SHARED(Scalar, staged, [bsr_warps_per_block][bsr_x_chunk * bsr_warp_size]);
  const int lane = threadIdx.x % bsr_warp_size;
  const int groups = bsr_warp_size / b;
  const int g = lane / b, r = lane % b;
  if (g >= groups) return;  // idle lanes: no group mask names them
  const unsigned mask = b == bsr_warp_size ? bsr_full_mask : ((1u << b) - 1u) << (g * b);
  Scalar* xs = staged[threadIdx.x / bsr_warp_size];
  const int64_t bb = static_cast<int64_t>(b) * b;
  const int64_t stride = bsr_warp_count() * groups;
  for (int64_t I = bsr_warp_index() * groups + g; I < num_block_rows; I += stride) {
    const int64_t first = static_cast<int64_t>(ldg(row_map + I));
    const int64_t last = static_cast<int64_t>(ldg(row_map + I + 1));
    Scalar sum = Scalar(0);
    for (int64_t k0 = first; k0 < last; k0 += bsr_x_chunk) {
      const int n = last - k0 < bsr_x_chunk ? static_cast<int>(last - k0) : bsr_x_chunk;
      // All loads of the chunk first (in flight together), then the stores. (Predicated stores
      // inside the load loop made ptxas spill.)
      Scalar chunk_x[bsr_x_chunk];
#pragma unroll
      for (int j = 0; j < bsr_x_chunk; ++j)
        chunk_x[j] = j < n ? static_cast<Scalar>(ldg(
                                 x + (static_cast<int64_t>(ldg(entries + k0 + j)) * b + r) * x_stride))
                           : Scalar(0);
#pragma unroll
      for (int j = 0; j < bsr_x_chunk; ++j)
        if (j < n) xs[(j * b + r) * groups + g] = chunk_x[j];
      __syncwarp(mask);
      for (int j = 0; j < n; ++j) {
        const Value* row = values + (k0 + j) * bb + static_cast<int64_t>(r) * b;
        const Scalar* xj = xs + j * b * groups + g;
#pragma unroll 4
        for (int c = 0; c < b; ++c) sum += static_cast<Scalar>(ldg(row + c)) * xj[c * groups];
      }
      __syncwarp(mask);
    }
    bsr_store(y + (I * b + r) * y_stride, alpha, sum, beta);
  }
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
