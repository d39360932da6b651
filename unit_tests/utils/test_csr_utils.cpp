// sort_rows, sum_duplicates and transpose against simple oracles, on HostCsr and on CrsMatrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "Sprocket_CsrUtils.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

// Oracle: per row, a map column -> summed value.
std::vector<std::map<int, double>> as_maps(const HostCsr& A) {
  std::vector<std::map<int, double>> rows(A.num_rows);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) rows[i][A.entries[k]] += A.values[k];
  return rows;
}

}  // namespace

TEST(CsrUtils, SortRowsKeepsPairsTogether) {
  HostCsr A = test::unsorted_with_duplicates(200, 50, 12, 1);
  HostCsr S = A;
  sort_rows(S);
  EXPECT_EQ(S.row_map, A.row_map);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    std::vector<std::pair<int, double>> expected, got;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      expected.emplace_back(A.entries[k], A.values[k]);
      got.emplace_back(S.entries[k], S.values[k]);
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [](auto& a, auto& b) { return a.first < b.first; });
    ASSERT_EQ(got, expected) << "row " << i;
  }
}

TEST(CsrUtils, SumDuplicatesMatchesMapOracle) {
  HostCsr A = test::unsorted_with_duplicates(300, 40, 16, 2);
  HostCsr S = A;
  sum_duplicates(S);
  EXPECT_NO_THROW(S.validate());
  EXPECT_TRUE(S.is_sorted_and_unique());
  auto expected = as_maps(A);
  for (int64_t i = 0; i < S.num_rows; ++i) {
    std::map<int, double> got;
    for (int64_t k = S.row_map[i]; k < S.row_map[i + 1]; ++k) got[S.entries[k]] = S.values[k];
    ASSERT_EQ(got, expected[i]) << "row " << i;
  }
}

TEST(CsrUtils, TransposeNonSquareWithEmptyRows) {
  HostCsr A = test::unsorted_with_duplicates(37, 91, 10, 3);
  HostCsr T = transpose(A);
  EXPECT_EQ(T.num_rows, 91);
  EXPECT_EQ(T.num_cols, 37);
  EXPECT_EQ(T.nnz(), A.nnz());
  auto a = as_maps(A), t = as_maps(T);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (auto [j, v] : a[i]) EXPECT_EQ(t[j][static_cast<int>(i)], v);
  for (int64_t j = 0; j < T.num_rows; ++j)
    for (int64_t k = T.row_map[j] + 1; k < T.row_map[j + 1]; ++k)
      ASSERT_LE(T.entries[k - 1], T.entries[k]) << "transpose rows must come out sorted";
  // Transposing twice gives back A with rows sorted and duplicates kept.
  HostCsr S = A;
  sort_rows(S);
  EXPECT_TRUE(test::same_csr(transpose(T), S));
}

TEST(CsrUtils, EmptyMatrix) {
  HostCsr A = HostCsr::from_triplets(0, 4, {});
  EXPECT_EQ(transpose(A).num_rows, 4);
  EXPECT_EQ(transpose(A).nnz(), 0);
  sum_duplicates(A);
  EXPECT_EQ(A.nnz(), 0);
}

template <class CrsType>
class CsrUtilsOnCrs : public ::testing::Test {};
TYPED_TEST_SUITE(CsrUtilsOnCrs, test::CrsTypes);

TYPED_TEST(CsrUtilsOnCrs, SameAsHostVersions) {
  using Crs = TypeParam;
  HostCsr A = test::unsorted_with_duplicates(64, 48, 12, 4);
  Crs a = to_crs<Crs>(A);
  HostCsr sorted = A, summed = A;
  sort_rows(sorted);
  sum_duplicates(summed);
  EXPECT_TRUE(test::same_csr(to_host_csr(sort_rows(a)), sorted));
  EXPECT_TRUE(test::same_csr(to_host_csr(sum_duplicates(a)), summed));
  EXPECT_TRUE(test::same_csr(to_host_csr(transpose(a)), transpose(A)));
}
