// The helpers of sprocket_test_utils.hpp that loop over every entry of a test's inputs and
// outputs: compiled once, with the library's optimization, into every test program (the test
// sources themselves build at SPROCKET_TEST_OPTIMIZATION, where the Mersenne Twister and the
// error bound's sweeps were not inlined and took up to a third of some tests' time).
#include "sprocket_test_utils.hpp"

namespace Sprocket {
namespace test {

HostCsr unsorted_with_duplicates(int64_t rows, int64_t cols, int64_t max_row_length, uint64_t salt) {
  std::mt19937_64 rng(seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t begin = A.nnz();
    const int64_t len = i % 7 == 3 ? 0 : static_cast<int64_t>(rng() % (max_row_length + 1));
    for (int64_t k = 0; k < len; ++k) {
      const bool duplicate = k > 0 && rng() % 3 == 0;
      A.entries.push_back(duplicate ? A.entries[begin + rng() % k] : static_cast<int>(rng() % cols));
      A.values.push_back(static_cast<double>(static_cast<int>(rng() % 19) - 9));
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

HostCsr random_blocked(int64_t block_rows, int64_t block_cols, int b, double blocks_per_row, double density,
                       uint64_t salt) {
  HostCsr pattern = random_csr(block_rows, block_cols, blocks_per_row, salt);
  std::mt19937_64 rng(seed_for(salt + 1000));
  std::vector<Triplet> t;
  for (int64_t I = 0; I < block_rows; ++I)
    for (int64_t k = pattern.row_map[I]; k < pattern.row_map[I + 1]; ++k)
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c)
          if ((rng() >> 11) * 0x1.0p-53 < density || (r == 0 && c == 0))
            t.push_back({I * b + r, int64_t{pattern.entries[k]} * b + c,
                         static_cast<double>(static_cast<int>(rng() % 17) - 8)});
  return HostCsr::from_triplets(block_rows * b, block_cols * b, std::move(t));
}

HostDense random_dense(int64_t rows, int64_t cols, uint64_t salt) {
  std::mt19937_64 rng(seed_for(salt));
  HostDense d(rows, cols);
  for (double& v : d.data) v = 2.0 * (static_cast<double>(rng() >> 11) * 0x1.0p-53) - 1.0;
  return d;
}

std::vector<double> random_vector(int64_t n, uint64_t salt) {
  return random_dense(n, 1, salt).data;
}

HostCsr absolute(HostCsr A) {
  for (double& v : A.values) v = std::fabs(v);
  return A;
}

std::vector<double> dot_lengths(const std::string& mode, const HostCsr& A) {
  // The mode compared once: a string compare per entry made up to a seventh of some tests' time.
  const bool transpose = mode != "N";
  std::vector<double> len(transpose ? A.num_cols : A.num_rows, 2.0);
  if (transpose) {
    for (int e : A.entries) len[e] += 1.0;
  } else {
    for (int64_t i = 0; i < A.num_rows; ++i) len[i] += static_cast<double>(A.row_length(i));
  }
  return len;
}

int64_t longest_dot(const std::string& mode, const HostCsr& A) {
  const std::vector<double> len = dot_lengths(mode, A);
  return len.empty() ? 0 : static_cast<int64_t>(*std::max_element(len.begin(), len.end())) - 2;
}

void spmv_error_scale(bool transpose, double alpha, const HostCsr& A, const double* x, double beta,
                      const double* y0, int64_t n, double* scale) {
  for (int64_t i = 0; i < n; ++i) scale[i] = beta == 0 ? 0.0 : std::fabs(beta) * std::fabs(y0[i]);
  if (alpha == 0) return;
  const double abs_alpha = std::fabs(alpha);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    if (transpose) {
      const double xi = abs_alpha * std::fabs(x[i]);
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        scale[A.entries[k]] += std::fabs(A.values[k]) * xi;
    } else {
      double sum = 0;
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        sum += std::fabs(A.values[k]) * std::fabs(x[A.entries[k]]);
      scale[i] += abs_alpha * sum;
    }
  }
}

::testing::AssertionResult same_csr(const HostCsr& a, const HostCsr& b) {
  if (a.num_rows != b.num_rows || a.num_cols != b.num_cols)
    return ::testing::AssertionFailure() << a.num_rows << "x" << a.num_cols << " vs " << b.num_rows
                                         << "x" << b.num_cols;
  if (a.row_map != b.row_map) return ::testing::AssertionFailure() << "row_map differs";
  if (a.entries != b.entries) return ::testing::AssertionFailure() << "entries differ";
  for (size_t k = 0; k < a.values.size(); ++k)
    if (a.values[k] != b.values[k])
      return ::testing::AssertionFailure() << "value " << k << ": " << a.values[k] << " vs " << b.values[k];
  return ::testing::AssertionSuccess();
}

HostCsr csr_from_dense(int64_t rows, int64_t cols, const std::vector<double>& dense) {
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j)
      if (dense[i * cols + j] != 0.0) {
        A.entries.push_back(static_cast<int>(j));
        A.values.push_back(dense[i * cols + j]);
      }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

::testing::AssertionResult within_rounding_bound(double eps, const double* y, const double* expected,
                                                 const double* scale, int64_t n, const double* len, double factor) {
  for (int64_t i = 0; i < n; ++i) {
    const double bound = factor * eps * len[i] * scale[i] + std::numeric_limits<double>::min();
    if (!(std::fabs(y[i] - expected[i]) <= bound))  // also catches NaN
      return ::testing::AssertionFailure()
             << "entry " << i << ": got " << y[i] << ", expected " << expected[i] << " (|diff| "
             << std::fabs(y[i] - expected[i]) << " > bound " << bound << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace test
}  // namespace Sprocket
