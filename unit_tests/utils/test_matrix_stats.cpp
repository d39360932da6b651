// Matrix statistics on hand-checked matrices and on generated ones against direct recounts.
#include <gtest/gtest.h>

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
