#pragma once
// __global__ kernels of the CUDA SpMM family (paper: aspt-spmm-sddmm, section 4.3, Listings 2 and
// 3); the launcher, the launch shapes and the reasons for them are in impl/spmm/cuda/spmm_cuda.hpp.
// Every kernel computes, for its rows r and the K-columns k of its slice,
//   C(r, k) = beta == 0 ? alpha * sum : beta * C(r, k) + alpha * sum,
//   sum     = sum over the entries p of row r of values[p] * B(entries[p], k)
// over the plan's reordered CSR (the order of the entries inside a row is the layout's: heavy
// tiles first, then the light entries; the sum is the same), and writes every (r, k) it owns,
// rows without entries included.
//
// Lane groups: G lanes (a power of two, G <= 32, G | 32) own one row at a time and spread over K:
// lane q of the group handles the columns k0 + q + j * G, j < CF (thread coarsening: CF
// accumulators per row and lane; the K-slice of a group is SW = G * CF columns). Lanes whose
// column is >= K are masked: they never load B or store C. Groups of one warp may diverge
// (different rows); every shuffle names the group's own lanes, and every loop that contains one
// has a trip count that is uniform over the group.
//
// Dense operands are pointer + (row stride, column stride): element (i, k) of B at
// B[i * b_row_stride + k * b_col_stride], the same for C. This covers LayoutRight (column stride
// 1: the lanes of a group read consecutive scalars), LayoutLeft and LayoutStride. Offsets into B
// and C are int64_t, positions in A int64_t unless Offset is a signed 32-bit type (SpmmPos).
// csr_rows and scale clamp their grids on the host and loop grid-stride; the ASpT kernel runs
// exactly one block per (panel, K-slice) (the launcher checks that the count fits gridDim.x).
//
// The same source runs on the CPU in the test-only emulation (SPROCKET_CUDA_EMULATION,
// unit_tests/spmm/test_spmm_cuda_emulated.cpp): the dynamic shared memory is reached through
// SPROCKET_CUDA_DYNAMIC_SHARED (impl/common/cuda/cuda_device.cuh), nothing else differs.
#include <Kokkos_Core.hpp>

#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <cstdint>
#include <type_traits>

#include "impl/spmm/cuda/spmm_cuda_limits.hpp"

namespace Sprocket {
namespace Impl {
namespace cuda {

inline constexpr int spmm_warp_size = 32;
/// ASpT blocks have up to 16 warps (512 threads): 16 groups of 32 lanes cover up to 16 * R panel
/// rows in one pass, and __launch_bounds__(512, 2) keeps two such blocks per SM (64 registers
/// per thread, 32 resident warps: half of an sm_80/sm_90 SM, as many as the 64 KiB of staged
/// tile per block allows on A100 anyway).
inline constexpr int spmm_aspt_max_warps = 16;
inline constexpr int spmm_aspt_max_threads = spmm_aspt_max_warps * spmm_warp_size;
inline constexpr int spmm_aspt_min_blocks_per_sm = 2;
/// csr_rows blocks: 8 warps, as the CSR SpMV kernels.
inline constexpr int spmm_csr_block_threads = 256;
inline constexpr int spmm_scale_block_threads = 256;
/// Largest coarsening along K (columns per lane): csr_rows goes to 4 (a K-slice of 128); the
/// ASpT kernel stops at 2, because its R rows of accumulators shrink as 1 / CF (at CF = 4 only
/// 2 double rows per group would fit, and that kernel spilled).
inline constexpr int spmm_csr_max_coarsening = 4;
inline constexpr int spmm_aspt_max_coarsening = 2;

/// Entries of a row walked per unrolled step of the light (global B) loop: 4 / CF, so that a
/// lane has about four loads of B in flight whatever the coarsening (global latency is what
/// this loop waits on), without the registers of 4 * CF outstanding loads.
KOKKOS_INLINE_FUNCTION constexpr int spmm_global_unroll(int coarsening) { return coarsening >= 4 ? 1 : 4 / coarsening; }
/// The same for the heavy (shared-memory B) loop: 2 / CF. Shared memory answers in tens of
/// cycles, and the heavy loop runs while the R rows' accumulators are live: a deeper unroll
/// made the ASpT kernel spill.
KOKKOS_INLINE_FUNCTION constexpr int spmm_shared_unroll(int coarsening) { return coarsening >= 2 ? 1 : 2; }

/// Rows R whose accumulators one lane keeps in registers in the ASpT kernel (rows per group in
/// one pass): R * CF accumulators of at most 24 floats or 10 doubles (20 registers; the sizes
/// at which no instantiation spills at the 64-register limit of __launch_bounds__(512, 2) with
/// CUDA 13, sm_80 and sm_90, 32- and 64-bit offsets), at most 16 rows, and at most G rows,
/// because lane q < R of the group carries row q's entry bounds (coalesced loads, shuffled to
/// the group).
KOKKOS_INLINE_FUNCTION constexpr int spmm_rows_per_group(int lanes, int coarsening, int scalar_bytes) {
  const int by_registers = (scalar_bytes <= 4 ? 24 : 10) / coarsening;
  const int r = by_registers < 16 ? by_registers : 16;
  return r < lanes ? r : lanes;
}
static_assert(spmm_rows_per_group(32, 1, 4) == 16 && spmm_rows_per_group(32, 2, 4) == 12 &&
                  spmm_rows_per_group(32, 1, 8) == 10 && spmm_rows_per_group(32, 2, 8) == 5 &&
                  spmm_rows_per_group(4, 1, 8) == 4 && spmm_rows_per_group(1, 1, 8) == 1,
              "rows per group");
static_assert(spmm_cuda_max_panel_rows(4) == spmm_aspt_max_warps * spmm_rows_per_group(spmm_warp_size, 1, 4) &&
                  spmm_cuda_max_panel_rows(8) == spmm_aspt_max_warps * spmm_rows_per_group(spmm_warp_size, 1, 8),
              "spmm_cuda_limits.hpp documents the rows of one pass");

/// c % W for the shared-memory slot of column c, by a multiply and a shift instead of a
/// division (round-up reciprocal): with l = ceil(log2 W), k = 31 + l and m = ceil(2^k / W)
/// (< 2^32), floor(c / W) = (c * m) >> k exactly for every 0 <= c < 2^31, because m * W - 2^k
/// = e < W <= 2^l makes the error term c * e / (W * 2^k) < 2^31 / 2^k = 2^-l <= 1 / W, too
/// small to cross the next multiple of 1 / W. Columns >= 2^31 (unsigned or 64-bit ordinals)
/// divide.
struct SpmmSlotDivisor {
  uint32_t width = 1;   // W
  uint32_t magic = 0;   // m
  uint32_t shift = 31;  // k
};

inline SpmmSlotDivisor spmm_slot_divisor(uint32_t width) {
  SpmmSlotDivisor d;
  d.width = width;
  uint32_t l = 0;
  while ((uint64_t{1} << l) < width) ++l;
  d.shift = 31 + l;
  d.magic = static_cast<uint32_t>(((uint64_t{1} << d.shift) + width - 1) / width);
  return d;
}

template <class Ordinal>
__device__ __forceinline__ uint32_t spmm_slot(Ordinal c, const SpmmSlotDivisor& d) {
  if constexpr (!(std::is_signed_v<Ordinal> && sizeof(Ordinal) <= 4)) {
    if (static_cast<uint64_t>(c) >> 31) return static_cast<uint32_t>(static_cast<uint64_t>(c) % d.width);
  }
  const uint32_t n = static_cast<uint32_t>(c);
  const uint32_t quotient = static_cast<uint32_t>((static_cast<uint64_t>(n) * d.magic) >> d.shift);
  return n - quotient * d.width;
}

/// Raw pointers, sizes and strides of one launch. The tile fields are read by the ASpT kernel
/// only.
template <class Scalar, class Ordinal, class Offset>
struct SpmmCudaArgs {
  // A: the plan's reordered CSR.
  const Offset* row_map;
  const Ordinal* entries;
  const Scalar* values;
  int64_t num_rows;
  // ASpT tiles (impl/spmm/spmm_analysis.hpp).
  const int64_t* panel_ptr;
  const int64_t* tile_row_end;
  const int64_t* tile_col_ptr;
  const Ordinal* tile_cols;
  int64_t panel_rows;
  SpmmSlotDivisor slots;  // W = tile_cols_max: shared-memory slots per tile
  // csr_rows: chunks of the rows longer than split_entries (0: none), chunk c covering entries
  // [chunk_begin[c], min(chunk_begin[c] + split_entries, row_map[chunk_row[c] + 1])).
  int64_t split_entries;
  int64_t num_chunks;
  const Ordinal* chunk_row;
  const int64_t* chunk_begin;
  // K-slices: columns [s * SW, (s + 1) * SW) of B and C for slice s < num_slices.
  int64_t K;
  int64_t num_slices;
  Scalar alpha, beta;
  const Scalar* B;
  int64_t b_row_stride, b_col_stride;
  Scalar* C;
  int64_t c_row_stride, c_col_stride;
};

/// a / b for a, b >= 0, in 32-bit arithmetic when both fit (64-bit division is emulated).
__device__ __forceinline__ int64_t spmm_div(int64_t a, int64_t b) {
  if (((a | b) >> 32) == 0) return static_cast<int64_t>(static_cast<uint32_t>(a) / static_cast<uint32_t>(b));
  return a / b;
}

/// Mask of the G-lane group the calling thread belongs to.
template <int G>
__device__ __forceinline__ unsigned spmm_group_mask() {
  if constexpr (G == spmm_warp_size) {
    return 0xffffffffu;
  } else {
    const unsigned first_lane = (threadIdx.x % spmm_warp_size) & ~unsigned(G - 1);
    return ((1u << G) - 1u) << first_lane;
  }
}

/// Value of `v` in lane `src` of the calling thread's group (all lanes named in `mask` must call).
template <int G, class T>
__device__ __forceinline__ T spmm_broadcast(unsigned mask, T v, int src) {
  if constexpr (G == 1) {
    (void)mask;
    (void)src;
    return v;
  } else {
    return __shfl_sync(mask, v, src, G);
  }
}

/// Positions in A's entries: int when Offset is a signed 32-bit type (nnz < 2^31 then), else
/// int64_t. Keeps the row bounds a lane carries in one register each in the common case.
template <class Offset>
using SpmmPos = std::conditional_t<(sizeof(Offset) <= 4 && std::is_signed_v<Offset>), int32_t, int64_t>;

/// The columns of the calling lane inside its K-slice: slice column q + j * G for j < CF, valid
/// when it is < slice_cols (the slice's columns that exist, <= SW); b_offset[j] = its offset in a
/// row of B from the slice's first column (0 for masked columns, never dereferenced).
template <int CF>
struct SpmmLaneColumns {
  int64_t b_offset[CF];
  bool valid[CF];
};

template <int G, int CF>
__device__ __forceinline__ SpmmLaneColumns<CF> spmm_lane_columns(int q, int slice_cols, int64_t b_col_stride) {
  SpmmLaneColumns<CF> cols;
#pragma unroll
  for (int j = 0; j < CF; ++j) {
    cols.valid[j] = q + j * G < slice_cols;
    cols.b_offset[j] = cols.valid[j] ? (q + j * G) * b_col_stride : 0;
  }
  return cols;
}

/// part[j] += sum over entries p in [lo, hi) of values[p] * B(entries[p], column j of the lane),
/// with b_slice = &B(0, k0): B read from global memory (light entries, csr_rows). The group loads
/// G entries at a time, one per lane (consecutive lanes, consecutive positions: coalesced), then
/// walks them broadcasting column and value by shuffles; every lane reads its own columns of B's
/// row (for LayoutRight one contiguous run of G scalars per j across the group). Unrolled by
/// spmm_global_unroll(CF).
template <int G, int CF, class Pos, class Scalar, class Ordinal>
__device__ __forceinline__ void spmm_row_global(Scalar (&part)[CF], const Ordinal* entries, const Scalar* values,
                                                Pos lo, Pos hi, const Scalar* b_slice, int64_t b_row_stride,
                                                const SpmmLaneColumns<CF>& cols, int q, unsigned mask) {
  for (Pos base = lo; base < hi; base += G) {
    const int n = hi - base < G ? static_cast<int>(hi - base) : G;
    Ordinal my_col = 0;
    Scalar my_value = 0;
    if (q < n) {
      my_col = ldg(entries + base + q);
      my_value = ldg(values + base + q);
    }
#pragma unroll spmm_global_unroll(CF)
    for (int u = 0; u < n; ++u) {
      const Ordinal col = spmm_broadcast<G>(mask, my_col, u);
      const Scalar v = spmm_broadcast<G>(mask, my_value, u);
      const Scalar* row = b_slice + static_cast<int64_t>(col) * b_row_stride;
#pragma unroll
      for (int j = 0; j < CF; ++j)
        if (cols.valid[j]) part[j] += v * ldg(row + cols.b_offset[j]);
    }
  }
}

/// part[j] += sum over entries p in [lo, hi) of values[p] * tile[slot(entries[p]) * SW + q +
/// j * G]: the entries of one heavy tile against its rows of B staged in shared memory
/// (`lane_tile` = tile + q). The group loads G entries at a time and every lane turns its
/// entry's column into a slot once (spmm_slot), then slot and value are broadcast. For G = 32
/// the warp reads 32 consecutive scalars of one slot row per j: conflict-free (32 banks for
/// float; two conflict-free wavefronts for double).
template <int G, int CF, class Pos, class Scalar, class Ordinal>
__device__ __forceinline__ void spmm_row_shared(Scalar (&part)[CF], const Ordinal* entries, const Scalar* values,
                                                Pos lo, Pos hi, const Scalar* lane_tile,
                                                const SpmmSlotDivisor& slots, int q, unsigned mask) {
  constexpr int SW = G * CF;
  for (Pos base = lo; base < hi; base += G) {
    const int n = hi - base < G ? static_cast<int>(hi - base) : G;
    uint32_t my_slot = 0;
    Scalar my_value = 0;
    if (q < n) {
      my_slot = spmm_slot(ldg(entries + base + q), slots);
      my_value = ldg(values + base + q);
    }
#pragma unroll spmm_shared_unroll(CF)
    for (int u = 0; u < n; ++u) {
      const uint32_t slot = spmm_broadcast<G>(mask, my_slot, u);
      const Scalar v = spmm_broadcast<G>(mask, my_value, u);
      const Scalar* row = lane_tile + slot * SW;
#pragma unroll
      for (int j = 0; j < CF; ++j) part[j] += v * row[j * G];
    }
  }
}

/// C(row, k0 + q + j * G) = beta == 0 ? alpha * part[j] : beta * C(..) + alpha * part[j] for the
/// lane's valid columns, c_lane = &C(row, k0 + q); beta == 0 never reads C.
template <int G, int CF, class Scalar>
__device__ __forceinline__ void spmm_store_row(Scalar* c_lane, int64_t c_col_stride, const SpmmLaneColumns<CF>& cols,
                                               const Scalar (&part)[CF], Scalar alpha, Scalar beta) {
#pragma unroll
  for (int j = 0; j < CF; ++j) {
    if (!cols.valid[j]) continue;
    Scalar* c = c_lane + j * G * c_col_stride;
    *c = beta == Scalar(0) ? alpha * part[j] : beta * *c + alpha * part[j];
  }
}

/// C(row, k0 + q + j * G) += alpha * part[j] atomically for the lane's valid columns (a chunk of
/// a split row; the row was scaled by beta before).
template <int G, int CF, class Scalar>
__device__ __forceinline__ void spmm_add_row(Scalar* c_lane, int64_t c_col_stride, const SpmmLaneColumns<CF>& cols,
                                             const Scalar (&part)[CF], Scalar alpha) {
#pragma unroll
  for (int j = 0; j < CF; ++j)
    if (cols.valid[j]) atomic_add(c_lane + j * G * c_col_stride, alpha * part[j]);
}

/// Stages the heavy tile's columns cols[0 .. ncols) of B, slice columns [0, SW) (b_slice =
/// &B(0, k0)), into the shared tile: B(c, k0 + kk) goes to tile[slot(c) * SW + kk] (slots are
/// unique within a tile, section 4.3.1). Slice columns >= slice_cols (past K) are written as 0,
/// so no lane ever reads uninitialized shared memory. Element e of the flat (column, kk) range
/// goes to thread e % blockDim.x with kk fastest: a warp writes consecutive shared addresses
/// (conflict-free) and, for LayoutRight, reads consecutive scalars of one row of B.
template <int SW, class Scalar, class Ordinal>
__device__ __forceinline__ void spmm_stage_tile(Scalar* tile, const Ordinal* cols, int ncols, const Scalar* b_slice,
                                                int64_t b_row_stride, int64_t b_col_stride, int slice_cols,
                                                const SpmmSlotDivisor& slots) {
  const int count = ncols * SW;
#pragma unroll 1
  for (int e = static_cast<int>(threadIdx.x); e < count; e += static_cast<int>(blockDim.x)) {
    const int kk = e % SW;
    const Ordinal c = ldg(cols + e / SW);
    const Scalar v = kk < slice_cols ? ldg(b_slice + static_cast<int64_t>(c) * b_row_stride + kk * b_col_stride)
                                     : Scalar(0);
    tile[spmm_slot(c, slots) * SW + kk] = v;
  }
}

/// ASpT SpMM (Listings 2 and 3 fused). One block per work item w = blockIdx.x = (panel p,
/// K-slice s) with p = w / num_slices (the slices of one panel are adjacent, so they share A's
/// panel in L2); the launcher starts exactly num_panels * num_slices blocks (no grid-stride
/// loop: its state cost registers the accumulators need). The block's groups split the panel's
/// rows into contiguous runs of rows_per_group <= R rows (a panel longer than num_groups * R
/// takes several passes). Per pass:
///   - for every heavy tile g of the panel: barrier, the block stages the tile's rows of B
///     (slice s) into shared memory, barrier; each group walks its rows' entries of tile g
///     against the staged rows and adds them to the rows' register accumulators acc[i];
///   - barrier, then the heavy sums move into the freed tile buffer (row i of the pass at
///     tile[i * SW]), so that the light phase runs without R * CF live accumulators: each group
///     walks its rows' light entries against B in global memory, starting from its heavy sums,
///     and writes the rows of C (Listing 3, but C is written once per row instead of once per
///     tile, without atomics and without a second kernel).
/// Lane q < rows_per_group of a group carries the entry bounds of the group's row q: the start
/// of its next tile (first row_map[r], then the previous tile's end) and the current tile's end,
/// one coalesced load of tile_row_end per tile, broadcast by shuffles. The accumulator of row i
/// is selected with an unrolled compare (if ii == i), so acc stays in registers and the row
/// loop is not replicated R times.
/// Shared memory: max(W, rows of a pass) * SW scalars. Barriers: the pass and tile loops have
/// block-uniform trip counts, so every thread reaches every __syncthreads.
template <int G, int CF, class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spmm_aspt_max_threads, spmm_aspt_min_blocks_per_sm)
    spmm_aspt_kernel(const SpmmCudaArgs<Scalar, Ordinal, Offset> a) {
  using Pos = SpmmPos<Offset>;
  constexpr int SW = G * CF;
  constexpr int R = spmm_rows_per_group(G, CF, static_cast<int>(sizeof(Scalar)));
  static_assert(G >= 1 && G <= spmm_warp_size && (G & (G - 1)) == 0, "G: a power of two <= 32");
  static_assert(R >= 1 && R <= G, "lane q < R carries row q's bounds");
  Scalar* const tile = SPROCKET_CUDA_DYNAMIC_SHARED(Scalar);  // the launch's shared_bytes
  const int q = static_cast<int>(threadIdx.x % G);
  const int group = static_cast<int>(threadIdx.x / G);
  const int num_groups = static_cast<int>(blockDim.x / G);
  const unsigned mask = spmm_group_mask<G>();
  // Panel-local row numbers are int: the launcher requires P < 2^31.
  const int P = static_cast<int>(a.panel_rows);
  const int64_t panel = spmm_div(blockIdx.x, a.num_slices);
  const int64_t k0 = (blockIdx.x - panel * a.num_slices) * SW;
  const int slice_cols = static_cast<int>(a.K - k0 < SW ? a.K - k0 : SW);
  const Scalar* const b_slice = a.B + k0 * a.b_col_stride;
  const int64_t first_row = panel * P;
  const int panel_len = static_cast<int>(a.num_rows - first_row < P ? a.num_rows - first_row : P);
  const int64_t tile_begin = ldg(a.panel_ptr + panel);
  const int64_t tile_end = ldg(a.panel_ptr + panel + 1);
  const bool has_heavy = tile_end > tile_begin;  // block-uniform
  for (int pass = 0; pass < panel_len; pass += num_groups * R) {
    const int pass_rows = panel_len - pass < num_groups * R ? panel_len - pass : num_groups * R;
    const int rows_per_group = (pass_rows + num_groups - 1) / num_groups;  // <= R
    const int l0 = pass + group * rows_per_group;  // the group's first row, panel-local
    const int left = pass + pass_rows - l0;
    const int my_rows = left <= 0 ? 0 : left < rows_per_group ? left : rows_per_group;
    const bool carries_row = q < my_rows;
    // Lane q < my_rows: panel-local row l0 + q, whose next tile starts at `start`.
    Pos start = carries_row ? static_cast<Pos>(ldg(a.row_map + first_row + l0 + q)) : Pos(0);

    Scalar acc[R][CF];
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
      for (int j = 0; j < CF; ++j) acc[i][j] = Scalar(0);

    for (int64_t t = tile_begin; t < tile_end; ++t) {
      __syncthreads();  // every group is done with the previous tile (or the previous pass's sums)
      const int64_t col_begin = ldg(a.tile_col_ptr + t);
      spmm_stage_tile<SW>(tile, a.tile_cols + col_begin, static_cast<int>(ldg(a.tile_col_ptr + t + 1) - col_begin),
                          b_slice, a.b_row_stride, a.b_col_stride, slice_cols, a.slots);
      __syncthreads();
      const Pos end = carries_row ? static_cast<Pos>(ldg(a.tile_row_end + t * P + l0 + q)) : Pos(0);
      for (int i = 0; i < my_rows; ++i) {
        const Pos lo = spmm_broadcast<G>(mask, start, i);
        const Pos hi = spmm_broadcast<G>(mask, end, i);
        if (lo >= hi) continue;
        Scalar part[CF];
#pragma unroll
        for (int j = 0; j < CF; ++j) part[j] = Scalar(0);
        spmm_row_shared<G, CF>(part, a.entries, a.values, lo, hi, tile + q, a.slots, q, mask);
#pragma unroll
        for (int ii = 0; ii < R; ++ii)
          if (ii == i) {
#pragma unroll
            for (int j = 0; j < CF; ++j) acc[ii][j] += part[j];
          }
      }
      start = end;
    }

    // Heavy sums to the tile buffer. Each lane reads back only what it wrote itself, so the one
    // barrier (the last tile's readers are done) suffices; the next pass stages only after the
    // barrier at the top of its tile loop.
    Scalar* const lane_rows = tile + (l0 - pass) * SW + q;
    if (has_heavy) {
      __syncthreads();
#pragma unroll
      for (int ii = 0; ii < R; ++ii)
        if (ii < my_rows) {
#pragma unroll
          for (int j = 0; j < CF; ++j) lane_rows[ii * SW + j * G] = acc[ii][j];
        }
    }

    const SpmmLaneColumns<CF> cols = spmm_lane_columns<G, CF>(q, slice_cols, a.b_col_stride);
    const Pos row_end = carries_row ? static_cast<Pos>(ldg(a.row_map + first_row + l0 + q + 1)) : Pos(0);
    Scalar* const c_lane = a.C + (first_row + l0) * a.c_row_stride + (k0 + q) * a.c_col_stride;
    for (int i = 0; i < my_rows; ++i) {
      const Pos lo = spmm_broadcast<G>(mask, start, i);
      const Pos hi = spmm_broadcast<G>(mask, row_end, i);
      Scalar part[CF];
#pragma unroll
      for (int j = 0; j < CF; ++j) part[j] = has_heavy ? lane_rows[i * SW + j * G] : Scalar(0);
      spmm_row_global<G, CF>(part, a.entries, a.values, lo, hi, b_slice, a.b_row_stride, cols, q, mask);
      spmm_store_row<G, CF>(c_lane + i * a.c_row_stride, a.c_col_stride, cols, part, a.alpha, a.beta);
    }
  }
}

/// Plain CSR SpMM over row_map / entries / values, tiles ignored: one group per (row, K-slice)
/// work item, grid-stride (slices of one row in adjacent groups, so they share the row's entries
/// in L1); the group walks the row as the ASpT kernel's light part does and writes the row.
/// The chunks of the split rows come first, one work item per (chunk, K-slice), adding into C
/// atomically (the launcher scaled those rows by beta before); the split rows' own items skip.
/// __launch_bounds__(256, 4) caps registers at 64; with the block size alone, ptxas (CUDA 13)
/// squeezed some instantiations into 32 registers and spilled.
template <int G, int CF, class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spmm_csr_block_threads, 4)
    spmm_csr_rows_kernel(const SpmmCudaArgs<Scalar, Ordinal, Offset> a) {
  using Pos = SpmmPos<Offset>;
  constexpr int SW = G * CF;
  constexpr int groups_per_block = spmm_csr_block_threads / G;
  static_assert(G >= 1 && G <= spmm_warp_size && (G & (G - 1)) == 0, "G: a power of two <= 32");
  const int q = static_cast<int>(threadIdx.x % G);
  const unsigned mask = spmm_group_mask<G>();
  const int64_t chunk_work = a.num_chunks * a.num_slices;
  const int64_t work = chunk_work + a.num_rows * a.num_slices;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * groups_per_block;
  // All lanes of a group share w and take the same branches.
  for (int64_t w = static_cast<int64_t>(blockIdx.x) * groups_per_block + threadIdx.x / G; w < work; w += stride) {
    const bool chunk = w < chunk_work;
    const int64_t item = spmm_div(chunk ? w : w - chunk_work, a.num_slices);
    const int64_t k0 = ((chunk ? w : w - chunk_work) - item * a.num_slices) * SW;
    int64_t r, lo, hi;
    if (chunk) {
      r = static_cast<int64_t>(ldg(a.chunk_row + item));
      lo = ldg(a.chunk_begin + item);
      const int64_t row_end = static_cast<int64_t>(ldg(a.row_map + r + 1));
      hi = lo + a.split_entries < row_end ? lo + a.split_entries : row_end;
    } else {
      r = item;
      lo = static_cast<int64_t>(ldg(a.row_map + r));
      hi = static_cast<int64_t>(ldg(a.row_map + r + 1));
      if (a.split_entries > 0 && hi - lo > a.split_entries) continue;  // its chunks
    }
    const int slice_cols = static_cast<int>(a.K - k0 < SW ? a.K - k0 : SW);
    const SpmmLaneColumns<CF> cols = spmm_lane_columns<G, CF>(q, slice_cols, a.b_col_stride);
    Scalar part[CF];
#pragma unroll
    for (int j = 0; j < CF; ++j) part[j] = Scalar(0);
    spmm_row_global<G, CF>(part, a.entries, a.values, static_cast<Pos>(lo), static_cast<Pos>(hi),
                           a.B + k0 * a.b_col_stride, a.b_row_stride, cols, q, mask);
    Scalar* const c_lane = a.C + r * a.c_row_stride + (k0 + q) * a.c_col_stride;
    if (chunk)
      spmm_add_row<G, CF>(c_lane, a.c_col_stride, cols, part, a.alpha);
    else
      spmm_store_row<G, CF>(c_lane, a.c_col_stride, cols, part, a.alpha, a.beta);
  }
}

/// C = beta * C (beta == 0: C = 0 without reading it) over `outer` x `inner` elements, element
/// (o, i) at C[o * outer_stride + i * inner_stride]; the host passes the unit-stride dimension as
/// `inner` so consecutive threads touch consecutive scalars. Used when alpha == 0.
template <class Scalar>
__global__ void __launch_bounds__(spmm_scale_block_threads)
    spmm_scale_kernel(Scalar* C, int64_t outer, int64_t outer_stride, int64_t inner, int64_t inner_stride,
                      Scalar beta) {
  const int64_t total = outer * inner;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t o = spmm_div(e, inner);
    Scalar* c = C + o * outer_stride + (e - o * inner) * inner_stride;
    *c = beta == Scalar(0) ? Scalar(0) : beta * *c;
  }
}

/// Column-major <-> row-major copies of a rows x cols dense block through 32 x 32 tiles of shared
/// memory (one column of padding: the transposed reads hit 32 different banks), so that both the
/// column-major side (consecutive threads, consecutive rows) and the row-major side (consecutive
/// threads, consecutive columns) read and write whole sectors. The column-major side has unit
/// row stride and column stride `ld`; the row-major side has row stride `cols`.
///   to_row_major: rm(i, k) = cm(i, k)
///   from_row_major: cm(i, k) = rm(i, k) + beta * cm(i, k) (beta == 0: cm not read)
/// One 256-thread block per tile, grid-stride over the tiles (block-uniform, so every thread
/// reaches both barriers of a turn).
inline constexpr int spmm_transpose_tile = 32;
template <bool ToRowMajor, class Scalar>
__global__ void __launch_bounds__(spmm_scale_block_threads)
    spmm_transpose_kernel(const Scalar* __restrict__ src, Scalar* __restrict__ dst, int64_t rows, int64_t cols,
                          int64_t ld, Scalar beta) {
  constexpr int T = spmm_transpose_tile, steps = T * T / spmm_scale_block_threads;
  SPROCKET_CUDA_SHARED(Scalar, tile, [T][T + 1]);
  const int64_t row_tiles = (rows + T - 1) / T, col_tiles = (cols + T - 1) / T;
  const int fast = static_cast<int>(threadIdx.x % T), slow = static_cast<int>(threadIdx.x / T);
  for (int64_t t = blockIdx.x; t < row_tiles * col_tiles; t += gridDim.x) {
    const int64_t i0 = spmm_div(t, col_tiles) * T, k0 = (t - spmm_div(t, col_tiles) * col_tiles) * T;
    // Read: the source's unit-stride dimension on the fast lanes.
#pragma unroll
    for (int s = 0; s < steps; ++s) {
      const int slow_s = slow + s * (spmm_scale_block_threads / T);
      // column-major source: fast = row, slow = column; row-major source: fast = column, slow = row
      const int64_t i = ToRowMajor ? i0 + fast : i0 + slow_s, k = ToRowMajor ? k0 + slow_s : k0 + fast;
      if (i < rows && k < cols) {
        const Scalar v = ToRowMajor ? src[i + k * ld] : src[i * cols + k];
        if (ToRowMajor)
          tile[slow_s][fast] = v;  // tile[k][i]
        else
          tile[fast][slow_s] = v;  // tile[k][i]
      }
    }
    __syncthreads();
#pragma unroll
    for (int s = 0; s < steps; ++s) {
      const int slow_s = slow + s * (spmm_scale_block_threads / T);
      // Write: the destination's unit-stride dimension on the fast lanes.
      const int64_t i = ToRowMajor ? i0 + slow_s : i0 + fast, k = ToRowMajor ? k0 + fast : k0 + slow_s;
      if (i < rows && k < cols) {
        const Scalar v = ToRowMajor ? tile[fast][slow_s] : tile[slow_s][fast];
        if (ToRowMajor) {
          dst[i * cols + k] = v;
        } else {
          Scalar* d = dst + i + k * ld;
          *d = beta == Scalar(0) ? v : v + beta * *d;
        }
      }
    }
    __syncthreads();  // the next tile overwrites this one
  }
}

/// C(rows[i], k) = beta * C(rows[i], k) (beta == 0: 0 without reading C) for i < count, k < K:
/// the split rows before their chunks add into them.
template <class Scalar, class Ordinal>
__global__ void __launch_bounds__(spmm_scale_block_threads)
    spmm_scale_rows_kernel(Scalar* C, const Ordinal* __restrict__ rows, int64_t count, int64_t K,
                           int64_t row_stride, int64_t col_stride, Scalar beta) {
  const int64_t total = count * K;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const int64_t i = spmm_div(e, K);
    Scalar* c = C + static_cast<int64_t>(ldg(rows + i)) * row_stride + (e - i * K) * col_stride;
    *c = beta == Scalar(0) ? Scalar(0) : beta * *c;
  }
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
