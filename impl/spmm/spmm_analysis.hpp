#pragma once
// What an SpmmPlan computes once (declared in Sprocket_Spmm.hpp; include that header, not this
// one, first): the ASpT tile layout of A (paper: aspt-spmm-sddmm, sections 4.1 and 4.3.1; built
// by spmm_analysis.cpp), the copy of A reordered by it, the kernel choice and the host kernels'
// parts, all gathered in Impl::SpmmAnalysis: the one struct every backend's spmm_apply reads
// (host/spmm_host.hpp, cuda/spmm_cuda.hpp, spmm_kokkos.hpp). Every decision is taken here on the
// host (the backend by spmm_dispatch.hpp before); filling the struct's Views only copies them.
//
// The ASpT tile layout. Rows are cut into panels of P = panel_rows rows (the last may be
// shorter). Panel p owns heavy tiles g in [panel_ptr[p], panel_ptr[p+1]). Inside every row, the
// reordered entries are laid out
//
//   [row_map[r], tile_row_end[g0*P + l])              entries of heavy tile g0 (l = r - p*P)
//   [tile_row_end[g0*P + l], tile_row_end[g1*P + l])  entries of heavy tile g1 = g0 + 1, ...
//   [tile_row_end[glast*P + l], row_map[r+1])         the row's light entries (plain CSR)
//
// (a panel without heavy tiles: the whole row is light). The paper's tile_row_ptr, stored as
// tile ends so no extra "start" entry is needed. Heavy tile g covers the columns
// tile_cols[tile_col_ptr[g] .. tile_col_ptr[g+1]), increasing. With the GPU's conflict-free
// mapping (AsptParams::modulo_slots) every column c of tile g has its own shared-memory slot
// c % tile_cols_max, so the kernel stages B(c, :) into slot c % tile_cols_max without an
// indirection array.
//
// permutation[k] = index in A's original entries/values of reordered entry k (SpmmPlan::update_values(A)
// gathers A's values through it).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Operator.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/spmm/cuda/spmm_cuda_limits.hpp"  // the limits a layout for the CUDA kernels respects

namespace Sprocket {
namespace Impl {

struct AsptParams {
  int64_t panel_rows = 0;       // P > 0
  int64_t tile_cols = 0;        // max columns per heavy tile > 0
  int64_t heavy_threshold = 0;  // >= 1
  bool modulo_slots = false;    // GPU: conflict-free col % tile_cols slots per tile
  int64_t min_tile_cols = 1;    // tiles with fewer heavy columns than this go to light
};

// Host-side result of the analysis (the plan copies it to the device).
struct AsptHostLayout {
  int64_t num_rows = 0, num_cols = 0, panel_rows = 0, tile_cols_max = 0;
  int64_t num_panels = 0;
  std::vector<int64_t> panel_ptr;     // num_panels + 1
  std::vector<int64_t> tile_row_end;  // num_heavy_tiles * panel_rows (rows past the matrix: = row_map[num_rows])
  std::vector<int64_t> tile_col_ptr;  // num_heavy_tiles + 1
  std::vector<int64_t> tile_cols;     // heavy columns of every tile
  std::vector<int64_t> permutation;   // nnz: reordered position -> original position
  std::vector<int64_t> entries;       // reordered column indices (nnz)
  int64_t heavy_nnz = 0, light_nnz = 0, moved_to_light = 0;

  int64_t num_heavy_tiles() const { return panel_ptr.empty() ? 0 : panel_ptr.back(); }
};

// Builds the layout from A's pattern (row_map of num_rows + 1 offsets, entries). Throws
// InvalidArgument on bad parameters or an invalid pattern. Duplicate (row, col) entries are
// allowed: each counts.
AsptHostLayout build_aspt_layout(const std::vector<int64_t>& row_map, const std::vector<int64_t>& entries,
                                 int64_t num_cols, const AsptParams& params);

// The same over A's own column array, writing the permutation and the reordered entries straight
// into caller-provided arrays of row_map[num_rows] elements (the plan's, so an analysis touches
// no other per-entry memory); the returned layout's permutation and entries vectors stay empty.
// Instantiated for (Ordinal, Offset) = (int, int), (int, size_t), (int, int64_t), (int64_t, int64_t).
template <class Ordinal, class Offset>
AsptHostLayout build_aspt_layout_into(const std::vector<int64_t>& row_map, const Ordinal* entries, int64_t num_cols,
                                      const AsptParams& params, Offset* permutation, Ordinal* reordered_entries);

/// The tiling a plan on `target` uses: `requested` with the target's calibrated defaults filled in
/// (resolve_spmm_tiling) and, for cuda, capped to what the CUDA kernel stages (tile_cols beyond
/// it throws InvalidArgument). Defined in spmm_options.cpp.
SpmmTiling spmm_plan_tiling(const SpmmTiling& requested, SpmmTarget target, int64_t scalar_bytes);

/// Native kernels' workspaces, grown by the first apply that needs them: a row-major copy of a
/// LayoutLeft B (host, and CUDA csr_rows), per-thread panel scratch for the host aspt with a
/// column-major C, and for CUDA csr_rows a row-major C that a transposing copy adds into a
/// column-major one.
/// A copy starts empty (grown again by its first apply): copies of a plan never share it
/// (Sprocket_Operator.hpp, "Copies"); a move keeps it.
template <class Scalar, class Device>
struct SpmmHostWorkspace {
  Kokkos::View<Scalar*, Device> packed;
  Kokkos::View<Scalar*, Device> scratch;

  SpmmHostWorkspace() = default;
  KOKKOS_FUNCTION SpmmHostWorkspace(const SpmmHostWorkspace&) {}
  SpmmHostWorkspace(SpmmHostWorkspace&&) = default;
  KOKKOS_FUNCTION SpmmHostWorkspace& operator=(const SpmmHostWorkspace& other) {
    if (this != &other) packed = scratch = Kokkos::View<Scalar*, Device>();
    return *this;
  }
  SpmmHostWorkspace& operator=(SpmmHostWorkspace&&) = default;
  ~SpmmHostWorkspace() = default;

  /// `view` (packed or scratch) grown to at least n scalars (contents not kept); its data. Every
  /// native kernel grows its workspace through it.
  static Scalar* at_least(Kokkos::View<Scalar*, Device>& view, int64_t n, const char* label) {
    if (static_cast<int64_t>(view.extent(0)) < n)
      view = Kokkos::View<Scalar*, Device>(Kokkos::ViewAllocateWithoutInitializing(label), n);
    return view.data();
  }
};

/// What the plan computed once, on the plan's device, as every backend's spmm_apply receives it.
/// entries and values are the reordered copy of A (row_map is A's); the plan's reordered_matrix()
/// shares them. The workspace is mutable: a const analysis is what apply() hands the backends,
/// and a native apply with LayoutLeft operands grows it (so such applies on one plan must not run
/// concurrently; see "Thread safety" in Sprocket_Spmm.hpp). A copy of the analysis
/// starts with an empty workspace of its own.
template <class Scalar, class Ordinal, class Offset, class Device>
struct SpmmAnalysis {
  // Decisions (spmm_dispatch.hpp resolved the backend; spmm_analyse chose the kernel).
  Backend backend = Backend::portable;  ///< native or portable, never automatic
  SpmmKernel kernel = SpmmKernel::csr_rows;
  // The tile layout and the reordered copy of A.
  int64_t num_rows = 0, num_cols = 0, panel_rows = 0, tile_cols_max = 0, num_panels = 0, nnz = 0;
  Kokkos::View<const Offset*, Device> row_map;
  Kokkos::View<Ordinal*, Device> entries;
  Kokkos::View<Scalar*, Device> values;
  Kokkos::View<Offset*, Device> permutation;          // reordered entry -> A's entry
  Kokkos::View<const int64_t*, Device> panel_ptr;     // num_panels + 1
  Kokkos::View<const int64_t*, Device> tile_row_end;  // num_heavy_tiles * panel_rows
  Kokkos::View<const int64_t*, Device> tile_col_ptr;  // num_heavy_tiles + 1
  Kokkos::View<const Ordinal*, Device> tile_cols;     // heavy columns of every tile
  // CUDA target, csr_rows: rows longer than split_entries run as chunks of split_entries entries,
  // work items of their own that add into C atomically once the rows are scaled by beta, so that
  // no group walks a row much longer than the others' (spmm_cuda_split_entries).
  int64_t split_entries = 0;  ///< 0: no row is split
  int64_t num_split_rows = 0, num_chunks = 0;
  /// CUDA target, csr_rows chosen automatically, no row split (every row within about twice the
  /// average): row-major B and C of spmm_cuda_warp_rows_min_k to spmm_cuda_warp_rows_max_k columns
  /// run the portable kernel's schedule (impl/spmm/spmm_kokkos.hpp: a warp per row, a lane per
  /// column, every lane reading each entry), which an H200 measured faster there (2026-11-28).
  bool warp_rows_for_row_major = false;
  Kokkos::View<const Ordinal*, Device> split_rows;   ///< the split rows, increasing
  Kokkos::View<const Ordinal*, Device> chunk_row;    ///< per chunk: its row
  Kokkos::View<const int64_t*, Device> chunk_begin;  ///< per chunk: its first entry
  // Native host kernels only.
  int num_parts = 0;                        ///< parts holds num_parts + 1 boundaries (0: not host)
  Kokkos::View<const int64_t*, Device> parts;  ///< nnz-balanced rows (csr_rows) or row panels (aspt)
  int64_t widest_tile = 0;                  ///< the most columns of any heavy tile
  /// csr_rows with column-major B and C runs column groups in place (host::spmm_column_major)
  /// instead of packing B: set when most of A's entries have an entry one column further on in
  /// the next row (stencils, banded and FEM matrices: B's columns are then read as a few
  /// contiguous windows), measured on every 8th pair of rows.
  bool column_groups = false;
  double next_row_shift_fraction = 0;  ///< that fraction
  mutable SpmmHostWorkspace<Scalar, Device> workspace;
};

/// What the analysis found, for describe() and stats(): the tiling counts and why the kernel.
struct SpmmAnalysisReport {
  SpmmTilingStats stats;
  int64_t num_tile_columns = 0;
  std::string kernel_reason;  ///< "forced", or the automatic rule with the numbers it compared
};

/// dst(k) = src(source(k)): the reordered copy's values from A's current values.
template <class ExecSpace, class Dst, class Src, class Source>
void spmm_gather_values(const ExecSpace& space, const Dst& dst, const Src& src, const Source& source) {
  Kokkos::parallel_for(
      "Sprocket::spmm::gather_values", Kokkos::RangePolicy<ExecSpace>(space, 0, dst.extent(0)),
      KOKKOS_LAMBDA(const int64_t k) { dst(k) = src(source(k)); });
}

/// The kernel mode "N" runs. Forced: as requested (spmm_dispatch.hpp has checked that the backend
/// has it). Automatic: the portable backend has csr_rows only, and so does the CUDA target until
/// a GPU calibration (see below); the native host backend runs aspt when at least
/// min_heavy_fraction of the nonzeros landed in heavy tiles (and some did), csr_rows otherwise.
/// *why says which rule and numbers decided.
inline SpmmKernel spmm_choose_kernel(SpmmKernel requested, Backend backend, SpmmTarget target,
                                     const SpmmTilingStats& stats, int64_t nnz, double min_heavy_fraction,
                                     std::string* why) {
  if (requested != SpmmKernel::automatic) {
    *why = "forced";
    return requested;
  }
  if (backend == Backend::portable) {
    *why = "automatic: the portable backend's only kernel";
    return SpmmKernel::csr_rows;
  }
  if (target == SpmmTarget::cuda) {
    // The CUDA aspt kernel walks each group's rows one after another and stages every tile
    // between two block barriers; csr_rows splits long rows into chunks. Emulated profile (K = 32,
    // LayoutRight, predicted H100 time): gen:rmat:scale=16,ef=16 aspt 0.99 ms vs csr_rows
    // 0.077 ms, gen:poisson3d:n=48 0.117 vs 0.061 ms; on the one H100 run our kernels lost to
    // cuSPARSE by 0.36x with aspt chosen. aspt stays available forced until a GPU calibration
    // finds where it wins.
    *why = "automatic: csr_rows on the CUDA target (aspt only when forced)";
    return SpmmKernel::csr_rows;
  }
  const double fraction = nnz > 0 ? static_cast<double>(stats.heavy_nnz) / static_cast<double>(nnz) : 0.0;
  const bool aspt = stats.heavy_nnz > 0 && fraction >= min_heavy_fraction;
  std::ostringstream os;
  os << "automatic: " << std::fixed << std::setprecision(1) << 100.0 * fraction << "% of the nonzeros in heavy tiles, "
     << (aspt ? ">= " : "< ") << 100.0 * min_heavy_fraction << "% needed for aspt";
  *why = os.str();
  return aspt ? SpmmKernel::aspt : SpmmKernel::csr_rows;
}

/// The columns of row-major B and C for which a regular matrix runs the portable kernel on CUDA
/// (SpmmAnalysis::warp_rows_for_row_major): K = 17..32 gives it a warp of lanes per row, the
/// shape an H200 measured faster than csr_rows on regular matrices at K = 32, while csr_rows won
/// at K = 128 and on matrices that split rows (perf_tests/results/gpu-h200-2026-11-28-afternoon.md).
inline constexpr int64_t spmm_cuda_warp_rows_min_k = 17, spmm_cuda_warp_rows_max_k = 32;

/// SpmmAnalysis::column_groups from this fraction of entries with a partner in the next row: a
/// 7-point Poisson matrix has 6/7, R-MAT almost none (the column groups then run 2-2.7x slower
/// than packing B, and twice as fast on Poisson; 2026-12-07, 2-core AMD EPYC).
inline constexpr double spmm_column_groups_min_shift = 0.5;

/// Entries per chunk of a split row for the CUDA csr_rows kernel: twice the average row, rounded
/// up to a multiple of 32 (at least 32), so that no work item is longer than about twice the
/// average and a warp's chunk fills its lanes' loads of (column, value) once or more. Rows of
/// regular matrices (within twice the average) are never split.
inline int64_t spmm_cuda_split_entries(int64_t rows, int64_t nnz) {
  const int64_t twice_average = rows > 0 ? (2 * nnz + rows - 1) / rows : 0;
  return std::max<int64_t>(32, (twice_average + 31) / 32 * 32);
}

/// The whole analysis of A for a plan whose backend is already resolved: the tile layout with
/// `tiling` (GPU slots for target cuda), the reordered copy, the kernel choice, and for native
/// host kernels the parts (host_dynamic_parts: several per thread of ExecSpace, taken
/// dynamically, contiguous, about equal work: entries plus one per row for its stores) and
/// whether csr_rows runs column groups on column-major B and C (column_groups). The analysis reads A's columns where they are (host spaces)
/// and writes the permutation and the reordered columns straight into the analysis's arrays
/// (through host mirrors on a GPU), so it touches no other per-entry memory.
template <class CrsType>
SpmmAnalysis<typename CrsType::non_const_value_type, typename CrsType::non_const_ordinal_type,
             typename CrsType::non_const_size_type, typename CrsType::device_type>
spmm_analyse(const CrsType& A, Backend backend, SpmmKernel requested, SpmmTarget target, const SpmmTiling& tiling,
             SpmmAnalysisReport* report) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  using ExecSpace = typename CrsType::execution_space;
  const auto t0 = std::chrono::steady_clock::now();
  SpmmAnalysis<Scalar, Ordinal, Offset, Device> S;
  S.backend = backend;
  const std::vector<int64_t> row_map = host_row_map(A);
  const int64_t nnz = row_map.back();
  S.nnz = nnz;

  // The tile layout and the reordered columns.
  S.permutation = Kokkos::View<Offset*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::permutation"),
                                                nnz);
  S.entries = Kokkos::View<Ordinal*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::entries"), nnz);
  const auto a_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  const auto permutation_h = Kokkos::create_mirror_view(S.permutation);
  const auto entries_h = Kokkos::create_mirror_view(S.entries);
  AsptParams params;
  params.panel_rows = tiling.panel_rows;
  params.tile_cols = tiling.tile_cols;
  params.heavy_threshold = tiling.heavy_threshold;
  params.modulo_slots = target == SpmmTarget::cuda;
  // A GPU tile costs a staging round and two block-wide barriers whatever its width; one with
  // fewer than 1/16 of its slots filled saves less than that (section 4.3.1: thin tiles go to
  // the light tile). The host has no staging cost: every heavy column stays heavy.
  params.min_tile_cols = params.modulo_slots ? std::max<int64_t>(1, params.tile_cols / 16) : 1;
  const AsptHostLayout L = build_aspt_layout_into(row_map, a_entries.data(), A.numCols(), params,
                                                  permutation_h.data(), entries_h.data());
  Kokkos::deep_copy(S.permutation, permutation_h);  // no-ops on host spaces
  Kokkos::deep_copy(S.entries, entries_h);
  SpmmTilingStats& stats = report->stats;
  stats.num_panels = L.num_panels;
  stats.num_heavy_tiles = L.num_heavy_tiles();
  stats.heavy_nnz = L.heavy_nnz;
  stats.light_nnz = L.light_nnz;
  stats.moved_to_light = L.moved_to_light;
  report->num_tile_columns = static_cast<int64_t>(L.tile_cols.size());
  for (int64_t g = 0; g < L.num_heavy_tiles(); ++g)
    S.widest_tile = std::max(S.widest_tile, L.tile_col_ptr[g + 1] - L.tile_col_ptr[g]);

  S.kernel =
      spmm_choose_kernel(requested, backend, target, stats, nnz, tiling.min_heavy_fraction, &report->kernel_reason);

  // The reordered values and the layout on the device.
  S.values = Kokkos::View<Scalar*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::values"), nnz);
  spmm_gather_values(ExecSpace(), S.values, A.values, S.permutation);
  S.num_rows = L.num_rows;
  S.num_cols = L.num_cols;
  S.panel_rows = L.panel_rows;
  S.tile_cols_max = L.tile_cols_max;
  S.num_panels = L.num_panels;
  S.row_map = A.graph.row_map;
  S.panel_ptr = to_device_view<int64_t, Device>(L.panel_ptr, "Sprocket::spmm::panel_ptr");
  S.tile_row_end = to_device_view<int64_t, Device>(L.tile_row_end, "Sprocket::spmm::tile_row_end");
  S.tile_col_ptr = to_device_view<int64_t, Device>(L.tile_col_ptr, "Sprocket::spmm::tile_col_ptr");
  S.tile_cols = to_device_view<Ordinal, Device>(L.tile_cols, "Sprocket::spmm::tile_cols");

  // CUDA csr_rows: the long rows' chunks.
  if (target == SpmmTarget::cuda && S.kernel == SpmmKernel::csr_rows) {
    S.split_entries = spmm_cuda_split_entries(L.num_rows, nnz);
    std::vector<int64_t> split_rows, chunk_row, chunk_begin;
    for (int64_t r = 0; r < L.num_rows; ++r) {
      if (row_map[r + 1] - row_map[r] <= S.split_entries) continue;
      split_rows.push_back(r);
      for (int64_t p = row_map[r]; p < row_map[r + 1]; p += S.split_entries) {
        chunk_row.push_back(r);
        chunk_begin.push_back(p);
      }
    }
    S.num_split_rows = static_cast<int64_t>(split_rows.size());
    S.num_chunks = static_cast<int64_t>(chunk_row.size());
    S.warp_rows_for_row_major = requested == SpmmKernel::automatic && S.num_split_rows == 0;
    if (S.warp_rows_for_row_major && report)
      report->kernel_reason += "; row-major B and C of " + std::to_string(spmm_cuda_warp_rows_min_k) + " to " +
                               std::to_string(spmm_cuda_warp_rows_max_k) +
                               " columns: the portable kernel (no row split)";
    S.split_rows = to_device_view<Ordinal, Device>(split_rows, "Sprocket::spmm::split_rows");
    S.chunk_row = to_device_view<Ordinal, Device>(chunk_row, "Sprocket::spmm::chunk_row");
    S.chunk_begin = to_device_view<int64_t, Device>(chunk_begin, "Sprocket::spmm::chunk_begin");
  }

  // Native host kernels: contiguous parts of rows (csr_rows) or row panels (aspt).
  if (is_host_space_v<ExecSpace> && backend == Backend::native) {
    const int64_t n = L.num_rows;
    std::vector<int64_t> cost;
    if (S.kernel == SpmmKernel::aspt) {
      cost.assign(L.num_panels + 1, 0);
      for (int64_t p = 0; p < L.num_panels; ++p) {
        const int64_t r0 = p * L.panel_rows, r1 = std::min(n, r0 + L.panel_rows);
        cost[p + 1] = cost[p] + (row_map[r1] - row_map[r0]) + (r1 - r0);
      }
    } else {
      cost.assign(n + 1, 0);
      for (int64_t r = 0; r < n; ++r) cost[r + 1] = cost[r] + (row_map[r + 1] - row_map[r]) + 1;
    }
    S.num_parts = host_dynamic_parts(ExecSpace().concurrency(), cost.back());
    if (S.kernel == SpmmKernel::csr_rows) {
      // Row r's entry at column c has a partner at c + 1 in row r + 1: the rows' windows of B
      // slide with the row (a sorted merge of the two rows; unsorted rows count fewer partners).
      int64_t sampled = 0, shifted = 0;
      for (int64_t r = 0; r + 1 < n; r += 8) {
        int64_t j = row_map[r], k = row_map[r + 1];
        const int64_t je = row_map[r + 1], ke = row_map[r + 2];
        sampled += je - j;
        while (j < je && k < ke) {
          const int64_t want = int64_t(a_entries(j)) + 1, have = int64_t(a_entries(k));
          if (have < want) ++k;
          else {
            shifted += have == want;
            ++j;
          }
        }
      }
      S.next_row_shift_fraction = sampled > 0 ? double(shifted) / double(sampled) : 0.0;
      S.column_groups = S.next_row_shift_fraction >= spmm_column_groups_min_shift;
    }
    S.parts = to_device_view<int64_t, Device>(balanced_parts(cost, S.num_parts), "Sprocket::spmm::parts");
  }
  ExecSpace().fence();
  stats.analysis_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return S;
}

}  // namespace Impl
}  // namespace Sprocket
