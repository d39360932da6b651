// Orderings for the ILU preconditioner (impl/precond/orderings.hpp).
// Maximum-product matching: optimality against brute force over all permutations (n <= 8,
// random patterns that hold a perfect matching, duplicates and explicit zeros among the entries),
// the dual scaling (|Dr A Dc| <= 1, matched entries 1: also a certificate of optimality),
// row-permuted diagonally dominant matrices (the identity comes back), structurally singular,
// non-square and non-finite input, 0 x 0 and 1 x 1, and the shared west0479 and rajat01 (zero
// diagonals). Reverse Cuthill-McKee: a permutation, the bandwidth of randomly numbered grids
// and paths, disconnected graphs, the Cuthill-McKee structure of the reversed order, the
// envelope never larger than that of the unreversed order, 0 x 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "impl/precond/orderings.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
using Impl::precond::approximate_minimum_degree;
using Impl::precond::bandwidth;
using Impl::precond::inverse_permutation;
using Impl::precond::Matching;
using Impl::precond::maximum_product_matching;
using Impl::precond::reverse_cuthill_mckee;

namespace {

// sprocket_test_utils.hpp may define this already; the same check otherwise.
std::vector<int64_t> random_permutation(int64_t n, std::mt19937_64& rng) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), rng);
  return p;
}

double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// Row k of the result is row new_to_old[k] of A (entries in their stored order).
HostCsr permute_rows(const HostCsr& A, const std::vector<int64_t>& new_to_old) {
  HostCsr B;
  B.num_rows = A.num_rows;
  B.num_cols = A.num_cols;
  B.row_map.assign(A.num_rows + 1, 0);
  for (int64_t k = 0; k < A.num_rows; ++k) {
    const int64_t i = new_to_old[k];
    for (int64_t p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      B.entries.push_back(A.entries[p]);
      B.values.push_back(A.values[p]);
    }
    B.row_map[k + 1] = B.nnz();
  }
  return B;
}

/// P A P^T with P given by new_to_old.
HostCsr permute_symmetric(const HostCsr& A, const std::vector<int64_t>& new_to_old) {
  const std::vector<int64_t> old_to_new = inverse_permutation(new_to_old);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t p = A.row_map[i]; p < A.row_map[i + 1]; ++p)
      t.push_back({old_to_new[i], old_to_new[A.entries[p]], A.values[p]});
  return HostCsr::from_triplets(A.num_rows, A.num_cols, std::move(t));
}

/// Duplicates summed, rows sorted.
HostCsr summed(HostCsr A) {
  sum_duplicates(A);
  return A;
}

/// A(i, j) of a sorted matrix (0 when not stored).
double entry(const HostCsr& S, int64_t i, int64_t j) {
  const auto begin = S.entries.begin() + S.row_map[i], end = S.entries.begin() + S.row_map[i + 1];
  const auto it = std::lower_bound(begin, end, static_cast<int>(j));
  return it != end && *it == j ? S.values[it - S.entries.begin()] : 0.0;
}

/// row_of is a permutation whose matched entries are nonzero entries of A, and the scaling holds:
/// |Dr A Dc| <= 1 + 1e-12 everywhere, == 1 +- 1e-12 on the matched entries.
::testing::AssertionResult valid_matching(const HostCsr& A, const Matching& m) {
  const int64_t n = A.num_rows;
  if (static_cast<int64_t>(m.row_of.size()) != n || static_cast<int64_t>(m.row_scale.size()) != n ||
      static_cast<int64_t>(m.col_scale.size()) != n)
    return ::testing::AssertionFailure() << "sizes " << m.row_of.size() << ", " << m.row_scale.size() << ", "
                                         << m.col_scale.size() << " for n = " << n;
  try {
    inverse_permutation(m.row_of);
  } catch (const InvalidArgument& e) {
    return ::testing::AssertionFailure() << "row_of is not a permutation: " << e.what();
  }
  const HostCsr S = summed(A);
  for (int64_t j = 0; j < n; ++j) {
    const double a = entry(S, m.row_of[j], j);
    if (a == 0)
      return ::testing::AssertionFailure() << "column " << j << " matched to row " << m.row_of[j]
                                           << ", which holds no nonzero there";
    const double scaled = std::fabs(m.row_scale[m.row_of[j]] * a * m.col_scale[j]);
    if (!(std::fabs(scaled - 1) <= 1e-12))
      return ::testing::AssertionFailure() << "matched entry (" << m.row_of[j] << ", " << j << ") scales to "
                                           << scaled << ", not 1";
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = S.row_map[i]; p < S.row_map[i + 1]; ++p) {
      const double scaled = std::fabs(m.row_scale[i] * S.values[p] * m.col_scale[S.entries[p]]);
      if (!(scaled <= 1 + 1e-12))
        return ::testing::AssertionFailure() << "entry (" << i << ", " << S.entries[p] << ") scales to " << scaled;
    }
  return ::testing::AssertionSuccess();
}

double log_product(const HostCsr& S, const std::vector<int64_t>& row_of) {
  double s = 0;
  for (size_t j = 0; j < row_of.size(); ++j) s += std::log(std::fabs(entry(S, row_of[j], j)));
  return s;
}

/// Largest sum of log|a| over all permutations with nonzero entries (-inf when there is none).
double brute_force_best(const HostCsr& S) {
  std::vector<int64_t> p(S.num_rows);
  std::iota(p.begin(), p.end(), 0);
  double best = -INFINITY;
  do {
    double s = 0;
    for (int64_t j = 0; j < S.num_rows && s > -INFINITY; ++j) {
      const double a = entry(S, p[j], j);
      s = a == 0 ? -INFINITY : s + std::log(std::fabs(a));
    }
    best = std::max(best, s);
  } while (std::next_permutation(p.begin(), p.end()));
  return best;
}

/// Random n x n matrix with a perfect matching on nonzero entries (a hidden permutation), about
/// `density` n^2 further entries, values +-exp(U(-4, 4)); some further entries are explicit
/// zeros, some values are split into two duplicates, rows come unsorted.
HostCsr random_matchable(int64_t n, double density, std::mt19937_64& rng) {
  const std::vector<int64_t> hidden = random_permutation(n, rng);
  std::vector<std::vector<std::pair<int, double>>> rows(n);
  auto value = [&] { return (rng() % 2 ? 1.0 : -1.0) * std::exp(8 * uniform(rng) - 4); };
  for (int64_t j = 0; j < n; ++j) rows[hidden[j]].push_back({static_cast<int>(j), value()});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (hidden[j] != i && uniform(rng) < density)
        rows[i].push_back({static_cast<int>(j), rng() % 10 == 0 ? 0.0 : value()});
  HostCsr A;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<int, double>> r;
    for (const auto& [j, v] : rows[i]) {
      if (v != 0 && rng() % 4 == 0) {
        const double part = v * uniform(rng);
        r.push_back({j, part});
        r.push_back({j, v - part});
      } else {
        r.push_back({j, v});
      }
    }
    std::shuffle(r.begin(), r.end(), rng);
    for (const auto& [j, v] : r) {
      A.entries.push_back(j);
      A.values.push_back(v);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

/// Random strictly row diagonally dominant matrix (diagonal = |off-diagonal row sum| + 1, sign random).
HostCsr random_dominant(int64_t n, double avg_row, uint64_t salt) {
  const HostCsr R = test::random_csr(n, n, std::min<double>(avg_row, n), salt);
  std::mt19937_64 rng(test::seed_for(salt + 1));
  std::vector<Triplet> t;
  for (int64_t i = 0; i < n; ++i) {
    double row_sum = 0;
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k)
      if (R.entries[k] != i) {
        t.push_back({i, R.entries[k], R.values[k]});
        row_sum += std::fabs(R.values[k]);
      }
    t.push_back({i, i, (rng() % 2 ? 1 : -1) * (row_sum + 1)});
  }
  return HostCsr::from_triplets(n, n, std::move(t));
}

HostCsr from_triplets(int64_t rows, int64_t cols, std::vector<Triplet> t) {
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

std::string thrown_message(const HostCsr& A) {
  try {
    maximum_product_matching(A, "orderings test");
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

// ---- maximum-product matching -------------------------------------------------------------------

TEST(MaximumProductMatching, EqualsBruteForceOnSmallRandomMatrices) {
  std::mt19937_64 rng(test::seed_for(1));
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t n = 1 + trial % 8;
    const double density = trial % 3 == 0 ? 0.15 : trial % 3 == 1 ? 0.4 : 0.9;
    const HostCsr A = random_matchable(n, density, rng);
    const Matching m = maximum_product_matching(A, "brute force");
    ASSERT_TRUE(valid_matching(A, m)) << "trial " << trial << ", n = " << n;
    const HostCsr S = summed(A);
    const double best = brute_force_best(S);
    EXPECT_NEAR(log_product(S, m.row_of), best, 1e-10 * (1 + std::fabs(best))) << "trial " << trial << ", n = " << n;
  }
}

TEST(MaximumProductMatching, RecoversRowPermutedDiagonallyDominantMatrix) {
  std::mt19937_64 rng(test::seed_for(2));
  for (int64_t n : {1, 2, 50, 2000}) {
    const HostCsr B = random_dominant(n, 6, 20 + n);
    const std::vector<int64_t> perm = random_permutation(n, rng);  // row k of A is row perm[k] of B
    const HostCsr A = permute_rows(B, perm);
    const Matching m = maximum_product_matching(A, "dominant");
    ASSERT_TRUE(valid_matching(A, m)) << "n = " << n;
    // The identity is B's unique best transversal, so column j takes the row of A holding B's row j.
    EXPECT_EQ(m.row_of, inverse_permutation(perm)) << "n = " << n;
  }
}

TEST(MaximumProductMatching, ScalingOnLargerRandomMatrices) {
  std::mt19937_64 rng(test::seed_for(3));
  for (int64_t n : {100, 1000, 3000}) {
    const HostCsr A = random_matchable(n, 5.0 / n, rng);
    const Matching m = maximum_product_matching(A, "scaling");
    EXPECT_TRUE(valid_matching(A, m)) << "n = " << n;
  }
}

TEST(MaximumProductMatching, StructurallySingularThrowsWithCount) {
  // The identity without columns 2, 5 and 7.
  std::vector<Triplet> t;
  for (int64_t i = 0; i < 10; ++i)
    if (i != 2 && i != 5 && i != 7) t.push_back({i, i, 1.0 + i});
  EXPECT_EQ(thrown_message(from_triplets(10, 10, t)),
            "orderings test: A is structurally singular: 3 of 10 columns have no matching row");
  // No empty column, but columns 0..2 only meet row 0 (Hall's condition fails): 2 of 6.
  t = {{0, 0, 1}, {0, 1, 2}, {0, 2, 3}};
  for (int64_t i = 1; i < 6; ++i)
    for (int64_t j = 3; j < 6; ++j) t.push_back({i, j, 1.0 + i * j});
  EXPECT_EQ(thrown_message(from_triplets(6, 6, t)),
            "orderings test: A is structurally singular: 2 of 6 columns have no matching row");
  // An empty row.
  t = {{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {1, 2, 1}};
  EXPECT_EQ(thrown_message(from_triplets(3, 3, t)),
            "orderings test: A is structurally singular: 1 of 3 columns have no matching row");
}

TEST(MaximumProductMatching, NonSquareThrowsWithShape) {
  const std::string message = thrown_message(test::no_entries(3, 4));
  EXPECT_EQ(message.rfind("orderings test: ", 0), 0u) << message;
  EXPECT_NE(message.find("3 x 4"), std::string::npos) << message;
}

TEST(MaximumProductMatching, NonFiniteEntryThrows) {
  const std::string message =
      thrown_message(from_triplets(2, 2, {{0, 0, 1}, {1, 1, std::numeric_limits<double>::quiet_NaN()}}));
  EXPECT_EQ(message.rfind("orderings test: ", 0), 0u) << message;
  EXPECT_NE(message.find("non-finite"), std::string::npos) << message;
}

TEST(MaximumProductMatching, EmptyAndOneByOne) {
  const Matching empty = maximum_product_matching(test::no_entries(0, 0), "empty");
  EXPECT_TRUE(empty.row_of.empty());
  EXPECT_TRUE(empty.row_scale.empty());
  EXPECT_TRUE(empty.col_scale.empty());

  const HostCsr one = from_triplets(1, 1, {{0, 0, -2.5}});
  const Matching m = maximum_product_matching(one, "one");
  EXPECT_EQ(m.row_of, std::vector<int64_t>{0});
  EXPECT_TRUE(valid_matching(one, m));
  EXPECT_EQ(thrown_message(test::no_entries(1, 1)),
            "orderings test: A is structurally singular: 1 of 1 columns have no matching row");
}

TEST(MaximumProductMatching, ExplicitZerosAreNotMatched) {
  // The only structural transversal goes through an explicit zero.
  EXPECT_EQ(thrown_message(from_triplets(2, 2, {{0, 0, 0.0}, {0, 1, 1}, {1, 1, 3}})),
            "orderings test: A is structurally singular: 1 of 2 columns have no matching row");
  EXPECT_EQ(thrown_message(from_triplets(1, 1, {{0, 0, 0.0}})),
            "orderings test: A is structurally singular: 1 of 1 columns have no matching row");
  // Explicit zeros on the diagonal: the cycle of nonzeros must be taken.
  HostCsr A = from_triplets(3, 3, {{0, 0, 0.0}, {0, 1, 2}, {1, 1, 0.0}, {1, 2, 3}, {2, 0, 4}, {2, 2, 0.0}});
  Matching m = maximum_product_matching(A, "zeros");
  EXPECT_EQ(m.row_of, (std::vector<int64_t>{2, 0, 1}));
  EXPECT_TRUE(valid_matching(A, m));
  // Duplicates that cancel leave an explicit zero (and are summed before anything else).
  A = test::csr_from_dense(2, 2, {1e6, 1, 1, 1});
  A.entries.insert(A.entries.begin(), 0);
  A.values.insert(A.values.begin(), -1e6);
  for (size_t i = 1; i < A.row_map.size(); ++i) ++A.row_map[i];
  m = maximum_product_matching(A, "cancelled");
  EXPECT_EQ(m.row_of, (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(valid_matching(A, m));
}

class SharedMatching : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedMatching, PerfectMatchingWithNonzeroDiagonal) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const std::string name = GetParam();
  const HostCsr A = load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz");
  const Matching m = maximum_product_matching(A, name);
  ASSERT_TRUE(valid_matching(A, m)) << name;
  const HostCsr S = summed(A);
  int64_t zero_diagonal = 0;
  for (int64_t j = 0; j < A.num_rows; ++j) {
    EXPECT_GT(std::fabs(entry(S, m.row_of[j], j)), 0.0) << name << " column " << j;
    zero_diagonal += entry(S, j, j) == 0;
  }
  EXPECT_GT(zero_diagonal, 0) << name << " was expected to have zeros on its diagonal";
}

INSTANTIATE_TEST_SUITE_P(Orderings, SharedMatching, ::testing::Values("west0479", "rajat01"),
                         [](const auto& info) { return std::string(info.param); });

// ---- reverse Cuthill-McKee ----------------------------------------------------------------------

/// 5-point Laplacian on an nx x ny grid, node (x, y) numbered y * nx + x: bandwidth nx.
HostCsr grid_laplacian(int64_t nx, int64_t ny) {
  std::vector<Triplet> t;
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const int64_t i = y * nx + x;
      t.push_back({i, i, 4});
      if (x > 0) t.push_back({i, i - 1, -1});
      if (x + 1 < nx) t.push_back({i, i + 1, -1});
      if (y > 0) t.push_back({i, i - nx, -1});
      if (y + 1 < ny) t.push_back({i, i + nx, -1});
    }
  return HostCsr::from_triplets(nx * ny, nx * ny, std::move(t));
}

/// Block diagonal of the given matrices.
HostCsr block_diagonal(const std::vector<HostCsr>& blocks) {
  std::vector<Triplet> t;
  int64_t offset = 0;
  for (const HostCsr& B : blocks) {
    for (int64_t i = 0; i < B.num_rows; ++i)
      for (int64_t p = B.row_map[i]; p < B.row_map[i + 1]; ++p)
        t.push_back({offset + i, offset + B.entries[p], B.values[p]});
    offset += B.num_rows;
  }
  return HostCsr::from_triplets(offset, offset, std::move(t));
}

/// Path 0 - 1 - ... - (n - 1) (only the upper entries: RCM symmetrizes).
HostCsr path(int64_t n) {
  std::vector<Triplet> t;
  for (int64_t i = 0; i + 1 < n; ++i) t.push_back({i, i + 1, 1});
  return HostCsr::from_triplets(n, n, std::move(t));
}

bool is_permutation(const std::vector<int64_t>& p, int64_t n) {
  if (static_cast<int64_t>(p.size()) != n) return false;
  std::vector<char> seen(n, 0);
  for (int64_t x : p) {
    if (x < 0 || x >= n || seen[x]) return false;
    seen[x] = 1;
  }
  return true;
}

/// Sorted, unique neighbour lists of A + A^T without the diagonal.
std::vector<std::vector<int64_t>> neighbours(const HostCsr& A) {
  std::vector<std::vector<int64_t>> adj(A.num_rows);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t p = A.row_map[i]; p < A.row_map[i + 1]; ++p)
      if (A.entries[p] != i) {
        adj[i].push_back(A.entries[p]);
        adj[A.entries[p]].push_back(i);
      }
  for (auto& a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  return adj;
}

/// Envelope (profile) of P (A + A^T) P^T: sum over rows of the distance from the first entry
/// left of the diagonal to the diagonal.
int64_t envelope(const std::vector<std::vector<int64_t>>& adj, const std::vector<int64_t>& new_to_old) {
  const std::vector<int64_t> old_to_new = inverse_permutation(new_to_old);
  int64_t total = 0;
  for (int64_t k = 0; k < static_cast<int64_t>(new_to_old.size()); ++k) {
    int64_t first = k;
    for (int64_t j : adj[new_to_old[k]]) first = std::min(first, old_to_new[j]);
    total += k - first;
  }
  return total;
}

/// BFS levels from root: distance of every node (-1 when unreachable).
std::vector<int64_t> distances(const std::vector<std::vector<int64_t>>& adj, int64_t root) {
  std::vector<int64_t> d(adj.size(), -1), queue{root};
  d[root] = 0;
  for (size_t q = 0; q < queue.size(); ++q)
    for (int64_t j : adj[queue[q]])
      if (d[j] < 0) {
        d[j] = d[queue[q]] + 1;
        queue.push_back(j);
      }
  return d;
}

/// The reverse of new_to_old is, component after component, the breadth-first order from the
/// component's first node with neighbours by (degree, index); that first node is at least as
/// eccentric as the component's minimum-degree node, and the George-Liu search stops there: the
/// minimum-degree node of its last level is no more eccentric.
::testing::AssertionResult is_reverse_cuthill_mckee(const HostCsr& A, const std::vector<int64_t>& new_to_old) {
  if (!is_permutation(new_to_old, A.num_rows)) return ::testing::AssertionFailure() << "not a permutation";
  const auto adj = neighbours(A);
  const std::vector<int64_t> cm(new_to_old.rbegin(), new_to_old.rend());
  auto by_degree = [&](int64_t a, int64_t b) {
    return adj[a].size() != adj[b].size() ? adj[a].size() < adj[b].size() : a < b;
  };
  std::vector<char> placed(A.num_rows, 0);
  size_t k = 0;
  while (k < cm.size()) {
    const int64_t start = cm[k];
    std::vector<int64_t> expected{start};
    placed[start] = 1;
    for (size_t q = 0; q < expected.size(); ++q) {
      std::vector<int64_t> next;
      for (int64_t j : adj[expected[q]])
        if (!placed[j]) next.push_back(j);
      std::sort(next.begin(), next.end(), by_degree);
      for (int64_t j : next) placed[j] = 1, expected.push_back(j);
    }
    for (size_t q = 0; q < expected.size(); ++q)
      if (cm[k + q] != expected[q])
        return ::testing::AssertionFailure() << "reversed position " << k + q << " holds " << cm[k + q]
                                             << ", breadth-first from " << start << " gives " << expected[q];
    const int64_t min_degree = *std::min_element(expected.begin(), expected.end(), by_degree);
    const auto eccentricity = [&](int64_t root) {
      const auto d = distances(adj, root);
      return *std::max_element(d.begin(), d.end());
    };
    if (eccentricity(start) < eccentricity(min_degree))
      return ::testing::AssertionFailure() << "component start " << start << " has eccentricity "
                                           << eccentricity(start) << ", less than the minimum-degree node "
                                           << min_degree << "'s " << eccentricity(min_degree);
    const auto d = distances(adj, start);
    const int64_t e = eccentricity(start);
    int64_t next = -1;
    for (int64_t x : expected)
      if (d[x] == e && (next < 0 || by_degree(x, next))) next = x;
    if (eccentricity(next) > e)
      return ::testing::AssertionFailure() << "component start " << start << " (eccentricity " << e
                                           << ") is not where the pseudo-peripheral search stops: " << next
                                           << " in its last level has eccentricity " << eccentricity(next);
    k += expected.size();
  }
  return ::testing::AssertionSuccess();
}

// AMD (SuiteSparse, through our wrapper): a permutation for unsorted, unsymmetric patterns with
// duplicates; an arrow matrix (dense first row and column) gets its hub last, where it makes no
// fill; 0 x 0; a non-square matrix throws with the shape.
TEST(ApproximateMinimumDegree, PermutationHubLastAndErrors) {
  EXPECT_TRUE(approximate_minimum_degree(test::no_entries(0, 0), "amd").empty());
  const HostCsr R = test::unsorted_with_duplicates(60, 60, 5, 500);
  std::vector<int64_t> p = approximate_minimum_degree(R, "amd");
  std::sort(p.begin(), p.end());
  for (int64_t k = 0; k < 60; ++k) ASSERT_EQ(p[k], k);
  std::vector<Triplet> t;
  const int64_t n = 40;
  for (int64_t i = 0; i < n; ++i) {
    t.push_back({i, i, 4.0});
    if (i > 0) t.push_back({0, i, 1.0}), t.push_back({i, 0, 1.0});
  }
  const std::vector<int64_t> arrow = approximate_minimum_degree(HostCsr::from_triplets(n, n, std::move(t)), "amd");
  EXPECT_EQ(arrow.back(), 0) << "the hub is eliminated last";
  const std::string message = [] {
    try {
      approximate_minimum_degree(test::no_entries(2, 5), "amd test");
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(nothing thrown)");
  }();
  EXPECT_EQ(message.rfind("amd test: ", 0), 0u) << message;
  EXPECT_NE(message.find("2 x 5"), std::string::npos) << message;
}

TEST(ReverseCuthillMckee, EmptyAndNonSquare) {
  EXPECT_TRUE(reverse_cuthill_mckee(test::no_entries(0, 0), "rcm").empty());
  EXPECT_EQ(reverse_cuthill_mckee(test::no_entries(1, 1), "rcm"), std::vector<int64_t>{0});
  try {
    reverse_cuthill_mckee(test::no_entries(2, 5), "rcm test");
    ADD_FAILURE() << "no exception for 2 x 5";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("rcm test: ", 0), 0u) << message;
    EXPECT_NE(message.find("2 x 5"), std::string::npos) << message;
  }
}

TEST(ReverseCuthillMckee, PermutationOfUnsortedUnsymmetricMatrices) {
  for (int64_t n : {1, 7, 300}) {
    const HostCsr A = test::unsorted_with_duplicates(n, n, 6, 40 + n);
    const std::vector<int64_t> p = reverse_cuthill_mckee(A, "rcm");
    EXPECT_TRUE(is_permutation(p, n)) << "n = " << n;
    EXPECT_TRUE(is_reverse_cuthill_mckee(A, p)) << "n = " << n;
  }
}

TEST(ReverseCuthillMckee, RandomlyNumberedGridGetsItsBandBack) {
  std::mt19937_64 rng(test::seed_for(5));
  for (const auto& [nx, ny] : {std::pair<int64_t, int64_t>{30, 30}, {25, 40}, {40, 25}, {1, 50}}) {
    const HostCsr grid = grid_laplacian(nx, ny);
    const int64_t natural = std::min(nx, ny);
    const HostCsr A = permute_symmetric(grid, random_permutation(nx * ny, rng));
    std::vector<int64_t> identity(nx * ny);
    std::iota(identity.begin(), identity.end(), 0);
    const std::vector<int64_t> p = reverse_cuthill_mckee(A, "grid");
    EXPECT_TRUE(is_reverse_cuthill_mckee(A, p)) << nx << " x " << ny;
    EXPECT_LE(bandwidth(A, p), natural + 1) << nx << " x " << ny << " grid, randomly numbered bandwidth "
                                             << bandwidth(A, identity);
    EXPECT_LE(envelope(neighbours(A), p), envelope(neighbours(grid), identity)) << nx << " x " << ny;
  }
}

TEST(ReverseCuthillMckee, RandomlyNumberedPathHasBandwidthOne) {
  std::mt19937_64 rng(test::seed_for(6));
  const HostCsr A = permute_symmetric(path(500), random_permutation(500, rng));
  EXPECT_EQ(bandwidth(A, reverse_cuthill_mckee(A, "path")), 1);
}

TEST(ReverseCuthillMckee, DisconnectedComponentsAreContiguous) {
  std::mt19937_64 rng(test::seed_for(7));
  // A 10 x 12 grid, a path of 50, five isolated nodes (two with only a diagonal), a 6 x 6 grid.
  const HostCsr blocks = block_diagonal({grid_laplacian(10, 12), path(50), test::no_entries(3, 3),
                                         from_triplets(2, 2, {{0, 0, 1}, {1, 1, 1}}), grid_laplacian(6, 6)});
  const int64_t n = blocks.num_rows;
  std::vector<int64_t> component(n);
  for (int64_t i = 0; i < n; ++i)
    component[i] = i < 120 ? 0 : i < 170 ? 1 : i < 175 ? 2 + (i - 170) : 7;
  const std::vector<int64_t> perm = random_permutation(n, rng);  // node k of A is node perm[k] of blocks
  const HostCsr A = permute_symmetric(blocks, perm);
  const std::vector<int64_t> p = reverse_cuthill_mckee(A, "components");
  ASSERT_TRUE(is_reverse_cuthill_mckee(A, p));
  // Component of each position, through A's numbering (node k of A is node perm[k] of blocks).
  std::vector<int64_t> sequence;
  for (int64_t k = 0; k < n; ++k) sequence.push_back(component[perm[p[k]]]);
  std::vector<int64_t> seen;
  for (int64_t k = 0; k < n; ++k)
    if (k == 0 || sequence[k] != sequence[k - 1]) seen.push_back(sequence[k]);
  EXPECT_EQ(seen.size(), 8u) << "a component is split";
  EXPECT_LE(bandwidth(A, p), 11);
}

TEST(ReverseCuthillMckee, StartsFromAPseudoPeripheralNode) {
  // Two 4-cliques {1..4} and {5..8} joined by the path 4 - 9 - 0 - 10 - 5: node 0 has the
  // smallest degree and index but sits in the middle; the search must move to a clique's far
  // side (eccentricity 6, the diameter).
  std::vector<Triplet> t;
  for (int64_t base : {1, 5})
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t b = a + 1; b < 4; ++b) t.push_back({base + a, base + b, 1});
  for (const auto& [a, b] : {std::pair<int64_t, int64_t>{4, 9}, {9, 0}, {0, 10}, {10, 5}}) t.push_back({a, b, 1});
  const HostCsr A = from_triplets(11, 11, t);
  const std::vector<int64_t> p = reverse_cuthill_mckee(A, "dumbbell");
  ASSERT_TRUE(is_reverse_cuthill_mckee(A, p));
  const auto d = distances(neighbours(A), p.back());
  EXPECT_EQ(*std::max_element(d.begin(), d.end()), 6) << "started from " << p.back();
}

TEST(ReverseCuthillMckee, StarIsNumberedCentreLast) {
  // Centre 0, leaves 1..5: from the minimum-degree leaf 1 (no leaf is more eccentric),
  // Cuthill-McKee gives 1, 0, 2, 3, 4, 5; reversed, the leaves come first.
  std::vector<Triplet> t;
  for (int64_t leaf = 1; leaf <= 5; ++leaf) t.push_back({0, leaf, 1});
  const HostCsr star = from_triplets(6, 6, t);
  const std::vector<int64_t> p = reverse_cuthill_mckee(star, "star");
  EXPECT_EQ(p, (std::vector<int64_t>{5, 4, 3, 2, 0, 1}));
  const auto adj = neighbours(star);
  EXPECT_LT(envelope(adj, p), envelope(adj, std::vector<int64_t>(p.rbegin(), p.rend())));
}

TEST(ReverseCuthillMckee, ReversalNeverEnlargesTheEnvelope) {
  std::mt19937_64 rng(test::seed_for(8));
  int64_t strictly_smaller = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t n = 20 + trial * 10;
    // Sparse random graphs with a few hubs: the reversal matters there.
    std::vector<Triplet> t;
    for (int64_t i = 1; i < n; ++i) t.push_back({i, static_cast<int64_t>(rng() % i), 1});
    for (int64_t e = 0; e < n / 4; ++e) t.push_back({static_cast<int64_t>(rng() % 3), static_cast<int64_t>(rng() % n), 1});
    const HostCsr A = from_triplets(n, n, t);
    const std::vector<int64_t> p = reverse_cuthill_mckee(A, "envelope");
    ASSERT_TRUE(is_reverse_cuthill_mckee(A, p)) << "trial " << trial;
    const auto adj = neighbours(A);
    const int64_t reversed = envelope(adj, p), forward = envelope(adj, std::vector<int64_t>(p.rbegin(), p.rend()));
    EXPECT_LE(reversed, forward) << "trial " << trial;
    strictly_smaller += reversed < forward;
  }
  EXPECT_GT(strictly_smaller, 0);
}

TEST(Orderings, InversePermutationAndBandwidthCheckTheirInput) {
  EXPECT_EQ(inverse_permutation({2, 0, 1}), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_THROW(inverse_permutation({0, 0}), InvalidArgument);
  EXPECT_THROW(inverse_permutation({0, 2}), InvalidArgument);
  const HostCsr A = grid_laplacian(4, 3);
  std::vector<int64_t> identity(12);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(bandwidth(A, identity), 4);
  EXPECT_EQ(bandwidth(test::no_entries(0, 0), {}), 0);
  EXPECT_THROW(bandwidth(A, {0, 1}), InvalidArgument);
  EXPECT_THROW(bandwidth(test::no_entries(2, 3), {0, 1}), InvalidArgument);
}

}  // namespace
