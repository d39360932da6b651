#pragma once
// The ASpT tile layout: the contract between the analysis (impl/spmm/aspt_analysis.cpp) and the
// kernels (host/, cuda/, spmm_kokkos.hpp). Declared in Sprocket_Spmm.hpp's terms.
//
// Rows are cut into panels of P = panel_rows rows (the last may be shorter). Panel p owns heavy
// tiles g in [panel_ptr[p], panel_ptr[p+1]). Inside every row, the reordered entries are laid out
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
// permutation[k] = index in A's original entries/values of reordered entry k (update_values()).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

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

// The layout on the plan's device, as every kernel (host, portable, CUDA) receives it. entries
// and values are the reordered copy of A (row_map is A's).
template <class Scalar, class Ordinal, class Offset, class Device>
struct AsptDeviceLayout {
  int64_t num_rows = 0, num_cols = 0, panel_rows = 0, tile_cols_max = 0, num_panels = 0;
  Kokkos::View<const Offset*, Device> row_map;
  Kokkos::View<const Ordinal*, Device> entries;
  Kokkos::View<const Scalar*, Device> values;
  Kokkos::View<const int64_t*, Device> panel_ptr;     // num_panels + 1
  Kokkos::View<const int64_t*, Device> tile_row_end;  // num_heavy_tiles * panel_rows
  Kokkos::View<const int64_t*, Device> tile_col_ptr;  // num_heavy_tiles + 1
  Kokkos::View<const Ordinal*, Device> tile_cols;     // heavy columns of every tile
};

}  // namespace Impl
}  // namespace Sprocket
