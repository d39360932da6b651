// Incomplete LU (make_incomplete_lu, impl/precond/incomplete_lu.hpp), float and double, int and
// size_t offsets, OpenMP and Serial (IluTypes), triangular solves by host columns and by device
// levels:
//  - the pattern of ILU(k) for k = 0..3 equals a dense level-of-fill reference (KIJ over the
//    whole matrix), and the values equal a dense IKJ elimination restricted to that pattern;
//  - exactness: ILU(0) of a tridiagonal matrix and ILU(n) of any matrix are its LU, so
//    M^{-1} (A X) = X, also after the row matching and scaling and the RCM reordering (which
//    checks the permutation and scaling algebra of apply); ILUT without dropping is an LU with
//    column pivoting, exact on matrices with zero diagonals without any matching;
//  - ILUT: dropping and the fill cap per row, zero pivots replaced and counted;
//  - matrices with zero diagonals: automatic matching; without it, a zero pivot is shifted, and
//    with one attempt the error names the row;
//  - update_values: new values on the same pattern equal a fresh factorization; an entry outside
//    the pattern throws;
//  - levels equal columns; multivector apply equals column by column (Y poisoned);
//  - errors: non-square, negative level, structurally singular, apply extents;
//  - shared matrices (sherman5, orsirr_1, watt_2, hor_131, west0479, rajat01): block GMRES (block 4,
//    restart 30) with ILU reaches 1e-8 on the true residual (right-hand sides A X; rajat01, stored
//    as a pattern, with nonsingular values fixed by position, through the complete ILUT).
//
// No device code here (nvcc refuses extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmv.hpp"
#include "precond_test_utils.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using namespace test::precond_tests;
using Solve = IncompleteCholeskyOptions::TriangularSolve;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Random nonsymmetric matrix, diagonal larger than the row's other entries together (so the
/// LU without pivoting exists and is stable), rows unsorted with a duplicate entry per row.
HostCsr dominant_unsorted(int64_t n, double avg_row, uint64_t salt) {
  const HostCsr R = test::unsorted_with_duplicates(n, n, static_cast<int64_t>(2 * avg_row), salt);
  HostCsr A = R;
  std::vector<double> diagonal(n, 1.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) diagonal[i] += std::fabs(R.values[k]);
  // Append the diagonal as an extra entry of every row (a duplicate where R has one).
  HostCsr B;
  B.num_rows = B.num_cols = n;
  B.row_map.assign(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) B.entries.push_back(A.entries[k]), B.values.push_back(A.values[k]);
    B.entries.push_back(static_cast<int>(i));
    B.values.push_back(i % 2 ? -diagonal[i] : diagonal[i]);
    B.row_map[i + 1] = B.nnz();
  }
  return B;
}

/// Rows of A permuted randomly: a dominant matrix becomes one with zero diagonal entries.
HostCsr rows_shuffled(const HostCsr& A, uint64_t salt) {
  std::vector<int64_t> p(A.num_rows);
  std::iota(p.begin(), p.end(), int64_t(0));
  std::mt19937_64 rng(test::seed_for(salt));
  std::shuffle(p.begin(), p.end(), rng);
  HostCsr B;
  B.num_rows = A.num_rows;
  B.num_cols = A.num_cols;
  B.row_map.assign(A.num_rows + 1, 0);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    for (int64_t k = A.row_map[p[i]]; k < A.row_map[p[i] + 1]; ++k)
      B.entries.push_back(A.entries[k]), B.values.push_back(A.values[k]);
    B.row_map[i + 1] = B.nnz();
  }
  return B;
}

HostCsr tridiagonal(int64_t n, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < n; ++i) {
    t.push_back({i, i, 3 + u(rng)});
    if (i > 0) t.push_back({i, i - 1, u(rng)});
    if (i + 1 < n) t.push_back({i, i + 1, u(rng)});
  }
  return HostCsr::from_triplets(n, n, std::move(t));
}

/// Dense reference of ILU(k): levels by KIJ over the whole matrix, then IKJ elimination on the
/// kept pattern. Row-major n x n; kept[i * n + j] says whether (i, j) is in the pattern.
struct DenseIlu {
  int64_t n;
  std::vector<char> kept;
  std::vector<double> lu;  // L strictly below (unit diagonal), U on and above
};

template <class Scalar>
DenseIlu dense_iluk(const HostCsr& A, int level) {
  const int64_t n = A.num_rows;
  DenseIlu d{n, std::vector<char>(n * n, 0), std::vector<double>(n * n, 0.0)};
  std::vector<int> lev(n * n, INT_MAX);
  for (int64_t i = 0; i < n; ++i) {
    lev[i * n + i] = 0;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      lev[i * n + A.entries[k]] = 0;
      d.lu[i * n + A.entries[k]] += static_cast<double>(static_cast<Scalar>(A.values[k]));
    }
  }
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = k + 1; i < n; ++i) {
      if (lev[i * n + k] > level) continue;
      for (int64_t j = k + 1; j < n; ++j) {
        if (lev[k * n + j] > level) continue;
        lev[i * n + j] = std::min(lev[i * n + j], lev[i * n + k] + lev[k * n + j] + 1);
      }
    }
  for (int64_t p = 0; p < n * n; ++p) d.kept[p] = lev[p] <= level;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < i; ++k) {
      if (!d.kept[i * n + k]) continue;
      const double l = d.lu[i * n + k] / d.lu[k * n + k];
      d.lu[i * n + k] = l;
      for (int64_t j = k + 1; j < n; ++j)
        if (d.kept[i * n + j] && d.kept[k * n + j]) d.lu[i * n + j] -= l * d.lu[k * n + j];
    }
  return d;
}

template <class Crs>
auto ilu(const HostCsr& A, IncompleteLuOptions o) {
  return make_incomplete_lu(to_crs<Crs>(A), o);
}

// float and double, int and size_t offsets, every host space: a few combinations, not the whole
// product (each one instantiates the preconditioner again).
#if defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using IluTypes = ::testing::Types<KokkosSparse::CrsMatrix<float, int, test::DeviceOf<Kokkos::OpenMP>, void, int>,
                                  KokkosSparse::CrsMatrix<double, int, test::DeviceOf<Kokkos::OpenMP>, void, size_t>,
                                  KokkosSparse::CrsMatrix<double, int, test::DeviceOf<Kokkos::Serial>, void, int>>;
#else
using IluTypes = ::testing::Types<CrsOf<float>, CrsOf<double>>;
#endif

template <class Crs>
class IncompleteLu : public ::testing::Test {};
TYPED_TEST_SUITE(IncompleteLu, IluTypes);

// Pattern and values of ILU(k), k = 0..3, against the dense reference: entry by entry.
TYPED_TEST(IncompleteLu, PatternAndValuesEqualTheDenseReference) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  uint64_t salt = 10;
  for (int64_t n : {1, 7, 40, 90})
    for (int level : {0, 1, 2, 3}) {
      const HostCsr A = dominant_unsorted(n, 3, ++salt);
      IncompleteLuOptions o;
      o.level = level;
      o.matching = IncompleteLuOptions::Matching::off;
      const auto M = ilu<Crs>(A, o);
      const DenseIlu d = dense_iluk<Scalar>(A, level);
      const auto& P = M->pattern();
      const auto& F = M->factor();
      ASSERT_EQ(P.n, n);
      std::vector<char> seen(n * n, 0);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(P.cols[P.diagonal[i]], i);
        for (int64_t q = P.ptr[i]; q < P.ptr[i + 1]; ++q) {
          const int64_t j = P.cols[q];
          if (q > P.ptr[i]) ASSERT_LT(P.cols[q - 1], j) << "row " << i << " sorted";
          ASSERT_TRUE(d.kept[i * n + j]) << "(" << i << ", " << j << ") not in the reference ILU(" << level << ")";
          seen[i * n + j] = 1;
          const double ref = d.lu[i * n + j];
          ASSERT_NEAR(F.values[q], ref, 1e-10 * (1 + std::fabs(ref))) << "(" << i << ", " << j << "), level " << level;
        }
      }
      for (int64_t p = 0; p < n * n; ++p)
        ASSERT_EQ(seen[p], d.kept[p]) << "(" << p / n << ", " << p % n << ") missing, level " << level << ", n " << n;
      if (level == 0) {  // A's own pattern (every row of A has its diagonal here)
        HostCsr S = A;
        sum_duplicates(S);
        EXPECT_EQ(M->nnz(), S.nnz());
      }
    }
}

// ILU(0) of a tridiagonal matrix is its LU; ILU(n) of anything (no zero pivots) is its LU; and
// after the matching and RCM the preconditioner still inverts A exactly.
TYPED_TEST(IncompleteLu, CompleteFactorizationsInvertA) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  struct Case {
    const char* what;
    HostCsr A;
    int level;
    IncompleteLuOptions::Matching matching;
    IncompleteLuOptions::Reorder reorder;
  };
  const int64_t n = 70;
  const HostCsr D = dominant_unsorted(n, 3, 30);
  const std::vector<Case> cases = {
      {"tridiagonal ILU(0)", tridiagonal(n, 31), 0, IncompleteLuOptions::Matching::off, IncompleteLuOptions::Reorder::none},
      {"ILU(n)", D, int(n), IncompleteLuOptions::Matching::off, IncompleteLuOptions::Reorder::none},
      {"ILU(n), matched", D, int(n), IncompleteLuOptions::Matching::on, IncompleteLuOptions::Reorder::none},
      {"ILU(n), rows shuffled, automatic matching", rows_shuffled(D, 32), int(n),
       IncompleteLuOptions::Matching::automatic, IncompleteLuOptions::Reorder::none},
      {"ILU(n), rows shuffled, matching + RCM", rows_shuffled(D, 33), int(n), IncompleteLuOptions::Matching::automatic,
       IncompleteLuOptions::Reorder::rcm},
      {"ILU(n), RCM only", D, int(n), IncompleteLuOptions::Matching::off, IncompleteLuOptions::Reorder::rcm},
      {"ILU(n), rows shuffled, matching + AMD", rows_shuffled(D, 35), int(n), IncompleteLuOptions::Matching::automatic,
       IncompleteLuOptions::Reorder::amd},
  };
  for (const Case& c : cases)
    for (Solve solve : {Solve::columns, Solve::levels}) {
      IncompleteLuOptions o;
      o.level = c.level;
      o.matching = c.matching;
      o.reorder = c.reorder;
      o.solve = solve;
      const auto M = ilu<Crs>(c.A, o);
      EXPECT_EQ(M->shift(), 0.0) << c.what;
      EXPECT_EQ(M->by_levels(), solve == Solve::levels);
      for (int cols : {1, 3}) {
        const HostDense X = test::random_dense(n, cols, 34 + cols);
        const HostDense Y = apply(*M, times<Scalar>(c.A, X));
        EXPECT_LE(max_abs_difference(Y, X), 2000 * eps * max_abs(X))
            << c.what << ", " << cols << " columns, " << M->describe();
      }
    }
}

// A row permutation of a dominant matrix has zero diagonal entries: automatic matching finds a
// permutation (and says so); without it a zero pivot is shifted, or, with one attempt, named.
TYPED_TEST(IncompleteLu, ZeroDiagonalsAreMatchedShiftedOrReported) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const int64_t n = 60;
  const HostCsr A = rows_shuffled(dominant_unsorted(n, 3, 40), 41);
  IncompleteLuOptions o;
  const auto matched = ilu<Crs>(A, o);
  EXPECT_TRUE(matched->matched());
  EXPECT_TRUE(contains(matched->describe(), "matched")) << matched->describe();
  const auto& ordering = matched->ordering();
  std::vector<int64_t> sorted = ordering.row_perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "row_perm is a permutation";

  o.matching = IncompleteLuOptions::Matching::off;
  // [[0, 1], [1, 1]]: u00 = 0; one shift makes it 1e-3.
  const HostCsr B = HostCsr::from_triplets(2, 2, {{0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}, {0, 0, 0.0}});
  o.max_attempts = 8;
  const auto shifted = ilu<Crs>(B, o);
  EXPECT_EQ(shifted->shift(), 1e-3);
  EXPECT_TRUE(contains(shifted->describe(), "diagonal shifted")) << shifted->describe();
  o.max_attempts = 1;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<Crs>(B, o); }), "zero pivot: u(0, 0) = 0"));
}

// update_values: same pattern, new values: equal to a fresh factorization of the new values.
TYPED_TEST(IncompleteLu, UpdateValuesEqualsAFreshFactorization) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const int64_t n = 80;
  const HostCsr A = dominant_unsorted(n, 4, 50);
  HostCsr A2 = A;
  std::mt19937_64 rng(test::seed_for(51));
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (double& v : A2.values) v *= u(rng);
  for (int64_t i = 0; i < n; ++i)  // keep it dominant: its last entry is the diagonal
    A2.values[A2.row_map[i + 1] - 1] = (i % 2 ? -1 : 1) * (4.0 * (A2.row_map[i + 1] - A2.row_map[i]) + 1);
  for (Solve solve : {Solve::columns, Solve::levels})
    for (auto method : {IncompleteLuOptions::Method::levels_of_fill, IncompleteLuOptions::Method::threshold}) {
    IncompleteLuOptions o;
    o.level = 1;
    o.method = method;
    o.drop_tolerance = 1e-3;
    o.reorder = IncompleteLuOptions::Reorder::rcm;
    o.solve = solve;
    const auto M = ilu<Crs>(A, o);
    M->update_values(to_crs<Crs>(A2));
    const auto fresh = ilu<Crs>(A2, o);
    ASSERT_EQ(M->factor().values.size(), fresh->factor().values.size());
    for (size_t q = 0; q < M->factor().values.size(); ++q)
      ASSERT_EQ(M->factor().values[q], fresh->factor().values[q]) << "entry " << q;
    const HostDense X = test::random_dense(n, 2, 52);
    EXPECT_EQ(max_abs_difference(apply(*M, X), apply(*fresh, X)), 0.0);
  }
  // An entry the setup did not have.
  HostCsr wider = A;
  sum_duplicates(wider);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = wider.row_map[i]; k < wider.row_map[i + 1]; ++k) t.push_back({i, wider.entries[k], wider.values[k]});
  std::vector<char> in_row0(n, 0);
  for (int64_t k = wider.row_map[0]; k < wider.row_map[1]; ++k) in_row0[wider.entries[k]] = 1;
  const int64_t outside = std::find(in_row0.begin(), in_row0.end(), 0) - in_row0.begin();
  ASSERT_LT(outside, n);
  t.push_back({0, outside, 1.0});  // ILU(0): (0, outside) is not in the pattern
  IncompleteLuOptions o0;
  o0.matching = IncompleteLuOptions::Matching::off;
  const auto M0 = ilu<Crs>(A, o0);
  const std::string message =
      thrown_message([&] { M0->update_values(to_crs<Crs>(HostCsr::from_triplets(n, n, t))); });
  EXPECT_TRUE(contains(message, "is not in the factorization's pattern")) << message;
}

TYPED_TEST(IncompleteLu, MultivectorApplyEqualsColumnByColumn) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const int64_t n = 120;
  const HostCsr A = rows_shuffled(dominant_unsorted(n, 5, 60), 61);
  for (Solve solve : {Solve::columns, Solve::levels}) {
    IncompleteLuOptions o;
    o.level = 2;
    o.solve = solve;
    o.reorder = IncompleteLuOptions::Reorder::rcm;
    const auto M = ilu<Crs>(A, o);
    const HostDense X = test::random_dense(n, 5, 62);
    const HostDense Y = apply(*M, X);
    for (int64_t q = 0; q < 5; ++q) {
      HostDense x(n, 1);
      for (int64_t i = 0; i < n; ++i) x(i, 0) = X(i, q);
      const HostDense y = apply(*M, x);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y(i, 0), Y(i, q)) << "row " << i << ", column " << q;
    }
  }
}

TYPED_TEST(IncompleteLu, LevelsEqualColumns) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const int64_t n = 300;
  const HostCsr A = rows_shuffled(dominant_unsorted(n, 6, 70), 71);
  for (int level : {0, 2}) {
    IncompleteLuOptions columns, levels;
    columns.level = levels.level = level;
    columns.solve = Solve::columns;
    levels.solve = Solve::levels;
    const HostDense X = test::random_dense(n, 4, 72);
    const HostDense a = apply(*ilu<Crs>(A, columns), X), b = apply(*ilu<Crs>(A, levels), X);
    EXPECT_LE(max_abs_difference(a, b), 100 * eps * max_abs(a)) << "level " << level;
  }
}

// ILUT without dropping (drop 0, fill cap above n) is an LU with threshold column pivoting: exact
// on a matrix with zero diagonal entries, with no matching at all.
TYPED_TEST(IncompleteLu, IlutWithoutDroppingPivotsToAnExactFactorization) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const int64_t n = 80;
  const HostCsr A = rows_shuffled(dominant_unsorted(n, 3, 100), 101);
  for (double pivot_threshold : {0.1, 1.0})
    for (Solve solve : {Solve::columns, Solve::levels}) {
      IncompleteLuOptions o;
      o.method = IncompleteLuOptions::Method::threshold;
      o.matching = IncompleteLuOptions::Matching::off;
      o.drop_tolerance = 0;
      o.fill_factor = double(n);
      o.pivot_threshold = pivot_threshold;
      o.solve = solve;
      const auto M = ilu<Crs>(A, o);
      EXPECT_FALSE(M->matched());
      EXPECT_EQ(M->zero_pivots_replaced(), 0);
      EXPECT_GT(M->pivoted_columns(), 0) << M->describe();
      const HostDense X = test::random_dense(n, 3, 102);
      const HostDense Y = apply(*M, times<Scalar>(A, X));
      EXPECT_LE(max_abs_difference(Y, X), 2000 * eps * max_abs(X)) << M->describe();
    }
}

// Dropping and the fill cap: every row of L and of U keeps at most ceil(fill x nnz(row of A))
// entries, fewer than the complete factorization in all.
TYPED_TEST(IncompleteLu, IlutDropsAndCapsTheFillOfEveryRow) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const int64_t n = 200;
  HostCsr A = dominant_unsorted(n, 8, 110);
  IncompleteLuOptions complete, dropped;
  complete.method = dropped.method = IncompleteLuOptions::Method::threshold;
  complete.drop_tolerance = 0;
  complete.fill_factor = double(n);
  dropped.drop_tolerance = 1e-2;
  dropped.fill_factor = 0.5;
  const auto C = ilu<Crs>(A, complete), D = ilu<Crs>(A, dropped);
  EXPECT_LT(D->nnz(), C->nnz() / 2) << D->describe() << "\n" << C->describe();
  sum_duplicates(A);
  const auto& P = D->pattern();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t cap = static_cast<int64_t>(std::ceil(0.5 * double(A.row_map[i + 1] - A.row_map[i])));
    EXPECT_LE(P.diagonal[i] - P.ptr[i], cap) << "L, row " << i;
    EXPECT_LE(P.ptr[i + 1] - P.diagonal[i] - 1, cap) << "U, row " << i;
  }
  const HostDense X = test::random_dense(n, 2, 111);
  const HostDense Y = apply(*D, X);
  for (double y : Y.data) ASSERT_TRUE(std::isfinite(y));
}

// [[0, 1], [1, 1]] without pivoting or matching: both pivots are zero and replaced (the second
// because 1 - 1 x 1 cancels); with pivoting the factorization is exact.
TYPED_TEST(IncompleteLu, IlutReplacesZeroPivotsOrPivotsAroundThem) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const HostCsr B = HostCsr::from_triplets(2, 2, {{0, 1, 1.0}, {1, 0, 1.0}, {1, 1, 1.0}});
  IncompleteLuOptions o;
  o.method = IncompleteLuOptions::Method::threshold;
  o.matching = IncompleteLuOptions::Matching::off;
  o.pivot_threshold = 0;
  const auto M = ilu<Crs>(B, o);
  EXPECT_EQ(M->zero_pivots_replaced(), 2);
  EXPECT_TRUE(contains(M->describe(), "2 zero pivots replaced")) << M->describe();
  o.pivot_threshold = 0.1;
  const auto P = ilu<Crs>(B, o);
  EXPECT_EQ(P->zero_pivots_replaced(), 0);
  EXPECT_EQ(P->pivoted_columns(), 2);
  const HostDense X = test::random_dense(2, 1, 120);
  EXPECT_LE(max_abs_difference(apply(*P, times<Scalar>(B, X)), X), 10 * std::numeric_limits<Scalar>::epsilon() * max_abs(X));
}

TEST(IncompleteLuErrors, ClearMessages) {
  IncompleteLuOptions o;
  const HostCsr rectangular = test::random_csr(5, 6, 2, 80);
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(rectangular, o); }), "must be square, it is 5 x 6"));
  const HostCsr A = dominant_unsorted(10, 2, 81);
  o.level = -1;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(A, o); }), "level = -1"));
  o.level = 0;
  o.max_attempts = 0;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(A, o); }), "max_attempts = 0"));
  o.max_attempts = 8;
  o.initial_shift = 0;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(A, o); }), "initial_shift = 0"));
  o.initial_shift = 1e-3;
  o.method = IncompleteLuOptions::Method::threshold;
  o.drop_tolerance = -1;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(A, o); }), "drop_tolerance = -1"));
  o.drop_tolerance = 0;
  o.fill_factor = 0;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(A, o); }), "fill_factor = 0"));
  o.fill_factor = 1;
  o.pivot_threshold = 2;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(A, o); }), "pivot_threshold = 2"));
  o = IncompleteLuOptions{};
  // Column 2 empty: no row can be matched to it.
  const HostCsr singular =
      HostCsr::from_triplets(3, 3, {{0, 0, 1.0}, {0, 1, 1.0}, {1, 1, 1.0}, {2, 0, 1.0}, {2, 1, 2.0}});
  IncompleteLuOptions matched;
  matched.matching = IncompleteLuOptions::Matching::on;
  EXPECT_TRUE(contains(thrown_message([&] { ilu<CrsOf<double>>(singular, matched); }), "structurally singular"));
  const auto M = ilu<CrsOf<double>>(A, IncompleteLuOptions{});
  using MV = MultiVectorOf<double>;
  EXPECT_THROW(M->apply(MV("X", 9, 1), MV("Y", 10, 1)), InvalidArgument);
  EXPECT_THROW(M->apply(MV("X", 10, 1), MV("Y", 10, 2)), InvalidArgument);
  // Empty matrix: nothing to do.
  const auto E = ilu<CrsOf<double>>(test::no_entries(0, 0), IncompleteLuOptions{});
  E->apply(MV("X", 0, 2), MV("Y", 0, 2));
  EXPECT_EQ(E->num_rows(), 0);
}

// ---- block GMRES on the shared nonsymmetric matrices ------------------------------------------

struct SharedCase {
  const char* name;
  int level;             // ILU(level); < 0: ILUT without dropping (an LU with column pivoting)
  bool pattern_only = false;  // stored without values: given some (see the test)
};

class SharedIlu : public ::testing::TestWithParam<SharedCase> {};

TEST_P(SharedIlu, BlockGmresWithIluConverges) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const SharedCase c = GetParam();
  HostCsr A = load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + c.name + ".mtx.gz");
  if (c.pattern_only) {
    // rajat01 comes as a pattern: with every value 1 it is singular (63 zero pivots), and whether
    // GMRES reaches 1e-8 on that consistent singular system depends on rounding (one CI machine
    // stagnated at 1.2e-6 where another converged in 7 iterations). Values of either sign and
    // magnitude 0.5 to 1.5, fixed by position, make it nonsingular; the pivoting stays.
    for (size_t k = 0; k < A.values.size(); ++k) {
      const uint32_t h = static_cast<uint32_t>(k) * 2654435761u;
      A.values[k] = ((h >> 31) ? -1.0 : 1.0) * (0.5 + double((h >> 8) % 1000) / 1000.0);
    }
  }
  const int64_t n = A.num_rows, s = 4;
  using Crs = CrsOf<double>;
  using MV = MultiVectorOf<double>;
  const Crs a = to_crs<Crs>(A);
  IncompleteLuOptions o;
  o.level = std::max(c.level, 0);
  if (c.level < 0) {
    o.method = IncompleteLuOptions::Method::threshold;
    o.drop_tolerance = 0;
    o.fill_factor = 1000;
  }
  const auto M = make_incomplete_lu(a, o);
  // Column 0: A * ones; the others A * (random x): right-hand sides the matrix can reach to 1e-8
  // in double whatever its condition.
  HostDense B(n, s), ones(n, 1, 1.0);
  HostDense AX = times<double>(A, test::random_dense(n, s, 90));
  const HostDense A1 = times<double>(A, ones);
  for (int64_t i = 0; i < n; ++i) AX(i, 0) = A1(i, 0);
  B = AX;
  auto op = make_operator(SpmvPlan<Crs>(a));
  const MV b = test::to_view<MV>(B, "B");
  const MV x("X", n, s);
  BlockGmresOptions options;
  options.block_size = s;
  options.restart = 30;
  options.max_iterations = 1000;
  options.tol = 1e-8;
  const BlockGmresResult r = block_gmres(*op, b, x, options, M.get());
  std::cout << "[sprocket] " << c.name << ": " << r.iterations << " block iterations, " << M->describe() << "\n";
  ASSERT_EQ(r.status, SolverStatus::converged) << c.name << ": " << r.message;
  const HostDense X = test::to_host_dense(x);
  for (int64_t j = 0; j < s; ++j) {
    std::vector<double> res(n), xj(X.data.begin() + j * n, X.data.begin() + (j + 1) * n);
    for (int64_t i = 0; i < n; ++i) res[i] = B(i, j);
    reference::spmv("N", -1.0, A, xj, 1.0, res);
    double nr = 0, nb = 0;
    for (int64_t i = 0; i < n; ++i) nr += res[i] * res[i], nb += B(i, j) * B(i, j);
    EXPECT_LE(std::sqrt(nr / nb), 1e-8 * (1 + 1e-6) + 1e-12) << c.name << ", column " << j;
  }
}

INSTANTIATE_TEST_SUITE_P(IncompleteLu, SharedIlu,
                         ::testing::Values(SharedCase{"sherman5", 0}, SharedCase{"orsirr_1", 0},
                                           SharedCase{"watt_2", 0}, SharedCase{"hor_131", 0},
                                           SharedCase{"west0479", 1}, SharedCase{"rajat01", -1, true}),
                         [](const ::testing::TestParamInfo<SharedCase>& info) { return std::string(info.param.name); });

}  // namespace
