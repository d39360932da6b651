#pragma once
// Host (OpenMP / Serial) SpMM kernels, Backend::native on a host space: C = alpha * A * B + beta * C
// over the analysis's reordered CSR (entry point spmm_apply at the end).
//
// Both kernels keep the output row in registers: K is cut into chunks of W scalars, W a
// compile-time constant of 8 SIMD registers (16 doubles / 32 floats with SSE2, twice that with
// AVX2), remainders in halving widths down to 1; a row's chunk is accumulated over the row's
// entries in W / lanes vector accumulators (independent add chains) and written once. No atomics:
// the analysis cuts the rows (csr_rows) or row panels (aspt) into contiguous parts balanced by
// entries, several per thread, and each part is one thread's (taken dynamically).
//
//  - csr_rows: row by row (the paper's CSR algorithm). B's rows come from wherever the row's
//    columns lead; the row of entry k + 8 is prefetched while entry k is multiplied, in this row
//    or a later one, so scattered rows (power-law graphs) and short rows (stencils) overlap their
//    memory latency instead of waiting for it one by one.
//    With beta == 0 and C larger than the caches, C's rows are written with non-temporal stores:
//    a normal store first reads the line it overwrites, a third more memory traffic for a
//    bandwidth-bound product.
//  - aspt (paper section 4.2, Listing 1): panel by panel; inside a panel heavy tile by heavy tile
//    and then the light entries, each pass running over all rows of the panel, so the rows of B a
//    heavy tile touches are read from memory once and then served from cache for every other row
//    of the panel. The first pass over a row initializes C's chunk (beta * C + alpha * partial, or
//    alpha * partial when beta == 0), later passes add to it; C's panel block stays in cache
//    between passes. K is also cut into cache chunks so the widest tile's rows of B plus the
//    panel's rows of C fit spmm_host_cache_bytes whatever K is.
//
// Instruction sets: the kernels are compiled for the flags of the translation unit and, on x86-64
// with GCC or Clang when those flags lack AVX2, a second time for AVX2 + FMA (function target
// attributes), picked at run time when the CPU has them: a library compiled for the x86-64
// baseline (SSE2, no FMA) still multiplies with 256-bit FMAs where it can.
//
// B and C are read through raw pointers and strides. B with unit stride along K (LayoutRight) is
// read in place with vector loads. Column-major B and C under csr_rows, on a matrix whose rows
// slide one column per row (SpmmAnalysis::column_groups), run column groups in place
// (spmm_column_major), runs of sliding rows a SIMD register of rows at a time. Otherwise
// LayoutLeft B with 4 or more columns is first copied into a row-major workspace of the analysis
// (gathering K scalars from K columns, K cache lines, per entry costs far more than the copy).
// Column-major C (LayoutLeft) receives its results a cache line of rows at a time: csr_rows goes
// through a row-major buffer of a few rows on the stack, aspt accumulates each panel in a
// per-thread scratch of the analysis.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "impl/spmm/spmm_analysis.hpp"
#include "impl/utils/host_isa.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define SPROCKET_SPMM_INLINE inline __attribute__((always_inline))
#define SPROCKET_SPMM_LAMBDA_INLINE __attribute__((always_inline))
#else
#define SPROCKET_SPMM_INLINE inline
#define SPROCKET_SPMM_LAMBDA_INLINE
#endif

namespace Sprocket {
namespace Impl {
namespace host {

/// Bytes of one SIMD register for the flags this translation unit is compiled with.
inline constexpr int spmm_vector_bytes =
#if defined(__AVX512F__)
    64;
#elif defined(__AVX__)
    32;
#else
    16;
#endif

/// Cache budget of one aspt pass: the widest heavy tile's rows of B plus the panel's rows of C,
/// for one cache chunk of K. Half of the 1 MiB per-core L2 of the CI machine's EPYC (and of most
/// current x86 server cores); the other half is left to the light entries' stream of A and B.
inline constexpr int64_t spmm_host_cache_bytes = int64_t{512} * 1024;

/// C is written with non-temporal stores (beta == 0, single pass) when larger than this: well
/// above the last-level cache of a current CPU, so the stores would evict C before anyone reads
/// it back anyway. Below it, C is more useful left in cache for the caller.
inline constexpr int64_t spmm_host_streaming_bytes = int64_t{64} * 1024 * 1024;

/// Entries ahead whose row of B is prefetched: enough loads in flight to cover a memory access
/// (about 100 ns) at a few ns per entry.
inline constexpr int spmm_prefetch_distance = 8;


/// Layout tags: element (i, j) of a dense matrix at p[i * s0 + j * s1], s1 a compile-time 1 for
/// row_major.
enum class DenseKind { row_major, strided };

template <class Scalar, DenseKind Kind>
struct DenseRef {
  static constexpr DenseKind kind = Kind;
  Scalar* p;
  int64_t s0, s1;
  /// Address of element (i, j).
  SPROCKET_SPMM_INLINE Scalar* at(int64_t i, int64_t j) const {
    if constexpr (Kind == DenseKind::row_major) return p + i * s0 + j;
    else return p + i * s0 + j * s1;
  }
  /// Distance between (i, j) and (i, j + 1): a compile-time 1 for row-major.
  SPROCKET_SPMM_INLINE int64_t col_step() const {
    if constexpr (Kind == DenseKind::row_major) return 1;
    else return s1;
  }
};

/// One SIMD register of VB bytes of Scalar: a GCC/Clang vector-extension type (GCC's
/// auto-vectorizer keeps a small chunk loop in vector registers but gives up inside the aspt loop
/// nest, so the vectors are spelled out), or Scalar itself where the extension is unavailable.
template <int VB, class Scalar>
struct HostSimd {
#if defined(__GNUC__) && !defined(__CUDACC__)
  static constexpr int lanes = VB / static_cast<int>(sizeof(Scalar));
  typedef Scalar type __attribute__((vector_size(VB)));
#else
  static constexpr int lanes = 1;
  using type = Scalar;
#endif
};

/// How a pass writes its chunk: the first pass over a row initializes C (stream: with
/// non-temporal stores), later passes add.
enum class Store { init_beta_zero, init, add, stream };

/// Everything a kernel reads, as raw pointers (one struct so the per-ISA entry points stay short).
template <class Scalar, class Ordinal, class Offset, class BRef, class CRef>
struct HostSpmmArgs {
  const Offset* row_map;
  const Ordinal* entries;
  const Scalar* values;
  BRef B;
  CRef C;
  Scalar alpha, beta;
  int64_t K;
  Store first_store;     ///< how the first (or only) pass over a row stores
  int64_t c_col_offset;  ///< column k of the product is column k - c_col_offset of C (buffers)
  int64_t prefetch_end;  ///< entries before it may have their row of B prefetched from an earlier row
  // aspt only
  const int64_t* panel_ptr;
  const int64_t* tile_row_end;
  int64_t num_rows, panel_rows, k_chunk;
};

/// out (lanes elements starting at p, step apart) = the vector.
template <class V, class Scalar, bool Contiguous>
SPROCKET_SPMM_INLINE void simd_load(V& out, const Scalar* p, int64_t step) {
  if constexpr (std::is_same_v<V, Scalar>) {
    out = p[0];
  } else if constexpr (Contiguous) {
    std::memcpy(&out, p, sizeof(V));
  } else {
    for (int l = 0; l < static_cast<int>(sizeof(V) / sizeof(Scalar)); ++l) out[l] = p[l * step];
  }
}

template <class V, class Scalar, bool Contiguous>
SPROCKET_SPMM_INLINE void simd_store(Scalar* p, int64_t step, const V& v) {
  if constexpr (std::is_same_v<V, Scalar>) {
    p[0] = v;
  } else if constexpr (Contiguous) {
    std::memcpy(p, &v, sizeof(V));
  } else {
    for (int l = 0; l < static_cast<int>(sizeof(V) / sizeof(Scalar)); ++l) p[l * step] = v[l];
  }
}

/// A non-temporal store of a contiguous vector where p is aligned for it (SSE2 16-byte streaming
/// stores, baseline on x86-64, so they inline into every instruction-set variant); a plain store
/// elsewhere.
template <class V, class Scalar>
SPROCKET_SPMM_INLINE void stream_store(Scalar* p, const V& v) {
#if defined(__SSE2__) && defined(__GNUC__) && !defined(__CUDACC__)
  if constexpr (!std::is_same_v<V, Scalar> && sizeof(V) % 16 == 0) {
    if (reinterpret_cast<uintptr_t>(p) % 16 == 0) {
      for (size_t h = 0; h < sizeof(V) / 16; ++h) {
        Scalar part[16 / sizeof(Scalar)];
        std::memcpy(part, reinterpret_cast<const char*>(&v) + 16 * h, 16);
        if constexpr (std::is_same_v<Scalar, double>)
          _mm_stream_pd(reinterpret_cast<double*>(p) + 2 * h, _mm_loadu_pd(part));
        else
          _mm_stream_ps(reinterpret_cast<float*>(p) + 4 * h, _mm_loadu_ps(part));
      }
      return;
    }
  }
#endif
  std::memcpy(p, &v, sizeof(V));
}

/// C(row, k0 .. k0 + W) = [beta * C +] alpha * sum over entries k in [begin, end) of
/// values[k] * B(entries[k], k0 .. k0 + W), the W sums held in registers. W is a multiple of the
/// SIMD lanes (vector accumulators) or narrower than one register (scalar accumulators).
template <int VB, int W, class Args>
SPROCKET_SPMM_INLINE void row_chunk(const Args& a, int64_t row, int64_t begin, int64_t end, int64_t k0, Store how) {
  using Scalar = std::remove_const_t<std::remove_reference_t<decltype(*a.values)>>;
  using BRef = decltype(a.B);
  constexpr int lanes = HostSimd<VB, Scalar>::lanes;
  constexpr bool vector = lanes > 1 && W % lanes == 0;
  constexpr int N = vector ? W / lanes : W;  // accumulators
  constexpr bool b_contiguous = BRef::kind == DenseKind::row_major;
  constexpr int lines = (W * static_cast<int>(sizeof(Scalar)) + 63) / 64;
  using Acc = std::conditional_t<vector, typename HostSimd<VB, Scalar>::type, Scalar>;
  // Narrow chunks (small K) would leave one or two add chains, each waiting on its previous
  // add: S interleaved sets of accumulators (entry k feeds set k % S) keep 4 chains in flight.
  constexpr int S = N >= 4 ? 1 : 4 / N;
  // Prefetching pays where a row of the chunk is a sizable read (a cache line or half of one);
  // for a few scalars per entry the extra instructions cost more than the latency they hide.
  constexpr bool prefetch = b_contiguous && W * sizeof(Scalar) >= 32;
  const auto* __restrict entries = a.entries;
  const Scalar* __restrict values = a.values;
  const int64_t b_step = a.B.col_step(), c_step = a.C.col_step();
  // Entries before it have their row of B prefetched: this row's, or later rows' too (csr_rows).
  const int64_t prefetch_limit = std::max(end, a.prefetch_end);
  Acc sets[S][N];
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 64
#endif
  for (int i = 0; i < S * N; ++i) sets[i / N][i % N] = Acc{} + Scalar(0);
  const auto add_entry = [&](Acc(&acc)[N], int64_t k) SPROCKET_SPMM_LAMBDA_INLINE {
#if defined(__GNUC__) || defined(__clang__)
    if constexpr (prefetch) {
      if (k + spmm_prefetch_distance < prefetch_limit) {
        const Scalar* ahead = a.B.at(entries[k + spmm_prefetch_distance], k0);
        for (int l = 0; l < lines; ++l) __builtin_prefetch(ahead + l * (64 / sizeof(Scalar)));
      }
    }
#endif
    const Scalar v = values[k];
    const Scalar* b = a.B.at(entries[k], k0);
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 64
#endif
    for (int i = 0; i < N; ++i) {
      Acc x;
      if constexpr (vector)
        simd_load<Acc, Scalar, b_contiguous>(x, b + i * lanes * b_step, b_step);
      else
        x = b[i * b_step];
      acc[i] += v * x;
    }
  };
  int64_t k = begin;
  if constexpr (S > 1) {
    for (; k + S <= end; k += S)
      for (int j = 0; j < S; ++j) add_entry(sets[j], k + j);
  }
  for (; k < end; ++k) add_entry(sets[0], k);
  Acc(&acc)[N] = sets[0];
  for (int j = 1; j < S; ++j)
    for (int i = 0; i < N; ++i) acc[i] += sets[j][i];
  Scalar* out = a.C.at(row, k0 - a.c_col_offset);
  if (vector && c_step == 1) {
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 64
#endif
    for (int i = 0; i < N; ++i) {
      Scalar* o = out + i * lanes;
      Acc r = a.alpha * acc[i];
      if (how == Store::stream) {
        stream_store(o, r);
        continue;
      }
      Acc old;
      if (how == Store::init) {
        simd_load<Acc, Scalar, true>(old, o, 1);
        r += a.beta * old;
      } else if (how == Store::add) {
        simd_load<Acc, Scalar, true>(old, o, 1);
        r += old;
      }
      simd_store<Acc, Scalar, true>(o, 1, r);
    }
  } else {
    // Strided C (LayoutLeft): element by element; the stores of consecutive rows fill the same
    // cache lines, so they combine in cache.
    for (int i = 0; i < N; ++i)
      for (int l = 0; l < (vector ? lanes : 1); ++l) {
        Scalar r;
        if constexpr (vector) r = a.alpha * acc[i][l];
        else r = a.alpha * acc[i];
        Scalar& o = out[((vector ? i * lanes : i) + l) * c_step];
        if (how == Store::init) r += a.beta * o;
        else if (how == Store::add) r += o;
        o = r;
      }
  }
}

/// Entries [begin, end) of `row` times B's columns [k_begin, k_end) into C: chunks of W, then the
/// remainder in halving widths down to 8 and a last chunk of its exact width (1 to 7), so a small
/// K (or tail) costs one pass over the row's entries, not one per bit of its width.
template <int VB, int W, class Args>
SPROCKET_SPMM_INLINE void row_pass(const Args& a, int64_t row, int64_t begin, int64_t end, int64_t k_begin,
                                   int64_t k_end, Store how) {
  int64_t k0 = k_begin;
  for (; k0 + W <= k_end; k0 += W) row_chunk<VB, W>(a, row, begin, end, k0, how);
  if (k0 == k_end) return;
  if constexpr (W > 8) {
    row_pass<VB, W / 2>(a, row, begin, end, k0, k_end, how);
  } else {
    switch (k_end - k0) {  // 1 to 7 (W is 8, or smaller only when the whole K is)
      case 1: return row_chunk<VB, 1>(a, row, begin, end, k0, how);
      case 2: return row_chunk<VB, 2>(a, row, begin, end, k0, how);
      case 3: return row_chunk<VB, 3>(a, row, begin, end, k0, how);
      case 4: return row_chunk<VB, 4>(a, row, begin, end, k0, how);
      case 5: return row_chunk<VB, 5>(a, row, begin, end, k0, how);
      case 6: return row_chunk<VB, 6>(a, row, begin, end, k0, how);
      default: return row_chunk<VB, 7>(a, row, begin, end, k0, how);
    }
  }
}

/// Accumulator chunk for VB-byte registers: 8 registers, leaving the other half of the 16
/// registers of SSE/AVX to B's loads and the broadcast value.
template <int VB, class Scalar>
inline constexpr int spmm_register_width = 8 * VB / static_cast<int>(sizeof(Scalar));

template <int VB, class Args>
SPROCKET_SPMM_INLINE void rows_loop(const Args& a, int64_t r0, int64_t r1) {
  using Scalar = std::remove_const_t<std::remove_reference_t<decltype(*a.values)>>;
  constexpr int W = spmm_register_width<VB, Scalar>;
  if (a.C.s0 != 1 || a.C.s1 == 1) {  // C not column-major: straight into C
    for (int64_t r = r0; r < r1; ++r)
      row_pass<VB, W>(a, r, int64_t(a.row_map[r]), int64_t(a.row_map[r + 1]), 0, a.K, a.first_store);
    return;
  }
  // Column-major C (LayoutLeft): a row's K results are K scalars in K different columns, so rows
  // go RB at a time (one cache line of each column) through a row-major buffer, and each column
  // then receives one contiguous run of RB results instead of RB scattered stores.
  constexpr int64_t RB = 64 / sizeof(Scalar), KB = 32768 / (RB * sizeof(Scalar));
  alignas(64) Scalar buffer[RB * KB];
  Args b = a;
  b.alpha = Scalar(1);
  const Scalar alpha = a.alpha, beta = a.beta;
  const int64_t ld = a.C.s1;
  for (int64_t rb = r0; rb < r1; rb += RB) {
    const int64_t rn = std::min(RB, r1 - rb);
    for (int64_t kb = 0; kb < a.K; kb += KB) {
      const int64_t kn = std::min(KB, a.K - kb);
      b.C.p = buffer;  // buffer row r - rb holds C's row r, columns [kb, kb + kn)
      b.C.s0 = KB;
      b.C.s1 = 1;
      b.c_col_offset = kb;
      for (int64_t r = rb; r < rb + rn; ++r)
        row_pass<VB, W>(b, r - rb, int64_t(a.row_map[r]), int64_t(a.row_map[r + 1]), kb, kb + kn,
                        Store::init_beta_zero);
      for (int64_t j = 0; j < kn; ++j) {
        Scalar* c = a.C.p + rb + (kb + j) * ld;
        if (a.first_store == Store::init)
          for (int64_t r = 0; r < rn; ++r) c[r] = beta * c[r] + alpha * buffer[r * KB + j];
        else
          for (int64_t r = 0; r < rn; ++r) c[r] = alpha * buffer[r * KB + j];
      }
    }
  }
}

/// Orders a thread's streaming stores before the parallel region's join.
SPROCKET_SPMM_INLINE void stream_fence(Store first_store) {
#if defined(__SSE2__) && defined(__GNUC__) && !defined(__CUDACC__)
  if (first_store == Store::stream) _mm_sfence();
#else
  (void)first_store;
#endif
}

template <int VB, class Args>
SPROCKET_SPMM_INLINE void csr_rows_range(const Args& a, int64_t r0, int64_t r1) {
  rows_loop<VB>(a, r0, r1);
  stream_fence(a.first_store);
}

/// scratch: column-major C only, panel_rows * k_chunk scalars of this thread's own: the panel's
/// passes accumulate there row-major, and each column of C then receives one contiguous run.
template <int VB, class Args, class Scalar>
SPROCKET_SPMM_INLINE void aspt_range(const Args& a, int64_t p0, int64_t p1, Scalar* scratch) {
  constexpr int W = spmm_register_width<VB, Scalar>;
  const int64_t n = a.num_rows, P = a.panel_rows, K = a.K;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t r0 = p * P, r1 = std::min(n, r0 + P);
    const int64_t g0 = a.panel_ptr[p], g1 = a.panel_ptr[p + 1];
    if (g0 == g1) {  // no heavy tile: the panel is plain CSR
      rows_loop<VB>(a, r0, r1);
      continue;
    }
    for (int64_t kc = 0; kc < K; kc += a.k_chunk) {
      const int64_t kc_end = std::min(K, kc + a.k_chunk);
      // The passes write C itself, or the scratch (row r - r0 holds C's row r, columns
      // [kc, kc_end)) as raw sums, which then go to C scaled.
      Args b = a;
      int64_t row_offset = 0;
      Store init = a.first_store == Store::init ? Store::init : Store::init_beta_zero;
      if (scratch) {
        b.C.p = scratch;
        b.C.s0 = kc_end - kc;
        b.C.s1 = 1;
        b.c_col_offset = kc;
        b.alpha = Scalar(1);
        row_offset = r0;
        init = Store::init_beta_zero;
      }
      // Pass g in [g0, g1): heavy tile g; pass g1: the light entries.
      for (int64_t g = g0; g <= g1; ++g) {
        const Store how = g == g0 ? init : Store::add;
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t l = r - r0;
          const int64_t begin = g == g0 ? int64_t(a.row_map[r]) : a.tile_row_end[(g - 1) * P + l];
          const int64_t end = g == g1 ? int64_t(a.row_map[r + 1]) : a.tile_row_end[g * P + l];
          if (begin == end && how == Store::add) continue;
          row_pass<VB, W>(b, r - row_offset, begin, end, kc, kc_end, how);
        }
      }
      if (scratch) {
        const int64_t kn = kc_end - kc, ld = a.C.s1;
        for (int64_t j = kc; j < kc_end; ++j) {
          Scalar* c = a.C.p + j * ld;
          const Scalar* s = scratch + (j - kc);
          if (a.first_store == Store::init)
            for (int64_t r = r0; r < r1; ++r) c[r] = a.beta * c[r] + a.alpha * s[(r - r0) * kn];
          else
            for (int64_t r = r0; r < r1; ++r) c[r] = a.alpha * s[(r - r0) * kn];
        }
      }
    }
  }
  stream_fence(a.first_store);
}

// One out-of-line entry point per instruction set, templated on the arguments only, so the
// OpenMP and Serial spaces share the code.
#if defined(__GNUC__) || defined(__clang__)
#define SPROCKET_SPMM_NOINLINE __attribute__((noinline))
#else
#define SPROCKET_SPMM_NOINLINE
#endif

template <class Args>
SPROCKET_SPMM_NOINLINE void csr_rows_range_native(const Args& a, int64_t r0, int64_t r1) {
  csr_rows_range<spmm_vector_bytes>(a, r0, r1);
}
template <class Args, class Scalar>
SPROCKET_SPMM_NOINLINE void aspt_range_native(const Args& a, int64_t p0, int64_t p1, Scalar* scratch) {
  aspt_range<spmm_vector_bytes>(a, p0, p1, scratch);
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
template <class Args>
__attribute__((target("avx2,fma"), noinline)) void csr_rows_range_avx2(const Args& a, int64_t r0, int64_t r1) {
  csr_rows_range<32>(a, r0, r1);
}
template <class Args, class Scalar>
__attribute__((target("avx2,fma"), noinline)) void aspt_range_avx2(const Args& a, int64_t p0, int64_t p1,
                                                                    Scalar* scratch) {
  aspt_range<32>(a, p0, p1, scratch);
}
#endif

/// The kernels over raw B and C (C has c_rows x K elements): one instantiation per scalar types,
/// B kind and execution space, whatever View types the caller has.
template <DenseKind BKind, class ExecSpace, class Layout, class Parts, class Workspace, class Scalar>
void spmm_typed(const ExecSpace& space, bool tiled, const Layout& L, const Parts& parts, int64_t widest_tile,
                Workspace& workspace, Scalar alpha, const DenseRef<const Scalar, BKind>& B, Scalar beta,
                const DenseRef<Scalar, DenseKind::strided>& C, int64_t c_rows, int64_t K) {
  using BRef = DenseRef<const Scalar, BKind>;
  using CRef = DenseRef<Scalar, DenseKind::strided>;
  using Args = HostSpmmArgs<Scalar, std::remove_const_t<typename decltype(L.entries)::value_type>,
                            std::remove_const_t<typename decltype(L.row_map)::value_type>, BRef, CRef>;
  Args a;
  a.row_map = L.row_map.data();
  a.entries = L.entries.data();
  a.values = L.values.data();
  a.B = B;
  a.C = C;
  a.alpha = alpha;
  a.beta = beta;
  a.K = K;
  a.c_col_offset = 0;
  // csr_rows prefetches across rows: on a stencil's short rows (7 entries: the entry 8 ahead is
  // always in a later row) it otherwise never prefetched at all (Poisson n = 48, K = 128: 11.3
  // instead of 15.0 ms, 4 alternating rounds, 2-core AMD EPYC). The aspt passes keep to the row.
  a.prefetch_end = tiled ? 0 : L.nnz;
  const int64_t c_bytes = c_rows * K * static_cast<int64_t>(sizeof(Scalar));
  a.first_store = beta != Scalar(0) ? Store::init
                  : C.s1 == 1 && c_bytes > spmm_host_streaming_bytes ? Store::stream
                                                                      : Store::init_beta_zero;
  a.panel_ptr = L.panel_ptr.data();
  a.tile_row_end = L.tile_row_end.data();
  a.num_rows = L.num_rows;
  a.panel_rows = L.panel_rows;
  // Cache chunk of K: (P + widest tile) rows of it within the budget, a multiple of the widest
  // register chunk (32 doubles / 64 floats with AVX2).
  const int64_t chunk_unit = spmm_register_width<32, Scalar>;
  const int64_t fit = spmm_host_cache_bytes / ((L.panel_rows + widest_tile) * static_cast<int64_t>(sizeof(Scalar)));
  a.k_chunk = fit >= K ? K : std::max<int64_t>(chunk_unit, fit / chunk_unit * chunk_unit);
  // Column-major C under aspt: each thread accumulates its panels in its own scratch (the parts
  // outnumber the threads, and a thread's scratch stays in its cache from part to part).
  const int64_t num_parts = static_cast<int64_t>(parts.extent(0)) - 1;
  const int64_t scratch_size = L.panel_rows * a.k_chunk;
  const bool uses_scratch = tiled && C.s0 == 1 && C.s1 != 1;
  Kokkos::Experimental::UniqueToken<ExecSpace> thread_slot(space);
  Scalar* scratch = nullptr;
  if (uses_scratch)
    scratch = workspace.at_least(workspace.scratch, int64_t(thread_slot.size()) * scratch_size,
                                 "Sprocket::spmm::panel_scratch");
  const bool avx2 = host_has_avx2_fma();
  const int64_t* bounds = parts.data();
  Kokkos::parallel_for(
      tiled ? "Sprocket::spmm::host_aspt" : "Sprocket::spmm::host_csr_rows",
      host_dynamic_policy(space, num_parts), [=](const int64_t part) {
        const int64_t begin = bounds[part], end = bounds[part + 1];
        const int slot = uses_scratch ? thread_slot.acquire() : 0;
        Scalar* own = scratch ? scratch + slot * scratch_size : nullptr;
#if defined(SPROCKET_HOST_AVX2_CLONE)
        if (avx2) {
          if (tiled) aspt_range_avx2(a, begin, end, own);
          else csr_rows_range_avx2(a, begin, end);
          if (uses_scratch) thread_slot.release(slot);
          return;
        }
#endif
        (void)avx2;
        if (tiled) aspt_range_native(a, begin, end, own);
        else csr_rows_range_native(a, begin, end);
        if (uses_scratch) thread_slot.release(slot);
      });
}

/// Column-major B and C under csr_rows. Rows go in blocks (at most spmm_column_block_rows), and
/// for each block the columns of B and C go spmm_column_width at a time. Within a block, runs of
/// L consecutive rows that slide (rows_slide: the same length, row r + i's p-th column is row r's
/// plus i), L the SIMD lanes of the scalar, are multiplied L rows at once: their p-th entries read
/// L consecutive scalars of each column of B (one vector load), their values, transposed once per
/// block into the thread's buffer, are one vector, and each column of C receives one vector store.
/// Other rows go one at a time with a scalar accumulator per column. Rows of a stencil or of a
/// banded matrix mostly slide, so their product runs L times fewer loads and multiplies than row
/// by row (7-point Poisson, n = 48, K = 128, 2-core AMD EPYC: MKL's time over ours went from 0.95
/// to 1.46, perf_tests/results/host-compare-2026-12-07-{dynamic-parts,spmm-sliding-rows}.md). No
/// copy of B: packing B row-major moved B three more times (read, write, read again) and C then
/// went out one cache line per column at a time, four times the row-major product's time there
/// (perf_tests/results/host-compare-2026-12-07.md). The block's entries of A are read once per
/// group of columns, from L2; B's columns are read where the rows' columns lead, which for a
/// matrix whose columns stay near its rows is a few contiguous windows per column.
inline constexpr int64_t spmm_column_block_rows = 2048;
inline constexpr int spmm_column_width = 4;
/// Scalars of A's values one block's sliding rows keep transposed, per thread (a block ends
/// early when its sliding rows would need more; 128 KiB of doubles, within L2).
inline constexpr int64_t spmm_column_block_values = 16384;

/// Whether rows [r, r + L) slide: equal lengths, and row r + i's p-th column is row r's p-th plus i
/// (so the p-th entries of the L rows read L consecutive rows of B).
template <int L, class Ordinal, class Offset>
SPROCKET_SPMM_INLINE bool rows_slide(const Offset* __restrict row_map, const Ordinal* __restrict entries, int64_t r) {
  const int64_t begin = row_map[r], len = int64_t(row_map[r + 1]) - begin;
  for (int i = 1; i < L; ++i)
    if (int64_t(row_map[r + i + 1]) - int64_t(row_map[r + i]) != len) return false;
  for (int i = 1; i < L; ++i) {
    const Ordinal* __restrict next = entries + row_map[r + i];
    bool same = true;
    for (int64_t p = 0; p < len; ++p) same &= int64_t(next[p]) == int64_t(entries[begin + p]) + i;
    if (!same) return false;
  }
  return true;
}

/// C(r, k0 .. k0 + KW) for rows [r0, r1), one row at a time, B and C column-major.
template <int KW, class Scalar, class Ordinal, class Offset>
SPROCKET_SPMM_INLINE void column_group_rows(const Offset* __restrict row_map, const Ordinal* __restrict entries,
                                            const Scalar* __restrict values, const Scalar* __restrict B, int64_t ldb,
                                            Scalar* __restrict C, int64_t ldc, Scalar alpha, Scalar beta,
                                            int64_t r0, int64_t r1, int64_t k0) {
  const Scalar* __restrict b = B + k0 * ldb;
  Scalar* __restrict c = C + k0 * ldc;
  for (int64_t r = r0; r < r1; ++r) {
    Scalar acc[KW];
    for (int t = 0; t < KW; ++t) acc[t] = Scalar(0);
    for (int64_t j = row_map[r], e = row_map[r + 1]; j < e; ++j) {
      const Scalar v = values[j];
      const Scalar* __restrict bj = b + entries[j];
      for (int t = 0; t < KW; ++t) acc[t] += v * bj[t * ldb];
    }
    if (beta == Scalar(0))
      for (int t = 0; t < KW; ++t) c[r + t * ldc] = alpha * acc[t];
    else
      for (int t = 0; t < KW; ++t) c[r + t * ldc] = beta * c[r + t * ldc] + alpha * acc[t];
  }
}

/// C(r .. r + L, k0 .. k0 + KW) for the L sliding rows from r (V: L lanes of Scalar): cols are
/// row r's columns, lane_values their len entries' values transposed (entry p of row r + i at
/// lane_values[p * L + i]).
template <int KW, class V, class Scalar, class Ordinal>
SPROCKET_SPMM_INLINE void sliding_rows_columns(const Ordinal* __restrict cols, const Scalar* __restrict lane_values,
                                               int64_t len, const Scalar* __restrict B, int64_t ldb,
                                               Scalar* __restrict C, int64_t ldc, Scalar alpha, Scalar beta,
                                               int64_t r, int64_t k0) {
  constexpr int L = sizeof(V) / sizeof(Scalar);
  const Scalar* __restrict b = B + k0 * ldb;
  V acc[KW];
  for (int t = 0; t < KW; ++t) acc[t] = V{} + Scalar(0);
  for (int64_t p = 0; p < len; ++p) {
    V v, x;
    std::memcpy(&v, lane_values + p * L, sizeof(V));
    const Scalar* __restrict bp = b + cols[p];
    for (int t = 0; t < KW; ++t) {
      std::memcpy(&x, bp + t * ldb, sizeof(V));
      acc[t] += v * x;
    }
  }
  Scalar* __restrict c = C + k0 * ldc + r;
  for (int t = 0; t < KW; ++t) {
    V out = alpha * acc[t];
    if (beta != Scalar(0)) {  // beta == 0 never reads C (it may hold NaN)
      V old;
      std::memcpy(&old, c + t * ldc, sizeof(V));
      out += beta * old;
    }
    std::memcpy(c + t * ldc, &out, sizeof(V));
  }
}

/// Columns [k0, k0 + KW) of one block: its rows one at a time, except the sliding runs starting
/// at runs[0 .. num_runs) (L rows each, transposed values one after another in lane_values).
template <int KW, class V, class Scalar, class Ordinal, class Offset>
SPROCKET_SPMM_INLINE void column_group_block(const Offset* row_map, const Ordinal* entries, const Scalar* values,
                                             const Scalar* B, int64_t ldb, Scalar* C, int64_t ldc, Scalar alpha,
                                             Scalar beta, int64_t r0, int64_t r1, const int64_t* runs,
                                             int64_t num_runs, const Scalar* lane_values, int64_t k0) {
  constexpr int L = sizeof(V) / sizeof(Scalar);
  int64_t r = r0;
  for (int64_t g = 0; g < num_runs; ++g) {
    const int64_t s = runs[g], begin = row_map[s], len = int64_t(row_map[s + 1]) - begin;
    if (r < s) column_group_rows<KW>(row_map, entries, values, B, ldb, C, ldc, alpha, beta, r, s, k0);
    sliding_rows_columns<KW, V>(entries + begin, lane_values, len, B, ldb, C, ldc, alpha, beta, s, k0);
    lane_values += len * L;
    r = s + L;
  }
  if (r < r1) column_group_rows<KW>(row_map, entries, values, B, ldb, C, ldc, alpha, beta, r, r1, k0);
}

/// Rows [r0, r1) times all K columns, B and C column-major (see spmm_column_block_rows).
/// lane_values: this thread's spmm_column_block_values scalars.
template <int VB, class Scalar, class Ordinal, class Offset>
SPROCKET_SPMM_INLINE void column_major_rows(const Offset* row_map, const Ordinal* entries, const Scalar* values,
                                            const Scalar* B, int64_t ldb, Scalar* C, int64_t ldc, int64_t K,
                                            Scalar alpha, Scalar beta, int64_t r0, int64_t r1,
                                            Scalar* lane_values) {
  using V = typename HostSimd<VB, Scalar>::type;
  constexpr int L = HostSimd<VB, Scalar>::lanes;
  // Without vector types (L == 1) every row goes alone: no runs.
  constexpr int64_t max_runs = L > 1 ? spmm_column_block_rows / L : 1;
  int64_t runs[max_runs];
  for (int64_t rb = r0; rb < r1;) {
    // The block: rows [rb, re), its sliding runs found and their values transposed.
    const int64_t limit = std::min(r1, rb + spmm_column_block_rows);
    int64_t num_runs = 0, used = 0, re = rb;
    if constexpr (L > 1) {
      while (re < limit) {
        if (re + L > limit || !rows_slide<L>(row_map, entries, re)) {
          ++re;
          continue;
        }
        const int64_t begin = row_map[re], len = int64_t(row_map[re + 1]) - begin;
        if (len * L > spmm_column_block_values) {  // too long to transpose: the rows go alone
          re += L;
          continue;
        }
        if (used + len * L > spmm_column_block_values) break;  // the buffer is full: the block ends
        Scalar* t = lane_values + used;
        for (int i = 0; i < L; ++i) {
          const Scalar* row_values = values + row_map[re + i];
          for (int64_t p = 0; p < len; ++p) t[p * L + i] = row_values[p];
        }
        runs[num_runs++] = re;
        used += len * L;
        re += L;
      }
    } else {
      re = limit;
    }
    int64_t k = 0;
    for (; k + spmm_column_width <= K; k += spmm_column_width)
      column_group_block<spmm_column_width, V>(row_map, entries, values, B, ldb, C, ldc, alpha, beta, rb, re, runs,
                                               num_runs, lane_values, k);
    if (K - k >= 2) {
      column_group_block<2, V>(row_map, entries, values, B, ldb, C, ldc, alpha, beta, rb, re, runs, num_runs,
                               lane_values, k);
      k += 2;
    }
    if (K - k >= 1)
      column_group_block<1, V>(row_map, entries, values, B, ldb, C, ldc, alpha, beta, rb, re, runs, num_runs,
                               lane_values, k);
    rb = re;
  }
}

template <class Scalar, class Ordinal, class Offset>
SPROCKET_SPMM_NOINLINE void column_major_rows_native(const Offset* row_map, const Ordinal* entries,
                                                     const Scalar* values, const Scalar* B, int64_t ldb, Scalar* C,
                                                     int64_t ldc, int64_t K, Scalar alpha, Scalar beta, int64_t r0,
                                                     int64_t r1, Scalar* lane_values) {
  column_major_rows<spmm_vector_bytes>(row_map, entries, values, B, ldb, C, ldc, K, alpha, beta, r0, r1,
                                       lane_values);
}
#if defined(SPROCKET_HOST_AVX2_CLONE)
template <class Scalar, class Ordinal, class Offset>
__attribute__((target("avx2,fma"), noinline)) void column_major_rows_avx2(const Offset* row_map,
                                                                          const Ordinal* entries,
                                                                          const Scalar* values, const Scalar* B,
                                                                          int64_t ldb, Scalar* C, int64_t ldc,
                                                                          int64_t K, Scalar alpha, Scalar beta,
                                                                          int64_t r0, int64_t r1,
                                                                          Scalar* lane_values) {
  column_major_rows<32>(row_map, entries, values, B, ldb, C, ldc, K, alpha, beta, r0, r1, lane_values);
}
#endif

/// csr_rows with column-major B and C (stride 1 along the rows, any column stride). Each thread
/// transposes its blocks' sliding rows into its own part of the workspace's scratch.
template <class ExecSpace, class Layout, class Parts, class Workspace, class Scalar>
void spmm_column_major(const ExecSpace& space, const Layout& L, const Parts& parts, Workspace& workspace,
                       Scalar alpha, const Scalar* B, int64_t ldb, Scalar beta, Scalar* C, int64_t ldc, int64_t K) {
  const auto* row_map = L.row_map.data();
  const auto* entries = L.entries.data();
  const Scalar* values = L.values.data();
  const int64_t* bounds = parts.data();
  const int64_t num_parts = static_cast<int64_t>(parts.extent(0)) - 1;
  const bool avx2 = host_has_avx2_fma();
  Kokkos::Experimental::UniqueToken<ExecSpace> thread_slot(space);
  Scalar* scratch = workspace.at_least(workspace.scratch, int64_t(thread_slot.size()) * spmm_column_block_values,
                                       "Sprocket::spmm::column_lane_values");
  Kokkos::parallel_for(
      "Sprocket::spmm::host_column_major", host_dynamic_policy(space, num_parts), [=](const int64_t part) {
        const int64_t r0 = bounds[part], r1 = bounds[part + 1];
        const int slot = thread_slot.acquire();
        Scalar* lane_values = scratch + slot * spmm_column_block_values;
#if defined(SPROCKET_HOST_AVX2_CLONE)
        if (avx2) {
          column_major_rows_avx2(row_map, entries, values, B, ldb, C, ldc, K, alpha, beta, r0, r1, lane_values);
          thread_slot.release(slot);
          return;
        }
#endif
        (void)avx2;
        column_major_rows_native(row_map, entries, values, B, ldb, C, ldc, K, alpha, beta, r0, r1, lane_values);
        thread_slot.release(slot);
      });
}

/// LayoutLeft (or strided) B with at least this many columns is first copied into a row-major
/// workspace: every entry then reads its row of B with vector loads instead of gathering one
/// scalar per column from K separate columns (and K cache lines), which costs more than the copy.
inline constexpr int64_t spmm_host_pack_columns = 4;

/// packed(i * K + j) = B(i, j): blocks of 64 rows across threads, each read column by column
/// (contiguous in LayoutLeft) and written into its rows (64 rows x K stay in cache).
template <class ExecSpace, class Scalar>
void pack_rows(const ExecSpace& space, const DenseRef<const Scalar, DenseKind::strided>& B, int64_t n, int64_t K,
               Scalar* packed) {
  const int64_t s0 = B.s0, s1 = B.s1;
  const Scalar* p = B.p;
  constexpr int64_t block = 64;
  Kokkos::parallel_for(
      "Sprocket::spmm::host_pack_B",
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, (n + block - 1) / block),
      [=](const int64_t b) {
        const int64_t i0 = b * block, i1 = std::min(n, i0 + block);
        for (int64_t j = 0; j < K; ++j)
          for (int64_t i = i0; i < i1; ++i) packed[i * K + j] = p[i * s0 + j * s1];
      });
}

/// The kernels over B and C Views. parts: the analysis's nnz-balanced boundaries over rows
/// (csr_rows) or row panels (aspt), several per host thread, taken dynamically; widest_tile: the most columns of
/// any heavy tile; workspace: the analysis's SpmmHostWorkspace. B and C: rank-2 Views of the
/// plan's scalar type; B with unit stride along K is read in place with vector loads, LayoutLeft B
/// is packed first when it has spmm_host_pack_columns or more columns (and gathered in place
/// otherwise); C any layout (unit stride along K: vector stores; column-major: runs of rows per
/// column).
template <class ExecSpace, class Layout, class Parts, class Workspace, class BView, class CView, class Scalar>
void spmm_views(const ExecSpace& space, bool tiled, const Layout& L, const Parts& parts, int64_t widest_tile,
                Workspace& workspace, Scalar alpha, const BView& B, Scalar beta, const CView& C) {
  using RowMajor = DenseRef<const Scalar, DenseKind::row_major>;
  using Strided = DenseRef<const Scalar, DenseKind::strided>;
  const int64_t n = B.extent(0), K = C.extent(1), c_rows = C.extent(0);
  const DenseRef<Scalar, DenseKind::strided> c = {C.data(), static_cast<int64_t>(C.stride(0)),
                                                  static_cast<int64_t>(C.stride(1))};
  if (!tiled && L.column_groups && K > 1 && B.stride(0) == 1 && C.stride(0) == 1) {
    spmm_column_major(space, L, parts, workspace, alpha, B.data(), static_cast<int64_t>(B.stride(1)), beta,
                      C.data(), static_cast<int64_t>(C.stride(1)), K);
  } else if (K == 1 || B.stride(1) == 1) {
    const RowMajor b = {B.data(), static_cast<int64_t>(B.stride(0)), 1};
    spmm_typed(space, tiled, L, parts, widest_tile, workspace, alpha, b, beta, c, c_rows, K);
  } else if (K >= spmm_host_pack_columns) {
    Scalar* packed = workspace.at_least(workspace.packed, n * K, "Sprocket::spmm::packed_B");
    const Strided b = {B.data(), static_cast<int64_t>(B.stride(0)), static_cast<int64_t>(B.stride(1))};
    pack_rows(space, b, n, K, packed);
    spmm_typed(space, tiled, L, parts, widest_tile, workspace, alpha, RowMajor{packed, K, 1}, beta, c, c_rows, K);
  } else {
    const Strided b = {B.data(), static_cast<int64_t>(B.stride(0)), static_cast<int64_t>(B.stride(1))};
    spmm_typed(space, tiled, L, parts, widest_tile, workspace, alpha, b, beta, c, c_rows, K);
  }
}

/// The host entry point: C = alpha * A * B + beta * C with the analysis's kernel (csr_rows or
/// aspt) over its reordered copy of A. Grows the analysis's (mutable) host workspace when B or C
/// is LayoutLeft: applies that may do so must not run concurrently on one analysis.
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Device, class BView, class CView>
void spmm_apply(const ExecSpace& space, const SpmmAnalysis<Scalar, Ordinal, Offset, Device>& analysis, Scalar alpha,
                const BView& B, Scalar beta, const CView& C) {
  spmm_views(space, analysis.kernel == SpmmKernel::aspt, analysis, analysis.parts, analysis.widest_tile,
             analysis.workspace, alpha, B, beta, C);
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
