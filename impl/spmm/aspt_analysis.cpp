// The ASpT analysis (paper: aspt-spmm-sddmm, sections 4.1 and 4.3.1): row panels, heavy column
// segments, 2-D tiles, and the reordering of every row's entries (heavy tile by tile, then light).
//
// One pass per panel over its entries, with two column-indexed scratch arrays reused across
// panels (count and tile of each column) and reset through the list of columns the panel touched,
// so a panel costs O(its entries + its heavy columns log) and never O(num_cols).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "Sprocket_Error.hpp"
#include "impl/spmm/aspt_layout.hpp"

namespace Sprocket {
namespace Impl {

namespace {

void check_pattern(const std::vector<int64_t>& row_map, const std::vector<int64_t>& entries, int64_t num_cols) {
  SPROCKET_REQUIRE(!row_map.empty(), "build_aspt_layout: row_map needs num_rows + 1 >= 1 offsets");
  SPROCKET_REQUIRE(num_cols >= 0, "build_aspt_layout: num_cols = ", num_cols, " is negative");
  SPROCKET_REQUIRE(row_map.front() == 0, "build_aspt_layout: row_map[0] = ", row_map.front(), ", expected 0");
  for (size_t r = 0; r + 1 < row_map.size(); ++r)
    SPROCKET_REQUIRE(row_map[r] <= row_map[r + 1], "build_aspt_layout: row_map decreases at row ", r, " (",
                     row_map[r], " > ", row_map[r + 1], ")");
  SPROCKET_REQUIRE(row_map.back() == static_cast<int64_t>(entries.size()), "build_aspt_layout: row_map ends at ",
                   row_map.back(), " but there are ", entries.size(), " entries");
  for (size_t k = 0; k < entries.size(); ++k)
    SPROCKET_REQUIRE(entries[k] >= 0 && entries[k] < num_cols, "build_aspt_layout: entry ", k, " has column ",
                     entries[k], " outside [0, ", num_cols, ")");
}

}  // namespace

AsptHostLayout build_aspt_layout(const std::vector<int64_t>& row_map, const std::vector<int64_t>& entries,
                                 int64_t num_cols, const AsptParams& params) {
  SPROCKET_REQUIRE(params.panel_rows >= 1, "build_aspt_layout: panel_rows = ", params.panel_rows, " must be >= 1");
  SPROCKET_REQUIRE(params.tile_cols >= 1, "build_aspt_layout: tile_cols = ", params.tile_cols, " must be >= 1");
  SPROCKET_REQUIRE(params.heavy_threshold >= 1, "build_aspt_layout: heavy_threshold = ", params.heavy_threshold,
                   " must be >= 1");
  SPROCKET_REQUIRE(params.min_tile_cols >= 1 && params.min_tile_cols <= params.tile_cols,
                   "build_aspt_layout: min_tile_cols = ", params.min_tile_cols, " must be in [1, tile_cols = ",
                   params.tile_cols, "]");
  check_pattern(row_map, entries, num_cols);

  const int64_t n = static_cast<int64_t>(row_map.size()) - 1;
  const int64_t P = params.panel_rows, T = params.tile_cols;
  AsptHostLayout L;
  L.num_rows = n;
  L.num_cols = num_cols;
  L.panel_rows = P;
  L.tile_cols_max = T;
  L.num_panels = (n + P - 1) / P;
  L.panel_ptr.assign(L.num_panels + 1, 0);
  L.tile_col_ptr.assign(1, 0);
  L.permutation.resize(entries.size());
  L.entries.resize(entries.size());

  // Column-indexed scratch, reset after each panel through `touched`.
  std::vector<int64_t> count(num_cols, 0);
  std::vector<int64_t> tile_of(num_cols, -1);  // -1: light
  std::vector<int64_t> touched, heavy, slot_uses, tile_size;
  std::vector<int64_t> row_counts;  // per row of the panel: entries per tile (+ light)

  for (int64_t p = 0; p < L.num_panels; ++p) {
    const int64_t r0 = p * P, r1 = std::min(n, r0 + P);
    touched.clear();
    for (int64_t k = row_map[r0]; k < row_map[r1]; ++k)
      if (count[entries[k]]++ == 0) touched.push_back(entries[k]);
    heavy.clear();
    for (int64_t c : touched)
      if (count[c] >= params.heavy_threshold) heavy.push_back(c);
    std::sort(heavy.begin(), heavy.end());

    // Group the heavy columns into tiles. Host: consecutive runs of at most T heavy columns.
    // GPU (modulo_slots): column c must own shared-memory slot c % T inside its tile, so a column
    // goes to the first tile whose slot c % T is still free; with the columns in increasing order
    // that is tile number "how many earlier heavy columns share c's slot". Tile sizes then never
    // grow with the tile number, so the too-thin tiles are a tail.
    int64_t num_tiles = 0;
    tile_size.clear();
    if (params.modulo_slots) {
      slot_uses.assign(std::min<int64_t>(T, std::max<int64_t>(num_cols, 1)), 0);
      for (int64_t c : heavy) {
        const int64_t t = slot_uses[c % T]++;
        tile_of[c] = t;
        if (t >= static_cast<int64_t>(tile_size.size())) tile_size.push_back(0);
        ++tile_size[t];
      }
    } else {
      for (size_t i = 0; i < heavy.size(); ++i) {
        const int64_t t = static_cast<int64_t>(i) / T;
        tile_of[heavy[i]] = t;
        if (t >= static_cast<int64_t>(tile_size.size())) tile_size.push_back(0);
        ++tile_size[t];
      }
    }
    num_tiles = static_cast<int64_t>(tile_size.size());
    while (num_tiles > 0 && tile_size[num_tiles - 1] < params.min_tile_cols) --num_tiles;
    for (int64_t c : heavy)
      if (tile_of[c] >= num_tiles) {
        L.moved_to_light += count[c];
        tile_of[c] = -1;
      }

    // Column lists of the kept tiles, each increasing (heavy is sorted).
    const int64_t first_tile = L.panel_ptr[p];
    L.panel_ptr[p + 1] = first_tile + num_tiles;
    const size_t col_base = L.tile_cols.size();
    for (int64_t t = 0; t < num_tiles; ++t) L.tile_col_ptr.push_back(L.tile_col_ptr.back() + tile_size[t]);
    L.tile_cols.resize(col_base + (L.tile_col_ptr.back() - L.tile_col_ptr[first_tile]));
    {
      std::vector<int64_t> fill(num_tiles, 0);
      for (int64_t c : heavy) {
        const int64_t t = tile_of[c];
        if (t < 0) continue;
        L.tile_cols[L.tile_col_ptr[first_tile + t] + fill[t]++] = c;
      }
    }

    // Reorder each row: a stable counting sort of its entries by tile (light = num_tiles, last).
    L.tile_row_end.resize((first_tile + num_tiles) * P, row_map[n]);
    row_counts.resize(num_tiles + 1);
    for (int64_t r = r0; r < r1; ++r) {
      std::fill(row_counts.begin(), row_counts.end(), 0);
      for (int64_t k = row_map[r]; k < row_map[r + 1]; ++k) {
        const int64_t t = tile_of[entries[k]];
        ++row_counts[t < 0 ? num_tiles : t];
      }
      // row_counts[t] becomes the start of tile t's entries in the reordered row.
      int64_t pos = row_map[r];
      for (int64_t t = 0; t <= num_tiles; ++t) {
        const int64_t c = row_counts[t];
        row_counts[t] = pos;
        pos += c;
        if (t < num_tiles) L.tile_row_end[(first_tile + t) * P + (r - r0)] = pos;
      }
      for (int64_t k = row_map[r]; k < row_map[r + 1]; ++k) {
        const int64_t t = tile_of[entries[k]];
        const int64_t dst = row_counts[t < 0 ? num_tiles : t]++;
        L.permutation[dst] = k;
        L.entries[dst] = entries[k];
        if (t >= 0) ++L.heavy_nnz;
      }
    }

    for (int64_t c : touched) {
      count[c] = 0;
      tile_of[c] = -1;
    }
  }
  L.light_nnz = static_cast<int64_t>(entries.size()) - L.heavy_nnz;
  return L;
}

}  // namespace Impl
}  // namespace Sprocket
