// ILU(k): symbolic pattern by levels of fill, numeric factorization, solves (see
// incomplete_lu_factor.hpp).
#include "impl/precond/incomplete_lu_factor.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {
namespace precond {

IlukPattern iluk_pattern(const HostCsr& A, int level) {
  const int64_t n = A.num_rows;
  SPROCKET_REQUIRE(level >= 0, "iluk_pattern: level = ", level, " (must be >= 0)");
  SPROCKET_REQUIRE(A.num_cols == n, "iluk_pattern: A must be square, it is ", n, " x ", A.num_cols);
  IlukPattern P;
  P.n = n;
  P.level = level;
  P.ptr.assign(n + 1, 0);
  P.diagonal.assign(n, 0);
  // The current row as a linked list sorted by column: next[c] follows c, `end` closes it;
  // fill[c] is c's level of fill, or INT_MAX when c is not in the row.
  const int64_t end = n;
  std::vector<int64_t> next(n + 1, end);
  std::vector<int> fill(n, INT_MAX);
  for (int64_t i = 0; i < n; ++i) {
    // A's row i and the diagonal, at level 0.
    int64_t head = end, tail = end;
    bool diagonal_placed = false;
    const auto append = [&](int64_t c) {
      fill[c] = 0;
      next[c] = end;
      if (head == end) head = c;
      else next[tail] = c;
      tail = c;
    };
    for (int64_t p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      const int64_t c = A.entries[p];
      if (!diagonal_placed && c >= i) {
        if (c != i) append(i);
        diagonal_placed = true;
      }
      append(c);
    }
    if (!diagonal_placed) append(i);
    // Pivots k < i in increasing order; fill through k lands right of k, so the walk meets it.
    for (int64_t k = head; k < i; k = next[k]) {
      const int level_ik = fill[k];
      int64_t at = k;  // insertion cursor: the list's entry before the next column to place
      for (int64_t q = P.diagonal[k] + 1; q < P.ptr[k + 1]; ++q) {
        const int64_t j = P.cols[q];
        const int64_t through = static_cast<int64_t>(level_ik) + P.level_of_fill[q] + 1;
        if (through > level) continue;
        while (next[at] < j) at = next[at];
        if (fill[j] == INT_MAX) {
          next[j] = next[at];
          next[at] = j;
          fill[j] = static_cast<int>(through);
        } else if (through < fill[j]) {
          fill[j] = static_cast<int>(through);
        }
        at = j;
      }
    }
    for (int64_t c = head; c != end; c = next[c]) {
      if (c == i) P.diagonal[i] = static_cast<int64_t>(P.cols.size());
      P.cols.push_back(c);
      P.level_of_fill.push_back(fill[c]);
      fill[c] = INT_MAX;
    }
    P.ptr[i + 1] = static_cast<int64_t>(P.cols.size());
  }
  return P;
}

namespace {

/// One attempt at a given shift; false when a pivot fails (breakdown_row and pivot say where).
/// position[c]: where column c sits in the current row of the pattern, -1 elsewhere (all -1 on
/// entry and on return). An entry of A outside the pattern throws, naming `who`.
bool factor_once(const IlukPattern& P, const HostCsr& A, double shift, std::vector<double>& values,
                 std::vector<int64_t>& position, int64_t& breakdown_row, double& breakdown_pivot,
                 const std::string& who) {
  const int64_t n = P.n;
  values.assign(P.cols.size(), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r0 = P.ptr[i], r1 = P.ptr[i + 1];
    for (int64_t q = r0; q < r1; ++q) position[P.cols[q]] = q;
    double row_max = 0, a_ii = 0;
    for (int64_t p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      const int64_t c = A.entries[p];
      SPROCKET_REQUIRE(position[c] >= 0, who, ": A(", i, ", ", c,
                       ") is not in the factorization's pattern (the values must keep the pattern of the setup)");
      values[position[c]] = A.values[p];
      row_max = std::max(row_max, std::fabs(A.values[p]));
      if (c == i) a_ii = A.values[p];
    }
    values[P.diagonal[i]] += shift * (a_ii < 0 ? -row_max : row_max);
    for (int64_t q = r0; q < P.diagonal[i]; ++q) {
      const int64_t k = P.cols[q];
      const double l_ik = values[q] / values[P.diagonal[k]];
      values[q] = l_ik;
      if (l_ik == 0) continue;
      for (int64_t u = P.diagonal[k] + 1; u < P.ptr[k + 1]; ++u) {
        const int64_t at = position[P.cols[u]];
        if (at >= r0) values[at] -= l_ik * values[u];
      }
    }
    for (int64_t q = r0; q < r1; ++q) position[P.cols[q]] = -1;
    const double pivot = values[P.diagonal[i]];
    if (!(std::fabs(pivot) > 1e-12 * row_max) || !std::isfinite(pivot)) {
      breakdown_row = i;
      breakdown_pivot = pivot;
      return false;
    }
  }
  return true;
}

}  // namespace

LuFactor iluk_numeric(const IlukPattern& P, const HostCsr& A, double initial_shift, int max_attempts,
                      const std::string& who) {
  SPROCKET_REQUIRE(initial_shift > 0 && std::isfinite(initial_shift), who, ": initial_shift = ", initial_shift,
                   " (must be finite and > 0)");
  SPROCKET_REQUIRE(max_attempts >= 1, who, ": max_attempts = ", max_attempts, " (must be >= 1)");
  SPROCKET_REQUIRE(A.num_rows == P.n && A.num_cols == P.n, who, ": A is ", A.num_rows, " x ", A.num_cols,
                   " but the factorization's pattern is ", P.n, " x ", P.n);
  LuFactor F;
  F.pattern = &P;
  std::vector<int64_t> position(P.n, -1);
  int64_t breakdown_row = -1;
  double breakdown_pivot = 0;
  double shift = 0;  // attempt 1: A itself; then initial_shift, 10 x initial_shift, ...
  for (int attempt = 1;; ++attempt) {
    if (factor_once(P, A, shift, F.values, position, breakdown_row, breakdown_pivot, who)) {
      F.shift = shift;
      F.attempts = attempt;
      return F;
    }
    if (attempt == max_attempts) break;
    shift = shift == 0 ? initial_shift : 10 * shift;
  }
  throw InvalidArgument(concat(who, ": zero pivot: u(", breakdown_row, ", ", breakdown_row, ") = ", breakdown_pivot,
                               " in all ", max_attempts, " attempts (last diagonal shift ", shift,
                               " x the row's largest entry); a row matching (IncompleteLuOptions::matching) moves "
                               "large entries onto the diagonal"));
}

IlutFactor ilut_factor(const HostCsr& B, double drop_tolerance, double fill_factor, double pivot_threshold,
                       const std::string& who) {
  SPROCKET_REQUIRE(drop_tolerance >= 0 && std::isfinite(drop_tolerance), who, ": drop_tolerance = ", drop_tolerance,
                   " (must be finite and >= 0)");
  SPROCKET_REQUIRE(fill_factor > 0 && std::isfinite(fill_factor), who, ": fill_factor = ", fill_factor,
                   " (must be finite and > 0)");
  SPROCKET_REQUIRE(pivot_threshold >= 0 && pivot_threshold <= 1, who, ": pivot_threshold = ", pivot_threshold,
                   " (must be in [0, 1])");
  const int64_t n = B.num_rows;
  SPROCKET_REQUIRE(B.num_cols == n, who, ": A must be square, it is ", n, " x ", B.num_cols);
  IlutFactor F;
  // Columns move between pivot positions while rows are factored: U's rows keep B's column
  // numbers until the end; L's entries are positions < i, which no later swap touches.
  std::vector<int64_t> column_of(n), position_of(n);
  std::iota(column_of.begin(), column_of.end(), int64_t(0));
  std::iota(position_of.begin(), position_of.end(), int64_t(0));
  std::vector<int64_t> u_ptr(n + 1, 0), u_cols, l_ptr(n + 1, 0), l_positions;
  std::vector<double> u_values, l_values, u_diagonal(n, 0.0), u_norm(n, 0.0);
  std::vector<double> w(n, 0.0);
  std::vector<char> present(n, 0);
  std::vector<int64_t> touched, pivots;  // pivots: a min-heap of the positions < i to eliminate
  std::vector<std::pair<double, int64_t>> part;
  // Keeps the `keep` entries of `part` whose weight(entry) is largest.
  const auto keep_largest = [&](int64_t keep, auto weight) {
    if (static_cast<int64_t>(part.size()) > keep) {
      std::nth_element(part.begin(), part.begin() + keep, part.end(),
                       [&](const auto& a, const auto& b) { return weight(a) > weight(b); });
      part.resize(keep);
    }
  };
  const auto l_weight = [&](const std::pair<double, int64_t>& e) { return std::fabs(e.first) * u_norm[e.second]; };
  const auto u_weight = [](const std::pair<double, int64_t>& e) { return std::fabs(e.first); };
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r0 = B.row_map[i], r1 = B.row_map[i + 1];
    double norm = 0;
    for (int64_t p = r0; p < r1; ++p) norm += B.values[p] * B.values[p];
    norm = std::sqrt(norm);
    SPROCKET_REQUIRE(norm > 0 && std::isfinite(norm), who, ": row ", i,
                     " (after the orderings) has no nonzero entry or a non-finite one: A is singular");
    const double threshold = drop_tolerance * norm;
    const int64_t keep = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(fill_factor * double(r1 - r0))));
    touched.clear();
    pivots.clear();
    const auto touch = [&](int64_t c) {
      present[c] = 1;
      touched.push_back(c);
      if (position_of[c] < i) {
        pivots.push_back(position_of[c]);
        std::push_heap(pivots.begin(), pivots.end(), std::greater<int64_t>());
      }
    };
    for (int64_t p = r0; p < r1; ++p) {
      touch(B.entries[p]);
      w[B.entries[p]] = B.values[p];
    }
    part.clear();
    while (!pivots.empty()) {
      std::pop_heap(pivots.begin(), pivots.end(), std::greater<int64_t>());
      const int64_t k = pivots.back();
      pivots.pop_back();
      const int64_t c = column_of[k];
      const double l = w[c] / u_diagonal[k];
      w[c] = 0;
      // Dropped before it is used when what it would subtract, l x row k of U, is small against
      // the row: a rule in the row's own units, whatever the scales of rows i and k.
      if (!(std::fabs(l) * u_norm[k] >= threshold) || l == 0) continue;
      part.emplace_back(l, k);
      for (int64_t q = u_ptr[k]; q < u_ptr[k + 1]; ++q) {
        const int64_t j = u_cols[q];
        if (!present[j]) {
          touch(j);
          w[j] = 0;
        }
        w[j] -= l * u_values[q];
      }
    }
    keep_largest(keep, l_weight);
    std::sort(part.begin(), part.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& [l, k] : part) l_positions.push_back(k), l_values.push_back(l);
    l_ptr[i + 1] = static_cast<int64_t>(l_positions.size());
    // U's part: the columns at positions >= i. The pivot: the diagonal's column unless it is
    // too small against the largest.
    const int64_t diagonal_column = column_of[i];
    int64_t largest = -1;
    for (int64_t c : touched)
      if (position_of[c] >= i && w[c] != 0 && (largest < 0 || std::fabs(w[c]) > std::fabs(w[largest]))) largest = c;
    int64_t pivot_column = diagonal_column;
    if (largest >= 0 && pivot_threshold > 0 && !(std::fabs(w[diagonal_column]) >= pivot_threshold * std::fabs(w[largest])))
      pivot_column = largest;
    double pivot = present[pivot_column] ? w[pivot_column] : 0.0;
    if (!(std::fabs(pivot) > 1e-12 * norm)) {
      // Of the row's own scale, not tiny: a singular A (rajat01) has exact zero pivots even in
      // the complete factorization, and a tiny replacement makes M^{-1} huge along the null
      // direction, where GMRES on a consistent system then stagnates (measured on rajat01: the
      // complete factorization converges in 10 block iterations this way, not at all with
      // 1e-4 x ||row||_2).
      pivot = (pivot < 0 ? -1 : 1) * norm;
      ++F.zero_pivots_replaced;
    }
    if (pivot_column != diagonal_column) {
      const int64_t at = position_of[pivot_column];
      column_of[i] = pivot_column;
      column_of[at] = diagonal_column;
      position_of[pivot_column] = i;
      position_of[diagonal_column] = at;
    }
    u_diagonal[i] = pivot;
    part.clear();
    for (int64_t c : touched)
      if (position_of[c] > i && w[c] != 0 && std::fabs(w[c]) >= threshold) part.emplace_back(w[c], c);
    keep_largest(keep, u_weight);
    double norm_u = pivot * pivot;
    for (const auto& [u, c] : part) u_cols.push_back(c), u_values.push_back(u), norm_u += u * u;
    u_ptr[i + 1] = static_cast<int64_t>(u_cols.size());
    u_norm[i] = std::sqrt(norm_u);
    for (int64_t c : touched) w[c] = 0, present[c] = 0;
  }
  // Rows in pivot positions: L's entries, the pivot, U's entries renumbered and sorted.
  IlukPattern& P = F.pattern;
  P.n = n;
  P.level = -1;
  P.ptr.assign(n + 1, 0);
  P.diagonal.assign(n, 0);
  P.cols.reserve(l_positions.size() + u_cols.size() + n);
  F.values.reserve(P.cols.capacity());
  std::vector<std::pair<int64_t, double>> upper;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t q = l_ptr[i]; q < l_ptr[i + 1]; ++q) P.cols.push_back(l_positions[q]), F.values.push_back(l_values[q]);
    P.diagonal[i] = static_cast<int64_t>(P.cols.size());
    P.cols.push_back(i);
    F.values.push_back(u_diagonal[i]);
    upper.clear();
    for (int64_t q = u_ptr[i]; q < u_ptr[i + 1]; ++q) upper.emplace_back(position_of[u_cols[q]], u_values[q]);
    std::sort(upper.begin(), upper.end());
    for (const auto& [j, v] : upper) P.cols.push_back(j), F.values.push_back(v);
    P.ptr[i + 1] = static_cast<int64_t>(P.cols.size());
  }
  F.column_of = std::move(column_of);
  return F;
}

void lu_solve_in_place(const LuFactor& F, double* y) {
  const IlukPattern& P = *F.pattern;
  const int64_t n = P.n;
  const int64_t* ptr = P.ptr.data();
  const int64_t* cols = P.cols.data();
  const int64_t* diagonal = P.diagonal.data();
  const double* values = F.values.data();
  for (int64_t i = 0; i < n; ++i) {  // L z = y
    double s = y[i];
    for (int64_t q = ptr[i]; q < diagonal[i]; ++q) s -= values[q] * y[cols[q]];
    y[i] = s;
  }
  for (int64_t i = n - 1; i >= 0; --i) {  // U x = z
    double s = y[i];
    for (int64_t q = diagonal[i] + 1; q < ptr[i + 1]; ++q) s -= values[q] * y[cols[q]];
    y[i] = s / values[diagonal[i]];
  }
}

namespace {

/// The strict lower (lower) or strict upper part of the factor by rows.
LevelSchedule triangle_schedule(const LuFactor& F, bool lower) {
  const IlukPattern& P = *F.pattern;
  std::vector<int64_t> ptr(P.n + 1, 0), cols;
  std::vector<double> values;
  cols.reserve(P.cols.size() / 2 + 1);
  values.reserve(P.cols.size() / 2 + 1);
  for (int64_t i = 0; i < P.n; ++i) {
    const int64_t q0 = lower ? P.ptr[i] : P.diagonal[i] + 1, q1 = lower ? P.diagonal[i] : P.ptr[i + 1];
    for (int64_t q = q0; q < q1; ++q) {
      cols.push_back(P.cols[q]);
      values.push_back(F.values[q]);
    }
    ptr[i + 1] = static_cast<int64_t>(cols.size());
  }
  return schedule_by_rows(std::move(ptr), std::move(cols), std::move(values), lower);
}

}  // namespace

LevelSchedule lower_schedule(const LuFactor& F) { return triangle_schedule(F, true); }
LevelSchedule upper_schedule(const LuFactor& F) { return triangle_schedule(F, false); }

std::vector<double> upper_inverse_diagonal(const LuFactor& F) {
  const IlukPattern& P = *F.pattern;
  std::vector<double> inverse(P.n);
  for (int64_t i = 0; i < P.n; ++i) inverse[i] = 1.0 / F.values[P.diagonal[i]];
  return inverse;
}

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
