#pragma once
// Host (OpenMP / Serial) SDDMM kernels, Backend::native on a host space (entry point sddmm_apply
// at the end): out(k) = alpha * w(k) * <A(row(k), :), B(col(k), :)> + beta * out(k), w = S's
// values (scaled form) or 1 (pattern form).
//
//  - nonzero_tiles: every thread owns an equal share of the entries (analysis parts), in S's
//    order, and walks the rows its share crosses: A's row stays in L1 across the row's entries,
//    B's rows come from wherever the columns lead, the row of entry k + 8 prefetched while entry
//    k is computed (scattered rows overlap their memory latency). COO entries take their row from
//    the row indices.
//  - aspt (paper section 5, Listing 4): row panel by row panel (threads own panels balanced by
//    entries); inside a panel heavy tile by heavy tile and then the light entries, each pass over
//    all rows of the panel, so a heavy tile's rows of B are read from memory once and served from
//    cache to every other row of the panel. K is not tiled (a dot product is one reduction); the
//    result goes to the entry's place in S's order through the analysis's permutation.
//
// Dot products along K with GCC/Clang vector types: four independent vector accumulators (32
// bytes each: an AVX2 register, a pair of SSE2 ones), then one vector, then scalars; compiled a
// second time for AVX2 + FMA and picked at run time when the CPU has them (impl/utils/host_isa.hpp).
// A and B are read through raw pointers with unit stride along K; a LayoutLeft (or strided) A or B
// with K >= 4 is first copied into a row-major workspace of the analysis (K scattered loads per
// dot product would cost far more than the copy); with K < 4 they are read in place.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "impl/sddmm/sddmm_analysis.hpp"
#include "impl/utils/host_isa.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define SPROCKET_SDDMM_INLINE inline __attribute__((always_inline))
#else
#define SPROCKET_SDDMM_INLINE inline
#endif

namespace Sprocket {
namespace Impl {
namespace host {

/// Entries ahead whose row of B is prefetched (as SpMM's distance: about a memory latency of work).
inline constexpr int sddmm_prefetch_distance = 8;
/// A non-row-major A or B with at least this many columns is copied row-major first.
inline constexpr int64_t sddmm_host_pack_columns = 4;

/// Everything a kernel reads, as raw pointers (one struct so the per-ISA entry points stay short).
/// a(i, j) at a[i * a_s0 + j * a_s1]; a_s1 == 1 unless K < sddmm_host_pack_columns.
template <class Scalar, class Ordinal, class Offset>
struct HostSddmmArgs {
  const Offset* row_map;      // CSR, else nullptr
  const Ordinal* row_indices; // COO, else nullptr
  const Ordinal* entries;
  const Scalar* values;       // nullptr: pattern form (w = 1)
  const Scalar* a;
  const Scalar* b;
  int64_t a_s0, a_s1, b_s0, b_s1;
  int64_t num_rows, K;
  Scalar alpha, beta;
  Scalar* out;
  // aspt
  const Offset* permutation;  // ASpT position -> S's entry
  const Ordinal* tile_entries;
  const int64_t* panel_ptr;
  const int64_t* tile_row_end;
  int64_t panel_rows;
};

#if defined(__GNUC__) && !defined(__CUDACC__)
template <class Scalar>
struct SddmmVec {
  typedef Scalar type __attribute__((vector_size(32)));
  static constexpr int lanes = 32 / static_cast<int>(sizeof(Scalar));
};
#endif

/// <x, y> over K scalars with unit stride.
template <class Scalar>
SPROCKET_SDDMM_INLINE Scalar dot_contiguous(const Scalar* x, const Scalar* y, int64_t K) {
#if defined(__GNUC__) && !defined(__CUDACC__)
  using V = typename SddmmVec<Scalar>::type;
  constexpr int L = SddmmVec<Scalar>::lanes;
  int64_t j = 0;
  Scalar sum = 0;
  if (K >= L) {
    V s0 = {}, s1 = {}, s2 = {}, s3 = {};
    for (; j + 4 * L <= K; j += 4 * L) {
      V x0, x1, x2, x3, y0, y1, y2, y3;
      std::memcpy(&x0, x + j, sizeof(V));
      std::memcpy(&y0, y + j, sizeof(V));
      std::memcpy(&x1, x + j + L, sizeof(V));
      std::memcpy(&y1, y + j + L, sizeof(V));
      std::memcpy(&x2, x + j + 2 * L, sizeof(V));
      std::memcpy(&y2, y + j + 2 * L, sizeof(V));
      std::memcpy(&x3, x + j + 3 * L, sizeof(V));
      std::memcpy(&y3, y + j + 3 * L, sizeof(V));
      s0 += x0 * y0;
      s1 += x1 * y1;
      s2 += x2 * y2;
      s3 += x3 * y3;
    }
    for (; j + L <= K; j += L) {
      V x0, y0;
      std::memcpy(&x0, x + j, sizeof(V));
      std::memcpy(&y0, y + j, sizeof(V));
      s0 += x0 * y0;
    }
    const V s = (s0 + s1) + (s2 + s3);
    for (int l = 0; l < L; ++l) sum += s[l];
  }
  for (; j < K; ++j) sum += x[j] * y[j];
  return sum;
#else
  Scalar sum = 0;
  for (int64_t j = 0; j < K; ++j) sum += x[j] * y[j];
  return sum;
#endif
}

/// The four dot products <x, y0>, ..., <x, y3> over K scalars with unit stride, computed together:
/// x is loaded once per chunk for all four, and the four accumulator chains are independent, so
/// a row of A's entries keeps the FMA units and the loads busy instead of waiting on one chain.
template <class Scalar>
SPROCKET_SDDMM_INLINE void dot4_contiguous(const Scalar* x, const Scalar* y0, const Scalar* y1, const Scalar* y2,
                                           const Scalar* y3, int64_t K, Scalar* sums) {
#if defined(__GNUC__) && !defined(__CUDACC__)
  using V = typename SddmmVec<Scalar>::type;
  constexpr int L = SddmmVec<Scalar>::lanes;
  V s0 = {}, s1 = {}, s2 = {}, s3 = {};
  int64_t j = 0;
  for (; j + L <= K; j += L) {
    V xv, v0, v1, v2, v3;
    std::memcpy(&xv, x + j, sizeof(V));
    std::memcpy(&v0, y0 + j, sizeof(V));
    std::memcpy(&v1, y1 + j, sizeof(V));
    std::memcpy(&v2, y2 + j, sizeof(V));
    std::memcpy(&v3, y3 + j, sizeof(V));
    s0 += xv * v0;
    s1 += xv * v1;
    s2 += xv * v2;
    s3 += xv * v3;
  }
  Scalar t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  for (int l = 0; l < L; ++l) {
    t0 += s0[l];
    t1 += s1[l];
    t2 += s2[l];
    t3 += s3[l];
  }
  for (; j < K; ++j) {
    t0 += x[j] * y0[j];
    t1 += x[j] * y1[j];
    t2 += x[j] * y2[j];
    t3 += x[j] * y3[j];
  }
  sums[0] = t0;
  sums[1] = t1;
  sums[2] = t2;
  sums[3] = t3;
#else
  for (int e = 0; e < 4; ++e) sums[e] = 0;
  for (int64_t j = 0; j < K; ++j) {
    sums[0] += x[j] * y0[j];
    sums[1] += x[j] * y1[j];
    sums[2] += x[j] * y2[j];
    sums[3] += x[j] * y3[j];
  }
#endif
}

/// <A(i, :), B(j, :)> through the args' strides (unit stride along K unless K is tiny).
template <class Scalar, class Ordinal, class Offset>
SPROCKET_SDDMM_INLINE Scalar dot_rows(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, const Scalar* ai, int64_t j) {
  const Scalar* bj = g.b + j * g.b_s0;
  if (g.a_s1 == 1 && g.b_s1 == 1) return dot_contiguous(ai, bj, g.K);
  Scalar sum = 0;
  for (int64_t c = 0; c < g.K; ++c) sum += ai[c * g.a_s1] * bj[c * g.b_s1];
  return sum;
}

template <class Scalar, class Ordinal, class Offset>
SPROCKET_SDDMM_INLINE void prefetch_row(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, int64_t j) {
#if defined(__GNUC__) || defined(__clang__)
  const char* p = reinterpret_cast<const char*>(g.b + j * g.b_s0);
  const int64_t bytes = std::min<int64_t>(g.K * static_cast<int64_t>(sizeof(Scalar)), 256);
  for (int64_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o);
#else
  (void)g;
  (void)j;
#endif
}

/// out(dst) from the dot product of S's entry src (src == dst except under aspt's permutation).
template <class Scalar, class Ordinal, class Offset>
SPROCKET_SDDMM_INLINE void store(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, int64_t dst, Scalar dot) {
  const Scalar w = g.values ? g.alpha * g.values[dst] : g.alpha;
  g.out[dst] = g.beta == Scalar(0) ? w * dot : w * dot + g.beta * g.out[dst];
}

/// nonzero_tiles: entries [k0, k1) in S's order.
template <class Scalar, class Ordinal, class Offset>
SPROCKET_SDDMM_INLINE void nonzeros_range_impl(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, int64_t k0, int64_t k1) {
  if (k0 >= k1) return;
  const int64_t pd = sddmm_prefetch_distance;
  if (g.row_indices) {
    for (int64_t k = k0; k < k1; ++k) {
      if (k + pd < k1) prefetch_row(g, g.entries[k + pd]);
      store(g, k, dot_rows(g, g.a + static_cast<int64_t>(g.row_indices[k]) * g.a_s0, g.entries[k]));
    }
    return;
  }
  // The row holding k0: the largest r with row_map[r] <= k0.
  int64_t r = std::upper_bound(g.row_map, g.row_map + g.num_rows + 1, static_cast<Offset>(k0)) - g.row_map - 1;
  for (int64_t k = k0; k < k1; ++r) {
    const int64_t end = std::min<int64_t>(k1, static_cast<int64_t>(g.row_map[r + 1]));
    const Scalar* ai = g.a + r * g.a_s0;
    if (g.a_s1 == 1 && g.b_s1 == 1) {
      // Four entries of the row at a time (dot4_contiguous), then the row's remainder.
      for (; k + 4 <= end; k += 4) {
        for (int64_t e = 0; e < 4; ++e)
          if (k + pd + e < k1) prefetch_row(g, g.entries[k + pd + e]);
        Scalar sums[4];
        dot4_contiguous(ai, g.b + static_cast<int64_t>(g.entries[k]) * g.b_s0,
                        g.b + static_cast<int64_t>(g.entries[k + 1]) * g.b_s0,
                        g.b + static_cast<int64_t>(g.entries[k + 2]) * g.b_s0,
                        g.b + static_cast<int64_t>(g.entries[k + 3]) * g.b_s0, g.K, sums);
        for (int64_t e = 0; e < 4; ++e) store(g, k + e, sums[e]);
      }
    }
    for (; k < end; ++k) {
      if (k + pd < k1) prefetch_row(g, g.entries[k + pd]);
      store(g, k, dot_rows(g, ai, g.entries[k]));
    }
  }
}

/// aspt: row panels [p0, p1), heavy tile by heavy tile, then the light entries.
template <class Scalar, class Ordinal, class Offset>
SPROCKET_SDDMM_INLINE void aspt_range_impl(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, int64_t p0, int64_t p1) {
  const int64_t P = g.panel_rows, n = g.num_rows, pd = sddmm_prefetch_distance;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t r0 = p * P, r1 = std::min(n, r0 + P);
    const int64_t t0 = g.panel_ptr[p], t1 = g.panel_ptr[p + 1];
    // Pass t over the panel's rows: entries of heavy tile t (t == t1: the light entries).
    for (int64_t t = t0; t <= t1; ++t) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t l = r - r0;
        const int64_t begin = t == t0 ? static_cast<int64_t>(g.row_map[r]) : g.tile_row_end[(t - 1) * P + l];
        const int64_t end = t == t1 ? static_cast<int64_t>(g.row_map[r + 1]) : g.tile_row_end[t * P + l];
        const Scalar* ai = g.a + r * g.a_s0;
        int64_t k = begin;
        if (g.a_s1 == 1 && g.b_s1 == 1) {
          for (; k + 4 <= end; k += 4) {
            // Heavy tiles' rows of B are in cache after the first row; the light ones are not.
            if (t == t1)
              for (int64_t e = 0; e < 4; ++e)
                if (k + pd + e < end) prefetch_row(g, g.tile_entries[k + pd + e]);
            Scalar sums[4];
            dot4_contiguous(ai, g.b + static_cast<int64_t>(g.tile_entries[k]) * g.b_s0,
                            g.b + static_cast<int64_t>(g.tile_entries[k + 1]) * g.b_s0,
                            g.b + static_cast<int64_t>(g.tile_entries[k + 2]) * g.b_s0,
                            g.b + static_cast<int64_t>(g.tile_entries[k + 3]) * g.b_s0, g.K, sums);
            for (int64_t e = 0; e < 4; ++e) store(g, static_cast<int64_t>(g.permutation[k + e]), sums[e]);
          }
        }
        for (; k < end; ++k) {
          if (t == t1 && k + pd < end) prefetch_row(g, g.tile_entries[k + pd]);
          store(g, static_cast<int64_t>(g.permutation[k]), dot_rows(g, ai, g.tile_entries[k]));
        }
      }
    }
  }
}

template <class Scalar, class Ordinal, class Offset>
void nonzeros_range_native(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, int64_t k0, int64_t k1) {
  nonzeros_range_impl(g, k0, k1);
}
template <class Scalar, class Ordinal, class Offset>
void aspt_range_native(const HostSddmmArgs<Scalar, Ordinal, Offset>& g, int64_t p0, int64_t p1) {
  aspt_range_impl(g, p0, p1);
}
#if defined(SPROCKET_HOST_AVX2_CLONE)
template <class Scalar, class Ordinal, class Offset>
__attribute__((target("avx2,fma"), noinline)) void nonzeros_range_avx2(const HostSddmmArgs<Scalar, Ordinal, Offset>& g,
                                                                        int64_t k0, int64_t k1) {
  nonzeros_range_impl(g, k0, k1);
}
template <class Scalar, class Ordinal, class Offset>
__attribute__((target("avx2,fma"), noinline)) void aspt_range_avx2(const HostSddmmArgs<Scalar, Ordinal, Offset>& g,
                                                                    int64_t p0, int64_t p1) {
  aspt_range_impl(g, p0, p1);
}
#endif

/// A row-major copy of a rank-2 View (blocks of 64 rows across threads, read column by column).
template <class ExecSpace, class Scalar, class View2>
void sddmm_pack_rows(const ExecSpace& space, const View2& X, Kokkos::View<Scalar*, typename View2::device_type>& packed,
                     const char* label) {
  const int64_t n = X.extent(0), K = X.extent(1);
  if (static_cast<int64_t>(packed.extent(0)) < n * K)
    packed = Kokkos::View<Scalar*, typename View2::device_type>(Kokkos::ViewAllocateWithoutInitializing(label), n * K);
  Scalar* dst = packed.data();
  constexpr int64_t block = 64;
  Kokkos::parallel_for(
      "Sprocket::sddmm::host_pack", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(
                                         space, 0, (n + block - 1) / block),
      [=](const int64_t bl) {
        const int64_t i0 = bl * block, i1 = std::min(n, i0 + block);
        for (int64_t j = 0; j < K; ++j)
          for (int64_t i = i0; i < i1; ++i) dst[i * K + j] = X(i, j);
      });
}

/// The host entry point (kernel: nonzero_tiles or aspt, already chosen by the dispatch).
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Device, class AView, class BView,
          class OutView>
void sddmm_apply(const ExecSpace& space, const SddmmAnalysis<Scalar, Ordinal, Offset, Device>& an, SddmmKernel kernel,
                 SddmmForm form, Scalar alpha, const AView& A, const BView& B, Scalar beta, const OutView& out) {
  HostSddmmArgs<Scalar, Ordinal, Offset> g{};
  const int64_t K = A.extent(1);
  g.K = K;
  g.num_rows = an.num_rows;
  g.alpha = alpha;
  g.beta = beta;
  g.values = form == SddmmForm::scaled ? an.values.data() : nullptr;
  g.out = out.data();
  // The operands with unit stride along K, copied if need be.
  const auto operand = [&](const auto& X, Kokkos::View<Scalar*, Device>& packed, const char* label, const Scalar*& p,
                           int64_t& s0, int64_t& s1) {
    if (X.stride(1) == 1 || K < sddmm_host_pack_columns) {
      p = X.data();
      s0 = static_cast<int64_t>(X.stride(0));
      s1 = K == 1 ? 1 : static_cast<int64_t>(X.stride(1));
    } else {
      sddmm_pack_rows<ExecSpace, Scalar>(space, X, packed, label);
      p = packed.data();
      s0 = K;
      s1 = 1;
    }
  };
  operand(A, an.workspace.packed_a, "Sprocket::sddmm::packed_A", g.a, g.a_s0, g.a_s1);
  operand(B, an.workspace.packed_b, "Sprocket::sddmm::packed_B", g.b, g.b_s0, g.b_s1);
  // out is contiguous (the plan checks it): the kernels write out.data()[k].
  const bool avx2 = host_has_avx2_fma();
  (void)avx2;
  if (kernel == SddmmKernel::aspt) {
    const auto& T = an.tiles;
    g.row_map = an.row_map.data();
    g.permutation = T.permutation.data();
    g.tile_entries = T.entries.data();
    g.panel_ptr = T.panel_ptr.data();
    g.tile_row_end = T.tile_row_end.data();
    g.panel_rows = T.panel_rows;
    const int64_t* bounds = an.panel_parts.data();
    Kokkos::parallel_for(
        "Sprocket::sddmm::host_aspt",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, an.num_panel_parts),
        [=](const int64_t part) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
          if (avx2) return aspt_range_avx2(g, bounds[part], bounds[part + 1]);
#endif
          aspt_range_native(g, bounds[part], bounds[part + 1]);
        });
  } else {
    g.row_map = an.coo ? nullptr : an.row_map.data();
    g.row_indices = an.coo ? an.row_indices.data() : nullptr;
    g.entries = an.entries.data();
    const int64_t* bounds = an.parts.data();
    Kokkos::parallel_for(
        "Sprocket::sddmm::host_nonzero_tiles",
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, an.num_parts),
        [=](const int64_t part) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
          if (avx2) return nonzeros_range_avx2(g, bounds[part], bounds[part + 1]);
#endif
          nonzeros_range_native(g, bounds[part], bounds[part + 1]);
        });
  }
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
