#pragma once
// Host (OpenMP / Serial) specialization of the SpMV kernel family.
//
// One parallel region over contiguous, nnz-balanced parts of the virtual rows (built at analysis,
// several per thread, taken dynamically); a thread streams through each part in row order, running for each virtual row the
// kernel its bin chose. On a CPU a "sub-vector of X lanes per row" is X interleaved partial sums
// inside one thread: the row's entries k = l, l+X, l+2X, ... go to accumulator l, and the X sums
// are combined at the end. Independent accumulators break the floating-point add chain that
// makes the plain loop latency-bound on long rows (measurements:
// perf_tests/results/spmv-host-2026-11-21.md, "Host kernel measurements"), while the compiler is
// free to keep them in registers. Rows the analysis marked team_per_row or split_row are cut into chunks that all
// threads share, after the main region, with atomic adds (there are few such rows).
//
// Column indices come from one of three places (SpmvOptions::IndexCompression): the matrix (with
// or without prefetching x a few entries ahead, SpmvOptions::XPrefetch), the
// plan's 16-bit offsets col - row, or the plan's row-pattern dictionary (stencil and FEM
// matrices repeat a few offset sequences: 4 bytes per entry become 2 per row). Under row
// patterns, thread_per_row runs 8 consecutive rows of one pattern together (rows_pattern_runs).
// Every part runs an AVX2 + FMA copy when the CPU has both (impl/utils/host_isa.hpp); in the
// double copy the sub-vector rows of 32 entries and more read through the 16-bit offsets load the
// values as vectors (rows_with_lanes_avx2).
//
// The kernels below the parallel region take raw arrays (HostCsrArrays, HostVector, the schedule's
// pointers), not Kokkos Views: a View's type names its execution space, and the library compiles
// every plan for OpenMP and Serial in one translation unit (impl/common/eti.hpp), so View-typed
// kernels were compiled twice over, each AVX2 clone included. Same loads, same code.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "impl/spmv/spmv_analysis.hpp"
#include "impl/utils/host_isa.hpp"
#include "impl/utils/host_vector.hpp"

#if defined(SPROCKET_HOST_AVX2_CLONE)
#include <immintrin.h>
#endif

namespace Sprocket {
namespace Impl {
namespace host {

/// Hint that `p` will be read soon (GCC / Clang host code; a no-op elsewhere). Never faults.
KOKKOS_FORCEINLINE_FUNCTION void prefetch(const void* p) {
#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

// How a kernel finds the columns of row r, whose entries are [begin, end) of A:
// `row(r, begin, end)` gives an accessor c with c(j) the column of the row's j-th entry (and,
// for PrefetchingColumns, c.ahead(j) the column of an entry further on, whose x to prefetch).

/// The matrix's own column indices.
template <class Entry>
struct PlainColumns {
  const Entry* __restrict entries;
  struct Row {
    const Entry* __restrict e;
    KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t j) const { return e[j]; }
  };
  KOKKOS_FORCEINLINE_FUNCTION Row row(int64_t, int64_t begin, int64_t) const { return {entries + begin}; }
};
/// The matrix's own column indices, and for entry j the column of entry j + distance, whose x
/// the kernels prefetch (SpmvSchedule::x_prefetch_distance). Rows that end within `distance` of
/// the last entry prefetch their own x instead, so the look-ahead never reads past the indices.
template <class Entry>
struct PrefetchingColumns {
  const Entry* __restrict entries;
  int64_t nnz, distance;
  struct Row {
    const Entry* __restrict e;
    const Entry* __restrict a;
    KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t j) const { return e[j]; }
    KOKKOS_FORCEINLINE_FUNCTION int64_t ahead(int64_t j) const { return a[j]; }
  };
  KOKKOS_FORCEINLINE_FUNCTION Row row(int64_t, int64_t begin, int64_t end) const {
    return {entries + begin, entries + (end + distance <= nnz ? begin + distance : begin)};
  }
};
template <class RowColumns, class = void>
struct prefetches_x : std::false_type {};
template <class RowColumns>
struct prefetches_x<RowColumns, std::void_t<decltype(std::declval<const RowColumns&>().ahead(0))>> : std::true_type {};
/// row + 16-bit offset (SpmvSchedule::compressed_indices).
struct OffsetColumns {
  const int16_t* __restrict offsets;
  struct Row {
    const int16_t* __restrict o;
    int64_t r;
    KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t j) const { return r + o[j]; }
  };
  KOKKOS_FORCEINLINE_FUNCTION Row row(int64_t r, int64_t begin, int64_t) const { return {offsets + begin, r}; }
};
/// row + the j-th offset of the row's pattern (SpmvSchedule::row_patterns).
struct PatternColumns {
  const uint16_t* __restrict row_pattern;
  const int32_t* __restrict begin;
  const int32_t* __restrict offsets;
  struct Row {
    const int32_t* __restrict o;
    int64_t r;
    KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t j) const { return r + o[j]; }
  };
  KOKKOS_FORCEINLINE_FUNCTION Row row(int64_t r, int64_t, int64_t) const { return {offsets + begin[row_pattern[r]], r}; }
};

/// A's row map and values as pointers (the kernels' view of the matrix, whatever its space).
template <class Offset, class Value>
struct HostCsrArrays {
  const Offset* row_map;
  const Value* values;
};

/// (row of A with entries values[0, len) and columns c) . x with X interleaved accumulators.
template <int X, class Scalar, class Value, class RowColumns, class XView>
KOKKOS_FORCEINLINE_FUNCTION Scalar row_dot(const Value* __restrict values, const RowColumns& c, int64_t len,
                                           const XView& x) {
  Scalar s[X];
  for (int l = 0; l < X; ++l) s[l] = Scalar(0);
  int64_t j = 0;
  for (; j + X <= len; j += X) {
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 32
#endif
    for (int l = 0; l < X; ++l) {
      if constexpr (prefetches_x<RowColumns>::value) prefetch(&x(c.ahead(j + l)));
      s[l] += Scalar(values[j + l]) * Scalar(x(c(j + l)));
    }
  }
  for (int l = 0; j < len; ++j, ++l) s[l] += Scalar(values[j]) * Scalar(x(c(j)));
  for (int w = X / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) s[l] += s[l + w];
  return s[0];
}

/// y(r) = alpha dot + beta y(r), not reading y(r) when beta == 0 (KokkosSparse::spmv semantics).
template <class Scalar, class YView>
KOKKOS_FORCEINLINE_FUNCTION void store(const YView& y, int64_t r, Scalar alpha, Scalar dot, Scalar beta) {
  y(r) = beta == Scalar(0) ? alpha * dot : beta * y(r) + alpha * dot;
}

template <int X, class CsrArrays, class Columns, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void rows_with_lanes(const CsrArrays& A, const Columns& col, int64_t r0, int64_t r1,
                                                 Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  const auto* row_map = A.row_map;
  const auto* values = A.values;
  // Two loops rather than store() per row: the beta test inside the loop slows short rows down
  // (perf_tests/results/spmv-host-2026-11-21.md, "Host kernel measurements").
  if (beta == Scalar(0)) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = row_map[r], e = row_map[r + 1];
      y(r) = alpha * row_dot<X, Scalar>(values + b, col.row(r, b, e), e - b, x);
    }
  } else {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = row_map[r], e = row_map[r + 1];
      y(r) = beta * y(r) + alpha * row_dot<X, Scalar>(values + b, col.row(r, b, e), e - b, x);
    }
  }
}

/// Thread-per-row under row patterns. A run of 8 consecutive rows with one pattern of length L
/// holds its values as 8 contiguous rows of L, and row r + i's column j is (r + o_j) + i: the
/// loop over j reads x as 8 contiguous scalars (vector loads) and needs no column index at all.
/// Values are prefetched 4 KB ahead and x 64 scalars past the pattern's largest offset: a
/// hardware prefetcher can leave the many streams (values, and up to one x stream per distinct
/// plane of a stencil) starved (perf_tests/results/spmv-host-2026-11-21.md, "Host kernel
/// measurements").
template <class CsrArrays, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void rows_pattern_runs(const CsrArrays& A, const PatternColumns& col, int64_t r0,
                                                   int64_t r1, Scalar alpha, const XView& x, Scalar beta,
                                                   const YView& y) {
  constexpr int run = 8;
  const auto* row_map = A.row_map;
  const auto* values = A.values;
  const int64_t num_cols = static_cast<int64_t>(x.extent(0));
  int64_t r = r0;
  while (r < r1) {
    const uint16_t p = col.row_pattern[r];
    bool same = r + run <= r1;
    for (int i = 1; i < run && same; ++i) same = col.row_pattern[r + i] == p;
    if (!same) {
      const int64_t b = row_map[r], e = row_map[r + 1];
      store(y, r, alpha, row_dot<1, Scalar>(values + b, col.row(r, b, e), e - b, x), beta);
      ++r;
      continue;
    }
    const int32_t* __restrict o = col.offsets + col.begin[p];
    const int64_t len = col.begin[p + 1] - col.begin[p];
    const auto* __restrict v = values + row_map[r];
    for (int64_t q = 0; q < run * len; q += 8) prefetch(v + q + 512);
    Scalar acc[run];
    for (int i = 0; i < run; ++i) acc[i] = Scalar(0);
    int64_t lead = -1;
    for (int64_t j = 0; j < len; ++j) {
      const int64_t c = r + o[j];
      lead = c > lead ? c : lead;
#if defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
      for (int i = 0; i < run; ++i) acc[i] += Scalar(v[i * len + j]) * Scalar(x(c + i));
    }
    if (lead >= 0) prefetch(&x(lead + 64 < num_cols ? lead + 64 : num_cols - 1));
    for (int i = 0; i < run; ++i) store(y, r + i, alpha, acc[i], beta);
    r += run;
  }
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
/// Pattern runs in the baseline instruction set, for the float AVX2 copy (below): SSE2
/// vectorizes the 8 rows' contiguous x without the gathers GCC emits for AVX2.
template <class CsrArrays, class XView, class YView, class Scalar>
__attribute__((noinline)) void rows_pattern_runs_baseline(const CsrArrays& A, const PatternColumns& col, int64_t r0,
                                                          int64_t r1, Scalar alpha, const XView& x, Scalar beta,
                                                          const YView& y) {
  rows_pattern_runs(A, col, r0, r1, alpha, x, beta, y);
}
#endif

#if defined(SPROCKET_HOST_AVX2_CLONE)
/// Four consecutive columns of a row at a time, for rows_with_lanes_avx2: the 16-bit offsets from
/// the row, four per 64-bit load. Only they: the schedule keeps them where every column lies
/// within 32767 of the row, so x's loads hit the cache and the scalar loop is bound by the CPU's
/// load ports. With A's own indices (R-MAT: x's loads miss) the vector rows ran 5% slower
/// (perf_tests/results/host-spmv-avx2-rows-2026-12-07.md): other readers keep rows_with_lanes.
template <class Columns>
struct ColumnQuads {
  static constexpr bool available = false;
};
template <>
struct ColumnQuads<OffsetColumns> {
  static constexpr bool available = true;
  const int16_t* __restrict o;
  int64_t r;
  ColumnQuads(const OffsetColumns& col, int64_t row, int64_t begin) : o(col.offsets + begin), r(row) {}
  KOKKOS_FORCEINLINE_FUNCTION void load(int64_t j, int64_t (&k)[4]) const {
    uint64_t p;
    __builtin_memcpy(&p, o + j, 8);
    for (int i = 0; i < 4; ++i) k[i] = r + static_cast<int16_t>((p >> (16 * i)) & 0xffffu);
  }
  KOKKOS_FORCEINLINE_FUNCTION int64_t operator()(int64_t j) const { return r + o[j]; }
};

/// Whether rows_with_lanes_avx2 runs the sub-vector kernels: double values and x, columns read
/// four at a time (ColumnQuads: the 16-bit offsets).
template <class CsrArrays, class Columns, class XView, class Scalar>
inline constexpr bool avx2_vector_rows =
    std::is_same_v<Scalar, double> &&
    std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(CsrArrays::values)>>, double> &&
    std::is_same_v<std::remove_cv_t<std::remove_reference_t<decltype(std::declval<const XView&>()(0))>>, double> &&
    ColumnQuads<Columns>::available;

/// The sub-vector kernels (the rows the analysis gives lanes: long enough for several
/// accumulators) in AVX2 + FMA for double: 8 entries a step as two 4-wide FMAs on the values read
/// as vectors, x's scalars loaded one by one into vectors (four columns a load, ColumnQuads) rather
/// than by a gather, which Zen 4 runs slower than scalar loads. Three loads an entry (column,
/// value, x) become 1.5: the scalar loop was bound by the CPU's load ports, not by memory, on rows
/// held in cache (bcsstk16 1.2x; perf_tests/results/host-spmv-avx2-rows-2026-12-07.md). Tails of
/// fewer than 8 entries run scalar; rows shorter than avx2_vector_row_min keep the scalar lanes.
template <class Columns, class XView>
__attribute__((target("avx2,fma"), always_inline)) inline double row_dot_avx2(const double* __restrict v,
                                                                                const ColumnQuads<Columns>& c,
                                                                                int64_t len, const XView& x) {
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
  int64_t j = 0;
  for (; j + 8 <= len; j += 8) {
    int64_t k[4], m[4];
    c.load(j, k);
    c.load(j + 4, m);
    const __m128d x0 = _mm_loadh_pd(_mm_load_sd(&x(k[0])), &x(k[1]));
    const __m128d x1 = _mm_loadh_pd(_mm_load_sd(&x(k[2])), &x(k[3]));
    const __m128d x2 = _mm_loadh_pd(_mm_load_sd(&x(m[0])), &x(m[1]));
    const __m128d x3 = _mm_loadh_pd(_mm_load_sd(&x(m[2])), &x(m[3]));
    a0 = _mm256_fmadd_pd(_mm256_loadu_pd(v + j), _mm256_insertf128_pd(_mm256_castpd128_pd256(x0), x1, 1), a0);
    a1 = _mm256_fmadd_pd(_mm256_loadu_pd(v + j + 4), _mm256_insertf128_pd(_mm256_castpd128_pd256(x2), x3, 1), a1);
  }
  double tail0 = 0, tail1 = 0;
  for (; j + 2 <= len; j += 2) {
    tail0 += v[j] * x(c(j));
    tail1 += v[j + 1] * x(c(j + 1));
  }
  if (j < len) tail0 += v[j] * x(c(j));
  a0 = _mm256_add_pd(a0, a1);
  const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(a0), _mm256_extractf128_pd(a0, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h))) + (tail0 + tail1);
}

/// Rows shorter than this keep rows_with_lanes' X scalar lanes in the AVX2 copy: the gain was
/// measured on rows of 59 entries on average (bcsstk16), not on short rows, where the vector
/// step's horizontal sum per row weighs more.
inline constexpr int64_t avx2_vector_row_min = 32;

/// Row r's dot product with entries [b, e): the vector step from avx2_vector_row_min entries,
/// rows_with_lanes' X lanes below.
template <int X, class Columns, class XView>
__attribute__((target("avx2,fma"), always_inline)) inline double row_dot_lanes_avx2(const double* values,
                                                                                      const Columns& col, int64_t r,
                                                                                      int64_t b, int64_t e,
                                                                                      const XView& x) {
  return e - b >= avx2_vector_row_min ? row_dot_avx2(values + b, ColumnQuads<Columns>(col, r, b), e - b, x)
                                      : row_dot<X, double>(values + b, col.row(r, b, e), e - b, x);
}

template <int X, class CsrArrays, class Columns, class XView, class YView>
__attribute__((target("avx2,fma"), noinline)) void rows_with_lanes_avx2(
    const CsrArrays& A, const Columns& col, int64_t r0, int64_t r1, double alpha, const XView& x, double beta,
    const YView& y) {
  const auto* row_map = A.row_map;
  const double* values = A.values;
  // Two loops, as in rows_with_lanes: no beta test per row.
  if (beta == 0.0) {
    for (int64_t r = r0; r < r1; ++r) y(r) = alpha * row_dot_lanes_avx2<X>(values, col, r, row_map[r], row_map[r + 1], x);
  } else {
    for (int64_t r = r0; r < r1; ++r)
      y(r) = beta * y(r) + alpha * row_dot_lanes_avx2<X>(values, col, r, row_map[r], row_map[r + 1], x);
  }
}
#endif

/// A sub-vector kernel's rows: rows_with_lanes_avx2 in the double AVX2 copy where it applies
/// (Avx2Rows), else rows_with_lanes (the same code as in the other copies).
template <int X, bool Avx2Rows, class CsrArrays, class Columns, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void rows_with_lanes_in(const CsrArrays& A, const Columns& col, int64_t r0, int64_t r1,
                                                    Scalar alpha, const XView& x, Scalar beta, const YView& y) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
  if constexpr (Avx2Rows && avx2_vector_rows<CsrArrays, Columns, XView, Scalar>)
    return rows_with_lanes_avx2<X>(A, col, r0, r1, alpha, x, beta, y);
#endif
  rows_with_lanes<X>(A, col, r0, r1, alpha, x, beta, y);
}

/// The fused pass over one thread's part of the virtual rows. BaselinePatternRuns: pattern runs
/// call rows_pattern_runs_baseline. Avx2Rows (the double AVX2 copy): the sub-vector kernels run
/// rows_with_lanes_avx2 where it applies.
template <bool BaselinePatternRuns = false, bool Avx2Rows = false, class CsrArrays, class Columns, class Kernels,
          class Bounds, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void part_rows(const CsrArrays& A, const Columns& col, const Kernels& kernels,
                                           const Bounds& bounds, int64_t v0, int64_t v1, Scalar alpha,
                                           const XView& x, Scalar beta, const YView& y) {
  for (int64_t v = v0; v < v1; ++v) {
    const int64_t r0 = bounds[v], r1 = bounds[v + 1];
    switch (static_cast<SpmvKernel>(kernels[v])) {
      case SpmvKernel::thread_per_row:
        if constexpr (std::is_same_v<Columns, PatternColumns>) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
          if constexpr (BaselinePatternRuns) {
            rows_pattern_runs_baseline(A, col, r0, r1, alpha, x, beta, y);
            break;
          }
#endif
          rows_pattern_runs(A, col, r0, r1, alpha, x, beta, y);
        } else
          rows_with_lanes<1>(A, col, r0, r1, alpha, x, beta, y);
        break;
      case SpmvKernel::subvector2: rows_with_lanes_in<2, Avx2Rows>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector4: rows_with_lanes_in<4, Avx2Rows>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector8: rows_with_lanes_in<8, Avx2Rows>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector16: rows_with_lanes_in<16, Avx2Rows>(A, col, r0, r1, alpha, x, beta, y); break;
      case SpmvKernel::subvector32: rows_with_lanes_in<32, Avx2Rows>(A, col, r0, r1, alpha, x, beta, y); break;
      default: break;  // split rows: after the fused pass
    }
  }
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
template <class CsrArrays, class Columns, class Kernels, class Bounds, class XView, class YView, class Scalar>
__attribute__((target("avx2,fma"), noinline)) void part_rows_avx2(const CsrArrays& A, const Columns& col,
                                                                  const Kernels& kernels, const Bounds& bounds,
                                                                  int64_t v0, int64_t v1, Scalar alpha,
                                                                  const XView& x, Scalar beta, const YView& y) {
  part_rows</*BaselinePatternRuns=*/false, /*Avx2Rows=*/true>(A, col, kernels, bounds, v0, v1, alpha, x, beta, y);
}

// The AVX2 copy for float, without GCC's loop vectorizer: it turned the lanes of row_dot and the
// 8 rows of a pattern run into 8-wide gathers, with which the float kernels the analysis chose ran
// up to 1.37x slower on an AMD EPYC (2 threads), and which took a quarter of the float plan's
// compile time (perf_tests/results/build-times-test-optimization-2026-11-29.md, "Float SpMV").
// The lanes are independent scalar accumulators by design. Its pattern runs call the baseline
// copy, which SSE2 vectorizes without gathers (1.07x on poisson3d). Double (GCC emits no 4-wide
// gathers there) and the baseline copies keep the vectorizer: without it some kernels slowed.
#if defined(__clang__)
#define SPROCKET_HOST_NO_LOOP_VECTORIZER
#else
#define SPROCKET_HOST_NO_LOOP_VECTORIZER optimize("no-tree-loop-vectorize"),
#endif
template <class CsrArrays, class Columns, class Kernels, class Bounds, class XView, class YView, class Scalar>
__attribute__((SPROCKET_HOST_NO_LOOP_VECTORIZER target("avx2,fma"), noinline)) void part_rows_avx2_scalar_lanes(
    const CsrArrays& A, const Columns& col, const Kernels& kernels, const Bounds& bounds, int64_t v0, int64_t v1,
    Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  part_rows</*BaselinePatternRuns=*/true>(A, col, kernels, bounds, v0, v1, alpha, x, beta, y);
}
#undef SPROCKET_HOST_NO_LOOP_VECTORIZER
#endif

/// One part, with the AVX2 + FMA copy when `avx2` (impl/utils/host_isa.hpp). Marked like the
/// kernels it calls because nvcc compiles the calling KOKKOS_LAMBDA for the device too (never
/// run there); the clones only exist outside nvcc.
template <class CsrArrays, class Columns, class Kernels, class Bounds, class XView, class YView, class Scalar>
KOKKOS_INLINE_FUNCTION void part(bool avx2, const CsrArrays& A, const Columns& col, const Kernels& kernels, const Bounds& bounds,
                 int64_t v0, int64_t v1, Scalar alpha, const XView& x, Scalar beta, const YView& y) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
  if (avx2) {
    if constexpr (std::is_same_v<Scalar, float>)
      return part_rows_avx2_scalar_lanes(A, col, kernels, bounds, v0, v1, alpha, x, beta, y);
    else
      return part_rows_avx2(A, col, kernels, bounds, v0, v1, alpha, x, beta, y);
  }
#endif
  (void)avx2;
  part_rows(A, col, kernels, bounds, v0, v1, alpha, x, beta, y);
}

/// Where a part's column indices may come from: the schedule's row patterns or 16-bit offsets,
/// A's own indices with x prefetch, or A's own indices.
template <class Entry>
struct PartColumns {
  PatternColumns patterns;
  bool use_patterns;
  const int16_t* offsets;
  bool use_offsets;
  const Entry* entries;
  int64_t nnz, prefetch_distance;
};

/// One part with the schedule's column reader; strided x or y: row patterns or A's own indices
/// (see spmv_apply). A function, not the caller's lambda: nvcc refuses an extended lambda that
/// first captures a variable inside `if constexpr`.
template <class CsrArrays, class Entry, class Kernels, class Bounds, class XVector, class YVector, class Scalar>
KOKKOS_INLINE_FUNCTION void part_with_columns(bool avx2, const CsrArrays& rows, const PartColumns<Entry>& c,
                                              const Kernels& kernels, const Bounds& bounds, int64_t v0, int64_t v1,
                                              Scalar alpha, const XVector& xv, Scalar beta, const YVector& yv) {
  if (c.use_patterns) return part(avx2, rows, c.patterns, kernels, bounds, v0, v1, alpha, xv, beta, yv);
  if constexpr (XVector::contiguous && YVector::contiguous) {
    if (c.use_offsets) return part(avx2, rows, OffsetColumns{c.offsets}, kernels, bounds, v0, v1, alpha, xv, beta, yv);
    if (c.prefetch_distance > 0)
      return part(avx2, rows, PrefetchingColumns<Entry>{c.entries, c.nnz, c.prefetch_distance}, kernels, bounds, v0,
                  v1, alpha, xv, beta, yv);
  }
  part(avx2, rows, PlainColumns<Entry>{c.entries}, kernels, bounds, v0, v1, alpha, xv, beta, yv);
}

/// The fused pass over the threads' parts, then the split rows, on x and y as HostVectors.
/// Contiguous x and y run the schedule's columns (16-bit offsets, row patterns or prefetching
/// ones); strided ones its row patterns or A's own column indices (see spmv_apply).
template <class ExecSpace, class CrsType, class XVector, class YVector, class Scalar>
void spmv_parts(const ExecSpace& space, const SpmvAnalysis<CrsType>& analysis, Scalar alpha, const XVector& xv,
                Scalar beta, const YVector& yv) {
  const CrsType& A = analysis.A;
  const auto& s = analysis.schedule;
  using Entry = typename CrsType::non_const_ordinal_type;
  const Entry* entries = A.graph.entries.data();
  const PartColumns<Entry> columns{
      PatternColumns{s.row_pattern.data(), s.pattern_begin.data(), s.pattern_offsets.data()},
      s.row_pattern.extent(0) > 0,
      s.col_offsets.data(),
      s.col_offsets.extent(0) > 0,
      entries,
      static_cast<int64_t>(A.graph.entries.extent(0)),
      s.x_prefetch_distance};
  const auto parts = s.part_begin;
  const HostCsrArrays<typename CrsType::non_const_size_type, typename CrsType::non_const_value_type> rows{
      A.graph.row_map.data(), A.values.data()};
  const auto* kernels = s.vrow_kernel.data();
  const auto* bounds = s.vrow_bounds.data();
  const int64_t num_parts = s.num_parts;
  const bool avx2 = host_has_avx2_fma();
  Kokkos::parallel_for(
      "Sprocket::spmv::host", host_dynamic_policy(space, num_parts),
      KOKKOS_LAMBDA(const int64_t p) {
        part_with_columns(avx2, rows, columns, kernels, bounds, parts(p), parts(p + 1), alpha, xv, beta, yv);
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
          yv(r) = beta == Scalar(0) ? Scalar(0) : beta * yv(r);
        });
    Kokkos::parallel_for(
        "Sprocket::spmv::host_split", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, s.num_split_chunks),
        KOKKOS_LAMBDA(const int64_t c) {
          const auto i = chunk_index(c);
          const auto r = split_rows(i);
          const int64_t row_end = row_map[r + 1];
          const int64_t begin = row_map[r] + (c - chunk_begin(i)) * chunk;
          const int64_t end = begin + chunk < row_end ? begin + chunk : row_end;
          const Scalar partial =
              row_dot<8, Scalar>(values + begin, PlainColumns<Entry>{entries}.row(r, begin, end), end - begin, xv);
          Kokkos::atomic_add(&yv(r), alpha * partial);
        });
  }
}

/// y = alpha * A * x + beta * y on a host space. x and y of LayoutStride Views (the plan's strided
/// pair: e.g. the columns of a LayoutRight multivector) with a stride other than 1 run the row
/// patterns when the schedule has them, else A's own column indices: no 16-bit offsets and no x
/// prefetch, whose kernels for run-time strides took a third of the part kernels the library
/// compiles (each with its AVX2 copy) and did not speed up strided x, a gather anyway
/// (perf_tests/results/build-times-test-optimization-2026-11-29.md). Strided Views of stride 1 run
/// as contiguous ones.
template <class ExecSpace, class CrsType, class XView, class YView, class Scalar>
void spmv_apply(const ExecSpace& space, const SpmvAnalysis<CrsType>& analysis, Scalar alpha, const XView& x,
                Scalar beta, const YView& y) {
  const auto xv = host_vector</*ReadOnly=*/true>(x);
  const auto yv = host_vector(y);
  using XVector = std::remove_const_t<decltype(xv)>;
  using YVector = std::remove_const_t<decltype(yv)>;
  if constexpr (!XVector::contiguous || !YVector::contiguous) {
    if (xv.stride == 1 && yv.stride == 1)
      return spmv_parts(space, analysis, alpha, as_contiguous(xv), beta, as_contiguous(yv));
  }
  spmv_parts(space, analysis, alpha, xv, beta, yv);
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
