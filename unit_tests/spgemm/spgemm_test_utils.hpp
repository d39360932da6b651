#pragma once
// Test helpers of the SpGEMM tests (test_spgemm.cpp, test_spgemm_cuda_emulated.cpp): the check of
// a product against reference::spgemm and the matrices that break SpGEMM kernels. Kept apart from
// sprocket_test_utils.hpp so adding them does not recompile every other test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Reference.hpp"
#include "sprocket_test_utils.hpp"

namespace Sprocket {
namespace test {

/// What a product C = A * B is checked against: reference::spgemm(A, B), |A| |B| on the same
/// pattern (the scale of each entry's rounding-error bound) and the products of each row (the
/// bound's length). Computed once per pair of values and shared by the checks of every C made
/// from them: the reference products took most of test_spgemm's time when each check made its own.
struct SpgemmExpected {
  HostCsr product;
  std::vector<double> magnitude;
  std::vector<int64_t> row_products;
};

inline SpgemmExpected spgemm_expected(const HostCsr& A, const HostCsr& B) {
  SpgemmExpected e{reference::spgemm(A, B), reference::spgemm(absolute(A), absolute(B)).values,
                   std::vector<int64_t>(A.num_rows, 0)};
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) e.row_products[i] += B.row_length(A.entries[k]);
  return e;
}

/// Checks C = A * B against the reference (sorted columns, duplicates summed, cancellations
/// kept): the same row map; the same columns per row, in order when `sorted`, as a set otherwise
/// (each column once); values within factor * eps(Scalar) * (products of the row + 2) * (|A||B|)_ij.
/// `expected` is spgemm_expected(A, B) of the values the kernel multiplied (rounded to Scalar by
/// the caller).
template <class Scalar>
::testing::AssertionResult spgemm_matches(const SpgemmExpected& expected, const HostCsr& C, bool sorted,
                                          double factor = 4.0) {
  const HostCsr& ref = expected.product;
  if (C.num_rows != ref.num_rows || C.num_cols != ref.num_cols)
    return ::testing::AssertionFailure() << "C is " << C.num_rows << " x " << C.num_cols << ", expected "
                                         << ref.num_rows << " x " << ref.num_cols;
  if (C.row_map != ref.row_map) {
    for (int64_t i = 0; i < ref.num_rows; ++i)
      if (C.row_length(i) != ref.row_length(i))
        return ::testing::AssertionFailure() << "row " << i << " has " << C.row_length(i) << " entries, expected "
                                             << ref.row_length(i);
    return ::testing::AssertionFailure() << "row map differs";
  }
  const double eps = std::numeric_limits<Scalar>::epsilon();
  std::vector<std::pair<int, double>> row;
  for (int64_t i = 0; i < ref.num_rows; ++i) {
    row.clear();
    for (int64_t k = C.row_map[i]; k < C.row_map[i + 1]; ++k) row.push_back({C.entries[k], C.values[k]});
    if (!sorted) std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t q = 0; q < row.size(); ++q) {
      const int64_t k = ref.row_map[i] + static_cast<int64_t>(q);
      if (row[q].first != ref.entries[k])
        return ::testing::AssertionFailure() << "row " << i << ", entry " << q << ": column " << row[q].first
                                             << ", expected " << ref.entries[k] << (sorted ? " (sorted output)" : "");
      const double tol = factor * eps * static_cast<double>(expected.row_products[i] + 2) * expected.magnitude[k] +
                         std::numeric_limits<double>::min();
      if (!(std::fabs(row[q].second - ref.values[k]) <= tol))
        return ::testing::AssertionFailure() << "row " << i << ", column " << ref.entries[k] << ": got "
                                             << row[q].second << ", expected " << ref.values[k] << " (|diff| "
                                             << std::fabs(row[q].second - ref.values[k]) << " > " << tol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

/// The same for one product of A and B.
template <class Scalar>
::testing::AssertionResult spgemm_matches(const HostCsr& A, const HostCsr& B, const HostCsr& C, bool sorted,
                                          double factor = 4.0) {
  return spgemm_matches<Scalar>(spgemm_expected(A, B), C, sorted, factor);
}

/// The same pattern with new values (small integers over 8: exact in float, never all zero).
inline HostCsr new_values(HostCsr A, uint64_t salt) {
  std::mt19937_64 rng(seed_for(salt));
  for (double& v : A.values) v = static_cast<double>(static_cast<int>(rng() % 33) - 16) / 8.0;
  return A;
}

/// rows x cols: every row i % 4 == 1 holds one entry, rows i % 4 == 3 are empty, the others a few
/// random entries (for direct referencing next to accumulated rows).
inline HostCsr single_entry_rows(int64_t rows, int64_t cols, uint64_t salt) {
  std::mt19937_64 rng(seed_for(salt));
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = i % 4 == 1 ? 1 : i % 4 == 3 ? 0 : 1 + static_cast<int64_t>(rng() % 5);
    for (int64_t k = 0; k < len; ++k)
      t.push_back({i, static_cast<int64_t>(rng() % cols), static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0});
  }
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

/// A pair (A, B) whose longest product row comes from a single-entry row of A: A is rows x inner
/// with every row i % 4 == 1 one entry, rows i % 4 == 3 empty and the others 2 to 5 entries; B
/// (inner x cols) has a dense row 0, which only A's row 1 references. The maxima over every row
/// with products and over the rows of several entries (those accumulated when single-entry rows
/// are direct) then differ.
struct ProductPair {
  HostCsr A, B;
};
inline ProductPair single_entry_row_reaches_dense_row(int64_t rows, int64_t inner, int64_t cols, uint64_t salt);

/// A with row `row` holding every column (a dense row of A: its product row reaches every row
/// of B) and every other row a few random entries.
inline HostCsr with_dense_row(int64_t rows, int64_t cols, int64_t row, uint64_t salt) {
  HostCsr R = random_csr(rows, cols, 2, salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i) {
    if (i == row) {
      for (int64_t c = 0; c < cols; ++c) t.push_back({i, c, 1.0 + static_cast<double>(c % 7) / 8.0});
      continue;
    }
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) t.push_back({i, R.entries[k], R.values[k]});
  }
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

inline ProductPair single_entry_row_reaches_dense_row(int64_t rows, int64_t inner, int64_t cols, uint64_t salt) {
  std::mt19937_64 rng(seed_for(salt));
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = i % 4 == 1 ? 1 : i % 4 == 3 ? 0 : 2 + static_cast<int64_t>(rng() % 4);
    for (int64_t k = 0; k < len; ++k) {
      const int64_t j = i == 1 ? 0 : 1 + static_cast<int64_t>(rng() % (inner - 1));
      t.push_back({i, j, static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0});
    }
  }
  return {HostCsr::from_triplets(rows, inner, std::move(t)), with_dense_row(inner, cols, 0, salt + 1)};
}

/// Values chosen so that some products cancel exactly: C = A * B with A = [1 1] rows over B
/// rows u and -u gives explicit zeros in C, which must stay entries.
inline std::pair<HostCsr, HostCsr> cancelling_pair() {
  HostCsr A = csr_from_dense(3, 2, {1, 1, 1, 0, 0, 2});
  HostCsr B = csr_from_dense(2, 4, {1, -2, 0, 3, -1, 2, 5, 0});
  return {A, B};
}

}  // namespace test
}  // namespace Sprocket
