#pragma once
// Portable Kokkos SDDMM (Backend::portable, on any execution space; its only kernel is
// nonzero_tiles): a team per tile of consecutive nonzeros (analysis tile_nonzeros: a few dozen
// on a GPU, 512 on a CPU), the team's threads over the tile's entries (TeamThreadRange), vector
// lanes along K reducing the dot product (ThreadVectorRange), so on a GPU a warp's lanes read
// consecutive columns of A's and B's rows and on a CPU the lane loop is the vectorizable inner
// loop. CSR rows are found from the tile's first row (analysis) by walking / searching the row
// map within the tile's rows; COO rows are read. (Scaling out alone, for alpha == 0 or K == 0 on
// every backend, is impl/common/scale_only.hpp's.)
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "impl/sddmm/sddmm_analysis.hpp"

namespace Sprocket {
namespace Impl {

/// The row holding entry k among rows [lo, hi] of a CSR row map (row_map(lo) <= k <
/// row_map(hi + 1) must hold): the largest r in [lo, hi] with row_map(r) <= k.
template <class RowMap>
KOKKOS_INLINE_FUNCTION int64_t sddmm_row_of(const RowMap& row_map, int64_t k, int64_t lo, int64_t hi) {
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (static_cast<int64_t>(row_map(mid)) <= k) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

namespace kokkos {

/// out(k) = alpha * w(k) * <A(row(k), :), B(col(k), :)> + beta * out(k), any layouts.
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Device, class AView, class BView,
          class OutView>
void sddmm_apply(const ExecSpace& space, const SddmmAnalysis<Scalar, Ordinal, Offset, Device>& an, SddmmForm form,
                 Scalar alpha, const AView& A, const BView& B, Scalar beta, const OutView& out) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int64_t K = A.extent(1), nnz = an.nnz, T = an.tile_nonzeros, num_rows = an.num_rows;
  if (nnz == 0) return;
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  int vector_length = 1;
  if (gpu)
    while (vector_length < 32 && vector_length < K) vector_length *= 2;
  const int team_size = gpu ? std::max(1, 128 / vector_length) : 1;
  const bool coo = an.coo, scaled = form == SddmmForm::scaled;
  const auto row_map = an.row_map;
  const auto row_indices = an.row_indices;
  const auto first_row = an.tile_first_row;
  const auto entries = an.entries;
  const auto values = an.values;
  Kokkos::parallel_for(
      "Sprocket::sddmm::portable", Policy(space, an.num_tiles, team_size, vector_length),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t t = team.league_rank();
        const int64_t k0 = t * T, k1 = k0 + T < nnz ? k0 + T : nnz;
        // Rows of the tile: [first_row(t), first_row(t + 1)] (clamped to the last row).
        const int64_t lo = coo ? 0 : static_cast<int64_t>(first_row(t));
        const int64_t hi_bound = coo ? 0 : static_cast<int64_t>(first_row(t + 1));
        const int64_t hi = hi_bound < num_rows - 1 ? hi_bound : num_rows - 1;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k0, k1), [&](const int64_t k) {
          const int64_t i = coo ? static_cast<int64_t>(row_indices(k)) : sddmm_row_of(row_map, k, lo, hi);
          const int64_t j = entries(k);
          Scalar dot = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, K), [&](const int64_t c, Scalar& sum) { sum += A(i, c) * B(j, c); },
              dot);
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            const Scalar w = scaled ? alpha * values(k) : alpha;
            out(k) = beta == Scalar(0) ? w * dot : w * dot + beta * out(k);
          });
        });
      });
}

}  // namespace kokkos
}  // namespace Impl
}  // namespace Sprocket
