// Direct factorizations (make_cholesky by CHOLMOD, make_lu by UMFPACK;
// impl/precond/direct_factorization_preconditioner.hpp), float and double, int and size_t offsets,
// OpenMP and Serial (DirectTypes):
//  - random SPD and random nonsymmetric matrices (rows unsorted, duplicates, missing diagonal
//    entries, zero diagonals that force UMFPACK to pivot), several right-hand sides, against a
//    serial double dense solve (partial pivoting) of the same matrix rounded to the Scalar; the
//    nonsymmetric cases also check that A^{-T} X is far from the answer, so solving with the
//    transpose cannot pass;
//  - the shift: against a dense solve of A - sigma I (sigma inside the spectrum for the LU);
//  - update_values: new values, a subset of the pattern, an entry outside it, a failed
//    refactorization and the recovery after it;
//  - a large enough matrix that CHOLMOD goes supernodal, beside the small simplicial ones (and
//    names the column of a failure inside a supernode);
//  - errors: non-square, not symmetric, not positive definite naming the column, singular for
//    the LU with UMFPACK's status, non-finite entries and shift, apply extents; 0 x 0 and 1 x 1;
//  - shared matrices: bcsstk13 and bcsstk15 by Cholesky, west0479 and sherman5 by LU: relative
//    residuals of A Y = B near rounding.
//
// No device code here (nvcc refuses extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "precond_test_utils.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using namespace test::precond_tests;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Random symmetric matrix, positive definite by diagonal dominance (diagonal 1 + the row's
/// off-diagonal moduli, times `dominance`; below 1 the dominance is lost). Sorted, summed.
HostCsr random_spd(int64_t n, double avg_row, uint64_t salt, double dominance = 1.0) {
  const HostCsr R = test::random_csr(n, n, std::min<double>(avg_row / 2, double(n)), salt);
  std::vector<Triplet> t;
  std::vector<double> row_sum(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) {
      const int64_t j = R.entries[k];
      if (j == i) continue;
      t.push_back({i, j, R.values[k]});
      t.push_back({j, i, R.values[k]});
      row_sum[i] += std::fabs(R.values[k]);
      row_sum[j] += std::fabs(R.values[k]);
    }
  for (int64_t i = 0; i < n; ++i) t.push_back({i, i, dominance * (1.0 + row_sum[i])});
  return HostCsr::from_triplets(n, n, std::move(t));
}

/// Random nonsymmetric matrix, diagonal dominant (signs alternating), sorted and summed.
HostCsr random_nonsymmetric(int64_t n, double avg_row, uint64_t salt) {
  const HostCsr R = test::random_csr(n, n, std::min<double>(avg_row, double(n)), salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < n; ++i) {
    double sum = 1.0;
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k)
      if (R.entries[k] != i) {
        t.push_back({i, R.entries[k], R.values[k]});
        sum += std::fabs(R.values[k]);
      }
    t.push_back({i, i, i % 2 ? -sum : sum});
  }
  return HostCsr::from_triplets(n, n, std::move(t));
}

/// The rows of A in a random order: zero (missing) diagonal entries, a matrix only a pivoting
/// LU factors.
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

/// The same matrix as A stored the hard way: every row reversed (unsorted) and each diagonal
/// entry split into two halves (a duplicate; halving is exact in float and double).
HostCsr scrambled(const HostCsr& A) {
  HostCsr B;
  B.num_rows = A.num_rows;
  B.num_cols = A.num_cols;
  B.row_map.assign(A.num_rows + 1, 0);
  for (int64_t i = 0; i < A.num_rows; ++i) {
    for (int64_t k = A.row_map[i + 1] - 1; k >= A.row_map[i]; --k) {
      const double v = A.values[k];
      const bool split = A.entries[k] == i;
      B.entries.push_back(A.entries[k]);
      B.values.push_back(split ? v / 2 : v);
      if (split) B.entries.push_back(A.entries[k]), B.values.push_back(v / 2);
    }
    B.row_map[i + 1] = B.nnz();
  }
  return B;
}

/// X solving (A - sigma I) X = B, dense Gaussian elimination with partial pivoting in double,
/// A's values rounded to Scalar first (what the preconditioner was given). `transposed`: the
/// solve with (A - sigma I)^T, the answer a solve that forgets the transpose would give.
template <class Scalar>
HostDense dense_solve(const HostCsr& A, double sigma, const HostDense& B, bool transposed = false) {
  const int64_t n = A.num_rows;
  std::vector<double> M(n * n, 0.0);  // row-major
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const double v = static_cast<double>(static_cast<Scalar>(A.values[k]));
      (transposed ? M[A.entries[k] * n + i] : M[i * n + A.entries[k]]) += v;
    }
    M[i * n + i] -= sigma;
  }
  HostDense X = B;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(M[i * n + k]) > std::fabs(M[p * n + k])) p = i;
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(M[k * n + j], M[p * n + j]);
      for (int64_t q = 0; q < X.num_cols; ++q) std::swap(X(k, q), X(p, q));
    }
    for (int64_t i = k + 1; i < n; ++i) {
      const double l = M[i * n + k] / M[k * n + k];
      if (l == 0) continue;
      for (int64_t j = k + 1; j < n; ++j) M[i * n + j] -= l * M[k * n + j];
      for (int64_t q = 0; q < X.num_cols; ++q) X(i, q) -= l * X(k, q);
    }
  }
  for (int64_t q = 0; q < X.num_cols; ++q)
    for (int64_t i = n - 1; i >= 0; --i) {
      double v = X(i, q);
      for (int64_t j = i + 1; j < n; ++j) v -= M[i * n + j] * X(j, q);
      X(i, q) = v / M[i * n + i];
    }
  return X;
}

/// The 1-norm condition number of A - sigma I (A's values rounded to Scalar), its inverse
/// formed by dense_solve.
template <class Scalar>
double condition_1(const HostCsr& A, double sigma) {
  const int64_t n = A.num_rows;
  HostDense I(n, n, 0.0);
  for (int64_t i = 0; i < n; ++i) I(i, i) = 1;
  const HostDense inverse = dense_solve<Scalar>(A, sigma, I);
  std::vector<double> column_sums(n, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      column_sums[A.entries[k]] += std::fabs(static_cast<double>(static_cast<Scalar>(A.values[k])) -
                                             (A.entries[k] == i ? sigma : 0.0));
  }
  double norm = *std::max_element(column_sums.begin(), column_sums.end()), inverse_norm = 0;
  for (int64_t j = 0; j < n; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::fabs(inverse(i, j));
    inverse_norm = std::max(inverse_norm, sum);
  }
  return norm * inverse_norm;
}

/// Bound on max |Y - Y_reference| for these well-conditioned random matrices: float rounds Y on
/// output (the factorization is in double), double carries the factorization's rounding.
template <class Scalar>
double tolerance(const HostDense& reference) {
  return (std::is_same_v<Scalar, float> ? 8 * double(std::numeric_limits<float>::epsilon()) : 1e-12) *
         max_abs(reference);
}

template <class Crs>
auto cholesky(const HostCsr& A, double shift = 0) {
  DirectFactorizationOptions o;
  o.shift = shift;
  return make_cholesky(to_crs<Crs>(A), o);
}

template <class Crs>
auto lu(const HostCsr& A, double shift = 0) {
  DirectFactorizationOptions o;
  o.shift = shift;
  return make_lu(to_crs<Crs>(A), o);
}

/// max_j ||B_j - (A - sigma I) Y_j|| / ||B_j|| by the reference SpMV.
double worst_relative_residual(const HostCsr& A, double sigma, const HostDense& B, const HostDense& Y) {
  const int64_t n = A.num_rows;
  double worst = 0;
  for (int64_t q = 0; q < B.num_cols; ++q) {
    std::vector<double> y(Y.data.begin() + q * n, Y.data.begin() + (q + 1) * n), r(n);
    for (int64_t i = 0; i < n; ++i) r[i] = B(i, q) + sigma * y[i];
    reference::spmv("N", -1.0, A, y, 1.0, r);
    double nr = 0, nb = 0;
    for (int64_t i = 0; i < n; ++i) nr += r[i] * r[i], nb += B(i, q) * B(i, q);
    const double rel = std::sqrt(nr / nb);
    if (!(rel <= worst)) worst = rel;  // NaN propagates
  }
  return worst;
}

// float and double, int and size_t offsets, both host spaces: a few combinations, not the whole
// product (each one instantiates the preconditioner again).
#if defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using DirectTypes = ::testing::Types<KokkosSparse::CrsMatrix<float, int, test::DeviceOf<Kokkos::OpenMP>, void, int>,
                                     KokkosSparse::CrsMatrix<double, int, test::DeviceOf<Kokkos::OpenMP>, void, size_t>,
                                     KokkosSparse::CrsMatrix<double, int, test::DeviceOf<Kokkos::Serial>, void, int>,
                                     KokkosSparse::CrsMatrix<float, int, test::DeviceOf<Kokkos::Serial>, void, size_t>>;
#else
using DirectTypes = ::testing::Types<CrsOf<float>, CrsOf<double>>;
#endif

template <class Crs>
class DirectFactorization : public ::testing::Test {};
TYPED_TEST_SUITE(DirectFactorization, DirectTypes);

// Cholesky and LU of SPD matrices, LU of nonsymmetric ones (dominant, and with their rows
// shuffled: zero diagonals), stored unsorted with duplicates, 1 to 6 right-hand sides.
TYPED_TEST(DirectFactorization, SolvesMatchADenseReference) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  uint64_t salt = 100;
  for (int64_t n : {1, 2, 17, 150}) {
    const HostCsr spd = random_spd(n, 6, ++salt);
    const HostCsr nonsymmetric = random_nonsymmetric(n, 5, ++salt);
    const HostCsr pivoting = rows_shuffled(random_nonsymmetric(n, 4, ++salt), ++salt);
    for (int cols : {1, 3, 6}) {
      const HostDense X = test::random_dense(n, cols, ++salt);
      const HostDense Xs = test::rounded<Scalar>(X);  // what the preconditioner is given
      {
        const auto M = cholesky<Crs>(scrambled(spd));
        const HostDense expected = dense_solve<Scalar>(spd, 0, Xs);
        EXPECT_LE(max_abs_difference(apply(*M, X), expected), tolerance<Scalar>(expected))
            << "Cholesky, n " << n << ", " << cols << " columns, " << M->describe();
        EXPECT_TRUE(contains(M->describe(), "CHOLMOD")) << M->describe();
        const auto L = lu<Crs>(scrambled(spd));
        EXPECT_LE(max_abs_difference(apply(*L, X), expected), tolerance<Scalar>(expected))
            << "LU of the SPD matrix, n " << n << ", " << cols << " columns, " << L->describe();
      }
      for (const HostCsr* A : {&nonsymmetric, &pivoting}) {
        const auto M = lu<Crs>(*A);
        const HostDense expected = dense_solve<Scalar>(*A, 0, Xs);
        const HostDense Y = apply(*M, X);
        EXPECT_LE(max_abs_difference(Y, expected), tolerance<Scalar>(expected))
            << "LU, n " << n << ", " << cols << " columns, " << (A == &pivoting ? "rows shuffled, " : "")
            << M->describe();
        EXPECT_TRUE(contains(M->describe(), "UMFPACK")) << M->describe();
        if (n >= 17) {
          // The test has teeth: the transposed solve's answer is far from A^{-1} X.
          const HostDense wrong = dense_solve<Scalar>(*A, 0, Xs, true);
          EXPECT_GT(max_abs_difference(wrong, expected), 1e3 * tolerance<Scalar>(expected));
        }
      }
    }
  }
}

// A - sigma I: Cholesky with sigma below the spectrum, LU with sigma inside it (indefinite,
// nonsymmetric, with missing diagonal entries where the shift must land), against dense solves.
TYPED_TEST(DirectFactorization, ShiftFactorsAMinusSigmaI) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const int64_t n = 90;
  const HostCsr spd = random_spd(n, 6, 200);
  const HostCsr pivoting = rows_shuffled(random_nonsymmetric(n, 4, 201), 202);
  const HostDense X = test::random_dense(n, 4, 203);
  const HostDense Xs = test::rounded<Scalar>(X);
  // Dominance 1 keeps every eigenvalue of spd >= 1: sigma = 0.5 stays positive definite.
  for (double sigma : {0.5, -3.0}) {
    const auto M = cholesky<Crs>(spd, sigma);
    const HostDense expected = dense_solve<Scalar>(spd, sigma, Xs);
    EXPECT_LE(max_abs_difference(apply(*M, X), expected), tolerance<Scalar>(expected)) << M->describe();
    EXPECT_EQ(M->shift(), sigma);
    EXPECT_TRUE(contains(M->describe(), "sigma = ")) << M->describe();
  }
  // sigma inside the spectrum: A - sigma I is indefinite, the LU still factors it.
  const double diag0 = spd.values[std::lower_bound(spd.entries.begin() + spd.row_map[0],
                                                   spd.entries.begin() + spd.row_map[1], 0) -
                                  spd.entries.begin()];
  const double sigma_inside = diag0 + 0.37;
  for (const HostCsr* A : {&spd, &pivoting}) {
    const double sigma = A == &spd ? sigma_inside : 0.61;
    const auto M = lu<Crs>(*A, sigma);
    const HostDense expected = dense_solve<Scalar>(*A, sigma, Xs);
    // Shifted into the spectrum the condition grows (how much depends on how near sigma falls
    // to an eigenvalue): the bound grows with it, still far below the difference of a solve
    // without the shift.
    const double bound = tolerance<Scalar>(expected) + 1e-14 * condition_1<Scalar>(*A, sigma) * max_abs(expected);
    EXPECT_LE(max_abs_difference(apply(*M, X), expected), bound) << M->describe();
    const HostDense unshifted = dense_solve<Scalar>(*A, 0, Xs);
    EXPECT_GT(max_abs_difference(unshifted, expected), 100 * bound);
  }
  EXPECT_TRUE(contains(thrown_message([&] { cholesky<Crs>(spd, sigma_inside); }), "is not positive definite"));
}

// update_values: new values on the pattern, then a subset of it, equal dense solves; an entry
// outside the pattern throws; a failed refactorization leaves apply throwing until a good one.
TYPED_TEST(DirectFactorization, UpdateValuesRefactorsOnTheSamePattern) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const int64_t n = 70;
  const HostCsr spd = random_spd(n, 6, 300);
  const HostCsr nonsymmetric = random_nonsymmetric(n, 5, 301);
  const HostDense X = test::random_dense(n, 3, 302);
  const HostDense Xs = test::rounded<Scalar>(X);
  std::mt19937_64 rng(test::seed_for(303));
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (bool symmetric : {true, false}) {
    const HostCsr& A = symmetric ? spd : nonsymmetric;
    const double sigma = symmetric ? 0.25 : -0.5;
    DirectFactorizationOptions o;
    o.shift = sigma;
    const auto M = symmetric ? make_cholesky(to_crs<Crs>(A), o) : make_lu(to_crs<Crs>(A), o);
    // New values: the diagonal scaled up, the off-diagonal entries scaled (symmetrically).
    HostCsr A2 = symmetric ? random_spd(n, 6, 300, 1.5) : A;
    for (int64_t i = 0; i < n && !symmetric; ++i) {
      double sum = 1;
      for (int64_t k = A2.row_map[i]; k < A2.row_map[i + 1]; ++k)
        if (A2.entries[k] != i) sum += std::fabs(A2.values[k] *= u(rng));
      for (int64_t k = A2.row_map[i]; k < A2.row_map[i + 1]; ++k)
        if (A2.entries[k] == i) A2.values[k] = (i % 2 ? -1.5 : 1.5) * sum;
    }
    M->update_values(to_crs<Crs>(scrambled(A2)));
    HostDense expected = dense_solve<Scalar>(A2, sigma, Xs);
    EXPECT_LE(max_abs_difference(apply(*M, X), expected), tolerance<Scalar>(expected))
        << (symmetric ? "Cholesky" : "LU") << " after update_values, " << M->describe();
    // A subset of the pattern: the off-diagonal entries of the first 10 rows (and, for the
    // symmetric one, their mirrors) left out.
    std::vector<Triplet> t;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = A2.row_map[i]; k < A2.row_map[i + 1]; ++k) {
        const int64_t j = A2.entries[k];
        if (j != i && (i < 10 || (symmetric && j < 10))) continue;
        t.push_back({i, j, A2.values[k]});
      }
    const HostCsr subset = HostCsr::from_triplets(n, n, t);
    ASSERT_LT(subset.nnz(), A2.nnz());
    M->update_values(to_crs<Crs>(subset));
    expected = dense_solve<Scalar>(subset, sigma, Xs);
    EXPECT_LE(max_abs_difference(apply(*M, X), expected), tolerance<Scalar>(expected))
        << (symmetric ? "Cholesky" : "LU") << " on a subset of the pattern";
    // An entry the setup did not have.
    std::vector<char> in_row0(n, 0);
    for (int64_t k = A.row_map[0]; k < A.row_map[1]; ++k) in_row0[A.entries[k]] = 1;
    const int64_t outside = std::find(in_row0.begin(), in_row0.end(), 0) - in_row0.begin();
    ASSERT_LT(outside, n);
    std::vector<Triplet> wider = t;
    wider.push_back({0, outside, 1.0});
    if (symmetric) wider.push_back({outside, 0, 1.0});
    const std::string message =
        thrown_message([&] { M->update_values(to_crs<Crs>(HostCsr::from_triplets(n, n, wider))); });
    EXPECT_TRUE(contains(message, "A(0, " + std::to_string(outside) + ") is not in the pattern of the setup"))
        << message;
  }
  // A refactorization that fails (Cholesky: not positive definite; LU: singular) makes apply
  // throw; a good one after it works again.
  const auto C = cholesky<Crs>(spd);
  HostCsr indefinite = spd;
  for (int64_t k = indefinite.row_map[5]; k < indefinite.row_map[6]; ++k)
    if (indefinite.entries[k] == 5) indefinite.values[k] = -100;
  EXPECT_TRUE(contains(thrown_message([&] { C->update_values(to_crs<Crs>(indefinite)); }),
                       "stopped at column 5 of A"));
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Crs::device_type>;
  EXPECT_THROW(C->apply(MV("X", n, 1), MV("Y", n, 1)), InvalidArgument);
  C->update_values(to_crs<Crs>(spd));
  const HostDense expected = dense_solve<Scalar>(spd, 0, Xs);
  EXPECT_LE(max_abs_difference(apply(*C, X), expected), tolerance<Scalar>(expected));
  const auto L = lu<Crs>(nonsymmetric);
  HostCsr zero_row = nonsymmetric;
  for (int64_t k = zero_row.row_map[3]; k < zero_row.row_map[4]; ++k) zero_row.values[k] = 0;
  EXPECT_TRUE(contains(thrown_message([&] { L->update_values(to_crs<Crs>(zero_row)); }), "is singular"));
  EXPECT_THROW(L->apply(MV("X", n, 1), MV("Y", n, 1)), InvalidArgument);
  L->update_values(to_crs<Crs>(nonsymmetric));
  const HostDense expected_lu = dense_solve<Scalar>(nonsymmetric, 0, Xs);
  EXPECT_LE(max_abs_difference(apply(*L, X), expected_lu), tolerance<Scalar>(expected_lu));
}

// A 3-D Poisson matrix (1728 rows) is large enough for CHOLMOD's supernodal factorization (the
// random ones above are simplicial); both solve to rounding.
TYPED_TEST(DirectFactorization, SupernodalAndSimplicialCholesky) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const HostCsr big = gen::poisson3d(12);
  const auto S = cholesky<Crs>(big);
  EXPECT_EQ(S->info().method, "supernodal") << S->describe();
  EXPECT_FALSE(S->info().ordering.empty());
  EXPECT_GT(S->info().flops, 0.0);
  EXPECT_GE(S->info().nnz_l, double(big.num_rows));
  const HostDense X = test::random_dense(big.num_rows, 5, 400);
  // Right-hand sides A X: the Poisson values are small integers, exact in float.
  const HostDense B = times<Scalar>(big, test::rounded<Scalar>(X));
  const HostDense Y = apply(*S, B);
  EXPECT_LE(max_abs_difference(Y, test::rounded<Scalar>(X)),
            (std::is_same_v<Scalar, float> ? 1e-4 : 1e-12) * max_abs(X))
      << S->describe();
  const auto small = cholesky<Crs>(random_spd(30, 4, 401));
  EXPECT_EQ(small->info().method, "simplicial") << small->describe();
  // A failure inside a supernode still names A's column (pivots eliminated before it do not
  // involve it; the supernode's columns before it succeed).
  HostCsr indefinite = big;
  const int64_t column = 1000;
  for (int64_t k = indefinite.row_map[column]; k < indefinite.row_map[column + 1]; ++k)
    if (indefinite.entries[k] == column) indefinite.values[k] = -100;
  const std::string message = thrown_message([&] { cholesky<Crs>(indefinite); });
  EXPECT_TRUE(contains(message, "stopped at column 1000 of A")) << message;
}

TEST(DirectFactorizationErrors, ClearMessages) {
  using Crs = CrsOf<double>;
  using MV = MultiVectorOf<double>;
  const HostCsr rectangular = test::random_csr(5, 6, 2, 500);
  EXPECT_TRUE(contains(thrown_message([&] { cholesky<Crs>(rectangular); }), "must be square, it is 5 x 6"));
  EXPECT_TRUE(contains(thrown_message([&] { lu<Crs>(rectangular); }), "must be square, it is 5 x 6"));
  // Not symmetric: the first pair that differs, and a pointer to make_lu.
  const HostCsr nonsymmetric = HostCsr::from_triplets(3, 3, {{0, 0, 4.0}, {0, 2, 1.0}, {1, 1, 4.0}, {2, 2, 4.0}});
  const std::string not_symmetric = thrown_message([&] { cholesky<Crs>(nonsymmetric); });
  EXPECT_TRUE(contains(not_symmetric, "make_cholesky: A is not symmetric: A(0, 2) = 1 but A(2, 0) = 0"))
      << not_symmetric;
  EXPECT_TRUE(contains(not_symmetric, "make_lu")) << not_symmetric;
  // Not positive definite: a dominant SPD matrix with one negative diagonal entry stops at that
  // column, whatever CHOLMOD's ordering (the pivots before it do not involve it).
  for (int64_t column : {0, 7, 39}) {
    HostCsr A = random_spd(40, 5, 501 + column);
    for (int64_t k = A.row_map[column]; k < A.row_map[column + 1]; ++k)
      if (A.entries[k] == column) A.values[k] = -1;
    const std::string message = thrown_message([&] { cholesky<Crs>(A); });
    EXPECT_TRUE(contains(message, "make_cholesky: A is not positive definite: the Cholesky factorization stopped "
                                  "at column " + std::to_string(column) + " of A"))
        << message;
  }
  // A shift that makes it indefinite names sigma.
  const HostCsr identity = HostCsr::from_triplets(2, 2, {{0, 0, 1.0}, {1, 1, 1.0}});
  EXPECT_TRUE(contains(thrown_message([&] { cholesky<Crs>(identity, 2.0); }), "A - 2 I is not positive definite"));
  // Singular for UMFPACK: numerically (two equal rows) and structurally (an empty column); and
  // A - sigma I singular at an eigenvalue.
  const HostCsr equal_rows =
      HostCsr::from_triplets(3, 3, {{0, 0, 1.0}, {0, 1, 2.0}, {1, 0, 1.0}, {1, 1, 2.0}, {2, 2, 3.0}});
  const std::string singular = thrown_message([&] { lu<Crs>(equal_rows); });
  EXPECT_TRUE(contains(singular, "make_lu: A (3 x 3) is singular")) << singular;
  EXPECT_TRUE(contains(singular, "UMFPACK_WARNING_singular_matrix, status 1")) << singular;
  const HostCsr empty_column = HostCsr::from_triplets(3, 3, {{0, 0, 1.0}, {1, 0, 1.0}, {2, 1, 1.0}});
  EXPECT_TRUE(contains(thrown_message([&] { lu<Crs>(empty_column); }), "is singular"));
  EXPECT_TRUE(contains(thrown_message([&] { lu<Crs>(identity, 1.0); }), "A - 1 I (2 x 2) is singular"));
  // Non-finite entries and shift.
  const HostCsr with_nan = HostCsr::from_triplets(2, 2, {{0, 0, 1.0}, {1, 1, std::nan("")}});
  EXPECT_TRUE(contains(thrown_message([&] { lu<Crs>(with_nan); }), "A(1, 1) = nan is not finite"));
  EXPECT_TRUE(contains(thrown_message([&] { cholesky<Crs>(with_nan); }), "is not finite"));
  EXPECT_TRUE(contains(thrown_message([&] { cholesky<Crs>(identity, INFINITY); }), "shift = inf (must be finite)"));
  // apply extents.
  const auto M = cholesky<Crs>(random_spd(10, 3, 502));
  const auto L = lu<Crs>(random_nonsymmetric(10, 3, 503));
  for (const Preconditioner<double, Device>* P : {static_cast<const Preconditioner<double, Device>*>(M.get()),
                                                  static_cast<const Preconditioner<double, Device>*>(L.get())}) {
    EXPECT_TRUE(contains(thrown_message([&] { P->apply(MV("X", 9, 1), MV("Y", 10, 1)); }),
                         "the preconditioner is 10 x 10 but X has 9 rows and Y has 10"));
    EXPECT_TRUE(contains(thrown_message([&] { P->apply(MV("X", 10, 1), MV("Y", 10, 2)); }),
                         "X has 1 columns but Y has 2"));
  }
  // update_values with another size.
  EXPECT_TRUE(contains(thrown_message([&] { M->update_values(to_crs<Crs>(random_spd(11, 3, 504))); }),
                       "A is 11 x 11 but the preconditioner is 10 x 10"));
}

// 0 x 0: nothing to factor or solve. 1 x 1: y = x / (a - sigma).
TEST(DirectFactorizationErrors, EmptyAndOneByOne) {
  using Crs = CrsOf<double>;
  using MV = MultiVectorOf<double>;
  for (auto make : {+[](const HostCsr& A, double s) { return cholesky<Crs>(A, s); },
                    +[](const HostCsr& A, double s) { return lu<Crs>(A, s); }}) {
    const auto E = make(test::no_entries(0, 0), 0.0);
    EXPECT_EQ(E->num_rows(), 0);
    E->apply(MV("X", 0, 2), MV("Y", 0, 2));
    EXPECT_FALSE(E->describe().empty());
    E->update_values(to_crs<Crs>(test::no_entries(0, 0)));
    const HostCsr one = HostCsr::from_triplets(1, 1, {{0, 0, 4.0}});
    const auto P = make(one, 1.0);
    HostDense X(1, 3);
    X(0, 0) = 3, X(0, 1) = -6, X(0, 2) = 1.5;
    const HostDense Y = apply(*P, X);
    for (int q = 0; q < 3; ++q) EXPECT_DOUBLE_EQ(Y(0, q), X(0, q) / 3.0);
    // A 1 x 1 matrix without its (only) entry: the shift alone.
    const auto Q = make(test::no_entries(1, 1), -2.0);
    EXPECT_DOUBLE_EQ(apply(*Q, X)(0, 0), 1.5);
  }
  EXPECT_TRUE(contains(thrown_message([&] { cholesky<Crs>(HostCsr::from_triplets(1, 1, {{0, 0, -4.0}})); }),
                       "stopped at column 0 of A"));
  EXPECT_TRUE(contains(thrown_message([&] { lu<Crs>(test::no_entries(1, 1)); }), "is singular"));
}

// ---- shared matrices ---------------------------------------------------------------------------

struct SharedCase {
  const char* name;
  bool cholesky;
};

class SharedDirect : public ::testing::TestWithParam<SharedCase> {};

// B = A X (X random, so B lies in A's range whatever its condition) and one column of ones:
// the relative residual of the direct solve is a few rounding errors times ||A|| ||y|| / ||b||.
TEST_P(SharedDirect, ResidualIsNearRounding) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const SharedCase c = GetParam();
  const HostCsr A = load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + c.name + ".mtx.gz");
  const int64_t n = A.num_rows, s = 4;
  using Crs = CrsOf<double>;
  const Crs a = to_crs<Crs>(A);
  const auto M = c.cholesky ? make_cholesky(a) : make_lu(a);
  HostDense B = times<double>(A, test::random_dense(n, s, 600));
  for (int64_t i = 0; i < n; ++i) B(i, 0) = 1.0;
  const HostDense Y = apply(*M, B);
  const double residual = worst_relative_residual(A, 0, B, Y);
  std::cout << "[sprocket] " << c.name << ": worst relative residual " << residual << ", " << M->describe() << "\n";
  EXPECT_LE(residual, 1e-9) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Direct, SharedDirect,
                         ::testing::Values(SharedCase{"bcsstk13", true}, SharedCase{"bcsstk15", true},
                                           SharedCase{"west0479", false}, SharedCase{"sherman5", false}),
                         [](const ::testing::TestParamInfo<SharedCase>& info) { return std::string(info.param.name); });

}  // namespace
