#pragma once
// __global__ kernels of the CUDA SpMV family; the executor that launches them and the reasons for
// the launch configurations are in impl/spmv/cuda/spmv_cuda.hpp. Every kernel computes
//   y[r] = beta == 0 ? alpha * sum_r : beta * y[r] + alpha * sum_r,   sum_r = sum_k A(r, k) x[k]
// for a set of rows given by the schedule (SpmvDeviceSchedule, impl/spmv/spmv_analysis.hpp), except the
// split-row pair, which scales y[r] first and then adds alpha * (partial sum) atomically.
//
// Arguments are raw pointers: the CSR arrays (Offset row_map, Ordinal entries, Scalar values), the
// schedule arrays (Ordinal vrows / vrow bounds / split rows), and x and y as pointer + stride so
// that rank-1 subviews of LayoutRight rank-2 Views (LayoutStride, stride = number of columns)
// work as they are. A's values and y are of the plan's Scalar (the dispatch sends y of another
// type to the portable kernels), so only x has a value type of its own (XValue: x may be, say,
// float under a double matrix), which is converted to Scalar as it is read. Index arithmetic is int64_t throughout; grids are clamped on the host and
// every kernel loops grid-stride, so counts beyond 2^31 - 1 threads or blocks are covered.
//
// The same source also runs on the CPU in the test-only emulation (SPROCKET_CUDA_EMULATION,
// unit_tests/cuda_emulation/, tests in unit_tests/spmv/test_spmv_cuda_emulated.cpp): shared arrays
// are declared through SPROCKET_CUDA_SHARED (impl/common/cuda/cuda_device.cuh); nothing else
// differs between nvcc and the host compiler.
#include <Kokkos_Core.hpp>

#include "Sprocket_Spmv.hpp"
#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <cstdint>
#include <type_traits>

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Threads per block of every kernel (the paper's work-group of 256 threads).
inline constexpr int spmv_block_size = 256;
inline constexpr int spmv_warp_size = 32;
static_assert(spmv_block_size % spmv_warp_size == 0 && spmv_block_size / spmv_warp_size <= spmv_warp_size,
              "the block reduction assumes whole warps and at most 32 of them");

/// a / b for a, b >= 0, in 32-bit arithmetic when both fit (64-bit division is emulated and about
/// three times as long; the slot -> virtual row mapping divides once per row).
__device__ __forceinline__ int64_t spmv_div(int64_t a, int64_t b) {
  if (((a | b) >> 32) == 0) return static_cast<int64_t>(static_cast<uint32_t>(a) / static_cast<uint32_t>(b));
  return a / b;
}

/// y = beta == 0 ? alpha * sum : beta * y + alpha * sum; beta == 0 never reads y.
/// Row of a (virtual row, row in it) slot: slot / U picks the bin's virtual row, slot % U the row
/// inside it; -1 for the idle slots past the end of a virtual row shorter than U.
/// vrows == nullptr: the schedule's one bin holds every row in order (SpmvDeviceSchedule::
/// direct_rows), the launcher passes the row count as the slot count, and the slot is the row:
/// no dependent loads of the virtual row and its bounds before the row map.
template <class Ordinal>
__device__ __forceinline__ int64_t spmv_slot_row(int64_t slot, const Ordinal* __restrict__ vrows,
                                                 const Ordinal* __restrict__ bounds, int64_t rows_per_vrow) {
  if (vrows == nullptr) return slot;
  const int64_t vi = spmv_div(slot, rows_per_vrow);
  const int64_t v = ldg(vrows + vi);
  const int64_t r = static_cast<int64_t>(ldg(bounds + v)) + (slot - vi * rows_per_vrow);
  return r < static_cast<int64_t>(ldg(bounds + v + 1)) ? r : -1;
}

/// Where the thread_per_row and subvectorX kernels read an entry's column (SpmvSchedule::
/// compressed_indices, ::row_patterns): `columns.row(r, begin)` once per row, then `col(k)` for
/// each of its entries k (positions in A's arrays, begin = row_map[r]). The values are read from A
/// in every case, so value updates stay visible; the pattern must not change after the analysis.
/// A's own column indices, 4 bytes an entry.
template <class Ordinal>
struct SpmvStoredColumns {
  const Ordinal* __restrict__ entries;
  struct Row {
    const Ordinal* __restrict__ entries;
    __device__ __forceinline__ int64_t col(int64_t k) const { return static_cast<int64_t>(ldg(entries + k)); }
  };
  __device__ __forceinline__ Row row(int64_t, int64_t) const { return {entries}; }
};

/// col - row of every entry as int16 (|col - row| <= 32767), 2 bytes an entry.
struct SpmvOffsetColumns {
  const int16_t* __restrict__ offsets;
  struct Row {
    const int16_t* __restrict__ offsets;
    int64_t r;
    __device__ __forceinline__ int64_t col(int64_t k) const { return r + static_cast<int64_t>(ldg(offsets + k)); }
  };
  __device__ __forceinline__ Row row(int64_t r, int64_t) const { return {offsets, r}; }
};

/// A pattern id per row (2 bytes a row) into a dictionary of the distinct offset sequences col -
/// row, in stored order, as int16: pattern p's offsets at pattern_offsets[pattern_begin[p] ...].
/// Rows of a stencil share a few patterns, so the dictionary stays in the caches, and the rows of
/// one warp that share a pattern read the same offsets.
struct SpmvPatternColumns {
  const uint16_t* __restrict__ row_pattern;
  const int32_t* __restrict__ pattern_begin;
  const int16_t* __restrict__ pattern_offsets;
  struct Row {
    const int16_t* __restrict__ offsets;
    int64_t shift;  ///< pattern_begin[p] - begin: entry k's offset is offsets[k + shift]
    int64_t r;
    __device__ __forceinline__ int64_t col(int64_t k) const {
      return r + static_cast<int64_t>(ldg(offsets + (k + shift)));
    }
  };
  __device__ __forceinline__ Row row(int64_t r, int64_t begin) const {
    const int64_t first = static_cast<int64_t>(ldg(pattern_begin + ldg(row_pattern + r)));
    return {pattern_offsets, first - begin, r};
  }
};

template <class Scalar>
__device__ __forceinline__ void spmv_store(Scalar* y, Scalar alpha, Scalar sum, Scalar beta) {
  if (beta == Scalar(0))
    *y = static_cast<Scalar>(alpha * sum);
  else
    *y = static_cast<Scalar>(beta * static_cast<Scalar>(*y) + alpha * sum);
}

/// Butterfly sum over groups of Width consecutive lanes (Width a power of two <= 32); every lane of
/// a group ends with the group's total. `mask` names the lanes executing the call: the group's own
/// lanes, so groups of one warp may diverge (different row lengths, idle slots).
template <int Width, class Scalar>
__device__ __forceinline__ Scalar spmv_group_sum(Scalar v, unsigned mask) {
  static_assert(Width >= 1 && Width <= spmv_warp_size && (Width & (Width - 1)) == 0, "Width: power of two <= 32");
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(mask, v, offset, Width);
  return v;
}

/// Mask of the Width-lane group the calling thread belongs to.
template <int Width>
__device__ __forceinline__ unsigned spmv_group_mask() {
  if constexpr (Width == spmv_warp_size) {
    return 0xffffffffu;
  } else {
    const unsigned first_lane = (threadIdx.x % spmv_warp_size) & ~unsigned(Width - 1);
    return ((1u << Width) - 1u) << first_lane;
  }
}

/// Sum over the whole block: shuffles within each warp, one value per warp in shared memory, then
/// warp 0 reduces those. The total is valid in thread 0 only. Every thread of the block must call
/// it. `buffer` holds spmv_block_size / 32 values; callers alternate two buffers between
/// consecutive calls, which makes the one __syncthreads here sufficient: a warp can only write a
/// buffer again after the barrier of the next call, which warp 0 passes after its reads.
template <class Scalar>
__device__ __forceinline__ Scalar spmv_block_sum(Scalar v, Scalar* buffer) {
  constexpr int warps = spmv_block_size / spmv_warp_size;
  const int warp = threadIdx.x / spmv_warp_size, lane = threadIdx.x % spmv_warp_size;
  v = spmv_group_sum<spmv_warp_size>(v, 0xffffffffu);
  if (lane == 0) buffer[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? buffer[lane] : Scalar(0);
    v = spmv_group_sum<warps>(v, 0xffffffffu);
  }
  return v;
}

/// The calling thread's share of sum_{begin <= k < end} A(k) x(col k): entries begin +
/// threadIdx.x, begin + threadIdx.x + 256, ... (a block's threads read consecutive entries).
template <class Scalar, class Ordinal, class XValue>
__device__ __forceinline__ Scalar spmv_block_range_part(const Ordinal* __restrict__ entries,
                                                        const Scalar* __restrict__ values, int64_t begin, int64_t end,
                                                        const XValue* __restrict__ x, int64_t x_stride) {
  Scalar sum = 0;
  for (int64_t k = begin + threadIdx.x; k < end; k += spmv_block_size)
    sum += static_cast<Scalar>(ldg(values + k)) *
           static_cast<Scalar>(ldg(x + static_cast<int64_t>(ldg(entries + k)) * x_stride));
  return sum;
}

/// Split-row chunk c: the block reduces its entries (spmv_block_sum on `buffer`) and thread 0 adds
/// alpha * partial into y(r) atomically. Chunk c belongs to split row chunk_split_index[c] and
/// covers `chunk` entries of it from its (c - split_chunk_begin[i])-th chunk on.
template <class Offset, class Ordinal, class XValue, class Scalar>
__device__ __forceinline__ void spmv_split_chunk(int64_t c, const Offset* __restrict__ row_map,
                                                 const Ordinal* __restrict__ entries, const Scalar* __restrict__ values,
                                                 const Ordinal* __restrict__ split_rows,
                                                 const int64_t* __restrict__ split_chunk_begin,
                                                 const Ordinal* __restrict__ chunk_split_index, int64_t chunk,
                                                 Scalar alpha, const XValue* __restrict__ x, int64_t x_stride,
                                                 Scalar* y, int64_t y_stride, Scalar* buffer) {
  const int64_t i = ldg(chunk_split_index + c);
  const int64_t r = ldg(split_rows + i);
  const int64_t row_end = static_cast<int64_t>(ldg(row_map + r + 1));
  const int64_t begin = static_cast<int64_t>(ldg(row_map + r)) + (c - ldg(split_chunk_begin + i)) * chunk;
  const int64_t end = begin + chunk < row_end ? begin + chunk : row_end;
  const Scalar sum = spmv_block_sum(spmv_block_range_part<Scalar>(entries, values, begin, end, x, x_stride), buffer);
  if (threadIdx.x == 0) atomic_add(y + r * y_stride, static_cast<Scalar>(alpha * sum));
}

/// kernel-serial: one thread per (virtual row, row in it) slot, slot = vi * U + j. Threads of a
/// slot past the end of a short virtual row idle. With large U consecutive threads take
/// consecutive rows, so row_map reads and y writes coalesce. Columns: where the entries' columns
/// are read from (SpmvStoredColumns, SpmvOffsetColumns, SpmvPatternColumns).
template <class Offset, class Columns, class Ordinal, class XValue, class Scalar>
__global__ void __launch_bounds__(spmv_block_size)
    spmv_thread_per_row_kernel(const Offset* __restrict__ row_map, const Columns columns,
                               const Scalar* __restrict__ values, const Ordinal* __restrict__ vrows,
                               const Ordinal* __restrict__ bounds, int64_t num_slots, int64_t rows_per_vrow,
                               Scalar alpha, const XValue* __restrict__ x, int64_t x_stride, Scalar beta,
                               Scalar* y, int64_t y_stride) {
  const int64_t grid_stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t slot = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; slot < num_slots;
       slot += grid_stride) {
    const int64_t r = spmv_slot_row(slot, vrows, bounds, rows_per_vrow);
    if (r < 0) continue;
    const int64_t begin = static_cast<int64_t>(ldg(row_map + r));
    const int64_t end = static_cast<int64_t>(ldg(row_map + r + 1));
    const auto cols = columns.row(r, begin);
    Scalar sum = 0;
#pragma unroll 4
    for (int64_t k = begin; k < end; ++k)
      sum += static_cast<Scalar>(ldg(values + k)) * static_cast<Scalar>(ldg(x + cols.col(k) * x_stride));
    spmv_store(y + r * y_stride, alpha, sum, beta);
  }
}

/// kernel-subvectorX: X consecutive lanes of a warp per slot (row), lane l takes entries
/// begin + l, begin + l + X, ... (consecutive lanes read consecutive entries: coalesced), then a
/// butterfly over the group's lanes and lane 0 of the group writes y. The paper stages the
/// products in local memory for a segmented reduction; register shuffles do the same without
/// shared memory or block barriers. Columns as for kernel-serial.
template <int X, class Offset, class Columns, class Ordinal, class XValue, class Scalar>
__global__ void __launch_bounds__(spmv_block_size)
    spmv_subvector_kernel(const Offset* __restrict__ row_map, const Columns columns,
                          const Scalar* __restrict__ values, const Ordinal* __restrict__ vrows,
                          const Ordinal* __restrict__ bounds, int64_t num_slots, int64_t rows_per_vrow,
                          Scalar alpha, const XValue* __restrict__ x, int64_t x_stride, Scalar beta, Scalar* y,
                          int64_t y_stride) {
  static_assert(spmv_block_size % X == 0, "a group must not straddle blocks");
  constexpr int groups_per_block = spmv_block_size / X;
  const int lane = threadIdx.x % X;
  const unsigned mask = spmv_group_mask<X>();
  const int64_t grid_stride = static_cast<int64_t>(gridDim.x) * groups_per_block;
  // All lanes of a group share `slot` and so take the same branches: the group's shuffles always
  // see all the lanes named in `mask`.
  for (int64_t slot = static_cast<int64_t>(blockIdx.x) * groups_per_block + threadIdx.x / X; slot < num_slots;
       slot += grid_stride) {
    const int64_t r = spmv_slot_row(slot, vrows, bounds, rows_per_vrow);
    if (r < 0) continue;
    const int64_t begin = static_cast<int64_t>(ldg(row_map + r));
    const int64_t end = static_cast<int64_t>(ldg(row_map + r + 1));
    const auto cols = columns.row(r, begin);
    Scalar sum = 0;
    for (int64_t k = begin + lane; k < end; k += X)
      sum += static_cast<Scalar>(ldg(values + k)) * static_cast<Scalar>(ldg(x + cols.col(k) * x_stride));
    sum = spmv_group_sum<X>(sum, mask);
    if (lane == 0) spmv_store(y + r * y_stride, alpha, sum, beta);
  }
}

/// kernel-vector: one block per virtual row, its rows in turn; per row the block's threads stride
/// over the entries and spmv_block_sum reduces. Grid-stride over virtual rows (uniform per block,
/// so the barriers inside are reached by every thread).
template <class Offset, class Ordinal, class XValue, class Scalar>
__global__ void __launch_bounds__(spmv_block_size)
    spmv_team_per_row_kernel(const Offset* __restrict__ row_map, const Ordinal* __restrict__ entries,
                             const Scalar* __restrict__ values, const Ordinal* __restrict__ vrows,
                             const Ordinal* __restrict__ bounds, int64_t num_vrows, Scalar alpha,
                             const XValue* __restrict__ x, int64_t x_stride, Scalar beta, Scalar* y,
                             int64_t y_stride) {
  SPROCKET_CUDA_SHARED(Scalar, buffers, [2][spmv_block_size / spmv_warp_size]);
  int parity = 0;
  for (int64_t vi = blockIdx.x; vi < num_vrows; vi += gridDim.x) {
    const int64_t v = ldg(vrows + vi);
    const int64_t r_end = static_cast<int64_t>(ldg(bounds + v + 1));
    for (int64_t r = static_cast<int64_t>(ldg(bounds + v)); r < r_end; ++r) {
      const int64_t begin = static_cast<int64_t>(ldg(row_map + r));
      const int64_t end = static_cast<int64_t>(ldg(row_map + r + 1));
      const Scalar sum =
          spmv_block_sum(spmv_block_range_part<Scalar>(entries, values, begin, end, x, x_stride), buffers[parity]);
      parity ^= 1;
      if (threadIdx.x == 0) spmv_store(y + r * y_stride, alpha, sum, beta);
    }
  }
}

/// Split rows, first pass: y[r] = beta * y[r] (beta == 0: 0, y not read).
template <class Ordinal, class Scalar>
__global__ void __launch_bounds__(spmv_block_size)
    spmv_split_scale_kernel(const Ordinal* __restrict__ split_rows, int64_t num_split_rows, Scalar beta, Scalar* y,
                            int64_t y_stride) {
  const int64_t grid_stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < num_split_rows;
       i += grid_stride) {
    Scalar* yr = y + static_cast<int64_t>(ldg(split_rows + i)) * y_stride;
    *yr = beta == Scalar(0) ? Scalar(0) : static_cast<Scalar>(beta * static_cast<Scalar>(*yr));
  }
}

/// Split rows, second pass: one block per chunk of `chunk` entries of a split row; the block
/// reduces its chunk and thread 0 adds alpha * partial into y[r] atomically.
template <class Offset, class Ordinal, class XValue, class Scalar>
__global__ void __launch_bounds__(spmv_block_size)
    spmv_split_chunk_kernel(const Offset* __restrict__ row_map, const Ordinal* __restrict__ entries,
                            const Scalar* __restrict__ values, const Ordinal* __restrict__ split_rows,
                            const int64_t* __restrict__ split_chunk_begin,
                            const Ordinal* __restrict__ chunk_split_index, int64_t num_chunks, int64_t chunk,
                            Scalar alpha, const XValue* __restrict__ x, int64_t x_stride, Scalar* y,
                            int64_t y_stride) {
  SPROCKET_CUDA_SHARED(Scalar, buffers, [2][spmv_block_size / spmv_warp_size]);
  int parity = 0;
  for (int64_t c = blockIdx.x; c < num_chunks; c += gridDim.x) {
    spmv_split_chunk(c, row_map, entries, values, split_rows, split_chunk_begin, chunk_split_index, chunk, alpha, x,
                     x_stride, y, y_stride, buffers[parity]);
    parity ^= 1;
  }
}

/// Lanes per row when a row block's `rows` rows (1 <= rows <= spmv_block_size) are reduced from
/// shared memory: the largest power of two <= 32 with rows * lanes <= spmv_block_size, so every
/// row gets a group of lanes and a block of few rows still uses whole warps.
__device__ __forceinline__ int spmv_row_block_lanes(int64_t rows) {
  int lanes = 1;
  while (lanes < spmv_warp_size && rows * lanes * 2 <= spmv_block_size) lanes *= 2;
  return lanes;
}

/// Sum of the partials that the block's warps before `warp` carry for row `key` (SpmvBinning::
/// row_blocks_merge): warp w's last lane holds the key it ended on (warp_key) and that key's sum
/// within the warp (warp_value). Keys rise with the thread, so the warps that carry `key` are the
/// ones right before `warp` whose last key is `key`; the first warp that ended on another key ends
/// the walk (a run that starts inside a warp has that warp's predecessor ending on a smaller key).
template <class Scalar>
__device__ __forceinline__ Scalar spmv_merge_carry_from_warps(const int* warp_key, const Scalar* warp_value,
                                                              int warp, int key) {
  Scalar carry = 0;
  for (int w = warp - 1; w >= 0 && warp_key[w] == key; --w) carry += warp_value[w];
  return carry;
}

/// The rows of a row block summed along the merge path (SpmvBinning::row_blocks_merge; Merrill and
/// Garland, "Merge-based parallel sparse matrix-vector multiplication", SC 2016). The block's items
/// are its `rows` row ends and its `n` staged products; each thread takes an equal share of the
/// rows + n items, so a row of hundreds of entries among short rows costs its block no more than
/// its share of items. (With lanes per row, one group of lanes sums such a row while the block's
/// other threads wait at the barrier: the emulated profile of gen:rmat:scale=16,ef=16 shows that
/// reduction with 13-15% of the lanes active.)
///  - Thread t's share starts on diagonal d0 = t * share of the merge of the row ends
///    starts[1..rows] with the entry indices 0..n-1; a binary search over the rows finds it
///    (i rows ended, j = d0 - i entries consumed; an entry is consumed before the end of its row).
///  - Walking its items, the thread writes y for every row it ends except the first, which started
///    in its share; its first ended row (first_sum) may have started in earlier threads, and the
///    row it is in when its share ends (its carry) may end in later ones.
///  - The carries are combined by a segmented inclusive scan keyed by row (keys rise with the
///    thread, so equal keys are consecutive): shuffles within each warp, then across the warps
///    through their last lanes in shared memory. Thread t's carry-in is the scan at thread t - 1,
///    whose key is t's first row; the thread then writes that row. Deterministic: the same sums in
///    the same order on every run.
/// Every thread of the block calls it (one __syncthreads inside); the caller's barrier after it
/// keeps the next block's staging from overwriting what this one still reads.
template <class Scalar>
__device__ void spmv_row_block_merge_sum(const Scalar* products, const int* starts, int rows, int n, int* warp_key,
                                         Scalar* warp_value, int64_t r0, Scalar alpha, Scalar beta, Scalar* y,
                                         int64_t y_stride) {
  const int items = rows + n;
  const int share = (items + spmv_block_size - 1) / spmv_block_size;
  const int t = static_cast<int>(threadIdx.x);
  const int d0 = t * share < items ? t * share : items;
  const int d1 = d0 + share < items ? d0 + share : items;
  int lo = d0 - n > 0 ? d0 - n : 0, hi = d0 < rows ? d0 : rows;
  while (lo < hi) {  // the first i whose row end lies past entry d0 - i - 1
    const int mid = (lo + hi) / 2;
    if (starts[mid + 1] <= d0 - mid - 1)
      lo = mid + 1;
    else
      hi = mid;
  }
  const int first_row = lo;
  int i = lo, j = d0 - lo;
  int row_end = i < rows ? starts[i + 1] : n;
  Scalar carry = 0, first_sum = 0;
  bool ended_first = false;
  for (int d = d0; d < d1; ++d) {
    if (j < row_end) {
      carry += products[j++];
      continue;
    }
    if (ended_first)
      spmv_store(y + (r0 + i) * y_stride, alpha, carry, beta);
    else
      first_sum = carry;
    ended_first = true;
    carry = 0;
    ++i;
    row_end = i < rows ? starts[i + 1] : n;
  }
  const int lane = t % spmv_warp_size, warp = t / spmv_warp_size;
  const int key = i;
  for (int offset = 1; offset < spmv_warp_size; offset *= 2) {
    const int k = __shfl_up_sync(0xffffffffu, key, offset);
    const Scalar v = __shfl_up_sync(0xffffffffu, carry, offset);
    if (lane >= offset && k == key) carry += v;
  }
  if (lane == spmv_warp_size - 1) {
    warp_key[warp] = key;
    warp_value[warp] = carry;
  }
  __syncthreads();
  carry += spmv_merge_carry_from_warps(warp_key, warp_value, warp, key);
  Scalar carry_in = __shfl_up_sync(0xffffffffu, carry, 1);
  if (lane == 0) carry_in = spmv_merge_carry_from_warps(warp_key, warp_value, warp, first_row);
  if (ended_first) spmv_store(y + (r0 + first_row) * y_stride, alpha, first_sum + carry_in, beta);
}

/// Row blocks (SpmvBinning::row_blocks), one launch for every row. Blocks [0, num_blocks) of the
/// grid-stride loop are the schedule's row blocks (vrow_bounds), the rest the split rows' chunks.
///  - A block of rows holding at most Entries entries: the 256 threads read its entries
///    consecutively (coalesced, the same work for every block whatever the row lengths) and stage
///    the products in shared memory with the rows' starts, then a group of lanes per row
///    (spmv_row_block_lanes) sums the row's products and lane 0 writes y. No atomics: the same
///    result on every run. (Each thread summing 4 consecutive products into the rows' shared sums
///    by shared-memory atomics, the same work for every thread, was slower on an H200, 2026-11-28:
///    gen:rmat:scale=20,ef=16 0.37 against 0.33 ms, gen:poisson3d:n=128 0.138 against 0.113.)
///  - One row longer than Entries and at most split_threshold: the block strides over it and
///    reduces as team_per_row does.
///  - One row longer than split_threshold: skipped here; its chunks (blocks num_blocks onwards)
///    add alpha * partial into y atomically, y having been scaled by spmv_split_scale_kernel in
///    the launch before.
///  - MergeSum (SpmvBinning::row_blocks_merge): the staged products summed along the merge path
///    (spmv_row_block_merge_sum) instead of by lanes per row. A template parameter, not a run-time
///    flag: with both sums in one kernel, ptxas gave the lanes-per-row kernel 40 registers instead
///    of 32 (sm_80, double / int), 6 resident blocks per SM instead of 8.
template <bool MergeSum, class Offset, class Ordinal, class XValue, class Scalar>
__global__ void __launch_bounds__(spmv_block_size)
    spmv_row_blocks_kernel(const Offset* __restrict__ row_map, const Ordinal* __restrict__ entries,
                           const Scalar* __restrict__ values, const Ordinal* __restrict__ bounds, int64_t num_blocks,
                           int64_t split_threshold, const Ordinal* __restrict__ split_rows,
                           const int64_t* __restrict__ split_chunk_begin, const Ordinal* __restrict__ chunk_split_index,
                           int64_t num_chunks, int64_t chunk, Scalar alpha, const XValue* __restrict__ x,
                           int64_t x_stride, Scalar beta, Scalar* y, int64_t y_stride) {
  constexpr int64_t Entries = SpmvSchedule::row_block_entries;
  static_assert(SpmvSchedule::row_block_rows == spmv_block_size, "one thread per row at most when reducing");
  SPROCKET_CUDA_SHARED(Scalar, products, [Entries]);
  SPROCKET_CUDA_SHARED(int, starts, [spmv_block_size + 1]);
  SPROCKET_CUDA_SHARED(Scalar, buffers, [2][spmv_block_size / spmv_warp_size]);
  int parity = 0;
  for (int64_t b = blockIdx.x; b < num_blocks + num_chunks; b += gridDim.x) {
    if (b >= num_blocks) {
      spmv_split_chunk(b - num_blocks, row_map, entries, values, split_rows, split_chunk_begin, chunk_split_index,
                       chunk, alpha, x, x_stride, y, y_stride, buffers[parity]);
      parity ^= 1;
      continue;
    }
    const int64_t r0 = ldg(bounds + b), r1 = ldg(bounds + b + 1);
    const int64_t e0 = static_cast<int64_t>(ldg(row_map + r0)), e1 = static_cast<int64_t>(ldg(row_map + r1));
    const int64_t n = e1 - e0;
    // Analysis gives a row longer than Entries or than split_threshold a block of its own.
    if (r1 - r0 == 1 && (n > Entries || n > split_threshold)) {
      if (n > split_threshold) continue;  // a split row: its chunks
      const Scalar sum =
          spmv_block_sum(spmv_block_range_part<Scalar>(entries, values, e0, e1, x, x_stride), buffers[parity]);
      parity ^= 1;
      if (threadIdx.x == 0) spmv_store(y + r0 * y_stride, alpha, sum, beta);
      continue;
    }
    const int64_t rows = r1 - r0;
#pragma unroll 4
    for (int64_t k = threadIdx.x; k < n; k += spmv_block_size)
      products[k] = static_cast<Scalar>(ldg(values + e0 + k)) *
                    static_cast<Scalar>(ldg(x + static_cast<int64_t>(ldg(entries + e0 + k)) * x_stride));
    // The rows' starts walked from the block's first row, with a 32-bit index (rows <= 256) in the
    // lanes-per-row kernel. ptxas then gives that kernel 32 registers without spilling where it
    // gave 32 with 24 bytes spilled (sm_80, double / int) or 40 (float / int; sm_90 float / int),
    // and 40 instead of 48 on sm_90 double / size_t. The merge-path kernel keeps the 64-bit index:
    // with the 32-bit one ptxas gave it 48 registers instead of 40 (sm_80, float / int).
    using StartIndex = std::conditional_t<MergeSum, int64_t, int>;
    const Offset* __restrict__ block_row_map = row_map + r0;
    for (StartIndex i = threadIdx.x; i <= static_cast<StartIndex>(rows); i += spmv_block_size)
      starts[i] = static_cast<int>(static_cast<int64_t>(ldg(block_row_map + i)) - e0);
    __syncthreads();
    if constexpr (MergeSum) {
      SPROCKET_CUDA_SHARED(int, warp_key, [spmv_block_size / spmv_warp_size]);
      SPROCKET_CUDA_SHARED(Scalar, warp_value, [spmv_block_size / spmv_warp_size]);
      spmv_row_block_merge_sum(products, starts, static_cast<int>(rows), static_cast<int>(n), warp_key, warp_value,
                               r0, alpha, beta, y, y_stride);
      __syncthreads();  // the next block's staging overwrites products, starts and the warps' carries
      continue;
    }
    const int lanes = spmv_row_block_lanes(rows);
    const int64_t row = threadIdx.x / lanes;
    const int lane = threadIdx.x % lanes;
    Scalar sum = 0;
    if (row < rows)
      for (int k = starts[row] + lane; k < starts[row + 1]; k += lanes) sum += products[k];
    // lanes is the same for the whole block: every lane of every warp takes part in each shuffle.
    for (int offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (row < rows && lane == 0) spmv_store(y + (r0 + row) * y_stride, alpha, sum, beta);
    __syncthreads();  // the next block's staging overwrites products and starts
  }
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
