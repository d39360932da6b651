#pragma once
// Helpers shared by all unit tests:
//  - fresh random inputs each run, with the seed printed and reproducible through the
//    SPROCKET_TEST_SEED environment variable;
//  - poisoning outputs with NaN before a kernel runs, so a kernel that skips an entry fails;
//  - error bounds scaled to the problem: entry i of op(A)x may differ from the double reference
//    by c * eps(Scalar) * (len_i + 2) * (|alpha| (|A||x|)_i + |beta| |y0_i|), the classic
//    forward-error bound of a dot product of length len_i;
//  - conversions between Kokkos Views (any layout, any space) and HostDense.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Reference.hpp"

namespace Sprocket {
namespace test {

/// The larger of a running maximum and v, NaN sticky. A fold of errors through
/// std::max(worst, error) drops a NaN error (std::max(0.0, NaN) is 0.0), so an output entry that
/// was never written (poisoned) would pass; this keeps the NaN to the end of the fold.
inline double max_keeping_nan(double worst, double v) {
  return std::isnan(worst) || std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : std::max(worst, v);
}

/// A seed drawn fresh for this process (or taken from SPROCKET_TEST_SEED), printed once.
inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    uint64_t s;
    if (const char* env = std::getenv("SPROCKET_TEST_SEED"))
      s = std::strtoull(env, nullptr, 10);
    else
      s = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
    std::cout << "[sprocket] random seed " << s << " (rerun with SPROCKET_TEST_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

/// Per-test-case seed: the process seed mixed with a salt, so cases differ from each other.
inline uint64_t seed_for(uint64_t salt) { return test_seed() * 0x9E3779B97F4A7C15ull + salt; }

/// The message of the `Expected` exception `f` throws; "" when it throws nothing (another
/// exception escapes to the test).
template <class Expected, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Expected& e) {
    return e.what();
  }
  return "";
}

/// Random sparse matrix (uniform random placement, values in [-1, 1]).
inline HostCsr random_csr(int64_t rows, int64_t cols, double avg_row, uint64_t salt) {
  return gen::uniform_random(rows, cols, avg_row, seed_for(salt));
}

/// A's rows for which keep(i) is true; the others become empty (runs of empty rows, empty panels).
template <class Keep>
HostCsr empty_rows_unless(const HostCsr& A, Keep keep) {
  HostCsr B;
  B.num_rows = A.num_rows;
  B.num_cols = A.num_cols;
  B.row_map.assign(A.num_rows + 1, 0);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    if (keep(i))
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
        B.entries.push_back(A.entries[k]);
        B.values.push_back(A.values[k]);
      }
    B.row_map[i + 1] = B.nnz();
  }
  return B;
}

/// rows x cols without entries.
inline HostCsr no_entries(int64_t rows, int64_t cols) {
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  return A;
}

inline int64_t longest_row(const HostCsr& A) {
  int64_t m = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) m = std::max(m, A.row_length(i));
  return m;
}

/// Values rounded to Scalar, so the reference sees exactly what the kernel multiplies.
template <class Scalar>
std::vector<double> rounded(std::vector<double> v) {
  for (double& a : v) a = static_cast<double>(static_cast<Scalar>(a));
  return v;
}
template <class Scalar>
HostCsr rounded(HostCsr A) {
  A.values = rounded<Scalar>(std::move(A.values));
  return A;
}
template <class Scalar>
HostDense rounded(HostDense d) {
  d.data = rounded<Scalar>(std::move(d.data));
  return d;
}

/// Rows with random, unsorted columns and duplicate entries (about a third of the entries repeat
/// an earlier column of their row; every 7th row is empty), built directly so nothing sorts or
/// merges them. Values are small integers, so sums of duplicates are exact in float and double.
HostCsr unsorted_with_duplicates(int64_t rows, int64_t cols, int64_t max_row_length, uint64_t salt);

/// Random matrix made of b x b blocks: a random block pattern, each stored block holding each of
/// its b*b positions with probability `density` (the (0, 0) position always), small integer
/// values in [-8, 8] (zeros included), so BSR conversion has to zero-fill.
HostCsr random_blocked(int64_t block_rows, int64_t block_cols, int b, double blocks_per_row, double density,
                       uint64_t salt);

/// Random dense matrix with entries in [-1, 1].
HostDense random_dense(int64_t rows, int64_t cols, uint64_t salt);

std::vector<double> random_vector(int64_t n, uint64_t salt);

/// Fills a View with quiet NaN.
template <class View>
void poison(const View& v) {
  Kokkos::deep_copy(v, std::numeric_limits<typename View::non_const_value_type>::quiet_NaN());
}

/// Rank-1 View -> std::vector<double>.
template <class View>
std::vector<double> to_host_vector(const View& v) {
  static_assert(View::rank == 1, "to_host_vector takes a rank-1 View");
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.extent(0));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(h(i));
  return out;
}

/// std::vector<double> -> new rank-1 View of type View.
template <class View>
View to_view(const std::vector<double>& x, const std::string& label = "x") {
  View v(label, x.size());
  auto h = Kokkos::create_mirror_view(v);
  for (size_t i = 0; i < x.size(); ++i) h(i) = static_cast<typename View::non_const_value_type>(x[i]);
  Kokkos::deep_copy(v, h);
  return v;
}

/// Rank-2 View (any layout) -> HostDense.
template <class View>
HostDense to_host_dense(const View& v) {
  static_assert(View::rank == 2, "to_host_dense takes a rank-2 View");
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  HostDense out(h.extent(0), h.extent(1));
  for (size_t j = 0; j < h.extent(1); ++j)
    for (size_t i = 0; i < h.extent(0); ++i) out(i, j) = static_cast<double>(h(i, j));
  return out;
}

/// HostDense -> new rank-2 View of type View (its own layout).
template <class View>
View to_view(const HostDense& d, const std::string& label = "X") {
  View v(label, d.num_rows, d.num_cols);
  auto h = Kokkos::create_mirror_view(v);
  for (int64_t j = 0; j < d.num_cols; ++j)
    for (int64_t i = 0; i < d.num_rows; ++i)
      h(i, j) = static_cast<typename View::non_const_value_type>(d(i, j));
  Kokkos::deep_copy(v, h);
  return v;
}

/// |A| (absolute values), for error bounds.
HostCsr absolute(HostCsr A);

/// Longest row of op(A): the longest dot product of op(A) x.
int64_t longest_dot(const std::string& mode, const HostCsr& A);

/// Entries of each row of op(A) plus 2 (alpha and beta's roundings): len_i of the per-row error
/// bound (the header's), entry i of op(A) x being a dot product of that length.
std::vector<double> dot_lengths(const std::string& mode, const HostCsr& A);

/// |alpha| |op(A)| |x| + |beta| |y0| entry by entry, the scale of each entry's rounding-error
/// bound (x is not read when alpha is 0, nor y0 when beta is 0, as in the reference: the tests
/// poison them then). One sweep over A's arrays, where a copy of A as |A| for each column of each
/// check made much of the time of the tests on million-entry matrices.
void spmv_error_scale(bool transpose, double alpha, const HostCsr& A, const double* x, double beta,
                      const double* y0, int64_t n, double* scale);

/// |y_i - expected_i| <= factor * eps(Scalar) * len_i * scale_i, entry by entry (NaN fails).
::testing::AssertionResult within_rounding_bound(double eps, const double* y, const double* expected,
                                                 const double* scale, int64_t n, const double* len, double factor);
template <class Scalar>
::testing::AssertionResult within_rounding_bound(const double* y, const double* expected, const double* scale,
                                                 int64_t n, const double* len, double factor) {
  return within_rounding_bound(std::numeric_limits<Scalar>::epsilon(), y, expected, scale, n, len, factor);
}

/// Checks y against the reference of y = alpha op(A) x + beta y0 with the scaled bound above.
/// `Scalar` is the precision the kernel computed in; `factor` multiplies the bound.
template <class Scalar>
::testing::AssertionResult spmv_matches(const std::string& mode, double alpha, const HostCsr& A,
                                        const std::vector<double>& x, double beta,
                                        const std::vector<double>& y0,
                                        const std::vector<double>& y, double factor = 4.0) {
  std::vector<double> expected = y0;
  reference::spmv(mode, alpha, A, x, beta, expected);  // checks mode and the shapes first
  if (y.size() != expected.size())
    return ::testing::AssertionFailure() << "length " << y.size() << ", expected " << expected.size();
  const auto n = static_cast<int64_t>(y.size());
  std::vector<double> scale(n);
  spmv_error_scale(mode == "T", alpha, A, x.data(), beta, y0.data(), n, scale.data());
  const std::vector<double> len = dot_lengths(mode, A);
  return within_rounding_bound<Scalar>(y.data(), expected.data(), scale.data(), n, len.data(), factor);
}

/// The same check column by column for multivectors.
template <class Scalar>
::testing::AssertionResult spmm_matches(const std::string& mode, double alpha, const HostCsr& A,
                                        const HostDense& X, double beta, const HostDense& Y0,
                                        const HostDense& Y, double factor = 4.0) {
  if (Y.num_rows != Y0.num_rows || Y.num_cols != Y0.num_cols)
    return ::testing::AssertionFailure() << "shape " << Y.num_rows << "x" << Y.num_cols
                                         << ", expected " << Y0.num_rows << "x" << Y0.num_cols;
  HostDense expected = Y0;
  reference::spmm(mode, alpha, A, X, beta, expected);  // checks mode and the shapes first
  const std::vector<double> len = dot_lengths(mode, A);
  const int64_t m = Y.num_rows;
  std::vector<double> scale(m);
  for (int64_t j = 0; j < X.num_cols; ++j) {
    spmv_error_scale(mode == "T", alpha, A, X.data.data() + j * X.num_rows, beta,
                     Y0.data.data() + j * m, m, scale.data());
    auto r = within_rounding_bound<Scalar>(Y.data.data() + j * m, expected.data.data() + j * m,
                                           scale.data(), m, len.data(), factor);
    if (!r) return r << " (column " << j << ")";
  }
  return ::testing::AssertionSuccess();
}

/// Exact equality of two HostCsr (dimensions, structure and values).
::testing::AssertionResult same_csr(const HostCsr& a, const HostCsr& b);

/// Builds a HostCsr from a dense row-major initializer (zeros are not stored).
HostCsr csr_from_dense(int64_t rows, int64_t cols, const std::vector<double>& dense);

}  // namespace test
}  // namespace Sprocket

/// In a test that reads ../shared/matrices: fails when the folder is missing, or skips when
/// SPROCKET_ALLOW_MISSING_SHARED is set.
#define SPROCKET_REQUIRE_SHARED_MATRICES()                                                          \
  do {                                                                                              \
    if (!std::filesystem::is_directory(std::filesystem::path(SPROCKET_SHARED_MATRICES))) {          \
      if (std::getenv("SPROCKET_ALLOW_MISSING_SHARED") != nullptr)                                  \
        GTEST_SKIP() << SPROCKET_SHARED_MATRICES << " is missing (allowed by SPROCKET_ALLOW_MISSING_SHARED)"; \
      FAIL() << "shared matrix folder " << SPROCKET_SHARED_MATRICES << " is missing";               \
    }                                                                                               \
  } while (0)
