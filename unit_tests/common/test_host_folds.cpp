// The folds the analyses run on the host threads (impl/common/host_folds.hpp) against serial
// loops, on arrays long enough to be cut into many chunks, with the extreme or the decrease put at
// chunk boundaries; and Sprocket::validate, which folds a CrsMatrix's and a BsrMatrix's arrays
// with them, still naming the first violation.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Sprocket_Validate.hpp"
#include "impl/common/host_folds.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

/// Positions worth planting a value at: the ends, every boundary of a cut into m equal chunks
/// for m up to 64 (whatever number of chunks host_chunked picks), their neighbours, and random.
std::vector<int64_t> planted_positions(int64_t n, std::mt19937_64& rng) {
  std::vector<int64_t> at{0, n - 1};
  for (int64_t m = 2; m <= 64; m *= 2)
    for (int64_t c = 1; c < m; c += std::max<int64_t>(1, m / 4))
      for (int64_t d = -1; d <= 1; ++d) at.push_back(std::clamp<int64_t>(n * c / m + d, 0, n - 1));
  for (int i = 0; i < 8; ++i) at.push_back(static_cast<int64_t>(rng() % n));
  return at;
}

template <class T>
class HostFolds : public ::testing::Test {};
using FoldTypes = ::testing::Types<int32_t, int64_t, uint64_t>;
TYPED_TEST_SUITE(HostFolds, FoldTypes);

TYPED_TEST(HostFolds, ValueRangeMatchesSerial) {
  using T = TypeParam;
  std::mt19937_64 rng(test::seed_for(591));
  for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{3}, Impl::host_fold_min_chunk - 1,
                          8 * Impl::host_fold_min_chunk + 17}) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(1000 + rng() % 100000);
    const auto range = Impl::host_value_range(v.data(), n);
    if (n == 0) {
      EXPECT_EQ(range, (std::pair<int64_t, int64_t>{0, -1}));
      continue;
    }
    for (const int64_t at : planted_positions(n, rng)) {
      // One extreme at a time, put where a chunk starts or ends: a fold that skipped a chunk's
      // first or last element, or dropped a chunk's result, misses it.
      for (const T planted : {T{3}, static_cast<T>(5000000)}) {
        const T kept = v[at];
        v[at] = planted;
        const auto got = Impl::host_value_range(v.data(), n);
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        EXPECT_EQ(got.first, static_cast<int64_t>(*lo)) << "n " << n << ", planted " << +planted << " at " << at;
        EXPECT_EQ(got.second, static_cast<int64_t>(*hi)) << "n " << n << ", planted " << +planted << " at " << at;
        v[at] = kept;
      }
    }
  }
}

TYPED_TEST(HostFolds, NondecreasingFindsADecreaseAnywhere) {
  using T = TypeParam;
  std::mt19937_64 rng(test::seed_for(592));
  for (const int64_t n : {int64_t{0}, int64_t{1}, int64_t{2}, Impl::host_fold_min_chunk + 1,
                          8 * Impl::host_fold_min_chunk + 5}) {
    std::vector<T> v(n);
    T x = 0;
    for (auto& e : v) e = x += static_cast<T>(rng() % 3);  // runs of equal values included
    EXPECT_TRUE(Impl::host_nondecreasing(v.data(), n)) << "n " << n;
    if (n < 2) continue;
    for (const int64_t at : planted_positions(n - 1, rng)) {
      // v[at] > v[at + 1]: the pair may straddle two chunks.
      const T kept = v[at + 1];
      v[at + 1] = v[at] == 0 ? kept : static_cast<T>(v[at] - 1);
      if (v[at] > v[at + 1]) EXPECT_FALSE(Impl::host_nondecreasing(v.data(), n)) << "n " << n << ", decrease at " << at;
      v[at + 1] = kept;
    }
  }
}

/// A CrsMatrix long enough for the validation's parallel folds: `rows` rows of 1-4 entries, with
/// its row map writable (the matrix's own is a View of const offsets).
using HostCrs = KokkosSparse::CrsMatrix<double, int, Kokkos::DefaultHostExecutionSpace, void, int>;
struct LongMatrix {
  HostCrs A;
  Kokkos::View<int*, Kokkos::HostSpace> row_map, entries;
};
LongMatrix long_matrix(int64_t rows, int64_t cols, std::mt19937_64& rng) {
  Kokkos::View<int*, Kokkos::HostSpace> row_map("row_map", rows + 1);
  std::vector<int> cols_of;
  for (int64_t i = 0; i < rows; ++i) {
    const int len = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < len; ++k) cols_of.push_back(static_cast<int>(rng() % cols));
    row_map(i + 1) = static_cast<int>(cols_of.size());
  }
  Kokkos::View<int*, Kokkos::HostSpace> entries("entries", cols_of.size());
  Kokkos::View<double*, Kokkos::HostSpace> values("values", cols_of.size());
  for (size_t k = 0; k < cols_of.size(); ++k) entries(k) = cols_of[k];
  return {HostCrs("long", static_cast<int>(rows), static_cast<int>(cols), static_cast<int>(cols_of.size()), values,
                  row_map, entries),
          row_map, entries};
}

}  // namespace

// Two bad columns planted; the message names the first one's position and value, wherever the
// chunks fall.
TEST(HostFolds, ValidateNamesTheFirstBadColumnOfALongMatrix) {
  std::mt19937_64 rng(test::seed_for(593));
  const int64_t rows = 300000, cols = 1000;
  const LongMatrix L = long_matrix(rows, cols, rng);
  const HostCrs& A = L.A;
  EXPECT_NO_THROW(validate(A));
  const int64_t nnz = A.nnz();
  for (int trial = 0; trial < 6; ++trial) {
    int64_t first = static_cast<int64_t>(rng() % nnz), second = static_cast<int64_t>(rng() % nnz);
    if (first > second) std::swap(first, second);
    if (first == second) continue;
    const int kept_first = A.graph.entries(first), kept_second = A.graph.entries(second);
    const int bad = trial % 2 == 0 ? static_cast<int>(cols) : -1;
    A.graph.entries(first) = bad;
    A.graph.entries(second) = static_cast<int>(cols) + 7;
    const std::string m = test::message_of<InvalidArgument>([&] { validate(A, "Long"); });
    EXPECT_NE(m.find("Long: column index " + std::to_string(bad) + " at position " + std::to_string(first) + " outside"),
              std::string::npos)
        << m;
    A.graph.entries(first) = kept_first;
    A.graph.entries(second) = kept_second;
  }
}

TEST(HostFolds, ValidateNamesTheFirstDecreaseOfALongRowMap) {
  std::mt19937_64 rng(test::seed_for(594));
  const int64_t rows = 300000;
  const LongMatrix L = long_matrix(rows, 50, rng);
  const HostCrs& A = L.A;
  const auto& row_map = L.row_map;
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t i = 1 + static_cast<int64_t>(rng() % (rows - 2));
    // row_map(i + 1) below row_map(i); a second decrease further on.
    const int kept = row_map(i + 1), kept_later = row_map(rows - 1);
    row_map(i + 1) = row_map(i) - 1;
    if (i + 2 < rows - 1) row_map(rows - 1) = 0;
    const std::string m = test::message_of<InvalidArgument>([&] { validate(A); });
    EXPECT_NE(m.find("row_map decreases at row " + std::to_string(i) + " (" + std::to_string(row_map(i)) + " > " +
                     std::to_string(row_map(i) - 1) + ")"),
              std::string::npos)
        << m;
    row_map(i + 1) = kept;
    row_map(rows - 1) = kept_later;
  }
  EXPECT_NO_THROW(validate(A));
}

TEST(HostFolds, ValidateNamesTheFirstBadBlockColumnOfALongBsrMatrix) {
  std::mt19937_64 rng(test::seed_for(595));
  const LongMatrix L = long_matrix(300000, 1000, rng);
  using Bsr = BsrMatrix<double, int, Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>, int>;
  const int64_t blocks = L.A.nnz();
  Kokkos::View<double*, Kokkos::HostSpace> values("values", blocks * 4);
  const Bsr B(L.A.numRows(), L.A.numCols(), 2, L.row_map, L.entries, values);
  EXPECT_NO_THROW(validate(B));
  const int64_t at = static_cast<int64_t>(rng() % blocks);
  const int kept = L.entries(at);
  L.entries(at) = 1000;
  const std::string m = test::message_of<InvalidArgument>([&] { validate(B); });
  EXPECT_NE(m.find("block column index 1000 at position " + std::to_string(at) + " outside [0, 1000)"),
            std::string::npos)
      << m;
  L.entries(at) = kept;
}
