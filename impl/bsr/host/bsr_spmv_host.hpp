#pragma once
// Host (OpenMP / Serial) BSR SpMV: the paper's single-level algorithm. Each host thread owns a
// contiguous range of block rows balanced by stored blocks (built at analysis) and keeps a
// b-length accumulator for the block row in registers. For every block it loads the b entries of
// x once and forms each row's b-term dot product separately before adding it to the row's
// accumulator, so the accumulator chains grow by one add per block instead of b (the FMA latency
// chain is what bounds short rows on the CI machine's cores). Block sizes up to 8 are
// compile-time constants (fully unrolled); larger ones use a runtime loop.
//
// host_padded reads a private copy of the values in which every block row is padded to a
// multiple of 8 scalars, so each row of each block starts on a 64-byte boundary (the paper's
// padded variant for aligned SIMD loads).
//
// Both run an AVX2 + FMA copy of the block-row loop when the CPU has them (impl/utils/host_isa.hpp),
// for when memory is not the limit: on the 2-core CI machine while its memory system was fast
// (triad 55 GB/s), a -march=native build ran elasticity dof 6 in 6.9 ms instead of 10.5 ms (the
// 6-term dots become vector FMAs; dof 3 unchanged); at triad 30 GB/s both run at the bandwidth
// limit, 1.45x Kokkos Kernels' CSR, which is the ratio of the bytes.
#include <Kokkos_Core.hpp>

#include "impl/utils/host_isa.hpp"

namespace Sprocket {
namespace Impl {
namespace host {

/// Block rows [I0, I1): values of block k row r at values[k * block_stride + r * row_stride],
/// row_stride = b, or b rounded up to 8 when Padded. Both are compile-time constants for B > 0,
/// so the unrolled block reads use constant offsets.
template <int B, bool Padded, class BsrType, class Value, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void bsr_block_rows(const BsrType& A, int runtime_b, const Value* __restrict values,
                                                int64_t I0, int64_t I1, Scalar alpha, const XView& x, Scalar beta,
                                                const YView& y) {
  constexpr int capacity = B > 0 ? B : 32;
  const int b = B > 0 ? B : runtime_b;
  const int64_t row_stride = Padded ? (b + 7) / 8 * 8 : b;
  const int64_t block_stride = b * row_stride;
  const auto* row_map = A.row_map.data();
  const auto* entries = A.entries.data();
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

template <bool Padded, class BsrType, class Value, class XView, class YView, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void bsr_block_rows_any(const BsrType& A, const Value* values, int64_t I0, int64_t I1,
                                                    Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  const int b = A.block_size();
  switch (b) {
    case 1: return bsr_block_rows<1, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 2: return bsr_block_rows<2, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 3: return bsr_block_rows<3, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 4: return bsr_block_rows<4, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 5: return bsr_block_rows<5, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 6: return bsr_block_rows<6, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 7: return bsr_block_rows<7, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    case 8: return bsr_block_rows<8, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
    default: return bsr_block_rows<0, Padded>(A, b, values, I0, I1, alpha, x, beta, y);
  }
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
template <bool Padded, class BsrType, class Value, class XView, class YView, class Scalar>
__attribute__((target("avx2,fma"), noinline)) void bsr_block_rows_avx2(const BsrType& A, const Value* values,
                                                                        int64_t I0, int64_t I1, Scalar alpha,
                                                                        const XView& x, Scalar beta, const YView& y) {
  bsr_block_rows_any<Padded>(A, values, I0, I1, alpha, x, beta, y);
}
#endif

/// One part's block rows, with the AVX2 + FMA copy when `avx2`.
template <bool Padded, class BsrType, class Value, class XView, class YView, class Scalar>
inline void bsr_part(bool avx2, const BsrType& A, const Value* values, int64_t I0, int64_t I1, Scalar alpha,
                     const XView& x, Scalar beta, const YView& y) {
#if defined(SPROCKET_HOST_AVX2_CLONE)
  if (avx2) return bsr_block_rows_avx2<Padded>(A, values, I0, I1, alpha, x, beta, y);
#endif
  (void)avx2;
  bsr_block_rows_any<Padded>(A, values, I0, I1, alpha, x, beta, y);
}

/// parts: block rows [parts(p), parts(p + 1)) for part p; use_padded: read `padded` (rows of
/// blocks padded to multiples of 8 scalars) instead of A's values.
template <class ExecSpace, class BsrType, class Parts, class Padded, class XView, class YView, class Scalar>
void bsr_spmv(const ExecSpace& space, const BsrType& A, const Parts& parts, const Padded& padded, bool use_padded,
              Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  const auto* values = A.values.data();
  const auto* padded_values = padded.data();
  const bool avx2 = host_has_avx2_fma();
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::host", Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>(space, 0, parts.extent(0) - 1),
      KOKKOS_LAMBDA(const int64_t p) {
        if (use_padded)
          bsr_part<true>(avx2, A, padded_values, parts(p), parts(p + 1), alpha, x, beta, y);
        else
          bsr_part<false>(avx2, A, values, parts(p), parts(p + 1), alpha, x, beta, y);
      });
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
