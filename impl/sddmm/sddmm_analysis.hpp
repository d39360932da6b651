#pragma once
// What an SddmmPlan computes once (declared in Sprocket_Sddmm.hpp; include that header first):
// S's pattern as every backend reads it, the tiles of consecutive nonzeros with the row each
// tile starts in, the host threads' nnz-balanced parts, and optionally the ASpT analysis of
// SpMM (impl/spmm/spmm_analysis.hpp), shared with an SpmmPlan. Gathered in Impl::SddmmAnalysis:
// the one struct every backend's sddmm_apply reads (host/sddmm_host.hpp, cuda/sddmm_cuda.hpp,
// sddmm_kokkos.hpp). The kernel of an apply is chosen by sddmm_choose_kernel (it depends on K).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Operator.hpp"
#include "Sprocket_Sddmm.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/spmm/spmm_analysis.hpp"

namespace Sprocket {
namespace Impl {

/// Workspaces grown by the first apply that needs them (so such applies on one plan must not run
/// concurrently): row-major copies of a LayoutLeft A and B (host), and the per-entry partial dot
/// products of the CUDA aspt kernel (one per nonzero, in the ASpT order).
template <class Scalar, class Device>
struct SddmmWorkspace {
  Kokkos::View<Scalar*, Device> packed_a, packed_b;
  Kokkos::View<Scalar*, Device> partial;

  // A copy starts empty (grown again by its first apply): copies of a plan never share it
  // (Sprocket_Operator.hpp, "Copies"); a move keeps it.
  SddmmWorkspace() = default;
  KOKKOS_FUNCTION SddmmWorkspace(const SddmmWorkspace&) {}
  SddmmWorkspace(SddmmWorkspace&&) = default;
  KOKKOS_FUNCTION SddmmWorkspace& operator=(const SddmmWorkspace& other) {
    if (this != &other) packed_a = packed_b = partial = Kokkos::View<Scalar*, Device>();
    return *this;
  }
  SddmmWorkspace& operator=(SddmmWorkspace&&) = default;
  ~SddmmWorkspace() = default;
};

/// Everything an apply reads, on the plan's device.
///
/// Entry k of S (k in [0, nnz), S's own order) is (row(k), entries(k)) with value values(k); the
/// output out(k) belongs to the same entry. row(k): row_indices(k) for COO; for CSR the row r
/// with row_map(r) <= k < row_map(r + 1), found from tile_first_row: tile t holds the entries
/// [t * tile_nonzeros, min(nnz, (t + 1) * tile_nonzeros)) and starts in row tile_first_row(t),
/// so a kernel walks the row map from there (tile_first_row has num_tiles + 1 entries, the last
/// num_rows, so tile t's rows are within [tile_first_row(t), tile_first_row(t + 1)]).
template <class Scalar, class Ordinal, class Offset, class Device>
struct SddmmAnalysis {
  Backend backend = Backend::portable;  ///< native or portable, never automatic
  SddmmKernel requested = SddmmKernel::automatic;
  bool coo = false;
  int64_t num_rows = 0, num_cols = 0, nnz = 0;
  Kokkos::View<const Offset*, Device> row_map;       ///< CSR (num_rows + 1); empty for COO
  Kokkos::View<const Ordinal*, Device> row_indices;  ///< COO (nnz); empty for CSR
  Kokkos::View<const Ordinal*, Device> entries;      ///< S's columns (nnz)
  Kokkos::View<const Scalar*, Device> values;        ///< S's values (nnz), read at every apply

  // nonzero_tiles.
  int64_t tile_nonzeros = sddmm_default_tile_nonzeros;  ///< the backend's tile (CUDA: Ts)
  int64_t num_tiles = 0;
  Kokkos::View<const Ordinal*, Device> tile_first_row;  ///< CSR: num_tiles + 1; empty for COO
  int num_parts = 0;                                    ///< host native: parts has num_parts + 1
  Kokkos::View<const int64_t*, Device> parts;           ///< host: nnz-balanced entry ranges

  // aspt (has_tiles: an ASpT analysis exists; tiles.kernel is whatever SpMM chose and unused here).
  bool has_tiles = false;
  bool tiles_shared = false;  ///< taken from an SpmmPlan rather than built by the plan
  SpmmAnalysis<Scalar, Ordinal, Offset, Device> tiles;
  SpmmTiling tiling;                               ///< the tiling of `tiles`
  double heavy_fraction = 0;                       ///< of the nonzeros, in heavy tiles
  int64_t aspt_min_k = sddmm_default_aspt_min_k;   ///< automatic: aspt from this K on
  int num_panel_parts = 0;                         ///< host native aspt: panel_parts has num + 1
  Kokkos::View<const int64_t*, Device> panel_parts;  ///< host: row panels balanced by entries

  mutable SddmmWorkspace<Scalar, Device> workspace;
};

/// The kernel an apply with K columns runs and why (for describe() and the bench): forced, or
/// automatic: aspt when the plan has the tiles, K >= aspt_min_k and the heavy fraction reaches
/// the tiling's min_heavy_fraction; nonzero_tiles otherwise.
template <class Analysis>
SddmmKernel sddmm_choose_kernel(const Analysis& a, int64_t K, std::string* why = nullptr) {
  if (a.requested != SddmmKernel::automatic) {
    if (why) *why = "forced";
    return a.requested;
  }
  std::ostringstream os;
  SddmmKernel k = SddmmKernel::nonzero_tiles;
  if (a.backend == Backend::portable) {
    os << "automatic: the portable backend's only kernel";
  } else if (!a.has_tiles) {
    os << "automatic: no ASpT analysis (construct from an SpmmPlan or set build_tiles for aspt)";
  } else if (a.aspt_min_k == sddmm_aspt_never) {
    os << "automatic: on the host nonzero_tiles serves heavy columns from cache as well as aspt (set "
          "SddmmOptions::aspt_min_k to allow aspt)";
  } else if (K < a.aspt_min_k) {
    os << "automatic: K = " << K << " < " << a.aspt_min_k << ", a row of B too short for tiles to pay";
  } else {
    const bool aspt = a.heavy_fraction > 0 && a.heavy_fraction >= a.tiling.min_heavy_fraction;
    os << "automatic: " << std::fixed << std::setprecision(1) << 100.0 * a.heavy_fraction
       << "% of the nonzeros in heavy tiles, " << (aspt ? ">= " : "< ") << 100.0 * a.tiling.min_heavy_fraction
       << "% needed for aspt";
    if (aspt) k = SddmmKernel::aspt;
  }
  if (why) *why = os.str();
  return k;
}

/// Nonzeros per team of the portable kernel: on a GPU a team of lanes over a few dozen entries,
/// on a CPU a chunk large enough to amortize a team's scheduling.
template <class ExecSpace>
inline constexpr int64_t sddmm_portable_tile_nonzeros =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 512 : 64;

/// out(t) = the row holding entry t * T for t < num_tiles (the largest r with row_map(r) <= t * T:
/// rows before it that end at t * T are empty or finished), out(num_tiles) = num_rows.
template <class ExecSpace, class RowMap, class Out>
void sddmm_tile_first_rows(const ExecSpace& space, const RowMap& row_map, int64_t num_rows, int64_t T,
                           int64_t num_tiles, const Out& out) {
  Kokkos::parallel_for(
      "Sprocket::sddmm::tile_first_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, num_tiles + 1),
      KOKKOS_LAMBDA(const int64_t t) {
        if (t == num_tiles) {
          out(t) = static_cast<typename Out::value_type>(num_rows);
          return;
        }
        const int64_t k = t * T;
        int64_t lo = 0, hi = num_rows - 1;
        while (lo < hi) {
          const int64_t mid = (lo + hi + 1) / 2;
          if (static_cast<int64_t>(row_map(mid)) <= k) lo = mid;
          else hi = mid - 1;
        }
        out(t) = static_cast<typename Out::value_type>(lo);
      });
}

/// Throws InvalidArgument when `kernel` is not an SddmmKernel, or is forced where it cannot run:
/// aspt on the portable backend or on a COO S.
inline void sddmm_check_kernel(SddmmKernel kernel, Backend resolved, bool coo, const std::string& space) {
  SPROCKET_REQUIRE(kernel == SddmmKernel::automatic ||
                       (static_cast<int>(kernel) >= 0 && static_cast<int>(kernel) < num_sddmm_kernels),
                   "SddmmPlan: SddmmOptions::kernel = ", static_cast<int>(kernel), " is not an SddmmKernel");
  SPROCKET_REQUIRE(!(kernel == SddmmKernel::aspt && resolved == Backend::portable),
                   "SddmmPlan: kernel aspt is not available on Backend::portable (execution space ", space,
                   "); the portable backend runs nonzero_tiles only, aspt needs Backend::native on a host or CUDA space");
  SPROCKET_REQUIRE(!(kernel == SddmmKernel::aspt && coo),
                   "SddmmPlan: kernel aspt needs S in CSR (its row panels); a COO S runs nonzero_tiles");
}

/// The pattern-independent parts of the analysis: options checked, tile size and parts.
/// row_map / row_indices, entries and values must be set; fills the tiles of consecutive nonzeros
/// and, for native host kernels, the threads' parts.
template <class ExecSpace, class Analysis>
void sddmm_analyse_nonzeros(Analysis& S, const SddmmOptions& options) {
  using Ordinal = typename decltype(S.entries)::non_const_value_type;
  using Device = typename decltype(S.entries)::device_type;
  SPROCKET_REQUIRE(options.tile_nonzeros == 0 ||
                       (options.tile_nonzeros >= 4 && options.tile_nonzeros <= 256 && options.tile_nonzeros % 4 == 0),
                   "SddmmPlan: SddmmOptions::tile_nonzeros = ", options.tile_nonzeros,
                   " must be 0 (default 16) or a multiple of 4 in [4, 256]");
  const int64_t ts = options.tile_nonzeros > 0 ? options.tile_nonzeros : sddmm_default_tile_nonzeros;
  S.tile_nonzeros = S.backend == Backend::portable ? sddmm_portable_tile_nonzeros<ExecSpace> : ts;
  S.num_tiles = (S.nnz + S.tile_nonzeros - 1) / S.tile_nonzeros;
  if (!S.coo) {
    Kokkos::View<Ordinal*, Device> first(Kokkos::ViewAllocateWithoutInitializing("Sprocket::sddmm::tile_first_row"),
                                         S.num_tiles + 1);
    sddmm_tile_first_rows(ExecSpace(), S.row_map, S.num_rows, S.tile_nonzeros, S.num_tiles, first);
    S.tile_first_row = first;
  }
  if (is_host_space_v<ExecSpace> && S.backend == Backend::native) {
    // Equal shares of the entries: every entry costs one dot product of length K whatever its row.
    S.num_parts = std::max(1, ExecSpace().concurrency());
    std::vector<int64_t> bounds(S.num_parts + 1);
    for (int p = 0; p <= S.num_parts; ++p) bounds[p] = S.nnz * p / S.num_parts;
    S.parts = to_device_view<int64_t, Device>(bounds, "Sprocket::sddmm::parts");
  }
}

/// The ASpT part of the analysis from an SpMM analysis (the plan's own, or an SpmmPlan's):
/// heavy fraction and, for native host kernels, row panels balanced by entries.
template <class ExecSpace, class Analysis, class Tiles>
void sddmm_adopt_tiles(Analysis& S, const Tiles& tiles, const SpmmTiling& tiling, int64_t heavy_nnz, bool shared) {
  using Device = typename decltype(S.entries)::device_type;
  S.has_tiles = true;
  S.tiles_shared = shared;
  S.tiles = tiles;
  S.tiling = tiling;
  S.heavy_fraction = S.nnz > 0 ? static_cast<double>(heavy_nnz) / static_cast<double>(S.nnz) : 0.0;
  if (is_host_space_v<ExecSpace> && S.backend == Backend::native) {
    const std::vector<int64_t> row_map = [&] {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), S.row_map);
      return std::vector<int64_t>(h.data(), h.data() + h.extent(0));
    }();
    const int64_t n = S.num_rows, P = tiles.panel_rows;
    std::vector<int64_t> cost(tiles.num_panels + 1, 0);
    for (int64_t p = 0; p < tiles.num_panels; ++p) {
      const int64_t r0 = p * P, r1 = std::min(n, r0 + P);
      cost[p + 1] = cost[p] + (row_map[r1] - row_map[r0]) + (r1 - r0);
    }
    S.num_panel_parts = std::max(1, ExecSpace().concurrency());
    S.panel_parts = to_device_view<int64_t, Device>(balanced_parts(cost, S.num_panel_parts),
                                                    "Sprocket::sddmm::panel_parts");
  }
}

}  // namespace Impl
}  // namespace Sprocket
