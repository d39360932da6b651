// The SpMM analysis's ASpT tile layout (impl/spmm/spmm_analysis.cpp, build_aspt_layout): the
// layout's invariants, checked by an independent recount on random, power-law, banded and
// adversarial patterns, for the host grouping and the GPU's conflict-free slot mapping
// (modulo_slots), plus hand-checked small cases and argument errors; and the kernel choice
// (spmm_choose_kernel) with the reason it gives.
//
// Invariants (spmm_analysis.hpp): panel_ptr increasing from 0; per row, the tile ends are monotone
// within [row_map[r], row_map[r+1]] (rows past the matrix: row_map[n]); every entry of heavy tile
// g has a column in g's column list; a tile's columns are increasing, at most tile_cols, at
// least min_tile_cols, pairwise distinct modulo tile_cols with modulo_slots; every tile column
// holds >= heavy_threshold entries in its panel; a light entry's column is in no tile of its panel
// and is heavy only when it was moved (counted in moved_to_light); the permutation is a bijection
// inside each row and entries[k] == original entries[permutation[k]]; heavy_nnz / light_nnz
// match the counts. Host grouping moves nothing to light when min_tile_cols is 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Spmm.hpp"  // before impl/spmm/spmm_analysis.hpp, which needs its declarations
#include "impl/spmm/spmm_analysis.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
using Impl::AsptHostLayout;
using Impl::AsptParams;

namespace {

struct Pattern {
  std::vector<int64_t> row_map, entries;
  int64_t num_cols = 0;
};

Pattern pattern_of(const HostCsr& A) {
  Pattern p;
  p.row_map = A.row_map;
  p.entries.assign(A.entries.begin(), A.entries.end());
  p.num_cols = A.num_cols;
  return p;
}

AsptParams params(int64_t P, int64_t T, int64_t threshold, bool modulo, int64_t min_tile_cols = 1) {
  AsptParams a;
  a.panel_rows = P;
  a.tile_cols = T;
  a.heavy_threshold = threshold;
  a.modulo_slots = modulo;
  a.min_tile_cols = min_tile_cols;
  return a;
}

/// Every invariant of the layout, recounted from the original pattern.
::testing::AssertionResult layout_valid(const Pattern& A, const AsptParams& prm, const AsptHostLayout& L) {
  const int64_t n = static_cast<int64_t>(A.row_map.size()) - 1, P = prm.panel_rows, T = prm.tile_cols;
  const int64_t nnz = A.row_map[n];
  auto fail = [] { return ::testing::AssertionFailure(); };
  if (L.num_rows != n || L.num_cols != A.num_cols || L.panel_rows != P || L.tile_cols_max != T)
    return fail() << "header " << L.num_rows << " x " << L.num_cols << " P " << L.panel_rows << " T "
                  << L.tile_cols_max;
  if (L.num_panels != (n + P - 1) / P) return fail() << "num_panels " << L.num_panels;
  if (static_cast<int64_t>(L.panel_ptr.size()) != L.num_panels + 1 || L.panel_ptr[0] != 0)
    return fail() << "panel_ptr size " << L.panel_ptr.size();
  const int64_t G = L.num_heavy_tiles();
  if (static_cast<int64_t>(L.tile_row_end.size()) != G * P) return fail() << "tile_row_end size";
  if (static_cast<int64_t>(L.tile_col_ptr.size()) != G + 1 || L.tile_col_ptr[0] != 0) return fail() << "tile_col_ptr";
  if (static_cast<int64_t>(L.tile_cols.size()) != L.tile_col_ptr[G]) return fail() << "tile_cols size";
  if (static_cast<int64_t>(L.permutation.size()) != nnz || static_cast<int64_t>(L.entries.size()) != nnz)
    return fail() << "permutation/entries size";

  int64_t heavy_nnz = 0, moved = 0;
  for (int64_t p = 0; p < L.num_panels; ++p) {
    if (L.panel_ptr[p + 1] < L.panel_ptr[p]) return fail() << "panel_ptr decreases at " << p;
    const int64_t r0 = p * P, r1 = std::min(n, r0 + P), g0 = L.panel_ptr[p], g1 = L.panel_ptr[p + 1];
    std::map<int64_t, int64_t> count;  // column -> entries in the panel
    for (int64_t k = A.row_map[r0]; k < A.row_map[r1]; ++k) ++count[A.entries[k]];
    std::map<int64_t, int64_t> tile_of;
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t width = L.tile_col_ptr[g + 1] - L.tile_col_ptr[g];
      if (width < prm.min_tile_cols || width > T) return fail() << "tile " << g << " has " << width << " columns";
      std::set<int64_t> slots;
      for (int64_t i = L.tile_col_ptr[g]; i < L.tile_col_ptr[g + 1]; ++i) {
        const int64_t c = L.tile_cols[i];
        if (i > L.tile_col_ptr[g] && c <= L.tile_cols[i - 1]) return fail() << "tile " << g << " columns not increasing";
        if (count[c] < prm.heavy_threshold)
          return fail() << "tile " << g << " column " << c << " has " << count[c] << " entries in panel " << p;
        if (!tile_of.emplace(c, g).second) return fail() << "column " << c << " in two tiles of panel " << p;
        if (prm.modulo_slots && !slots.insert(c % T).second)
          return fail() << "tile " << g << ": slot " << c % T << " taken twice";
      }
    }
    for (int64_t r = r0; r < r0 + P; ++r) {
      const int64_t l = r - r0;
      if (r >= n) {
        for (int64_t g = g0; g < g1; ++g)
          if (L.tile_row_end[g * P + l] != nnz) return fail() << "padding row of panel " << p << " not at nnz";
        continue;
      }
      // Segment bounds: tile g's entries in [start_g, end_g), light in [end_last, row end).
      int64_t start = A.row_map[r];
      std::multiset<std::pair<int64_t, int64_t>> seen;  // (original position, column)
      for (int64_t g = g0; g <= g1; ++g) {
        const int64_t end = g == g1 ? A.row_map[r + 1] : L.tile_row_end[g * P + l];
        if (end < start || end > A.row_map[r + 1]) return fail() << "row " << r << ": tile end " << end << " out of order";
        for (int64_t k = start; k < end; ++k) {
          const int64_t c = L.entries[k], src = L.permutation[k];
          if (src < A.row_map[r] || src >= A.row_map[r + 1]) return fail() << "row " << r << ": entry from another row";
          if (A.entries[src] != c) return fail() << "row " << r << ": entries[" << k << "] != original[permutation]";
          seen.insert({src, c});
          auto it = tile_of.find(c);
          if (g < g1) {
            if (it == tile_of.end() || it->second != g)
              return fail() << "row " << r << ": entry " << k << " (column " << c << ") in tile " << g
                            << " but the column is not in its list";
            ++heavy_nnz;
          } else {
            if (it != tile_of.end()) return fail() << "row " << r << ": light entry " << k << " in a tile column";
            if (count[c] >= prm.heavy_threshold) ++moved;
          }
        }
        start = end;
      }
      std::set<int64_t> sources;
      for (auto& e : seen) sources.insert(e.first);
      if (static_cast<int64_t>(sources.size()) != A.row_map[r + 1] - A.row_map[r])
        return fail() << "row " << r << ": permutation is not a bijection";
    }
  }
  if (heavy_nnz != L.heavy_nnz || nnz - heavy_nnz != L.light_nnz)
    return fail() << "heavy_nnz " << L.heavy_nnz << " (recount " << heavy_nnz << "), light " << L.light_nnz;
  if (moved != L.moved_to_light) return fail() << "moved_to_light " << L.moved_to_light << " (recount " << moved << ")";
  return ::testing::AssertionSuccess();
}

/// Power-law rows: row i has about max_len / (i % 97 + 1) entries, columns drawn from a skewed
/// distribution (low columns far more likely), so panels mix dense and sparse column segments.
HostCsr power_law(int64_t rows, int64_t cols, int64_t max_len, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = max_len / (i % 97 + 1);
    for (int64_t k = 0; k < len; ++k) {
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      t.push_back({i, static_cast<int64_t>(u * u * u * static_cast<double>(cols)) % cols, 1.0});
    }
  }
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

struct Case {
  std::string name;
  HostCsr A;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"uniform 300x200", test::random_csr(300, 200, 8, 11)});
  c.push_back({"power law 500x400", power_law(500, 400, 120, 12)});
  c.push_back({"banded 257x257 bw 9", gen::banded(257, 9, 0.7, test::seed_for(13))});
  c.push_back({"rmat scale 8", gen::rmat(8, 8, test::seed_for(14))});
  c.push_back({"unsorted with duplicates", test::unsorted_with_duplicates(90, 17, 30, 15)});
  c.push_back({"wide 20x3000", test::random_csr(20, 3000, 300, 16)});
  return c;
}

TEST(SpmmAnalysis, InvariantsHostGrouping) {
  for (const Case& cs : cases())
    for (auto [P, T, th] : std::vector<std::array<int64_t, 3>>{{16, 8, 2}, {7, 3, 3}, {64, 4096, 2}, {1, 5, 1}, {33, 1, 2}}) {
      const Pattern A = pattern_of(cs.A);
      const AsptParams prm = params(P, T, th, false);
      const AsptHostLayout L = Impl::build_aspt_layout(A.row_map, A.entries, A.num_cols, prm);
      EXPECT_TRUE(layout_valid(A, prm, L)) << cs.name << " P " << P << " T " << T << " threshold " << th;
      EXPECT_EQ(L.moved_to_light, 0) << cs.name;  // the host keeps every heavy column
    }
}

TEST(SpmmAnalysis, InvariantsModuloSlots) {
  int64_t total_moved = 0, total_heavy = 0;
  for (const Case& cs : cases())
    for (auto [P, T, th, min_cols] :
         std::vector<std::array<int64_t, 4>>{{16, 8, 2, 1}, {32, 16, 2, 4}, {64, 32, 3, 2}, {8, 1, 2, 1}, {128, 256, 2, 16}}) {
      const Pattern A = pattern_of(cs.A);
      const AsptParams prm = params(P, T, th, true, min_cols);
      const AsptHostLayout L = Impl::build_aspt_layout(A.row_map, A.entries, A.num_cols, prm);
      EXPECT_TRUE(layout_valid(A, prm, L)) << cs.name << " P " << P << " T " << T << " threshold " << th
                                           << " min_tile_cols " << min_cols;
      total_moved += L.moved_to_light;
      total_heavy += L.heavy_nnz;
    }
  // The cases must exercise both outcomes, or the moved/kept checks above prove nothing.
  EXPECT_GT(total_moved, 0);
  EXPECT_GT(total_heavy, 0);
}

// Hand-checked: 4 rows, panel_rows 2, threshold 2.
//   row 0: cols 5 1 3     row 1: cols 3 5 0      (panel 0: 3 and 5 heavy, 0 and 1 light)
//   row 2: col 2          row 3: cols 4 2        (panel 1: 2 heavy, 4 light)
TEST(SpmmAnalysis, HandChecked) {
  const std::vector<int64_t> row_map{0, 3, 6, 7, 9};
  const std::vector<int64_t> entries{5, 1, 3, 3, 5, 0, 2, 4, 2};
  const AsptHostLayout L = Impl::build_aspt_layout(row_map, entries, 6, params(2, 8, 2, false));
  EXPECT_EQ(L.panel_ptr, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(L.tile_col_ptr, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(L.tile_cols, (std::vector<int64_t>{3, 5, 2}));
  // Heavy entries first, in their original order within the row, then light ones.
  EXPECT_EQ(L.entries, (std::vector<int64_t>{5, 3, 1, 3, 5, 0, 2, 2, 4}));
  EXPECT_EQ(L.permutation, (std::vector<int64_t>{0, 2, 1, 3, 4, 5, 6, 8, 7}));
  EXPECT_EQ(L.tile_row_end, (std::vector<int64_t>{2, 5, 7, 8}));
  EXPECT_EQ(L.heavy_nnz, 6);
  EXPECT_EQ(L.light_nnz, 3);

  // Two tiles of one column each when tile_cols = 1.
  const AsptHostLayout L1 = Impl::build_aspt_layout(row_map, entries, 6, params(2, 1, 2, false));
  EXPECT_EQ(L1.panel_ptr, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(L1.tile_cols, (std::vector<int64_t>{3, 5, 2}));
  EXPECT_EQ(L1.entries, (std::vector<int64_t>{3, 5, 1, 3, 5, 0, 2, 2, 4}));
  // tile 0 (col 3): row 0 ends at 1, row 1 at 4; tile 1 (col 5): 2, 5; tile 2 (col 2): 7, 8.
  EXPECT_EQ(L1.tile_row_end, (std::vector<int64_t>{1, 4, 2, 5, 7, 8}));
}

// Modulo slots: columns 1, 5, 9 share slot 1 of 4, so they land in three tiles; column 2 joins
// the first. With min_tile_cols 2, the single-column tiles 1 and 2 go to the light tile.
TEST(SpmmAnalysis, ModuloSlotsHandChecked) {
  const std::vector<int64_t> row_map{0, 4, 8};
  const std::vector<int64_t> entries{9, 5, 1, 2, 1, 2, 5, 9};
  const AsptHostLayout L = Impl::build_aspt_layout(row_map, entries, 10, params(2, 4, 2, true));
  EXPECT_EQ(L.panel_ptr, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(L.tile_cols, (std::vector<int64_t>{1, 2, 5, 9}));
  EXPECT_EQ(L.tile_col_ptr, (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(L.moved_to_light, 0);

  const AsptHostLayout M = Impl::build_aspt_layout(row_map, entries, 10, params(2, 4, 2, true, 2));
  EXPECT_EQ(M.panel_ptr, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(M.tile_cols, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(M.moved_to_light, 4);  // columns 5 and 9, twice each
  EXPECT_EQ(M.heavy_nnz, 4);
  EXPECT_EQ(M.entries, (std::vector<int64_t>{1, 2, 9, 5, 1, 2, 5, 9}));
}

TEST(SpmmAnalysis, EmptyAndDegenerate) {
  // 0 rows.
  const AsptHostLayout L0 = Impl::build_aspt_layout({0}, {}, 5, params(4, 4, 2, false));
  EXPECT_EQ(L0.num_panels, 0);
  EXPECT_EQ(L0.num_heavy_tiles(), 0);
  // Rows but no entries, and no columns at all.
  for (bool modulo : {false, true}) {
    const std::vector<int64_t> rm(11, 0);
    const AsptHostLayout L = Impl::build_aspt_layout(rm, {}, 0, params(4, 4, 2, modulo));
    EXPECT_EQ(L.num_panels, 3);
    EXPECT_EQ(L.num_heavy_tiles(), 0);
    EXPECT_EQ(L.heavy_nnz + L.light_nnz, 0);
  }
  // Threshold 1: every column segment is heavy, nothing is light.
  const Pattern A = pattern_of(test::random_csr(50, 30, 5, 21));
  const AsptHostLayout L = Impl::build_aspt_layout(A.row_map, A.entries, A.num_cols, params(8, 64, 1, false));
  EXPECT_EQ(L.light_nnz, 0);
  EXPECT_TRUE(layout_valid(A, params(8, 64, 1, false), L));
}

TEST(SpmmAnalysis, BadArgumentsThrow) {
  const std::vector<int64_t> rm{0, 2}, e{0, 1};
  EXPECT_THROW(Impl::build_aspt_layout(rm, e, 2, params(0, 4, 2, false)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout(rm, e, 2, params(4, 0, 2, false)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout(rm, e, 2, params(4, 4, 0, false)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout(rm, e, 2, params(4, 4, 2, false, 5)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout(rm, e, 2, params(4, 4, 2, false, 0)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout(rm, {0, 2}, 2, params(4, 4, 2, false)), InvalidArgument);  // column 2 of 2
  EXPECT_THROW(Impl::build_aspt_layout(rm, {0, -1}, 2, params(4, 4, 2, false)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout({0, 3}, e, 2, params(4, 4, 2, false)), InvalidArgument);  // row_map past nnz
  EXPECT_THROW(Impl::build_aspt_layout({0, 2, 1}, e, 2, params(4, 4, 2, false)), InvalidArgument);
  EXPECT_THROW(Impl::build_aspt_layout({}, {}, 2, params(4, 4, 2, false)), InvalidArgument);
  try {
    Impl::build_aspt_layout(rm, e, 2, params(4, -3, 2, false));
    FAIL() << "did not throw";
  } catch (const InvalidArgument& err) {
    EXPECT_NE(std::string(err.what()).find("tile_cols = -3"), std::string::npos) << err.what();
  }
}

// The kernel choice: forced kernels are kept, the portable backend and the CUDA target run
// csr_rows, the native host backend picks aspt at or above min_heavy_fraction (and only with
// heavy nonzeros), each with the reason describe() prints.
TEST(SpmmAnalysis, KernelChoiceAndReason) {
  SpmmTilingStats stats;
  stats.heavy_nnz = 30;
  stats.light_nnz = 70;
  std::string why;
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::aspt, Backend::native, SpmmTarget::host, stats, 100, 0.9, &why), SpmmKernel::aspt);
  EXPECT_EQ(why, "forced");
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::csr_rows, Backend::portable, SpmmTarget::portable, stats, 100, 0.1, &why),
            SpmmKernel::csr_rows);
  EXPECT_EQ(why, "forced");
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::automatic, Backend::portable, SpmmTarget::portable, stats, 100, 0.1, &why),
            SpmmKernel::csr_rows);
  EXPECT_EQ(why, "automatic: the portable backend's only kernel");
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::automatic, Backend::native, SpmmTarget::host, stats, 100, 0.3, &why), SpmmKernel::aspt);
  EXPECT_EQ(why, "automatic: 30.0% of the nonzeros in heavy tiles, >= 30.0% needed for aspt");
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::automatic, Backend::native, SpmmTarget::host, stats, 100, 0.663, &why),
            SpmmKernel::csr_rows);
  EXPECT_EQ(why, "automatic: 30.0% of the nonzeros in heavy tiles, < 66.3% needed for aspt");
  // No heavy nonzeros: csr_rows even when no fraction is required.
  stats.heavy_nnz = 0;
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::automatic, Backend::native, SpmmTarget::host, stats, 100, 0.0, &why),
            SpmmKernel::csr_rows);
  EXPECT_EQ(why, "automatic: 0.0% of the nonzeros in heavy tiles, < 0.0% needed for aspt");
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::automatic, Backend::native, SpmmTarget::host, stats, 0, 0.0, &why),
            SpmmKernel::csr_rows);
  // The CUDA target: csr_rows whatever the heavy fraction, aspt when forced.
  stats.heavy_nnz = 90;
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::automatic, Backend::native, SpmmTarget::cuda, stats, 100, 0.1, &why),
            SpmmKernel::csr_rows);
  EXPECT_EQ(why, "automatic: csr_rows on the CUDA target (aspt only when forced)");
  EXPECT_EQ(Impl::spmm_choose_kernel(SpmmKernel::aspt, Backend::native, SpmmTarget::cuda, stats, 100, 0.1, &why),
            SpmmKernel::aspt);
}

}  // namespace
