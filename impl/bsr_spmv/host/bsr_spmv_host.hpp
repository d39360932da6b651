#pragma once
// Host (OpenMP / Serial) BSR SpMV: the paper's single-level algorithm. Each host thread owns a
// contiguous range of block rows balanced by stored blocks (built at analysis) and keeps a
// b-length accumulator for the block row in registers. For every block it loads the b entries of
// x once and forms each row's b-term dot product separately before adding it to the row's
// accumulator, so the accumulator chains grow by one add per block instead of b (the FMA latency
// chain is what bounds short rows on the CI machine's cores). Block sizes up to 8 are
// compile-time constants (fully unrolled); larger ones use a runtime loop.
//
// padded reads a private copy of the values in which every block row is padded to a
// multiple of 8 scalars, so each row of each block starts on a 64-byte boundary (the paper's
// padded variant for aligned SIMD loads).
//
// symmetric (BsrSpmvOptions::symmetric) reads only the diagonal and upper blocks of a
// symmetric matrix and applies each upper block twice, as itself and as its transpose: about half
// the value bytes of the general kernels, which is what a bandwidth-bound BSR SpMV pays for.
//
// All three run an AVX2 + FMA copy of the block-row loop when the CPU has them (impl/utils/host_isa.hpp),
// for when memory is not the limit: the b-term dots become vector FMAs (measurements:
// perf_tests/results/bsr-host-2026-11-21.md).
//
// Below the parallel region the kernels take pointers and HostVectors, not the matrix's and the
// vectors' Kokkos types, which name the execution space: the OpenMP and Serial plans the library
// compiles together share one copy of each part kernel (impl/utils/host_vector.hpp).
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/utils/host_isa.hpp"
#include "impl/utils/host_vector.hpp"

namespace Sprocket {
namespace Impl {
namespace host {

/// Block rows [I0, I1): values of block k row r at values[k * block_stride + r * row_stride],
/// row_stride = b, or b rounded up to 8 when Padded. Both are compile-time constants for B > 0,
/// so the unrolled block reads use constant offsets.
template <int B, bool Padded, class Offset, class Ordinal, class Value, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void bsr_block_rows(int runtime_b, const Offset* row_map, const Ordinal* entries,
                                                const Value* __restrict values, int64_t I0, int64_t I1, Scalar alpha,
                                                const XView& x, Scalar beta, const YView& y) {
  constexpr int capacity = B > 0 ? B : 32;
  const int b = B > 0 ? B : runtime_b;
  const int64_t row_stride = Padded ? (b + 7) / 8 * 8 : b;
  const int64_t block_stride = b * row_stride;
  for (int64_t I = I0; I < I1; ++I) {
    Scalar acc[capacity];
    for (int r = 0; r < b; ++r) acc[r] = Scalar(0);
    for (int64_t k = row_map[I]; k < int64_t(row_map[I + 1]); ++k) {
      const int64_t col = int64_t(entries[k]) * b;
      Scalar xs[capacity];
      for (int c = 0; c < b; ++c) xs[c] = Scalar(x(col + c));
      const Value* block = values + k * block_stride;
      for (int r = 0; r < b; ++r) {
        Scalar dot = Scalar(0);
        for (int c = 0; c < b; ++c) dot += Scalar(block[r * row_stride + c]) * xs[c];
        acc[r] += dot;
      }
    }
    const int64_t row = I * b;
    if (beta == Scalar(0))
      for (int r = 0; r < b; ++r) y(row + r) = alpha * acc[r];
    else
      for (int r = 0; r < b; ++r) y(row + r) = beta * y(row + r) + alpha * acc[r];
  }
}

/// Block rows [I0, I1) of the symmetric kernel. A equals its transpose (checked at
/// analysis); row_map / entries / values hold, packed contiguously, only each block row's diagonal
/// block and the blocks right of it (about half of A's blocks). Each such block A(I, J) adds
/// A(I, J) x_J to y_I and, when J != I, A(I, J)^T (alpha x_I) to y_J, which stands for the unread
/// block A(J, I) = A(I, J)^T. y_J is this part's own row when J < I1; later rows belong to later
/// parts, so their share goes to this part's `spill` (block row J at spill[(J - I1) * b]) and is
/// added after every part has finished. The part's y rows were scaled by beta and its spill
/// zeroed before (see SymmetricRows).
template <int B, class Offset, class Ordinal, class Value, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void bsr_symmetric_block_rows(int runtime_b, const Offset* row_map, const Ordinal* entries,
                                                          const Value* __restrict values, int64_t I0, int64_t I1,
                                                          Scalar alpha, const XView& x, const YView& y,
                                                          Scalar* __restrict spill) {
  constexpr int capacity = B > 0 ? B : 32;
  const int b = B > 0 ? B : runtime_b;
  const int64_t block_stride = int64_t{b} * b;
  for (int64_t I = I0; I < I1; ++I) {
    const int64_t row = I * b;
    Scalar ax[capacity], acc[capacity];
    for (int r = 0; r < b; ++r) {
      ax[r] = alpha * Scalar(x(row + r));
      acc[r] = Scalar(0);
    }
    for (int64_t k = int64_t(row_map[I]); k < int64_t(row_map[I + 1]); ++k) {
      const int64_t J = entries[k], col = J * b;
      const Value* block = values + k * block_stride;
      Scalar xs[capacity];
      for (int c = 0; c < b; ++c) xs[c] = Scalar(x(col + c));
      for (int r = 0; r < b; ++r) {
        Scalar dot = Scalar(0);
        for (int c = 0; c < b; ++c) dot += Scalar(block[r * b + c]) * xs[c];
        acc[r] += dot;
      }
      if (J == I) continue;
      Scalar t[capacity];
      for (int c = 0; c < b; ++c) t[c] = Scalar(0);
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) t[c] += Scalar(block[r * b + c]) * ax[r];
      if (J < I1) {
        for (int c = 0; c < b; ++c) y(col + c) += t[c];
      } else {
        Scalar* s = spill + (J - I1) * b;
        for (int c = 0; c < b; ++c) s[c] += t[c];
      }
    }
    for (int r = 0; r < b; ++r) y(row + r) += alpha * acc[r];
  }
}

/// One part of the general kernels (block_row, padded): rows<B>() runs its block rows
/// with block size B (0: runtime).
template <bool Padded, class Offset, class Ordinal, class Value, class XView, class YView, class Scalar>
struct GeneralRows {
  int b;
  const Offset* row_map;
  const Ordinal* entries;
  const Value* values;
  int64_t I0, I1;
  Scalar alpha;
  const XView& x;
  Scalar beta;
  const YView& y;

  template <int B>
  KOKKOS_FORCEINLINE_FUNCTION void rows() const {
    bsr_block_rows<B, Padded>(b, row_map, entries, values, I0, I1, alpha, x, beta, y);
  }
};

/// One part of the symmetric kernel: scales the part's y rows by beta (beta == 0 writes zeros without
/// reading y) and zeroes its spill, then runs its block rows.
template <class Offset, class Ordinal, class Value, class XView, class YView, class Scalar>
struct SymmetricRows {
  int b;
  const Offset* row_map;
  const Ordinal* entries;
  const Value* values;
  int64_t I0, I1;
  Scalar alpha;
  const XView& x;
  Scalar beta;
  const YView& y;
  Scalar* spill;
  int64_t spill_size;

  template <int B>
  KOKKOS_FORCEINLINE_FUNCTION void rows() const {
    for (int64_t row = I0 * b; row < I1 * b; ++row) y(row) = beta == Scalar(0) ? Scalar(0) : beta * y(row);
    for (int64_t i = 0; i < spill_size; ++i) spill[i] = Scalar(0);
    bsr_symmetric_block_rows<B>(b, row_map, entries, values, I0, I1, alpha, x, y, spill);
  }
};

/// body.rows<B>() with B = b for b <= 8 (compile-time block size: fully unrolled loops, constant
/// offsets) and B = 0 (runtime b) above.
template <class Body>
KOKKOS_FORCEINLINE_FUNCTION void with_block_size(int b, const Body& body) {
  switch (b) {
    case 1: return body.template rows<1>();
    case 2: return body.template rows<2>();
    case 3: return body.template rows<3>();
    case 4: return body.template rows<4>();
    case 5: return body.template rows<5>();
    case 6: return body.template rows<6>();
    case 7: return body.template rows<7>();
    case 8: return body.template rows<8>();
    default: return body.template rows<0>();
  }
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
// The bodies' rows<B>() are force-inlined, so all of a part's arithmetic is compiled for AVX2 + FMA here.
template <class Body>
__attribute__((target("avx2,fma"), noinline)) void with_block_size_avx2(int b, const Body& body) {
  with_block_size(b, body);
}
#endif

/// One part, with the AVX2 + FMA copy when `avx2`. Marked like the bodies it runs because nvcc
/// compiles the calling KOKKOS_LAMBDA for the device too (never run there; a plain inline function
/// draws nvcc's "calling a __host__ function from a __host__ __device__ function" warning); the
/// clone only exists outside nvcc.
template <class Body>
KOKKOS_INLINE_FUNCTION void run_part(bool avx2, int b, const Body& body) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
  if (avx2) return with_block_size_avx2(b, body);
#endif
  (void)avx2;
  with_block_size(b, body);
}

/// parts: block rows [parts(p), parts(p + 1)) for part p; use_padded: read `padded` (rows of
/// blocks padded to multiples of 8 scalars) instead of A's values.
template <class ExecSpace, class BsrType, class Parts, class Padded, class XVector, class YVector, class Scalar>
void bsr_spmv_general(const ExecSpace& space, const BsrType& A, const Parts& parts, const Padded& padded, bool use_padded,
              Scalar alpha, const XVector& xv, Scalar beta, const YVector& yv) {
  const auto* row_map = A.row_map.data();
  const auto* entries = A.entries.data();
  const auto* values = A.values.data();
  const auto* padded_values = padded.data();
  const bool avx2 = host_has_avx2_fma();
  const int b = A.block_size();
  using Offset = std::remove_const_t<std::remove_pointer_t<decltype(row_map)>>;
  using Ordinal = std::remove_const_t<std::remove_pointer_t<decltype(entries)>>;
  using Value = std::remove_const_t<std::remove_pointer_t<decltype(values)>>;
  using PaddedValue = std::remove_const_t<std::remove_pointer_t<decltype(padded_values)>>;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::host", host_dynamic_policy(space, int64_t(parts.extent(0)) - 1),
      KOKKOS_LAMBDA(const int64_t p) {
        if (use_padded)
          run_part(avx2, b, GeneralRows<true, Offset, Ordinal, PaddedValue, XVector, YVector, Scalar>{
                                b, row_map, entries, padded_values, parts(p), parts(p + 1), alpha, xv, beta, yv});
        else
          run_part(avx2, b, GeneralRows<false, Offset, Ordinal, Value, XVector, YVector, Scalar>{
                                b, row_map, entries, values, parts(p), parts(p + 1), alpha, xv, beta, yv});
      });
}

/// symmetric: y = alpha A x + beta y reading only the packed diagonal and upper blocks
/// (work.upper_*; A == A^T, so mode T is the same product). work.parts as above; part p's spill
/// holds block rows [parts(p + 1), reach(p)) at spill(spill_offset(p)), b scalars each. Two
/// passes: every part its own block rows, then every part adds the earlier parts' spills that
/// fall into its rows (in part order, so the sums do not depend on the thread schedule). The
/// spill is this apply's own (a few scalars per part boundary), so applies may overlap.
template <class ExecSpace, class Work, class XVector, class YVector, class Scalar>
void bsr_spmv_symmetric(const ExecSpace& space, int b, const Work& work, Scalar alpha, const XVector& xv, Scalar beta,
                        const YVector& yv) {
  const bool avx2 = host_has_avx2_fma();
  const auto* row_map = work.upper_row_map.data();
  const auto* entries = work.upper_entries.data();
  const auto* values = work.upper_values.data();
  using Offset = std::remove_const_t<std::remove_pointer_t<decltype(row_map)>>;
  using Ordinal = std::remove_const_t<std::remove_pointer_t<decltype(entries)>>;
  using Value = std::remove_const_t<std::remove_pointer_t<decltype(values)>>;
  const Kokkos::View<Scalar*, typename ExecSpace::memory_space> spill_view(
      Kokkos::ViewAllocateWithoutInitializing("Sprocket::bsr_spmv::spill"), work.spill_size);
  Scalar* spill = spill_view.data();
  const auto parts = work.parts, reach = work.reach, spill_offset = work.spill_offset;
  const int64_t num_parts = int64_t(parts.extent(0)) - 1;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::host_symmetric", host_dynamic_policy(space, num_parts), KOKKOS_LAMBDA(const int64_t p) {
        run_part(avx2, b, SymmetricRows<Offset, Ordinal, Value, XVector, YVector, Scalar>{
                              b, row_map, entries, values, parts(p), parts(p + 1), alpha, xv, beta, yv,
                              spill + spill_offset(p), spill_offset(p + 1) - spill_offset(p)});
      });
  if (num_parts < 2) return;  // one part owns every row: nothing spilled
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::host_symmetric_spills", host_dynamic_policy(space, num_parts), KOKKOS_LAMBDA(const int64_t p) {
        const int64_t I0 = parts(p), I1 = parts(p + 1);
        for (int64_t q = 0; q < p; ++q) {
          const int64_t first = parts(q + 1), lo = first > I0 ? first : I0, hi = reach(q) < I1 ? reach(q) : I1;
          const Scalar* s = spill + spill_offset(q);
          for (int64_t i = lo * b; i < hi * b; ++i) yv(i) += s[i - first * b];
        }
      });
}

/// Backend::native on a host space: block_row, padded (the analysis's parts; padded reads its
/// padded copy) or symmetric (the packed copy and spills).
template <class ExecSpace, class BsrType, class XView, class YView, class Scalar>
void bsr_spmv_apply(const ExecSpace& space, const BsrSpmvAnalysis<BsrType>& an, Scalar alpha, const XView& x,
                    Scalar beta, const YView& y) {
  const auto xv = host_vector</*ReadOnly=*/true>(x);
  const auto yv = host_vector(y);
  if (an.kernel == BsrKernel::symmetric) return bsr_spmv_symmetric(space, an.A.block_size(), an, alpha, xv, beta, yv);
  bsr_spmv_general(space, an.A, an.parts, an.padded, an.kernel == BsrKernel::padded, alpha, xv, beta, yv);
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
