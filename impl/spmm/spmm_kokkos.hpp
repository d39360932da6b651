#pragma once
// Portable Kokkos SpMM (Backend::portable, on any execution space; the only kernel is csr_rows):
// a team per block of rows, the team's threads over the rows (TeamThreadRange), vector lanes
// along K (ThreadVectorRange), so on a GPU a warp's lanes read consecutive columns of B's row
// (coalesced for LayoutRight) and on a CPU the lane loop is the vectorizable inner loop. Ignores
// the tiles: plain CSR over the analysis's (reordered) entries. Also scaling C alone, which the
// dispatch runs for alpha == 0 or a matrix without entries on every backend.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "impl/spmm/spmm_analysis.hpp"

namespace Sprocket {
namespace Impl {

/// C = beta * C for a rank-2 View (beta == 0 writes zeros without reading C).
template <class ExecSpace, class CView, class Scalar>
void spmm_scale_only(const ExecSpace& space, Scalar beta, const CView& C) {
  const int64_t K = C.extent(1);
  Kokkos::parallel_for(
      "Sprocket::spmm::scale_only", Kokkos::RangePolicy<ExecSpace>(space, 0, C.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) {
        for (int64_t j = 0; j < K; ++j) C(i, j) = beta == Scalar(0) ? Scalar(0) : beta * C(i, j);
      });
}

namespace kokkos {

/// C = alpha * A * B + beta * C, A the analysis's reordered copy, B and C rank 2 (any layout).
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Device, class BView, class CView>
void spmm_apply(const ExecSpace& space, const SpmmAnalysis<Scalar, Ordinal, Offset, Device>& L, Scalar alpha,
                const BView& B, Scalar beta, const CView& C) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int64_t n = L.num_rows, K = C.extent(1);
  if (n == 0 || K == 0) return;
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  // GPU: up to a warp of lanes along K, 128 threads per team, a row per thread group. CPU: one
  // lane (the lane loop vectorizes), 64 rows per team so a team amortizes its scheduling.
  int vector_length = 1;
  if (gpu)
    while (vector_length < 32 && vector_length < K) vector_length *= 2;
  const int team_size = gpu ? std::max(1, 128 / vector_length) : 1;
  const int64_t rows_per_team = gpu ? team_size : 64;
  const int64_t league = (n + rows_per_team - 1) / rows_per_team;
  const auto row_map = L.row_map;
  const auto entries = L.entries;
  const auto values = L.values;
  Kokkos::parallel_for(
      "Sprocket::spmm::portable", Policy(space, league, team_size, vector_length),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t first = team.league_rank() * rows_per_team;
        const int64_t last = first + rows_per_team < n ? first + rows_per_team : n;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const int64_t r) {
          const int64_t begin = row_map(r), end = row_map(r + 1);
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int64_t j) {
            Scalar sum = 0;
            for (int64_t k = begin; k < end; ++k) sum += values(k) * B(entries(k), j);
            C(r, j) = beta == Scalar(0) ? alpha * sum : beta * C(r, j) + alpha * sum;
          });
        });
      });
}

}  // namespace kokkos
}  // namespace Impl
}  // namespace Sprocket
