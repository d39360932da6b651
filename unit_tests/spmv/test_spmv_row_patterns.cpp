// The row-pattern dictionary of the SpMV analysis (find_row_patterns, impl/spmv/spmv_analysis.hpp)
// against a serial reference: runs of rows are counted on the host threads and their
// dictionaries merged, and the result must be what one pass in row order gives (ids in the
// order of each pattern's first row), or unusable exactly when the whole matrix passes a limit.
// Matrices long enough to be cut into many runs, patterns first seen in late runs. Also the 16-bit
// column offsets (compress_columns), computed in the same runs of rows.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "Sprocket_Spmv.hpp"
#include "impl/spmv/spmv_analysis.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;

struct PatternMatrix {
  std::vector<int64_t> row_map{0};
  Kokkos::View<int*, Kokkos::HostSpace> entries;
};

/// `rows` rows, row r taking the offsets of pattern pick(r) from `pool`, columns r + offset
/// (the pool's offsets keep every column in [0, rows) for the rows that use them).
template <class Pick>
PatternMatrix pattern_matrix(int64_t rows, const std::vector<std::vector<int>>& pool, const Pick& pick) {
  PatternMatrix m;
  std::vector<int> cols;
  for (int64_t r = 0; r < rows; ++r) {
    for (int o : pool[pick(r)]) cols.push_back(static_cast<int>(r + o));
    m.row_map.push_back(static_cast<int64_t>(cols.size()));
  }
  m.entries = Kokkos::View<int*, Kokkos::HostSpace>("entries", cols.size());
  for (size_t k = 0; k < cols.size(); ++k) m.entries(k) = cols[k];
  return m;
}

/// A pool of distinct patterns: pattern q has max(2, 1 + q % max_len) offsets, unsorted, the
/// first two encoding q (so no two are equal), the rest in [-span, span].
std::vector<std::vector<int>> pattern_pool(int count, int max_len, int span, std::mt19937_64& rng) {
  std::vector<std::vector<int>> pool(count);
  for (int q = 0; q < count; ++q) {
    pool[q].push_back(q % (2 * span + 1) - span);
    pool[q].push_back(q / (2 * span + 1));
    for (int j = 2; j < 1 + q % max_len; ++j) pool[q].push_back(static_cast<int>(rng() % (2 * span + 1)) - span);
  }
  return pool;
}

struct Reference {
  std::vector<uint16_t> row_pattern;
  std::vector<std::vector<int32_t>> patterns;  // in the order of their first row
  int64_t offsets = 0;
};

Reference serial_patterns(const PatternMatrix& m) {
  Reference ref;
  std::map<std::vector<int32_t>, int> id;
  const int64_t n = static_cast<int64_t>(m.row_map.size()) - 1;
  for (int64_t r = 0; r < n; ++r) {
    std::vector<int32_t> p;
    for (int64_t k = m.row_map[r]; k < m.row_map[r + 1]; ++k) p.push_back(static_cast<int32_t>(m.entries(k) - r));
    const auto [it, added] = id.emplace(p, static_cast<int>(ref.patterns.size()));
    if (added) {
      ref.patterns.push_back(p);
      ref.offsets += static_cast<int64_t>(p.size());
    }
    ref.row_pattern.push_back(static_cast<uint16_t>(it->second));
  }
  return ref;
}

void expect_same_as_reference(const PatternMatrix& m, const char* what) {
  SCOPED_TRACE(what);
  const Reference ref = serial_patterns(m);
  const auto got = Impl::find_row_patterns<HostDevice>(m.entries, m.row_map);
  const bool fits = static_cast<int64_t>(ref.patterns.size()) <= SpmvSchedule::max_row_patterns &&
                    ref.offsets <= SpmvSchedule::max_row_pattern_offsets;
  ASSERT_EQ(got.usable, fits) << ref.patterns.size() << " patterns, " << ref.offsets << " offsets";
  if (!fits) {
    // Counting stopped where a limit was passed: the counts say which.
    EXPECT_TRUE(got.count > SpmvSchedule::max_row_patterns || got.total_offsets > SpmvSchedule::max_row_pattern_offsets)
        << got.count << " patterns, " << got.total_offsets << " offsets";
    return;
  }
  ASSERT_EQ(got.count, static_cast<int64_t>(ref.patterns.size()));
  ASSERT_EQ(got.total_offsets, ref.offsets);
  for (int64_t p = 0; p < got.count; ++p) {
    std::vector<int32_t> offsets(got.offsets.data() + got.begin(p), got.offsets.data() + got.begin(p + 1));
    ASSERT_EQ(offsets, ref.patterns[p]) << "pattern " << p;
  }
  int64_t wrong = 0, first_wrong = -1;
  for (size_t r = 0; r < ref.row_pattern.size(); ++r)
    if (got.row_pattern(r) != ref.row_pattern[r]) {
      if (first_wrong < 0) first_wrong = static_cast<int64_t>(r);
      ++wrong;
    }
  EXPECT_EQ(wrong, 0) << "first at row " << first_wrong;
  ASSERT_EQ(got.offsets_fit_16_bits, got.offsets16.extent(0) > 0 || got.total_offsets == 0);
}

}  // namespace

// Rows long enough for many runs; each row draws its pattern at random from a pool, so every run
// meets the patterns in its own order and later runs find patterns the earlier ones did not.
TEST(SpmvRowPatterns, ManyRunsNumberPatternsAsOnePass) {
  std::mt19937_64 rng(test::seed_for(596));
  const int64_t rows = 400000;
  for (const int pool_size : {1, 7, 300}) {
    const auto pool = pattern_pool(pool_size, 9, 40, rng);
    // Rows near the ends take the patterns that stay inside [0, rows): the one whose offsets are
    // all >= 0 at the start, the pool's at most 40 + pool_size / 81 away elsewhere.
    const int64_t margin = 80 + pool_size;
    auto pick = [&](int64_t r) -> int {
      if (r < margin || r >= rows - margin) return -1;
      return static_cast<int>(rng() % pool.size());
    };
    std::vector<std::vector<int>> with_ends = pool;
    with_ends.push_back({0});
    const int end_pattern = static_cast<int>(with_ends.size()) - 1;
    const PatternMatrix m = pattern_matrix(rows, with_ends, [&](int64_t r) {
      const int p = pick(r);
      return p < 0 ? end_pattern : p;
    });
    expect_same_as_reference(m, pool_size == 1 ? "one pattern" : pool_size == 7 ? "7 patterns" : "300 patterns");
  }
}

// Long rows (16 entries and more are compared without stopping at the first difference) whose
// patterns agree everywhere but at one place, first, middle or last: a row must still get its own.
TEST(SpmvRowPatterns, LongPatternsDifferingInOneOffset) {
  std::mt19937_64 rng(test::seed_for(600));
  const int64_t rows = 200000;
  std::vector<std::vector<int>> pool;
  for (const int len : {16, 17, 33, 81}) {
    std::vector<int> base(len);
    for (int& o : base) o = static_cast<int>(rng() % 201) - 100;
    pool.push_back(base);
    for (const int at : {0, 1, len / 2, len - 2, len - 1}) {
      std::vector<int> v = base;
      v[at] += 1 + static_cast<int>(rng() % 3);
      pool.push_back(v);
    }
  }
  pool.push_back({0});
  const int end_pattern = static_cast<int>(pool.size()) - 1;
  const PatternMatrix m = pattern_matrix(rows, pool, [&](int64_t r) {
    if (r < 200 || r >= rows - 200) return end_pattern;
    // Runs of a few rows with one pattern, so the recently used ones are compared first.
    return static_cast<int>((r / (1 + r % 3) * 7919 + rng() % 2) % end_pattern);
  });
  expect_same_as_reference(m, "long patterns differing in one offset");
}

// Patterns new in every stretch of rows: the later runs' ids are all renumbered.
TEST(SpmvRowPatterns, PatternsFirstSeenLateAreRenumbered) {
  std::mt19937_64 rng(test::seed_for(597));
  const int64_t rows = 400000;
  const auto pool = pattern_pool(2000, 5, 100, rng);
  std::vector<std::vector<int>> with_ends = pool;
  with_ends.push_back({0});
  const int end_pattern = static_cast<int>(with_ends.size()) - 1;
  // Stretch s of the rows uses patterns [s * 100, s * 100 + 100) of the pool, mixed with the
  // first ten (found again in every run).
  const PatternMatrix m = pattern_matrix(rows, with_ends, [&](int64_t r) {
    if (r < 200 || r >= rows - 200) return end_pattern;
    const int64_t stretch = r * 20 / rows;
    return rng() % 4 == 0 ? static_cast<int>(rng() % 10) : static_cast<int>(stretch * 100 + rng() % 100);
  });
  expect_same_as_reference(m, "2000 patterns in 20 stretches");
}

// Each stretch alone within the limits, the whole matrix past the offsets' limit: only the merge
// sees it. And one stretch alone past it.
TEST(SpmvRowPatterns, LimitPassedOnlyByTheMergedDictionary) {
  std::mt19937_64 rng(test::seed_for(598));
  const int64_t rows = 400000;
  // 6000 patterns of 2-4 offsets: 16500 offsets in all (the limit is 16384), a quarter of them
  // per quarter of the rows, each pattern in one stretch of rows.
  const auto pool = pattern_pool(6000, 4, 3000, rng);
  int64_t pool_offsets = 0;
  for (const auto& p : pool) pool_offsets += static_cast<int64_t>(p.size());
  std::vector<std::vector<int>> with_ends = pool;
  with_ends.push_back({0});
  const int end_pattern = static_cast<int>(with_ends.size()) - 1;
  for (const int64_t used : {int64_t{3000}, int64_t{6000}}) {
    const PatternMatrix m = pattern_matrix(rows, with_ends, [&](int64_t r) {
      if (r < 4000 || r >= rows - 4000) return end_pattern;
      return static_cast<int>(((r - 4000) * used) / (rows - 8000));  // in row order
    });
    SCOPED_TRACE(std::to_string(used) + " of " + std::to_string(pool_offsets) + " offsets' patterns");
    expect_same_as_reference(m, used == 3000 ? "within the limit" : "past it only merged");
  }
  // All distinct patterns in the first rows: the first run passes the limit on its own.
  const auto wide = pattern_pool(20000, 3, 5000, rng);
  std::vector<std::vector<int>> wide_ends = wide;
  wide_ends.push_back({0});
  const PatternMatrix first_run = pattern_matrix(rows, wide_ends, [&](int64_t r) {
    return r >= 6000 && r < 26000 ? static_cast<int>(r - 6000) : static_cast<int>(wide.size());
  });
  expect_same_as_reference(first_run, "past it in the first rows");
}

TEST(SpmvRowPatterns, SmallAndEmptyMatrices) {
  PatternMatrix empty;
  empty.entries = Kokkos::View<int*, Kokkos::HostSpace>("entries", 0);
  expect_same_as_reference(empty, "no rows");
  const PatternMatrix no_entries = pattern_matrix(1000, std::vector<std::vector<int>>(1), [](int64_t) { return 0; });
  expect_same_as_reference(no_entries, "rows without entries");
  const PatternMatrix one = pattern_matrix(1, std::vector<std::vector<int>>{std::vector<int>{0}}, [](int64_t) { return 0; });
  expect_same_as_reference(one, "one row");
}

// The 16-bit column offsets (compress_columns), computed in runs of rows on the host threads:
// every entry's col - row, and the bandwidth, as one serial pass gives them, with the widest
// offset in the first, a middle or the last run; past 32767 the copy is dropped.
TEST(SpmvColumnOffsets, ManyRunsAsOnePass) {
  std::mt19937_64 rng(test::seed_for(601));
  const int64_t rows = 100000;  // 5 entries a row: several runs
  for (const int64_t wide_row : {int64_t{3}, rows / 2, rows - 1}) {
    for (const int64_t reach : {int64_t{30000}, int64_t{32767}, int64_t{32768}, int64_t{90000}}) {
      PatternMatrix m;
      std::vector<int> cols;
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t d = -2; d <= 2; ++d) {
          int64_t c = r + d + static_cast<int64_t>(rng() % 3) - 1;  // stored unsorted, near the diagonal
          if (r == wide_row && d == 0) c = r + reach < rows ? r + reach : r - reach;
          cols.push_back(static_cast<int>(std::min<int64_t>(rows - 1, std::max<int64_t>(0, c))));
        }
        m.row_map.push_back(static_cast<int64_t>(cols.size()));
      }
      m.entries = Kokkos::View<int*, Kokkos::HostSpace>("entries", cols.size());
      int64_t bandwidth = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = m.row_map[r]; k < m.row_map[r + 1]; ++k) {
          m.entries(k) = cols[k];
          bandwidth = std::max<int64_t>(bandwidth, std::abs(cols[k] - r));
        }
      SCOPED_TRACE("widest offset in row " + std::to_string(wide_row) + ", bandwidth " + std::to_string(bandwidth));
      ASSERT_GT(Impl::host_row_runs(m.row_map).size(), size_t{3});  // several runs
      const auto [offsets, got_bandwidth] = Impl::compress_columns<HostDevice>(m.entries, m.row_map);
      EXPECT_EQ(got_bandwidth, bandwidth);
      if (bandwidth > 32767) {
        EXPECT_EQ(offsets.extent(0), size_t{0});
        continue;
      }
      ASSERT_EQ(offsets.extent(0), cols.size());
      int64_t wrong = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = m.row_map[r]; k < m.row_map[r + 1]; ++k) wrong += offsets(k) != cols[k] - r;
      EXPECT_EQ(wrong, 0);
    }
  }
}
