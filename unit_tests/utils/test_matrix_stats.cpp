// Matrix statistics on hand-checked matrices and on generated ones against direct recounts.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "Sprocket_MatrixStats.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

TEST(MatrixStats, HandChecked) {
  // Row lengths 2, 0, 5, 1; entries below and above the diagonal; diagonal stored in rows 0, 2, 3.
  HostCsr A = test::csr_from_dense(4, 6, {1, 0, 0, 0, 0, 2,  //
                                          0, 0, 0, 0, 0, 0,  //
                                          3, 4, 5, 6, 7, 0,  //
                                          0, 0, 0, 8, 0, 0});
  MatrixStats s = compute_stats(A);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.cols, 6);
  EXPECT_EQ(s.nnz, 8);
  EXPECT_EQ(s.min_row, 0);
  EXPECT_EQ(s.max_row, 5);
  EXPECT_DOUBLE_EQ(s.avg_row, 2.0);
  EXPECT_DOUBLE_EQ(s.var_row, (0.0 + 4.0 + 9.0 + 1.0) / 4.0);
  EXPECT_EQ(s.empty_rows, 1);
  // buckets: [0]:1, [1,2):1 (len 1), [2,4):1 (len 2), [4,8):1 (len 5)
  EXPECT_EQ(s.histogram, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(s.lower_bandwidth, 2);
  EXPECT_EQ(s.upper_bandwidth, 5);
  EXPECT_EQ(s.bandwidth(), 5);
  EXPECT_EQ(s.diagonal_count, 3);
  const std::string json = s.to_json();
  for (const char* key : {"\"rows\":4", "\"cols\":6", "\"nnz\":8", "\"min_row\":0", "\"max_row\":5",
                          "\"avg_row\":2", "\"histogram\":[1,1,1,1]"})
    EXPECT_NE(json.find(key), std::string::npos) << key << " missing in " << json;
  EXPECT_NE(s.to_text().find("diagonal entries 3"), std::string::npos) << s.to_text();
}

TEST(MatrixStats, EmptyMatrix) {
  MatrixStats s = compute_stats(HostCsr::from_triplets(0, 0, {}));
  EXPECT_EQ(s.rows, 0);
  EXPECT_EQ(s.nnz, 0);
  EXPECT_EQ(s.max_row, 0);
  EXPECT_TRUE(s.histogram.empty());
  EXPECT_NE(s.to_json().find("\"histogram\":[]"), std::string::npos);
}

TEST(MatrixStats, RandomMatchesRecount) {
  HostCsr A = test::random_csr(1000, 700, 9.0, 1);
  MatrixStats s = compute_stats(A);
  int64_t total = 0, diag = 0, mx = 0, mn = A.nnz();
  std::vector<int64_t> hist(s.histogram.size(), 0);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    const int64_t len = A.row_length(i);
    total += len;
    mx = std::max(mx, len);
    mn = std::min(mn, len);
    int bucket = len == 0 ? 0 : 1 + static_cast<int>(std::floor(std::log2(double(len))));
    ASSERT_LT(bucket, static_cast<int>(hist.size()));
    ++hist[bucket];
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) diag += A.entries[k] == i;
  }
  EXPECT_EQ(s.nnz, total);
  EXPECT_EQ(s.max_row, mx);
  EXPECT_EQ(s.min_row, mn);
  EXPECT_EQ(s.diagonal_count, diag);
  EXPECT_EQ(s.histogram, hist);
}

template <class CrsType>
class MatrixStatsOnCrs : public ::testing::Test {};
TYPED_TEST_SUITE(MatrixStatsOnCrs, test::CrsTypes);

TYPED_TEST(MatrixStatsOnCrs, SameAsHost) {
  HostCsr A = test::random_csr(200, 300, 5.0, 2);
  MatrixStats a = compute_stats(A), b = compute_stats(to_crs<TypeParam>(A));
  EXPECT_EQ(a.to_json(), b.to_json());
}

namespace {
/// row_length_stats recomputed the plain way: lengths one by one, the variance by the two-pass
/// formula in long double, the bucket by doubling.
RowLengthStats row_length_stats_reference(const std::vector<int64_t>& row_map) {
  RowLengthStats s;
  s.rows = static_cast<int64_t>(row_map.size()) - 1;
  s.nnz = row_map.back() - row_map.front();
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  s.min_row = s.max_row = row_map[1] - row_map[0];
  long double mean = static_cast<long double>(s.nnz) / s.rows, sum_sq = 0;
  for (int64_t i = 0; i < s.rows; ++i) {
    const int64_t len = row_map[i + 1] - row_map[i];
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
    sum_sq += (len - mean) * (len - mean);
    size_t bucket = 0;
    while (bucket < 63 && (int64_t{1} << bucket) <= len) ++bucket;
    if (s.histogram.size() <= bucket) s.histogram.resize(bucket + 1, 0);
    ++s.histogram[bucket];
  }
  s.var_row = static_cast<double>(sum_sq / s.rows);
  return s;
}
}  // namespace

// Row maps drawn fresh: mostly short rows, some empty, a few very long ones (lengths near 2^32,
// whose squares summed overflow 64 bits), one row, and row maps not starting at 0.
TEST(MatrixStats, RowLengthStatsMatchesReference) {
  std::mt19937_64 rng(test::seed_for(59));
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t rows = trial == 0 ? 1 : 1 + static_cast<int64_t>(rng() % 5000);
    std::vector<int64_t> row_map{trial % 3 == 0 ? static_cast<int64_t>(rng() % 1000) : 0};
    for (int64_t i = 0; i < rows; ++i) {
      const uint64_t kind = rng() % 100;
      const int64_t len = kind < 10   ? 0
                          : kind < 98 ? static_cast<int64_t>(rng() % 40)
                                      : (int64_t{1} << 32) - static_cast<int64_t>(rng() % 1000);
      row_map.push_back(row_map.back() + len);
    }
    const RowLengthStats got = row_length_stats(row_map), want = row_length_stats_reference(row_map);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", " + std::to_string(rows) + " rows");
    EXPECT_EQ(got.rows, want.rows);
    EXPECT_EQ(got.nnz, want.nnz);
    EXPECT_EQ(got.min_row, want.min_row);
    EXPECT_EQ(got.max_row, want.max_row);
    EXPECT_EQ(got.empty_rows, want.empty_rows);
    EXPECT_DOUBLE_EQ(got.avg_row, want.avg_row);
    EXPECT_NEAR(got.var_row, want.var_row, 1e-12 * std::max(1.0, want.var_row));
    EXPECT_EQ(got.histogram, want.histogram);
  }
}

TEST(MatrixStats, RowLengthStatsRejectsADecreasingRowMap) {
  EXPECT_TRUE(row_length_stats({}).histogram.empty());
  try {
    row_length_stats({0, 3, 5, 4, 9});
    FAIL() << "a decreasing row map was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("decreases at row 2 (5 > 4)"), std::string::npos) << e.what();
  }
}
