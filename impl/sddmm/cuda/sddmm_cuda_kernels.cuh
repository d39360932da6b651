#pragma once
// __global__ kernels of the CUDA SDDMM family (papers: preds-sddmm section III, aspt-spmm-sddmm
// section 5); the launcher, the launch shapes and the reasons for them are in
// impl/sddmm/cuda/sddmm_cuda.hpp. Every kernel computes, for the entries k of S it owns,
//   out(k) = beta == 0 ? alpha * w(k) * dot : alpha * w(k) * dot + beta * out(k),
//   dot    = sum over c < K of A(row(k), c) * B(col(k), c),
// w(k) = S's value (scaled form; `values` not null) or 1 (pattern form), and writes every out(k)
// exactly once, from exactly one lane (beta == 0 never reads out).
//
// Dense operands are pointer + (row stride, column stride): A(i, c) at A[i * row_stride + c *
// col_stride], any layout. Positions in S are int64_t.
//
// The same source runs on the CPU in the test-only emulation (SPROCKET_CUDA_EMULATION,
// unit_tests/sddmm/test_sddmm_cuda_emulated.cpp); there a 16-byte vector load from an address the
// launcher wrongly took for aligned throws (on a GPU it would fault), so the tests check the
// launcher's alignment decisions too.
#include <Kokkos_Core.hpp>

#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(SPROCKET_CUDA_EMULATION)
#include <stdexcept>
#endif

// spmm_slot / SpmmSlotDivisor and spmm_stage_tile: aspt stages heavy tiles exactly as the SpMM
// kernel does, because both read the same layout (its slots are conflict-free for c % W).
#include "impl/spmm/cuda/spmm_cuda_kernels.cuh"

namespace Sprocket {
namespace Impl {
namespace cuda {

inline constexpr int sddmm_warp_size = 32;
inline constexpr unsigned sddmm_full_mask = 0xffffffffu;
/// Nonzeros a lane group works on at once (the paper's vec_size): four dot products in flight per
/// lane, and the reason tile_nonzeros is a multiple of 4 (a tile is whole quads, so only the
/// matrix's last quad can be partial).
inline constexpr int sddmm_quad = 4;
inline constexpr int sddmm_vector_bytes = 16;
/// Scalars of A or B one 16-byte vector load brings (4 float, 2 double).
template <class Scalar>
inline constexpr int sddmm_vector_width = sddmm_vector_bytes / static_cast<int>(sizeof(Scalar));

/// nonzero_tiles blocks: at most 8 warps (the launcher picks 4 to 8). __launch_bounds__(256, 4)
/// caps registers at 64, so at least half of an sm_80/sm_90 SM's warps stay resident for this
/// memory-bound kernel (with the block size alone ptxas, CUDA 13, gave the sm_90 float WMT
/// kernel 78 registers); no instantiation spills at the cap.
inline constexpr int sddmm_tiles_max_threads = 256;
inline constexpr int sddmm_tiles_min_blocks_per_sm = 4;
/// aspt blocks: a warp per panel row, at most 16 warps (as the SpMM ASpT kernel); the K-slice a
/// warp's lanes cover is 32 columns, one per lane. __launch_bounds__(512, 2) as for SpMM: with
/// the block size alone ptxas (CUDA 13, sm_80) squeezed the double kernel into 40 registers and
/// spilled; with the 64-register cap it needs none.
inline constexpr int sddmm_aspt_max_warps = 16;
inline constexpr int sddmm_aspt_max_threads = sddmm_aspt_max_warps * sddmm_warp_size;
inline constexpr int sddmm_aspt_min_blocks_per_sm = 2;
inline constexpr int sddmm_aspt_slice = sddmm_warp_size;

/// A dense operand. `vector`: column stride 1 and the data and every row start 16-byte aligned,
/// so V consecutive columns starting at a multiple of V load as one vector.
template <class Scalar>
struct SddmmDense {
  const Scalar* data;
  int64_t row_stride, col_stride;
  bool vector;
};

/// Raw pointers and sizes of one nonzero_tiles launch.
template <class Scalar, class Ordinal, class Offset>
struct SddmmTilesArgs {
  const Offset* row_map;          // CSR, else nullptr
  const Ordinal* row_indices;     // COO, else nullptr
  const Ordinal* entries;         // S's columns (nnz)
  const Scalar* values;           // S's values (scaled form), nullptr for the pattern form
  const Ordinal* tile_first_row;  // CSR: num_tiles + 1 (SddmmAnalysis)
  int64_t num_rows, nnz, tile_nonzeros;
  int64_t block_nonzeros;  // a block range: tiles_per_block whole tiles
  int64_t num_ranges;      // ceil(nnz / block_nonzeros)
  int64_t num_slices;      // K-slices of L * V columns a lane group walks (1 unless L == 32)
  bool quad_indices;       // entries (and row_indices) 16-byte aligned, 4- or 8-byte ordinals
  int64_t K;
  SddmmDense<Scalar> A, B;
  Scalar alpha, beta;
  Scalar* out;
};

/// Raw pointers and sizes of one aspt launch (the layout is impl/spmm/spmm_analysis.hpp's).
template <class Scalar, class Ordinal, class Offset>
struct SddmmAsptArgs {
  const Offset* row_map;      // S's (the layout keeps every row's entries in place)
  const Ordinal* entries;     // columns in the layout's order
  const Offset* permutation;  // layout position -> S's entry
  const Scalar* values;       // S's values in S's order (scaled form), nullptr for pattern
  const int64_t* panel_ptr;
  const int64_t* tile_row_end;
  const int64_t* tile_col_ptr;
  const Ordinal* tile_cols;
  int64_t num_rows, panel_rows, num_panels;
  SpmmSlotDivisor slots;  // W = tile_cols_max
  int64_t K, num_slices;  // slices of sddmm_aspt_slice columns
  SddmmDense<Scalar> A, B;
  Scalar alpha, beta;
  Scalar* out;
  Scalar* partial;  // layout order, nnz; read and written only when num_slices > 1
};

// ------------------------------------------------------------------------------------------------
// Loads

#if defined(KOKKOS_ENABLE_CUDA)
using SddmmChunk = uint4;
#else
struct alignas(16) SddmmChunk {
  uint32_t x, y, z, w;
};
#endif

/// 16 bytes from a 16-byte aligned address in one load instruction (through the read-only path).
__device__ __forceinline__ SddmmChunk sddmm_load_chunk(const void* p) {
#if defined(KOKKOS_ENABLE_CUDA)
  return __ldg(static_cast<const uint4*>(p));
#else
  if (reinterpret_cast<uintptr_t>(p) % sddmm_vector_bytes != 0)
    throw std::logic_error("Sprocket::sddmm (CUDA): 16-byte vector load from a misaligned address");
  SddmmChunk c;
  memcpy(&c, p, sizeof c);
  return c;
#endif
}

/// V consecutive scalars from a 16-byte aligned address.
template <class Scalar>
__device__ __forceinline__ void sddmm_load_vector(Scalar (&x)[sddmm_vector_width<Scalar>], const Scalar* p) {
  const SddmmChunk c = sddmm_load_chunk(p);
  memcpy(x, &c, sizeof c);
}

/// Four consecutive indices from a 16-byte aligned address: one vector for 4-byte ordinals, two
/// for 8-byte ones (the launcher never sets quad_indices for other sizes).
template <class T>
__device__ __forceinline__ void sddmm_load_quad(T (&dst)[sddmm_quad], const T* p) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    constexpr int per_chunk = sddmm_vector_bytes / static_cast<int>(sizeof(T));
#pragma unroll
    for (int c = 0; c < sddmm_quad / per_chunk; ++c) {
      const SddmmChunk v = sddmm_load_chunk(p + c * per_chunk);
      memcpy(dst + c * per_chunk, &v, sizeof v);
    }
  } else {
#pragma unroll
    for (int e = 0; e < sddmm_quad; ++e) dst[e] = ldg(p + e);
  }
}

/// Columns [c0, c0 + V) of row `row` of a dense operand into x: one vector load when the operand
/// allows it and the chunk lies inside K; otherwise (strided, misaligned, or the chunk that
/// crosses K: the K residue) scalar loads of the columns < K, zeros past K.
template <class Scalar>
__device__ __forceinline__ void sddmm_load_columns(Scalar (&x)[sddmm_vector_width<Scalar>],
                                                   const SddmmDense<Scalar>& d, int64_t row, int64_t c0, int64_t K) {
  constexpr int V = sddmm_vector_width<Scalar>;
  const Scalar* p = d.data + row * d.row_stride;
  if (d.vector && c0 + V <= K) {
    sddmm_load_vector(x, p + c0);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) x[v] = c0 + v < K ? ldg(p + (c0 + v) * d.col_stride) : Scalar(0);
  }
}

// ------------------------------------------------------------------------------------------------
// The interleaved reduction of four dot products per lane group

/// Reduces v[0..4) over the L lanes of every group of the warp (all 32 lanes call, groups are L
/// consecutive lanes, q the lane within its group): step by step with butterfly shuffles of
/// offsets L/2, L/4, .., 1. While a lane still holds several sums, each step halves them: the
/// lane keeps the half its bit of the offset selects and sends the other half to its partner,
/// which keeps the opposite half, so both add what they keep and receive. Four sums cost
/// 2 + 1 shuffles in the first two steps instead of 4 + 4, and each later step moves one
/// value; every shuffle serves all 32 / L groups of the warp at once (the paper's integrated
/// interleaving: several dot products share one shuffle tree). Afterwards lane q holds in
/// v[0 .. sddmm_sums_per_lane<L>) the group's totals of entries sddmm_first_sum<L>(q) + i.
template <int Step, int Held, class Scalar>
__device__ __forceinline__ void sddmm_reduce_step(Scalar (&v)[sddmm_quad], int q) {
  if constexpr (Step >= 1) {
    const bool upper = (q & Step) != 0;
    if constexpr (Held > 1) {
      constexpr int H = Held / 2;
#pragma unroll
      for (int i = 0; i < H; ++i) {
        const Scalar send = upper ? v[i] : v[i + H];
        const Scalar keep = upper ? v[i + H] : v[i];
        v[i] = keep + __shfl_xor_sync(sddmm_full_mask, send, Step);
      }
      sddmm_reduce_step<Step / 2, H>(v, q);
    } else {
      v[0] += __shfl_xor_sync(sddmm_full_mask, v[0], Step);
      sddmm_reduce_step<Step / 2, 1>(v, q);
    }
  }
}

template <int L, class Scalar>
__device__ __forceinline__ void sddmm_reduce_quad(Scalar (&v)[sddmm_quad], int q) {
  static_assert(L >= 1 && L <= sddmm_warp_size && (L & (L - 1)) == 0, "L: a power of two <= 32");
  sddmm_reduce_step<L / 2, sddmm_quad>(v, q);
}

/// Totals a lane holds after sddmm_reduce_quad<L>: 4 (L = 1), 2 (L = 2), else 1.
template <int L>
inline constexpr int sddmm_sums_per_lane = L >= sddmm_quad ? 1 : sddmm_quad / L;

/// The first entry of the quad whose total lane q holds: the halving steps (offsets L/2 and L/4)
/// each sent the lanes whose bit is set to the upper half.
template <int L>
__device__ __forceinline__ int sddmm_first_sum(int q) {
  if constexpr (L == 1) {
    return 0;
  } else if constexpr (L == 2) {
    return (q & 1) ? 2 : 0;
  } else {
    return ((q & (L / 2)) ? 2 : 0) + ((q & (L / 4)) ? 1 : 0);
  }
}

/// Whether lane q stores its totals: after the halving steps the remaining (plain butterfly)
/// steps leave the same total in L / 4 lanes; the one whose low bits are zero stores it.
template <int L>
__device__ __forceinline__ bool sddmm_stores_sums(int q) {
  if constexpr (L <= sddmm_quad) {
    (void)q;
    return true;
  } else {
    return (q & (L / sddmm_quad - 1)) == 0;
  }
}

/// out(dst) = alpha * w * dot (+ beta * out(dst) unless beta == 0), w = values[dst] or 1.
template <class Scalar>
__device__ __forceinline__ void sddmm_store(Scalar* out, const Scalar* values, int64_t dst, Scalar alpha,
                                            Scalar beta, Scalar dot) {
  const Scalar w = values ? alpha * ldg(values + dst) : alpha;
  out[dst] = beta == Scalar(0) ? w * dot : w * dot + beta * out[dst];
}

// ------------------------------------------------------------------------------------------------
// nonzero_tiles (PRedS)

/// The row holding entry k among rows [lo, hi] of a CSR row map (the largest r in [lo, hi] with
/// row_map[r] <= k; the caller guarantees the row is in the range).
template <class Offset>
__device__ __forceinline__ int64_t sddmm_find_row(const Offset* row_map, int64_t k, int64_t lo, int64_t hi) {
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (static_cast<int64_t>(ldg(row_map + mid)) <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// Rows and columns of the quad's n (1..4) entries from `base`. VCT: a full quad whose index
/// arrays are 16-byte aligned loads its columns (and COO rows) as one vector each; the residue
/// handler (the matrix's last quad when nnz is not a multiple of 4, or index arrays that are not
/// aligned) loads the n entries one by one and leaves the others alone. CSR rows come from the
/// tile's first row (analysis): a binary search over the tile's rows for the first entry, then
/// each next entry stays in that row unless the row ends before it (a search from the next row
/// then, so a run of empty rows costs a logarithm, not a walk).
template <class Scalar, class Ordinal, class Offset>
__device__ __forceinline__ void sddmm_quad_coordinates(const SddmmTilesArgs<Scalar, Ordinal, Offset>& a, int64_t base,
                                                       int n, int64_t (&row)[sddmm_quad],
                                                       Ordinal (&col)[sddmm_quad]) {
  const bool coo = a.row_indices != nullptr;
  Ordinal coo_row[sddmm_quad] = {};
  if (n == sddmm_quad && a.quad_indices) {
    sddmm_load_quad(col, a.entries + base);
    if (coo) sddmm_load_quad(coo_row, a.row_indices + base);
  } else {
#pragma unroll
    for (int e = 0; e < sddmm_quad; ++e) {
      col[e] = e < n ? ldg(a.entries + base + e) : Ordinal(0);
      if (coo) coo_row[e] = e < n ? ldg(a.row_indices + base + e) : Ordinal(0);
    }
  }
  if (coo) {
#pragma unroll
    for (int e = 0; e < sddmm_quad; ++e) row[e] = static_cast<int64_t>(coo_row[e]);
    return;
  }
  const int64_t t = spmm_div(base, a.tile_nonzeros);
  const int64_t next_first = static_cast<int64_t>(ldg(a.tile_first_row + t + 1));
  const int64_t hi = next_first < a.num_rows - 1 ? next_first : a.num_rows - 1;
  row[0] = sddmm_find_row(a.row_map, base, static_cast<int64_t>(ldg(a.tile_first_row + t)), hi);
#pragma unroll
  for (int e = 1; e < sddmm_quad; ++e) {
    const int64_t prev = row[e - 1];
    if (e >= n || static_cast<int64_t>(ldg(a.row_map + prev + 1)) > base + e) row[e] = prev;
    else row[e] = sddmm_find_row(a.row_map, base + e, prev + 1, hi);
  }
}

/// PRedS SDDMM over tiles of consecutive nonzeros in S's order (VCT + IIR for L < 32, VCT + WMT
/// for L = 32). Lane groups of L lanes (power of two); every group takes a quad of 4
/// consecutive entries at a time, lane q of the group the columns [s * L * V + q * V, + V) of K-slice
/// s (V = 16 bytes of scalars: one vector load of A's row and one of B's row per entry). IIR
/// (K <= 32): one slice covers K, the 32 / L groups of a warp reduce their quads together.
/// WMT (K > 32): the group is the warp; it walks the num_slices slices accumulating its four
/// sums in registers and reduces once at the end: no shared memory, no atomics, no second warp.
/// A's chunk is loaded again only when a quad's row changes (in CSR the four entries usually
/// share it).
///
/// Blocks walk ranges of block_nonzeros entries (whole tiles: tile t starts at t * Ts) grid-
/// stride; inside a range the block's groups take consecutive quads, round after round (a tile
/// of more quads than the block has groups takes several rounds). Every loop that contains a
/// shuffle has a trip count that is uniform over the block: groups without a quad in a round
/// (past the range end) still take part in the shuffles with zeros.
template <int L, class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(sddmm_tiles_max_threads, sddmm_tiles_min_blocks_per_sm)
    sddmm_tiles_kernel(const SddmmTilesArgs<Scalar, Ordinal, Offset> a) {
  constexpr int V = sddmm_vector_width<Scalar>;
  constexpr int64_t slice_cols = int64_t{L} * V;
  const int q = static_cast<int>(threadIdx.x % L);
  const int group = static_cast<int>(threadIdx.x / L);
  const int64_t round_nonzeros = int64_t{sddmm_quad} * (blockDim.x / L);
  const int64_t num_slices = L == sddmm_warp_size ? a.num_slices : 1;
  for (int64_t range = blockIdx.x; range < a.num_ranges; range += gridDim.x) {
    const int64_t begin = range * a.block_nonzeros;
    const int64_t end = begin + a.block_nonzeros < a.nnz ? begin + a.block_nonzeros : a.nnz;
    for (int64_t round = begin; round < end; round += round_nonzeros) {
      const int64_t base = round + int64_t{sddmm_quad} * group;
      const int n = base >= end ? 0 : end - base < sddmm_quad ? static_cast<int>(end - base) : sddmm_quad;
      int64_t row[sddmm_quad] = {};
      Ordinal col[sddmm_quad] = {};
      if (n > 0) sddmm_quad_coordinates(a, base, n, row, col);

      Scalar sum[sddmm_quad] = {};
      for (int64_t s = 0; s < num_slices; ++s) {
        const int64_t c0 = s * slice_cols + int64_t{q} * V;
        if (c0 >= a.K) break;  // this lane's columns of later slices are past K as well
        Scalar x[V] = {}, y[V] = {};
#pragma unroll
        for (int e = 0; e < sddmm_quad; ++e) {
          if (e >= n) break;
          if (e == 0 || row[e] != row[e - 1]) sddmm_load_columns(x, a.A, row[e], c0, a.K);
          sddmm_load_columns(y, a.B, static_cast<int64_t>(col[e]), c0, a.K);
#pragma unroll
          for (int v = 0; v < V; ++v) sum[e] += x[v] * y[v];
        }
      }

      sddmm_reduce_quad<L>(sum, q);
      if (sddmm_stores_sums<L>(q)) {
        const int first = sddmm_first_sum<L>(q);
#pragma unroll
        for (int i = 0; i < sddmm_sums_per_lane<L>; ++i)
          if (first + i < n) sddmm_store(a.out, a.values, base + first + i, a.alpha, a.beta, sum[i]);
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// aspt (ASpT SDDMM, Listings 5 and 6)

/// Adds the K-slice's dot product of layout entry k to its partial sum, or finishes it into
/// out(permutation[k]) in the last slice (one slice: straight to out, the workspace untouched).
/// Entry k is always handled by the same lane of the same warp of one block, slice after slice,
/// so the read-modify-write needs no synchronization.
template <class Scalar, class Ordinal, class Offset>
__device__ __forceinline__ void sddmm_aspt_accumulate(const SddmmAsptArgs<Scalar, Ordinal, Offset>& a, int64_t k,
                                                      int64_t slice, Scalar dot) {
  if (a.num_slices > 1) {
    if (slice == 0) {
      a.partial[k] = dot;
      return;
    }
    if (slice + 1 < a.num_slices) {
      a.partial[k] += dot;
      return;
    }
    dot += a.partial[k];
  }
  sddmm_store(a.out, a.values, static_cast<int64_t>(ldg(a.permutation + k)), a.alpha, a.beta, dot);
}

/// The layout entries [lo, hi) of one row, K-slice `slice`, by the whole warp: lane `lane` holds
/// x = A(row, k0 + lane) (0 past K) and multiplies it by B(col, k0 + lane), read from the staged
/// tile (Heavy: slot spmm_slot(col) of `lane_tile` = tile + lane) or from global memory
/// (b_lane = &B(0, k0 + lane), only when the lane's column exists). Four entries at a time (four
/// loads in flight), reduced together by sddmm_reduce_quad<32> (6 shuffles for four dot products
/// where Listing 5's tree per entry takes 20); the lane holding a total hands it on.
template <bool Heavy, class Scalar, class Ordinal, class Offset>
__device__ __forceinline__ void sddmm_aspt_row(const SddmmAsptArgs<Scalar, Ordinal, Offset>& a, int64_t lo, int64_t hi,
                                               int64_t slice, Scalar x, const Scalar* lane_tile, const Scalar* b_lane,
                                               bool valid, int lane) {
  for (int64_t base = lo; base < hi; base += sddmm_quad) {
    const int n = hi - base < sddmm_quad ? static_cast<int>(hi - base) : sddmm_quad;
    Scalar p[sddmm_quad];
#pragma unroll
    for (int e = 0; e < sddmm_quad; ++e) {
      p[e] = Scalar(0);
      if (e < n) {
        const Ordinal c = ldg(a.entries + base + e);
        if constexpr (Heavy) p[e] = x * lane_tile[spmm_slot(c, a.slots) * sddmm_aspt_slice];
        else if (valid) p[e] = x * ldg(b_lane + static_cast<int64_t>(c) * a.B.row_stride);
      }
    }
    sddmm_reduce_quad<sddmm_warp_size>(p, lane);
    if (sddmm_stores_sums<sddmm_warp_size>(lane)) {
      const int e = sddmm_first_sum<sddmm_warp_size>(lane);
      if (e < n) sddmm_aspt_accumulate(a, base + e, slice, p[0]);
    }
  }
}

/// ASpT SDDMM (section 5: Listings 2 and 3 with Listings 5 and 6 in their boxes). One block per
/// row panel at a time (grid-stride over panels), a warp per panel row (rows l = warp, warp +
/// warps, ..), lanes along a 32-column K-slice; the block walks the slices in turn. Per slice:
///   - for every heavy tile of the panel: barrier, the block stages the tile's rows of B (this
///     slice, zeros past K) into shared slot c % W, barrier; each warp walks its rows' entries
///     of the tile against the staged rows;
///   - then each warp walks its rows' light entries against B in global memory.
/// Partial sums of an entry over the slices go through the workspace (layout order); the last
/// slice writes out(permutation[k]). Barriers: panel, slice and tile loops have block-uniform
/// trip counts, so every thread reaches every __syncthreads; the barrier that opens a tile also
/// keeps a slow warp's reads of the previous tile (or of the previous slice's last tile) from
/// being overwritten.
template <class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(sddmm_aspt_max_threads, sddmm_aspt_min_blocks_per_sm)
    sddmm_aspt_kernel(const SddmmAsptArgs<Scalar, Ordinal, Offset> a) {
  Scalar* const tile = SPROCKET_CUDA_DYNAMIC_SHARED(Scalar);  // W slots x 32 columns (0 bytes without tiles)
  const int lane = static_cast<int>(threadIdx.x % sddmm_warp_size);
  const int warp = static_cast<int>(threadIdx.x / sddmm_warp_size);
  const int warps = static_cast<int>(blockDim.x / sddmm_warp_size);
  const int64_t P = a.panel_rows;
  for (int64_t panel = blockIdx.x; panel < a.num_panels; panel += gridDim.x) {
    const int64_t r0 = panel * P;
    const int64_t len = a.num_rows - r0 < P ? a.num_rows - r0 : P;
    const int64_t t0 = ldg(a.panel_ptr + panel), t1 = ldg(a.panel_ptr + panel + 1);
    for (int64_t s = 0; s < a.num_slices; ++s) {
      const int64_t k0 = s * sddmm_aspt_slice;
      const int slice_cols = a.K - k0 < sddmm_aspt_slice ? static_cast<int>(a.K - k0) : sddmm_aspt_slice;
      const bool valid = lane < slice_cols;
      const Scalar* const b_lane = valid ? a.B.data + (k0 + lane) * a.B.col_stride : a.B.data;
      const Scalar* const a_lane = valid ? a.A.data + (k0 + lane) * a.A.col_stride : a.A.data;

      for (int64_t t = t0; t < t1; ++t) {
        __syncthreads();
        const int64_t c_begin = ldg(a.tile_col_ptr + t);
        spmm_stage_tile<sddmm_aspt_slice>(tile, a.tile_cols + c_begin,
                                          static_cast<int>(ldg(a.tile_col_ptr + t + 1) - c_begin),
                                          a.B.data + k0 * a.B.col_stride, a.B.row_stride, a.B.col_stride,
                                          slice_cols, a.slots);
        __syncthreads();
        for (int64_t l = warp; l < len; l += warps) {
          const int64_t lo = t == t0 ? static_cast<int64_t>(ldg(a.row_map + r0 + l)) : ldg(a.tile_row_end + (t - 1) * P + l);
          const int64_t hi = ldg(a.tile_row_end + t * P + l);
          if (lo >= hi) continue;  // warp-uniform
          const Scalar x = valid ? ldg(a_lane + (r0 + l) * a.A.row_stride) : Scalar(0);
          sddmm_aspt_row<true>(a, lo, hi, s, x, tile + lane, b_lane, valid, lane);
        }
      }

      for (int64_t l = warp; l < len; l += warps) {
        const int64_t lo =
            t1 > t0 ? ldg(a.tile_row_end + (t1 - 1) * P + l) : static_cast<int64_t>(ldg(a.row_map + r0 + l));
        const int64_t hi = static_cast<int64_t>(ldg(a.row_map + r0 + l + 1));
        if (lo >= hi) continue;
        const Scalar x = valid ? ldg(a_lane + (r0 + l) * a.A.row_stride) : Scalar(0);
        sddmm_aspt_row<false>(a, lo, hi, s, x, tile + lane, b_lane, valid, lane);
      }
    }
  }
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
