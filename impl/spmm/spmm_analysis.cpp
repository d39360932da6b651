// The ASpT tile layout, the compiled part of the SpMM analysis (spmm_analysis.hpp; paper:
// aspt-spmm-sddmm, sections 4.1 and 4.3.1): row panels, heavy column segments, 2-D tiles, and the
// reordering of every row's entries (heavy tile by tile, then light).
//
// One pass per panel over its entries, with two column-indexed scratch arrays reused across
// panels (count and tile of each column) and reset through the list of columns the panel touched,
// so a panel costs O(its entries + its heavy columns log) and never O(num_cols). Panels are
// analysed in parallel (OpenMP, when the library is built with it) and stitched in order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "Sprocket_Error.hpp"
#include "Sprocket_Spmm.hpp"  // first: it includes impl/spmm/spmm_analysis.hpp after its declarations
#include "impl/spmm/spmm_analysis.hpp"

namespace Sprocket {
namespace Impl {

namespace {

template <class Ordinal>
void check_pattern(const std::vector<int64_t>& row_map, const Ordinal* entries, int64_t num_cols) {
  SPROCKET_REQUIRE(!row_map.empty(), "build_aspt_layout: row_map needs num_rows + 1 >= 1 offsets");
  SPROCKET_REQUIRE(num_cols >= 0, "build_aspt_layout: num_cols = ", num_cols, " is negative");
  SPROCKET_REQUIRE(row_map.front() == 0, "build_aspt_layout: row_map[0] = ", row_map.front(), ", expected 0");
  for (size_t r = 0; r + 1 < row_map.size(); ++r)
    SPROCKET_REQUIRE(row_map[r] <= row_map[r + 1], "build_aspt_layout: row_map decreases at row ", r, " (",
                     row_map[r], " > ", row_map[r + 1], ")");
  for (int64_t k = 0; k < row_map.back(); ++k)
    SPROCKET_REQUIRE(entries[k] >= 0 && static_cast<int64_t>(entries[k]) < num_cols, "build_aspt_layout: entry ", k,
                     " has column ", entries[k], " outside [0, ", num_cols, ")");
}

/// Column-indexed scratch of one thread, reset after each panel through `touched`.
struct PanelScratch {
  std::vector<int32_t> count;    // entries of the column in the panel
  std::vector<int32_t> tile_of;  // the column's tile in the panel, -1: light
  std::vector<int64_t> touched, heavy, slot_uses, row_counts;
  explicit PanelScratch(int64_t num_cols) : count(num_cols, 0), tile_of(num_cols, -1) {}
};

/// One panel's share of the layout, before the panels are stitched together.
struct PanelTiles {
  std::vector<int64_t> tile_size;     // columns per kept tile
  std::vector<int64_t> tile_cols;     // the tiles' columns, tile by tile, each increasing
  std::vector<int64_t> tile_row_end;  // tile_size.size() * panel_rows
  int64_t heavy_nnz = 0, moved_to_light = 0;
};

/// Panel p: heavy columns, their tiles, and the reordering of the panel's rows (written straight
/// into permutation / reordered_entries: rows of different panels never overlap).
template <class Ordinal, class Offset>
void analyse_panel(const std::vector<int64_t>& row_map, const Ordinal* entries, const AsptParams& params, int64_t p,
                   PanelScratch& s, PanelTiles& out, Offset* permutation, Ordinal* reordered_entries) {
  const int64_t n = static_cast<int64_t>(row_map.size()) - 1, P = params.panel_rows, T = params.tile_cols;
  const int64_t r0 = p * P, r1 = std::min(n, r0 + P);
  s.touched.clear();
  for (int64_t k = row_map[r0]; k < row_map[r1]; ++k)
    if (s.count[entries[k]]++ == 0) s.touched.push_back(static_cast<int64_t>(entries[k]));
  s.heavy.clear();
  for (int64_t c : s.touched)
    if (s.count[c] >= params.heavy_threshold) s.heavy.push_back(c);
  std::sort(s.heavy.begin(), s.heavy.end());

  // Group the heavy columns into tiles. Host: consecutive runs of at most T heavy columns.
  // GPU (modulo_slots): column c must own shared-memory slot c % T inside its tile, so a column
  // goes to the first tile whose slot c % T is still free; with the columns in increasing order
  // that is tile number "how many earlier heavy columns share c's slot". Tile sizes then never
  // grow with the tile number, so the too-thin tiles are a tail.
  std::vector<int64_t>& tile_size = out.tile_size;
  tile_size.clear();
  if (params.modulo_slots) {
    s.slot_uses.assign(std::min<int64_t>(T, s.count.size()), 0);  // c % T < num_cols
    for (int64_t c : s.heavy) {
      const int64_t t = s.slot_uses[c % T]++;
      s.tile_of[c] = static_cast<int32_t>(t);
      if (t >= static_cast<int64_t>(tile_size.size())) tile_size.push_back(0);
      ++tile_size[t];
    }
  } else {
    for (size_t i = 0; i < s.heavy.size(); ++i) {
      const int64_t t = static_cast<int64_t>(i) / T;
      s.tile_of[s.heavy[i]] = static_cast<int32_t>(t);
      if (t >= static_cast<int64_t>(tile_size.size())) tile_size.push_back(0);
      ++tile_size[t];
    }
  }
  int64_t num_tiles = static_cast<int64_t>(tile_size.size());
  while (num_tiles > 0 && tile_size[num_tiles - 1] < params.min_tile_cols) --num_tiles;
  tile_size.resize(num_tiles);
  for (int64_t c : s.heavy)
    if (s.tile_of[c] >= num_tiles) {
      out.moved_to_light += s.count[c];
      s.tile_of[c] = -1;
    }

  // Column lists of the kept tiles, each increasing (heavy is sorted).
  std::vector<int64_t> tile_start(num_tiles + 1, 0);
  for (int64_t t = 0; t < num_tiles; ++t) tile_start[t + 1] = tile_start[t] + tile_size[t];
  out.tile_cols.assign(tile_start[num_tiles], 0);
  for (int64_t c : s.heavy)
    if (s.tile_of[c] >= 0) out.tile_cols[tile_start[s.tile_of[c]]++] = c;

  // Reorder each row: a stable counting sort of its entries by tile (light = num_tiles, last).
  out.tile_row_end.assign(num_tiles * P, row_map[n]);
  s.row_counts.resize(num_tiles + 1);
  for (int64_t r = r0; r < r1; ++r) {
    std::fill(s.row_counts.begin(), s.row_counts.end(), 0);
    for (int64_t k = row_map[r]; k < row_map[r + 1]; ++k) {
      const int64_t t = s.tile_of[entries[k]];
      ++s.row_counts[t < 0 ? num_tiles : t];
    }
    // row_counts[t] becomes the start of tile t's entries in the reordered row.
    int64_t pos = row_map[r];
    for (int64_t t = 0; t <= num_tiles; ++t) {
      const int64_t c = s.row_counts[t];
      s.row_counts[t] = pos;
      pos += c;
      if (t < num_tiles) out.tile_row_end[t * P + (r - r0)] = pos;
    }
    for (int64_t k = row_map[r]; k < row_map[r + 1]; ++k) {
      const int64_t t = s.tile_of[entries[k]];
      const int64_t dst = s.row_counts[t < 0 ? num_tiles : t]++;
      permutation[dst] = static_cast<Offset>(k);
      reordered_entries[dst] = entries[k];
      if (t >= 0) ++out.heavy_nnz;
    }
  }

  for (int64_t c : s.touched) {
    s.count[c] = 0;
    s.tile_of[c] = -1;
  }
}

}  // namespace

template <class Ordinal, class Offset>
AsptHostLayout build_aspt_layout_into(const std::vector<int64_t>& row_map, const Ordinal* entries, int64_t num_cols,
                                      const AsptParams& params, Offset* permutation, Ordinal* reordered_entries) {
  SPROCKET_REQUIRE(params.panel_rows >= 1, "build_aspt_layout: panel_rows = ", params.panel_rows, " must be >= 1");
  SPROCKET_REQUIRE(params.tile_cols >= 1, "build_aspt_layout: tile_cols = ", params.tile_cols, " must be >= 1");
  SPROCKET_REQUIRE(params.heavy_threshold >= 1, "build_aspt_layout: heavy_threshold = ", params.heavy_threshold,
                   " must be >= 1");
  SPROCKET_REQUIRE(params.min_tile_cols >= 1 && params.min_tile_cols <= params.tile_cols,
                   "build_aspt_layout: min_tile_cols = ", params.min_tile_cols, " must be in [1, tile_cols = ",
                   params.tile_cols, "]");
  check_pattern(row_map, entries, num_cols);
  for (int64_t r = 0; r + 1 < static_cast<int64_t>(row_map.size()); r += params.panel_rows) {
    const int64_t r1 = std::min<int64_t>(static_cast<int64_t>(row_map.size()) - 1, r + params.panel_rows);
    SPROCKET_REQUIRE(row_map[r1] - row_map[r] <= std::numeric_limits<int32_t>::max(), "build_aspt_layout: the panel at row ",
                     r, " holds ", row_map[r1] - row_map[r], " entries, more than the analysis counts (2^31 - 1)");
  }

  const int64_t n = static_cast<int64_t>(row_map.size()) - 1;
  const int64_t P = params.panel_rows;
  AsptHostLayout L;
  L.num_rows = n;
  L.num_cols = num_cols;
  L.panel_rows = P;
  L.tile_cols_max = params.tile_cols;
  L.num_panels = (n + P - 1) / P;

  // Panels are independent: each thread analyses a share of them with its own column-indexed
  // scratch (two 4-byte counters per column), as many threads as keep that scratch within the
  // size of the entries' own arrays; the per-panel tile lists are stitched together afterwards.
  std::vector<PanelTiles> panels(L.num_panels);
  int num_threads = 1;
#if defined(_OPENMP)
  num_threads = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>(omp_get_max_threads(), row_map[n] / std::max<int64_t>(1, num_cols))));
#endif
#if defined(_OPENMP)
#pragma omp parallel num_threads(num_threads)
#endif
  {
    PanelScratch scratch(num_cols);
#if defined(_OPENMP)
#pragma omp for schedule(dynamic, 8)
#endif
    for (int64_t p = 0; p < L.num_panels; ++p)
      analyse_panel(row_map, entries, params, p, scratch, panels[p], permutation, reordered_entries);
  }

  L.panel_ptr.assign(L.num_panels + 1, 0);
  L.tile_col_ptr.assign(1, 0);
  for (int64_t p = 0; p < L.num_panels; ++p) {
    const PanelTiles& t = panels[p];
    const int64_t num_tiles = static_cast<int64_t>(t.tile_size.size());
    L.panel_ptr[p + 1] = L.panel_ptr[p] + num_tiles;
    for (int64_t g = 0; g < num_tiles; ++g) L.tile_col_ptr.push_back(L.tile_col_ptr.back() + t.tile_size[g]);
    L.tile_cols.insert(L.tile_cols.end(), t.tile_cols.begin(), t.tile_cols.end());
    L.tile_row_end.insert(L.tile_row_end.end(), t.tile_row_end.begin(), t.tile_row_end.end());
    L.heavy_nnz += t.heavy_nnz;
    L.moved_to_light += t.moved_to_light;
  }
  L.light_nnz = row_map[n] - L.heavy_nnz;
  return L;
}

template AsptHostLayout build_aspt_layout_into<int, int>(const std::vector<int64_t>&, const int*, int64_t,
                                                         const AsptParams&, int*, int*);
template AsptHostLayout build_aspt_layout_into<int, size_t>(const std::vector<int64_t>&, const int*, int64_t,
                                                            const AsptParams&, size_t*, int*);
template AsptHostLayout build_aspt_layout_into<int, int64_t>(const std::vector<int64_t>&, const int*, int64_t,
                                                             const AsptParams&, int64_t*, int*);
template AsptHostLayout build_aspt_layout_into<int64_t, int64_t>(const std::vector<int64_t>&, const int64_t*, int64_t,
                                                                 const AsptParams&, int64_t*, int64_t*);

AsptHostLayout build_aspt_layout(const std::vector<int64_t>& row_map, const std::vector<int64_t>& entries,
                                 int64_t num_cols, const AsptParams& params) {
  SPROCKET_REQUIRE(!row_map.empty() && row_map.back() == static_cast<int64_t>(entries.size()),
                   "build_aspt_layout: row_map ends at ", row_map.empty() ? 0 : row_map.back(), " but there are ",
                   entries.size(), " entries");
  std::vector<int64_t> permutation(entries.size()), reordered(entries.size());
  AsptHostLayout L = build_aspt_layout_into(row_map, entries.data(), num_cols, params, permutation.data(),
                                            reordered.data());
  L.permutation = std::move(permutation);
  L.entries = std::move(reordered);
  return L;
}

}  // namespace Impl
}  // namespace Sprocket
