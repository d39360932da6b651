// Maximum-product transversal and reverse Cuthill-McKee (see orderings.hpp).
#include "impl/precond/orderings.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <utility>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Error.hpp"

// SuiteSparse AMD (Debian libsuitesparse-dev); C linkage is declared by the header itself.
#include <amd.h>

namespace Sprocket {
namespace Impl {
namespace precond {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A's structure checked, with the checker's message behind `who`.
void validate_as(const HostCsr& A, const std::string& who) {
  try {
    A.validate();
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(concat(who, ": ", e.what()));
  }
}

void require_square(const HostCsr& A, const std::string& who, const char* what) {
  SPROCKET_REQUIRE(A.num_rows == A.num_cols, who, ": ", what, " needs a square matrix, A is ", A.num_rows,
                   " x ", A.num_cols);
}

/// The usable entries of a square matrix by columns, with their weights c_ij = log m_j - log|a_ij|.
struct WeightedColumns {
  std::vector<int64_t> ptr;
  std::vector<int> rows;
  std::vector<double> cost;
  std::vector<double> column_max;
};

WeightedColumns weighted_columns(const HostCsr& A, const std::string& who) {
  HostCsr summed = A;
  sum_duplicates(summed);
  for (int64_t i = 0; i < summed.num_rows; ++i)
    for (int64_t k = summed.row_map[i]; k < summed.row_map[i + 1]; ++k)
      SPROCKET_REQUIRE(std::isfinite(summed.values[k]), who, ": A has a non-finite entry ", summed.values[k],
                       " at (", i, ", ", summed.entries[k], ")");
  const HostCsr T = transpose(summed);  // row j of T: column j of A, rows increasing
  summed = HostCsr();
  const int64_t n = T.num_rows;
  WeightedColumns W;
  W.ptr.assign(n + 1, 0);
  W.column_max.assign(n, 0.0);
  W.rows.reserve(T.entries.size());
  W.cost.reserve(T.entries.size());
  for (int64_t j = 0; j < n; ++j) {
    double m = 0;
    for (int64_t k = T.row_map[j]; k < T.row_map[j + 1]; ++k) m = std::max(m, std::fabs(T.values[k]));
    W.column_max[j] = m;
    if (m > 0) {
      const double log_m = std::log(m);
      for (int64_t k = T.row_map[j]; k < T.row_map[j + 1]; ++k) {
        const double a = std::fabs(T.values[k]);
        if (a == 0) continue;  // an explicit zero is no entry of the transversal
        W.rows.push_back(T.entries[k]);
        // The column's largest entry gets exactly 0, every other entry at least 0.
        W.cost.push_back(a == m ? 0.0 : std::max(0.0, log_m - std::log(a)));
      }
    }
    W.ptr[j + 1] = static_cast<int64_t>(W.rows.size());
  }
  return W;
}

}  // namespace

Matching maximum_product_matching(const HostCsr& A, const std::string& who) {
  require_square(A, who, "the maximum-product matching");
  validate_as(A, who);
  const int64_t n = A.num_rows;
  Matching result;
  if (n == 0) return result;
  const WeightedColumns W = weighted_columns(A, who);

  // Duals: v_j = 0 (every column's minimum weight is 0), u_i = the row's minimum weight, so every
  // reduced cost c_ij - u_i - v_j is >= 0 and each row has a zero one.
  std::vector<double> u(n, kInf), v(n, 0.0);
  for (int64_t p = 0; p < W.ptr[n]; ++p) u[W.rows[p]] = std::min(u[W.rows[p]], W.cost[p]);
  for (double& x : u)
    if (x == kInf) x = 0;  // a row without usable entries: any value keeps the duals feasible

  std::vector<int64_t> row_of(n, -1), col_of(n, -1);
  // Greedy on the zero reduced costs: a free tight row; else a tight row whose column can move
  // to another free row tight in that column (an augmenting path of length 3, still at zero cost).
  std::vector<int64_t> unmatched;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = W.ptr[j]; p < W.ptr[j + 1]; ++p) {
      const int i = W.rows[p];
      if (col_of[i] < 0 && W.cost[p] == u[i]) {
        row_of[j] = i;
        col_of[i] = j;
        break;
      }
    }
    if (row_of[j] < 0) unmatched.push_back(j);
  }
  std::vector<int64_t> remaining;
  for (int64_t j : unmatched) {
    bool done = false;
    for (int64_t p = W.ptr[j]; p < W.ptr[j + 1] && !done; ++p) {
      const int i = W.rows[p];
      if (W.cost[p] != u[i]) continue;
      const int64_t k = col_of[i];  // i is tight and matched (a free tight row was taken above)
      if (k < 0) continue;
      for (int64_t q = W.ptr[k]; q < W.ptr[k + 1]; ++q) {
        const int i2 = W.rows[q];
        if (col_of[i2] < 0 && W.cost[q] == u[i2]) {
          row_of[k] = i2;
          col_of[i2] = k;
          row_of[j] = i;
          col_of[i] = j;
          done = true;
          break;
        }
      }
    }
    if (!done) remaining.push_back(j);
  }

  // Successive shortest augmenting paths. From a free column, Dijkstra over the rows with the
  // reduced costs as lengths (a matched row leads on to its column at no cost); it stops when
  // the nearest free row is nearer than anything left in the heap. Only touched rows are reset.
  std::vector<double> dist(n, kInf);
  std::vector<int64_t> pred(n, -1);
  std::vector<char> final_row(n, 0);
  std::vector<int64_t> touched, finalized;
  using Item = std::pair<double, int64_t>;
  std::vector<Item> heap;
  const auto heap_order = std::greater<Item>();
  int64_t unmatchable = 0;
  for (int64_t j0 : remaining) {
    double best = kInf;
    int64_t best_row = -1;
    auto relax = [&](int64_t j, double base) {
      for (int64_t p = W.ptr[j]; p < W.ptr[j + 1]; ++p) {
        const int i = W.rows[p];
        if (final_row[i]) continue;
        const double reduced = std::max(0.0, W.cost[p] - u[i] - v[j]);
        const double d = base + reduced;
        if (!(d < dist[i]) || !(d < best)) continue;
        if (dist[i] == kInf) touched.push_back(i);
        dist[i] = d;
        pred[i] = j;
        if (col_of[i] < 0) {
          best = d;
          best_row = i;
        } else {
          heap.emplace_back(d, i);
          std::push_heap(heap.begin(), heap.end(), heap_order);
        }
      }
    };
    relax(j0, 0.0);
    while (!heap.empty() && heap.front().first < best) {
      const auto [d, i] = heap.front();
      std::pop_heap(heap.begin(), heap.end(), heap_order);
      heap.pop_back();
      if (final_row[i] || d > dist[i]) continue;
      final_row[i] = 1;
      finalized.push_back(i);
      relax(col_of[i], d);
    }
    if (best_row >= 0) {
      // New duals keep every reduced cost >= 0 and make the path's edges tight: a column reached
      // at distance d (j0 at 0, a finalized row's column at that row's distance) gains best - d,
      // the finalized row loses as much.
      v[j0] += best;
      for (int64_t i : finalized) {
        const double delta = best - dist[i];
        u[i] -= delta;
        v[col_of[i]] += delta;
      }
      for (int64_t i = best_row;;) {
        const int64_t j = pred[i];
        const int64_t previous = row_of[j];
        row_of[j] = i;
        col_of[i] = j;
        if (j == j0) break;
        i = previous;
      }
    } else {
      ++unmatchable;  // no augmenting path now, so none later: j0 stays out of every maximum matching
    }
    for (int64_t i : touched) {
      dist[i] = kInf;
      final_row[i] = 0;
    }
    touched.clear();
    finalized.clear();
    heap.clear();
  }
  SPROCKET_REQUIRE(unmatchable == 0, who, ": A is structurally singular: ", unmatchable, " of ", n,
                   " columns have no matching row");

  result.row_of = std::move(row_of);
  result.row_scale.resize(n);
  result.col_scale.resize(n);
  for (int64_t i = 0; i < n; ++i) result.row_scale[i] = std::exp(u[i]);
  for (int64_t j = 0; j < n; ++j) result.col_scale[j] = std::exp(v[j]) / W.column_max[j];
  return result;
}

std::vector<int64_t> reverse_cuthill_mckee(const HostCsr& A, const std::string& who) {
  require_square(A, who, "reverse Cuthill-McKee");
  validate_as(A, who);
  const int64_t n = A.num_rows;
  if (n == 0) return {};

  // Adjacency of A + A^T without the diagonal: both directions of every off-diagonal entry,
  // then each list sorted and made unique.
  std::vector<int64_t> ptr(n + 1, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] != i) {
        ++ptr[i + 1];
        ++ptr[A.entries[k] + 1];
      }
  for (int64_t i = 0; i < n; ++i) ptr[i + 1] += ptr[i];
  std::vector<int> adj(ptr[n]);
  {
    std::vector<int64_t> fill(ptr.begin(), ptr.end() - 1);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
        const int j = A.entries[k];
        if (j == i) continue;
        adj[fill[i]++] = j;
        adj[fill[j]++] = static_cast<int>(i);
      }
  }
  std::vector<int64_t> degree(n);
  {
    int64_t out = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto begin = adj.begin() + ptr[i], end = adj.begin() + ptr[i + 1];
      std::sort(begin, end);
      const int64_t length = std::unique(begin, end) - begin;
      const int64_t from = ptr[i];
      ptr[i] = out;  // ptr[i + 1] still holds the next list's old start
      for (int64_t k = 0; k < length; ++k) adj[out + k] = adj[from + k];
      out += length;
      degree[i] = length;
    }
    ptr[n] = out;
    adj.resize(out);
  }
  const auto by_degree = [&degree](int64_t a, int64_t b) {
    return degree[a] != degree[b] ? degree[a] < degree[b] : a < b;
  };
  // Neighbours in the order Cuthill-McKee visits them.
  for (int64_t i = 0; i < n; ++i) std::sort(adj.begin() + ptr[i], adj.begin() + ptr[i + 1], by_degree);

  // Breadth-first level structure from a root, marking with a fresh stamp (no reset needed).
  std::vector<int64_t> stamp(n, 0);
  int64_t current_stamp = 0;
  auto levels = [&](int64_t root, std::vector<int64_t>& order, std::vector<int64_t>& level_ptr) {
    ++current_stamp;
    order.clear();
    level_ptr.clear();
    order.push_back(root);
    stamp[root] = current_stamp;
    level_ptr.push_back(0);
    for (int64_t begin = 0; begin < static_cast<int64_t>(order.size());) {
      const int64_t end = static_cast<int64_t>(order.size());
      level_ptr.push_back(end);
      for (int64_t q = begin; q < end; ++q) {
        const int64_t x = order[q];
        for (int64_t k = ptr[x]; k < ptr[x + 1]; ++k)
          if (stamp[adj[k]] != current_stamp) {
            stamp[adj[k]] = current_stamp;
            order.push_back(adj[k]);
          }
      }
      begin = end;
    }
  };

  std::vector<int64_t> nodes(n);
  for (int64_t i = 0; i < n; ++i) nodes[i] = i;
  std::sort(nodes.begin(), nodes.end(), by_degree);
  std::vector<char> placed(n, 0);
  std::vector<int64_t> new_to_old;
  new_to_old.reserve(n);
  std::vector<int64_t> order, level_ptr, trial_order, trial_level_ptr;
  for (int64_t s : nodes) {
    if (placed[s]) continue;  // s: the component's minimum-degree node
    int64_t start = s;
    levels(start, order, level_ptr);
    for (;;) {
      const int64_t last = level_ptr[level_ptr.size() - 2];
      const int64_t candidate =
          *std::min_element(order.begin() + last, order.end(), by_degree);
      levels(candidate, trial_order, trial_level_ptr);
      if (trial_level_ptr.size() <= level_ptr.size()) break;  // eccentricity did not grow
      start = candidate;
      std::swap(order, trial_order);
      std::swap(level_ptr, trial_level_ptr);
    }
    // Cuthill-McKee from start: breadth-first, neighbours already by increasing degree.
    const int64_t first = static_cast<int64_t>(new_to_old.size());
    new_to_old.push_back(start);
    placed[start] = 1;
    for (int64_t q = first; q < static_cast<int64_t>(new_to_old.size()); ++q) {
      const int64_t x = new_to_old[q];
      for (int64_t k = ptr[x]; k < ptr[x + 1]; ++k)
        if (!placed[adj[k]]) {
          placed[adj[k]] = 1;
          new_to_old.push_back(adj[k]);
        }
    }
  }
  std::reverse(new_to_old.begin(), new_to_old.end());
  return new_to_old;
}

std::vector<int64_t> inverse_permutation(const std::vector<int64_t>& p) {
  const int64_t n = static_cast<int64_t>(p.size());
  std::vector<int64_t> q(n, -1);
  for (int64_t k = 0; k < n; ++k) {
    SPROCKET_REQUIRE(p[k] >= 0 && p[k] < n, "inverse_permutation: entry ", k, " is ", p[k], ", outside [0, ", n,
                     ")");
    SPROCKET_REQUIRE(q[p[k]] < 0, "inverse_permutation: ", p[k], " appears at positions ", q[p[k]], " and ", k,
                     " of ", n);
    q[p[k]] = k;
  }
  return q;
}

int64_t bandwidth(const HostCsr& A, const std::vector<int64_t>& new_to_old) {
  require_square(A, "bandwidth", "the bandwidth");
  validate_as(A, "bandwidth");
  SPROCKET_REQUIRE(static_cast<int64_t>(new_to_old.size()) == A.num_rows, "bandwidth: the permutation has ",
                   new_to_old.size(), " entries for a matrix of ", A.num_rows, " rows");
  const std::vector<int64_t> old_to_new = inverse_permutation(new_to_old);
  int64_t width = 0;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      width = std::max(width, std::abs(old_to_new[i] - old_to_new[A.entries[k]]));
  return width;
}

std::vector<int64_t> approximate_minimum_degree(const HostCsr& A, const std::string& who) {
  const int64_t n = A.num_rows;
  SPROCKET_REQUIRE(A.num_cols == n, who, ": A must be square for a symmetric ordering, it is ", n, " x ", A.num_cols);
  std::vector<int64_t> order(n);
  if (n == 0) return order;
  // AMD reads a column-oriented pattern and orders A + A^T: A's rows serve as A^T's columns.
  std::vector<SuiteSparse_long> ptr(A.row_map.begin(), A.row_map.end()), index(A.entries.begin(), A.entries.end()),
      perm(n);
  double info[AMD_INFO];
  const SuiteSparse_long status = amd_l_order(n, ptr.data(), index.data(), perm.data(), nullptr, info);
  if (status == AMD_OUT_OF_MEMORY)
    throw ResourceError(concat(who, ": the AMD ordering of a ", n, " x ", n, " matrix with ", A.nnz(),
                               " entries ran out of memory (it needs about ", info[AMD_MEMORY], " bytes)"),
                        static_cast<long long>(info[AMD_MEMORY]), 0);
  SPROCKET_REQUIRE(status == AMD_OK || status == AMD_OK_BUT_JUMBLED, who, ": AMD rejected the ", n, " x ", n,
                   " pattern with ", A.nnz(), " entries (status ", status, ")");
  for (int64_t k = 0; k < n; ++k) order[k] = perm[k];
  return order;
}

HostCsr permuted_scaled_copy(const HostCsr& A, const std::vector<int64_t>& row_perm,
                             const std::vector<int64_t>& col_perm, const std::vector<double>& row_scale,
                             const std::vector<double>& col_scale) {
  const int64_t n = A.num_rows;
  const std::vector<int64_t> new_col = inverse_permutation(col_perm);
  HostCsr B;
  B.num_rows = B.num_cols = n;
  B.row_map.assign(n + 1, 0);
  B.entries.reserve(A.entries.size());
  B.values.reserve(A.values.size());
  std::vector<std::pair<int, double>> row;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t old = row_perm[i];
    const double r = row_scale.empty() ? 1.0 : row_scale[i];
    row.clear();
    for (int64_t p = A.row_map[old]; p < A.row_map[old + 1]; ++p) {
      const int64_t j = new_col[A.entries[p]];
      row.emplace_back(static_cast<int>(j), r * A.values[p] * (col_scale.empty() ? 1.0 : col_scale[j]));
    }
    std::sort(row.begin(), row.end());
    for (const auto& [j, v] : row) B.entries.push_back(j), B.values.push_back(v);
    B.row_map[i + 1] = static_cast<int64_t>(B.entries.size());
  }
  return B;
}

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
