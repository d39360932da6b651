// Incomplete Cholesky factorization and solves (see incomplete_cholesky_factor.hpp).
#include "impl/precond/incomplete_cholesky_factor.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

namespace {

/// One attempt at a given shift; false when a pivot fails (breakdown_row says where).
bool factor_once(const UpperTriangle& A, double drop_tolerance, double shift, CholeskyFactor& L,
                 int64_t& breakdown_row) {
  const int64_t n = A.n;
  L.n = n;
  L.col_ptr.assign(n + 1, 0);
  L.rows.clear();
  L.values.clear();
  L.diagonal.assign(n, 0.0);
  L.shift = shift;
  L.dropped = 0;
  // Column k's next unconsumed entry is rows[next[k]]; columns waiting for row r are chained
  // from head[r] through link[].
  std::vector<int64_t> next(n, 0), head(n, -1), link(n, -1);
  std::vector<double> work(n, 0.0);
  std::vector<char> in_pattern(n, 0);
  std::vector<int64_t> pattern;
  for (int64_t j = 0; j < n; ++j) {
    pattern.clear();
    double diagonal = 0, column_norm = 0;
    for (int64_t p = A.row_ptr[j]; p < A.row_ptr[j + 1]; ++p) {
      const int64_t i = A.cols[p];
      const double v = A.values[p];
      column_norm += std::fabs(v);
      if (i == j) {
        diagonal = v;
      } else {
        work[i] = v;
        in_pattern[i] = 1;
        pattern.push_back(i);
      }
    }
    const double shifted_diagonal = diagonal * (1 + shift);
    double pivot = shifted_diagonal;
    for (int64_t k = head[j]; k != -1;) {
      const int64_t following = link[k];
      const int64_t p = next[k];
      const double ljk = L.values[p];
      pivot -= ljk * ljk;
      const int64_t end = L.col_ptr[k + 1];
      for (int64_t q = p + 1; q < end; ++q) {
        const int64_t i = L.rows[q];
        if (!in_pattern[i]) {
          in_pattern[i] = 1;
          work[i] = 0;
          pattern.push_back(i);
        }
        work[i] -= L.values[q] * ljk;
      }
      next[k] = p + 1;
      if (p + 1 < end) {
        const int64_t r = L.rows[p + 1];
        link[k] = head[r];
        head[r] = k;
      }
      k = following;
    }
    if (!(pivot > 1e-14 * shifted_diagonal) || !std::isfinite(pivot)) {
      breakdown_row = j;
      for (int64_t i : pattern) in_pattern[i] = 0, work[i] = 0;
      return false;
    }
    const double ljj = std::sqrt(pivot);
    L.diagonal[j] = ljj;
    std::sort(pattern.begin(), pattern.end());
    const double threshold = drop_tolerance * column_norm;
    for (int64_t i : pattern) {
      const double v = work[i];
      in_pattern[i] = 0;
      work[i] = 0;
      if (v == 0 || std::fabs(v) < threshold) {
        L.dropped += v != 0;
        continue;
      }
      L.rows.push_back(i);
      L.values.push_back(v / ljj);
    }
    L.col_ptr[j + 1] = static_cast<int64_t>(L.rows.size());
    next[j] = L.col_ptr[j];
    if (L.col_ptr[j] < L.col_ptr[j + 1]) {
      const int64_t r = L.rows[L.col_ptr[j]];
      link[j] = head[r];
      head[r] = j;
    }
  }
  return true;
}

}  // namespace

CholeskyFactor incomplete_cholesky(const UpperTriangle& A, double drop_tolerance, double initial_shift,
                                   int max_attempts, const std::string& who) {
  SPROCKET_REQUIRE(drop_tolerance >= 0 && std::isfinite(drop_tolerance), who, ": drop_tolerance = ", drop_tolerance,
                   " (must be finite and >= 0)");
  SPROCKET_REQUIRE(initial_shift > 0 && std::isfinite(initial_shift), who, ": initial_shift = ", initial_shift,
                   " (must be finite and > 0)");
  SPROCKET_REQUIRE(max_attempts >= 1, who, ": max_attempts = ", max_attempts, " (must be >= 1)");
  for (int64_t j = 0; j < A.n; ++j) {
    const int64_t p = A.row_ptr[j];
    const bool has_diagonal = p < A.row_ptr[j + 1] && A.cols[p] == j;
    const double d = has_diagonal ? A.values[p] : 0.0;
    SPROCKET_REQUIRE(d > 0 && std::isfinite(d), who, ": row ", j, " has diagonal entry ", d,
                     " (missing, zero, negative or not finite): A is not symmetric positive definite");
  }
  CholeskyFactor L;
  int64_t breakdown_row = -1;
  double shift = 0;  // attempt 1: A itself; then initial_shift, 10 x initial_shift, ...
  for (int attempt = 1;; ++attempt) {
    if (factor_once(A, drop_tolerance, shift, L, breakdown_row)) {
      L.attempts = attempt;
      return L;
    }
    if (attempt == max_attempts) break;
    shift = shift == 0 ? initial_shift : 10 * shift;
  }
  throw InvalidArgument(concat(who, ": the factorization broke down at row ", breakdown_row, " in all ", max_attempts,
                               " attempts (last diagonal shift ", shift,
                               " x diag(A)): A is probably not positive definite"));
}

namespace {

/// Groups rows by level (level[i] >= 0) into s.level_ptr / s.level_rows, rows ascending within a
/// level.
void bucket_levels(const std::vector<int64_t>& level, LevelSchedule& s) {
  const int64_t n = static_cast<int64_t>(level.size());
  int64_t levels = 0;
  for (int64_t l : level) levels = std::max(levels, l + 1);
  s.level_ptr.assign(levels + 1, 0);
  for (int64_t l : level) ++s.level_ptr[l + 1];
  for (int64_t l = 0; l < levels; ++l) s.level_ptr[l + 1] += s.level_ptr[l];
  std::vector<int64_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  s.level_rows.assign(n, 0);
  for (int64_t i = 0; i < n; ++i) s.level_rows[next[level[i]]++] = i;
}

}  // namespace

LevelSchedule forward_schedule(const CholeskyFactor& L) {
  const int64_t n = L.n;
  LevelSchedule s;
  // Rows of L from its columns (a transpose; columns visited in order keep each row sorted).
  s.ptr.assign(n + 1, 0);
  for (int64_t q = 0; q < static_cast<int64_t>(L.rows.size()); ++q) ++s.ptr[L.rows[q] + 1];
  for (int64_t i = 0; i < n; ++i) s.ptr[i + 1] += s.ptr[i];
  s.cols.resize(L.rows.size());
  s.values.resize(L.rows.size());
  std::vector<int64_t> next(s.ptr.begin(), s.ptr.end() - 1);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t q = L.col_ptr[j]; q < L.col_ptr[j + 1]; ++q) {
      const int64_t at = next[L.rows[q]]++;
      s.cols[at] = j;
      s.values[at] = L.values[q];
    }
  return schedule_by_rows(std::move(s.ptr), std::move(s.cols), std::move(s.values), true);
}

LevelSchedule backward_schedule(const CholeskyFactor& L) {
  return schedule_by_rows(L.col_ptr, L.rows, L.values, false);
}

LevelSchedule schedule_by_rows(std::vector<int64_t> ptr, std::vector<int64_t> cols, std::vector<double> values,
                               bool lower) {
  LevelSchedule s;
  const int64_t n = static_cast<int64_t>(ptr.size()) - 1;
  s.ptr = std::move(ptr);
  s.cols = std::move(cols);
  s.values = std::move(values);
  std::vector<int64_t> level(n, 0);
  for (int64_t r = 0; r < n; ++r) {
    const int64_t i = lower ? r : n - 1 - r;
    for (int64_t k = s.ptr[i]; k < s.ptr[i + 1]; ++k) level[i] = std::max(level[i], level[s.cols[k]] + 1);
  }
  bucket_levels(level, s);
  return s;
}

void cholesky_solve_in_place(const CholeskyFactor& L, double* y) {
  const int64_t n = L.n;
  const int64_t* ptr = L.col_ptr.data();
  const int64_t* rows = L.rows.data();
  const double* values = L.values.data();
  const double* diagonal = L.diagonal.data();
  for (int64_t j = 0; j < n; ++j) {  // L z = y
    const double z = y[j] / diagonal[j];
    y[j] = z;
    for (int64_t q = ptr[j]; q < ptr[j + 1]; ++q) y[rows[q]] -= values[q] * z;
  }
  for (int64_t j = n - 1; j >= 0; --j) {  // L^T x = z
    double s = y[j];
    for (int64_t q = ptr[j]; q < ptr[j + 1]; ++q) s -= values[q] * y[rows[q]];
    y[j] = s / diagonal[j];
  }
}

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
