// Preconditioners (Sprocket_Preconditioners.hpp), float and double on the default device:
//  - Jacobi: Y = D^{-1} X against the diagonal computed here (duplicates summed);
//  - block-Jacobi (CRS, block sizes 1, 3, 4, 7 and one block; rows not divisible by b; blocks
//    that need pivoting): blockdiag(A) Y = X with blockdiag(A) multiplied here from A's entries,
//    so entries outside the diagonal blocks must be ignored; BSR block-Jacobi equals the CRS one;
//  - Chebyshev: the closed form on diagonal matrices (the residual polynomial of d steps is
//    T_d((theta - lambda) / delta) / T_d(theta / delta)), the power-method bound on poisson3d
//    against the known spectrum, fewer GMRES iterations than no preconditioner on poisson3d;
//  - incomplete Cholesky: without dropping, L equals a dense Cholesky factor computed here and
//    T (A X) = X; the level-scheduled solves equal the column-wise ones; with dropping, fewer entries, T symmetric and positive definite, and on a
//    badly conditioned matrix fewer LOBPCG iterations than Jacobi; the diagonal shift after a
//    breakdown (a symmetric indefinite matrix) and the error once the attempts run out;
//  - multivector apply equals column-by-column apply (Y poisoned before every apply);
//  - errors: zero / missing diagonal naming the row, singular block naming the block and rows,
//    missing BSR diagonal block, non-square A, bad options, mismatched apply extents, a
//    nonsymmetric matrix (incomplete Cholesky names the pair).
//
// No device code here (nvcc refuses extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Spmv.hpp"
#include "precond_test_utils.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using namespace test::precond_tests;

/// Random nonsymmetric matrix with a dominant diagonal stored as two duplicate entries per row
/// (so extraction has to sum them), columns unsorted.
HostCsr dominant_with_duplicate_diagonal(int64_t n, double avg_row, uint64_t salt) {
  const HostCsr R = test::random_csr(n, n, avg_row, salt);
  HostCsr A;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0;
    A.entries.push_back(static_cast<int>(i));
    A.values.push_back(0);  // filled below, first half of the diagonal
    const int64_t first = A.nnz() - 1;
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) {
      A.entries.push_back(R.entries[k]);
      A.values.push_back(R.values[k]);
      sum += std::fabs(R.values[k]);
    }
    const double sign = i % 2 ? -1.0 : 1.0;  // diagonal +-(row sum + 1), split 1:3 over two entries
    A.values[first] = 0.25 * sign * (sum + 1);
    A.entries.push_back(static_cast<int>(i));  // second part, after the row's other entries
    A.values.push_back(0.75 * sign * (sum + 1));
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

/// Y = blockdiag(A) X, blocks cut every b rows (last smaller), from A's stored entries.
HostDense block_diagonal_times(const HostCsr& A, int64_t b, const HostDense& X) {
  HostDense Y(A.num_rows, X.num_cols, 0.0);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      if (j / b != i / b) continue;
      for (int64_t q = 0; q < X.num_cols; ++q) Y(i, q) += A.values[k] * X(j, q);
    }
  return Y;
}

/// Random symmetric positive definite matrix: the pattern of R + R^T, off-diagonal values in
/// [-1, 1], diagonal (sum of |row| + margin) stored as two duplicate entries, each row's entries
/// in reverse column order (unsorted).
HostCsr spd_unsorted_with_duplicates(int64_t n, double avg_row, double margin, uint64_t salt) {
  const HostCsr R = test::random_csr(n, n, avg_row, salt);
  std::vector<std::vector<std::pair<int64_t, double>>> rows(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) {
      const int64_t j = R.entries[k];
      if (j == i) continue;
      rows[i].emplace_back(j, R.values[k]);  // entry and its mirror: symmetric by construction
      rows[j].emplace_back(i, R.values[k]);
    }
  HostCsr A;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0;
    for (const auto& e : rows[i]) sum += std::fabs(e.second);
    rows[i].emplace_back(i, 0.25 * (sum + margin));
    rows[i].emplace_back(i, 0.75 * (sum + margin));
    std::sort(rows[i].begin(), rows[i].end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& e : rows[i]) {
      A.entries.push_back(static_cast<int>(e.first));
      A.values.push_back(e.second);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

/// Dense row-major copy of A (duplicates summed), values rounded to Scalar.
template <class Scalar>
std::vector<double> dense_of(const HostCsr& A) {
  std::vector<double> d(static_cast<size_t>(A.num_rows * A.num_cols), 0.0);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      d[i * A.num_cols + A.entries[k]] += static_cast<double>(static_cast<Scalar>(A.values[k]));
  return d;
}

template <class Scalar>
class Preconditioners : public ::testing::Test {};
using ScalarTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(Preconditioners, ScalarTypes);

// ---- Jacobi -------------------------------------------------------------------------------------

TYPED_TEST(Preconditioners, JacobiIsTheInverseDiagonal) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const HostCsr A = dominant_with_duplicate_diagonal(257, 4, 10);
  const auto M = make_jacobi(to_crs<CrsOf<Scalar>>(A));
  EXPECT_EQ(M->num_rows(), 257);
  EXPECT_NE(M->describe().find("Jacobi"), std::string::npos);
  std::vector<double> diagonal(A.num_rows, 0.0);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] == i) diagonal[i] += static_cast<double>(static_cast<Scalar>(A.values[k]));
  for (int cols : {1, 4}) {
    const HostDense X = test::random_dense(A.num_rows, cols, 11 + cols);
    const HostDense Y = apply(*M, X);
    for (int64_t q = 0; q < cols; ++q)
      for (int64_t i = 0; i < A.num_rows; ++i) {
        const double expected = static_cast<double>(static_cast<Scalar>(X(i, q))) / diagonal[i];
        ASSERT_NEAR(Y(i, q), expected, 4 * eps * std::fabs(expected) + 1e-300) << "row " << i << ", column " << q;
      }
  }
}

// ---- block-Jacobi -------------------------------------------------------------------------------

TYPED_TEST(Preconditioners, BlockJacobiInvertsTheDiagonalBlocks) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const HostCsr A = dominant_with_duplicate_diagonal(50, 6, 20);
  const HostCsr Ar = [&] {  // the values the preconditioner sees, in Scalar
    HostCsr r = A;
    for (double& v : r.values) v = static_cast<double>(static_cast<Scalar>(v));
    return r;
  }();
  for (int b : {1, 3, 4, 7, 50, 64}) {
    const auto M = make_block_jacobi(to_crs<CrsOf<Scalar>>(A), b);
    const int64_t bb = std::min(b, 50);
    const HostDense X = test::random_dense(A.num_rows, 3, 21 + b);
    const HostDense Y = apply(*M, X);
    // blockdiag(A) Y = X, up to the rounding of applying an explicit inverse in Scalar.
    const HostDense back = block_diagonal_times(Ar, bb, Y);
    EXPECT_LE(max_abs_difference(back, X), 64 * bb * eps * max_abs(X)) << "b = " << b;
    EXPECT_NE(M->describe().find("block-Jacobi"), std::string::npos);
    if (50 % bb != 0) {
      EXPECT_NE(M->describe().find("the last"), std::string::npos) << M->describe();
    }
  }
}

// 2 x 2 blocks [[0, a], [c, 0]]: no diagonal entry at all, invertible only with pivoting.
TYPED_TEST(Preconditioners, BlockJacobiPivots) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const int64_t n = 40;
  std::vector<Triplet> t;
  for (int64_t k = 0; k < n / 2; ++k) {
    t.push_back({2 * k, 2 * k + 1, 2.0 + k});
    t.push_back({2 * k + 1, 2 * k, -1.0 - 0.5 * k});
    if (k + 1 < n / 2) t.push_back({2 * k, 2 * k + 2, 0.3});  // outside the blocks: ignored
  }
  const HostCsr A = HostCsr::from_triplets(n, n, t);
  EXPECT_THROW(make_jacobi(to_crs<CrsOf<Scalar>>(A)), InvalidArgument);
  const auto M = make_block_jacobi(to_crs<CrsOf<Scalar>>(A), 2);
  const HostDense X = test::random_dense(n, 2, 30);
  const HostDense back = block_diagonal_times(A, 2, apply(*M, X));
  EXPECT_LE(max_abs_difference(back, X), 16 * eps * max_abs(X));
}

TYPED_TEST(Preconditioners, BsrBlockJacobiEqualsCsrBlockJacobi) {
  using Scalar = TypeParam;
  using Bsr = BsrMatrix<Scalar, int, Device, int>;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const int b = 3;
  // Random 3 x 3 block pattern plus a dominant diagonal (keeps the diagonal blocks invertible).
  const HostCsr R = test::random_blocked(30, 30, b, 3, 0.7, 40);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < R.num_rows; ++i) {
    double sum = 0;
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) {
      t.push_back({i, R.entries[k], R.values[k]});
      sum += std::fabs(R.values[k]);
    }
    t.push_back({i, i, sum + 1});
  }
  const HostCsr A = HostCsr::from_triplets(R.num_rows, R.num_cols, t);
  const CrsOf<Scalar> crs = to_crs<CrsOf<Scalar>>(A);
  const auto from_bsr = make_block_jacobi(csr_to_bsr<Bsr>(crs, b));
  const auto from_csr = make_block_jacobi(crs, b);
  const HostDense X = test::random_dense(A.num_rows, 3, 41);
  const HostDense y_bsr = apply(*from_bsr, X), y_csr = apply(*from_csr, X);
  EXPECT_LE(max_abs_difference(y_bsr, y_csr), 8 * eps * max_abs(y_csr));
  EXPECT_NE(from_bsr->describe().find("BSR"), std::string::npos);
}

// ---- Chebyshev ----------------------------------------------------------------------------------

double chebyshev_t(int d, double z) {
  double t0 = 1, t1 = z;
  if (d == 0) return t0;
  for (int k = 1; k < d; ++k) {
    const double t2 = 2 * z * t1 - t0;
    t0 = t1;
    t1 = t2;
  }
  return t1;
}

HostCsr diagonal_matrix(const std::vector<double>& d) {
  std::vector<Triplet> t;
  for (size_t i = 0; i < d.size(); ++i) t.push_back({static_cast<int64_t>(i), static_cast<int64_t>(i), d[i]});
  return HostCsr::from_triplets(d.size(), d.size(), t);
}

// On A = diag(lambda_i) with D = I, d steps give y_i = (1 - T_d((theta - l)/delta) / T_d(theta/delta)) x_i / l.
// With Jacobi scaling D^{-1} A = I: every eigenvalue is 1 and y_i = (1 - T_d(...1...)) x_i / lambda_i.
TYPED_TEST(Preconditioners, ChebyshevMatchesTheClosedForm) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  std::vector<double> lambda(64);
  for (size_t i = 0; i < lambda.size(); ++i) lambda[i] = 1 + 9.0 * i / (lambda.size() - 1);
  const HostCsr A = diagonal_matrix(lambda);
  const HostDense X = test::random_dense(A.num_rows, 3, 50);
  for (bool scaling : {false, true})
    for (int degree : {1, 2, 3, 5}) {
      ChebyshevOptions options;
      options.degree = degree;
      options.jacobi_scaling = scaling;
      options.lambda_min = scaling ? 0.5 : 1;
      options.lambda_max = scaling ? 2 : 10;
      const auto M = make_chebyshev(to_crs<CrsOf<Scalar>>(A), options);
      const HostDense Y = apply(*M, X);
      const double theta = (options.lambda_max + options.lambda_min) / 2;
      const double delta = (options.lambda_max - options.lambda_min) / 2;
      for (int64_t i = 0; i < A.num_rows; ++i) {
        const double l = scaling ? 1.0 : lambda[i];
        const double p = (1 - chebyshev_t(degree, (theta - l) / delta) / chebyshev_t(degree, theta / delta)) / l;
        for (int64_t q = 0; q < X.num_cols; ++q) {
          const double expected = p * X(i, q) / (scaling ? lambda[i] : 1.0);
          ASSERT_NEAR(Y(i, q), expected, 64 * eps * std::fabs(X(i, q)))
              << "degree " << degree << ", scaling " << scaling << ", row " << i;
        }
      }
    }
}

// D^{-1} A of the 7-point Laplacian on an n^3 grid has eigenvalues 1 - (cos a + cos b + cos c)/3
// with a, b, c in {k pi / (n+1)}: the largest is 1 + cos(pi / (n+1)).
TYPED_TEST(Preconditioners, ChebyshevEstimatesTheSpectrum) {
  using Scalar = TypeParam;
  const int n = 10;
  const HostCsr A = gen::poisson3d(n);
  const double exact = 1 + std::cos(std::acos(-1.0) / (n + 1));
  const auto M = make_chebyshev(to_crs<CrsOf<Scalar>>(A));
  const auto* cheb = dynamic_cast<const ChebyshevPreconditioner<Scalar, Device>*>(M.get());
  ASSERT_NE(cheb, nullptr);
  EXPECT_GE(cheb->lambda_max(), 1.1 * 0.75 * exact);
  EXPECT_LE(cheb->lambda_max(), 1.1 * exact * (1 + 1e-5));
  EXPECT_NEAR(cheb->lambda_min(), cheb->lambda_max() / 30, 1e-12 * cheb->lambda_max());
  EXPECT_EQ(cheb->degree(), 3);
  const std::string text = M->describe();
  EXPECT_NE(text.find("Chebyshev"), std::string::npos) << text;
  EXPECT_NE(text.find("power iterations"), std::string::npos) << text;
}

TEST(Preconditioners, ChebyshevReducesGmresIterationsOnPoisson3d) {
  using Crs = CrsOf<double>;
  using MV = MultiVectorOf<double>;
  const HostCsr A = gen::poisson3d(12);
  const Crs a = to_crs<Crs>(A);
  auto op = make_operator(SpmvPlan<Crs>(a));
  const HostDense B = test::random_dense(A.num_rows, 2, 60);
  BlockGmresOptions options;
  options.restart = 30;
  int iterations[2];
  for (int with : {0, 1}) {
    const auto M = with ? make_chebyshev(a) : nullptr;
    const MV b = test::to_view<MV>(B), x("X", A.num_rows, 2);
    const BlockGmresResult r = block_gmres(*op, b, x, options, M.get());
    ASSERT_EQ(r.status, SolverStatus::converged) << r.message;
    for (int64_t j = 0; j < 2; ++j) {  // the true residual, recomputed
      const HostDense X = test::to_host_dense(x);
      std::vector<double> res(B.data.begin() + j * A.num_rows, B.data.begin() + (j + 1) * A.num_rows);
      std::vector<double> xj(X.data.begin() + j * A.num_rows, X.data.begin() + (j + 1) * A.num_rows);
      reference::spmv("N", -1.0, A, xj, 1.0, res);
      double rn = 0, bn = 0;
      for (int64_t i = 0; i < A.num_rows; ++i) rn += res[i] * res[i], bn += B(i, j) * B(i, j);
      EXPECT_LE(std::sqrt(rn / bn), options.tol * (1 + 1e-6));
    }
    iterations[with] = r.iterations;
  }
  EXPECT_LT(iterations[1], 0.7 * iterations[0]) << "without " << iterations[0] << ", with Chebyshev " << iterations[1];
}

// ---- incomplete Cholesky ------------------------------------------------------------------------

template <class Scalar>
const IncompleteCholeskyPreconditioner<Scalar, Device>& as_ic(const std::shared_ptr<Preconditioner<Scalar, Device>>& M) {
  const auto* ic = dynamic_cast<const IncompleteCholeskyPreconditioner<Scalar, Device>*>(M.get());
  if (!ic) throw std::logic_error("not an IncompleteCholeskyPreconditioner");
  return *ic;
}
/// make_incomplete_cholesky returns the concrete type.
template <class Scalar>
const IncompleteCholeskyPreconditioner<Scalar, Device>& as_ic(
    const std::shared_ptr<IncompleteCholeskyPreconditioner<Scalar, Device>>& M) {
  return *M;
}

// drop_tolerance 0: the complete factorization, entry by entry against a dense Cholesky of the
// same (Scalar-rounded) values, and an exact inverse: T (A X) = X.
TYPED_TEST(Preconditioners, IncompleteCholeskyWithoutDroppingIsExact) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const int64_t n = 90;
  const HostCsr A = spd_unsorted_with_duplicates(n, 4, 0.5, 120);
  IncompleteCholeskyOptions options;
  options.drop_tolerance = 0;
  const auto M = make_incomplete_cholesky(to_crs<CrsOf<Scalar>>(A), options);
  const auto& ic = as_ic(M);
  EXPECT_EQ(ic.shift(), 0.0);
  EXPECT_NE(M->describe().find("nothing dropped"), std::string::npos) << M->describe();
  // Dense Cholesky, lower triangle, row-major.
  std::vector<double> L = dense_of<Scalar>(A);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < j; ++k) L[j * n + j] -= L[j * n + k] * L[j * n + k];
    ASSERT_GT(L[j * n + j], 0.0);
    L[j * n + j] = std::sqrt(L[j * n + j]);
    for (int64_t i = j + 1; i < n; ++i) {
      for (int64_t k = 0; k < j; ++k) L[i * n + j] -= L[i * n + k] * L[j * n + k];
      L[i * n + j] /= L[j * n + j];
    }
  }
  const auto& f = ic.factor();
  ASSERT_EQ(f.n, n);
  int64_t stored_nonzeros = 0;
  for (int64_t j = 0; j < n; ++j) {
    ASSERT_NEAR(f.diagonal[j], L[j * n + j], 1e-12 * L[j * n + j]) << "L(" << j << ", " << j << ")";
    std::vector<double> column(n, 0.0);
    for (int64_t q = f.col_ptr[j]; q < f.col_ptr[j + 1]; ++q) {
      ASSERT_GT(f.rows[q], j);
      if (q > f.col_ptr[j]) ASSERT_GT(f.rows[q], f.rows[q - 1]) << "rows sorted in column " << j;
      column[f.rows[q]] = f.values[q];
    }
    for (int64_t i = j + 1; i < n; ++i) {
      ASSERT_NEAR(column[i], L[i * n + j], 1e-12 * L[j * n + j]) << "L(" << i << ", " << j << ")";
      stored_nonzeros += L[i * n + j] != 0;
    }
  }
  EXPECT_EQ(ic.nnz(), stored_nonzeros + n);  // exactly the structural fill, nothing dropped
  for (int cols : {1, 3}) {
    const HostDense X = test::random_dense(n, cols, 121 + cols);
    const HostDense Y = apply(*M, times<Scalar>(A, X));
    EXPECT_LE(max_abs_difference(Y, X), 500 * eps * max_abs(X)) << cols << " columns";
  }
}

// With dropping: fewer entries than the complete factor, and T stays symmetric positive
// definite (what LOBPCG and CG need) on a 2-D Poisson matrix.
TYPED_TEST(Preconditioners, IncompleteCholeskyDropsAndStaysSymmetricPositiveDefinite) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const HostCsr A = gen::poisson2d(24);
  const auto a = to_crs<CrsOf<Scalar>>(A);
  IncompleteCholeskyOptions complete, dropped;
  complete.drop_tolerance = 0;
  dropped.drop_tolerance = 1e-2;
  const auto Mc = make_incomplete_cholesky(a, complete);
  const auto Md = make_incomplete_cholesky(a, dropped);
  EXPECT_LT(as_ic(Md).nnz(), as_ic(Mc).nnz() / 2) << Md->describe();
  EXPECT_GT(as_ic(Md).factor().dropped, 0);
  EXPECT_NE(Md->describe().find("dropped"), std::string::npos) << Md->describe();
  const HostDense UV = test::random_dense(A.num_rows, 2, 130);
  const HostDense TUV = apply(*Md, UV);
  double utv = 0, vtu = 0, utu = 0, uu = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    utv += UV(i, 0) * TUV(i, 1);
    vtu += UV(i, 1) * TUV(i, 0);
    utu += UV(i, 0) * TUV(i, 0);
    uu += UV(i, 0) * UV(i, 0);
  }
  EXPECT_NEAR(utv, vtu, 100 * eps * std::sqrt(uu) * max_abs(TUV) * A.num_rows) << "T is not symmetric";
  EXPECT_GT(utu, 0.0);
  // And it approximates A^{-1}: ||T A x - x|| well below ||x|| (Jacobi gives about 1).
  const HostDense X = test::random_dense(A.num_rows, 1, 131);
  const HostDense Y = apply(*Md, times<Scalar>(A, X));
  EXPECT_LT(max_abs_difference(Y, X), 0.5 * max_abs(X));
}

// The level-scheduled solves (the GPU default, here forced on the host) equal the column-wise
// sequential ones: with and without dropping, one and several columns.
// Reordered factorizations (AMD, RCM): without dropping still an exact inverse through the
// permutation, on both solve paths; AMD's fill on a 3-D Poisson matrix far below the natural
// ordering's.
TYPED_TEST(Preconditioners, IncompleteCholeskyOrderingsStayExactAndAmdCutsFill) {
  using Scalar = TypeParam;
  using Solve = IncompleteCholeskyOptions::TriangularSolve;
  using Ordering = IncompleteCholeskyOptions::Ordering;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const HostCsr A = spd_unsorted_with_duplicates(120, 4, 0.5, 150);
  for (Ordering ordering : {Ordering::amd, Ordering::rcm})
    for (Solve solve : {Solve::columns, Solve::levels}) {
      IncompleteCholeskyOptions o;
      o.drop_tolerance = 0;
      o.ordering = ordering;
      o.solve = solve;
      const auto M = make_incomplete_cholesky(to_crs<CrsOf<Scalar>>(A), o);
      const char* name = ordering == Ordering::amd ? "approximate minimum degree" : "reverse Cuthill-McKee";
      EXPECT_NE(M->describe().find(name), std::string::npos) << M->describe();
      for (int cols : {1, 3}) {
        const HostDense X = test::random_dense(A.num_rows, cols, 151 + cols);
        const HostDense Y = apply(*M, times<Scalar>(A, X));
        EXPECT_LE(max_abs_difference(Y, X), 500 * eps * max_abs(X)) << name << ", " << cols << " columns";
      }
    }
  const auto P = to_crs<CrsOf<Scalar>>(gen::poisson3d(12));
  IncompleteCholeskyOptions natural, amd;
  natural.drop_tolerance = amd.drop_tolerance = 0;
  amd.ordering = Ordering::amd;
  const int64_t natural_fill = as_ic(make_incomplete_cholesky(P, natural)).nnz();
  const int64_t amd_fill = as_ic(make_incomplete_cholesky(P, amd)).nnz();
  EXPECT_LT(2 * amd_fill, natural_fill) << "nnz(L): AMD " << amd_fill << ", natural " << natural_fill;
}

TYPED_TEST(Preconditioners, IncompleteCholeskyLevelsEqualColumns) {
  using Scalar = TypeParam;
  using Solve = IncompleteCholeskyOptions::TriangularSolve;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (const HostCsr& A : {gen::poisson2d(24), spd_unsorted_with_duplicates(150, 5, 0.5, 140)})
    for (double drop : {0.0, 1e-2}) {
      const auto a = to_crs<CrsOf<Scalar>>(A);
      IncompleteCholeskyOptions columns, levels;
      columns.drop_tolerance = levels.drop_tolerance = drop;
      columns.solve = Solve::columns;
      levels.solve = Solve::levels;
      const auto Mc = make_incomplete_cholesky(a, columns);
      const auto Ml = make_incomplete_cholesky(a, levels);
      EXPECT_FALSE(as_ic(Mc).by_levels());
      ASSERT_TRUE(as_ic(Ml).by_levels());
      EXPECT_NE(Ml->describe().find("level-scheduled"), std::string::npos) << Ml->describe();
      for (int cols : {1, 3}) {
        const HostDense X = test::random_dense(A.num_rows, cols, 141 + cols);
        const HostDense Yc = apply(*Mc, X), Yl = apply(*Ml, X);
        EXPECT_LE(max_abs_difference(Yc, Yl), 200 * eps * max_abs(Yc)) << "drop " << drop << ", " << cols << " columns";
      }
    }
}

// A symmetric but indefinite matrix with a positive diagonal ([[1, 2], [2, 1]] blocks) breaks
// down: the factorization shifts the diagonal (1e-3, 1e-2, ..., 10 x diag(A): the first shift
// with (1 + alpha)^2 > 4 succeeds) and says so; with too few attempts it throws naming the row.
TEST(Preconditioners, IncompleteCholeskyShiftsAfterBreakdown) {
  using Crs = CrsOf<double>;
  std::vector<Triplet> t;
  for (int64_t b = 0; b < 5; ++b) {
    t.push_back({2 * b, 2 * b, 1.0});
    t.push_back({2 * b, 2 * b + 1, 2.0});
    t.push_back({2 * b + 1, 2 * b, 2.0});
    t.push_back({2 * b + 1, 2 * b + 1, 1.0});
  }
  const Crs A = to_crs<Crs>(HostCsr::from_triplets(10, 10, t));
  IncompleteCholeskyOptions options;
  options.drop_tolerance = 0;
  const auto M = make_incomplete_cholesky(A, options);
  EXPECT_DOUBLE_EQ(as_ic(M).shift(), 10.0);
  EXPECT_EQ(as_ic(M).factor().attempts, 6);
  EXPECT_NE(M->describe().find("diagonal shifted by 10 x diag(A) after 5 breakdown(s)"), std::string::npos)
      << M->describe();
  options.max_attempts = 3;
  const std::string message = thrown_message([&] { make_incomplete_cholesky(A, options); });
  EXPECT_NE(message.find("broke down at row 1 in all 3 attempts"), std::string::npos) << message;
}

// Where it pays: the 5 smallest eigenpairs of an anisotropic 2-D operator (condition ~1e6):
// incomplete Cholesky needs far fewer LOBPCG iterations than Jacobi.
TEST(Preconditioners, IncompleteCholeskySpeedsUpLobpcg) {
  using Crs = CrsOf<double>;
  const int64_t side = 40, n = side * side;
  std::vector<Triplet> t;
  for (int64_t y = 0; y < side; ++y)
    for (int64_t x = 0; x < side; ++x) {
      const int64_t i = y * side + x;
      const double ex = 1.0, ey = 1e-3;  // strong coupling along x only
      t.push_back({i, i, 2 * ex + 2 * ey});
      if (x > 0) t.push_back({i, i - 1, -ex});
      if (x + 1 < side) t.push_back({i, i + 1, -ex});
      if (y > 0) t.push_back({i, i - side, -ey});
      if (y + 1 < side) t.push_back({i, i + side, -ey});
    }
  const Crs A = to_crs<Crs>(HostCsr::from_triplets(n, n, t));
  const auto op = make_operator(SpmvPlan<Crs>(A));
  int iterations[2] = {0, 0};
  const std::shared_ptr<Preconditioner<double, Device>> T[2] = {make_jacobi(A), make_incomplete_cholesky(A)};
  for (int k = 0; k < 2; ++k) {
    LobpcgOptions options;
    options.nev = 5;
    options.tol = 1e-8;
    options.max_iterations = 2000;
    MultiVectorOf<double> X("X", n, 5);
    const LobpcgResult r = lobpcg(*op, X, options, T[k].get());
    ASSERT_EQ(r.status, SolverStatus::converged) << T[k]->describe() << ": " << r.message;
    iterations[k] = r.iterations;
  }
  EXPECT_LT(iterations[1], iterations[0] / 3) << "Jacobi " << iterations[0] << ", incomplete Cholesky " << iterations[1];
}

// Chebyshev keeps work vectors sized by the column count: alternate block widths.
TYPED_TEST(Preconditioners, MultivectorApplyEqualsColumnByColumn) {
  using Scalar = TypeParam;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const HostCsr A = dominant_with_duplicate_diagonal(120, 5, 70);
  const CrsOf<Scalar> a = to_crs<CrsOf<Scalar>>(A);
  const CrsOf<Scalar> spd = to_crs<CrsOf<Scalar>>(spd_unsorted_with_duplicates(120, 5, 1.0, 72));
  const std::vector<std::shared_ptr<Preconditioner<Scalar, Device>>> all = {
      make_jacobi(a), make_block_jacobi(a, 5), make_chebyshev(a), make_incomplete_cholesky(spd), [&] {
        IncompleteCholeskyOptions levels;
        levels.solve = IncompleteCholeskyOptions::TriangularSolve::levels;
        return make_incomplete_cholesky(spd, levels);
      }()};
  const HostDense X = test::random_dense(A.num_rows, 4, 71);
  for (const auto& M : all) {
    const HostDense Y = apply(*M, X);
    for (int64_t q = 0; q < 4; ++q) {
      HostDense xq(A.num_rows, 1);
      for (int64_t i = 0; i < A.num_rows; ++i) xq(i, 0) = X(i, q);
      const HostDense yq = apply(*M, xq);
      // Rounding of the column's own size: Chebyshev's SpMM takes other kernels (summation
      // orders) for one column than for four, and its polynomial mixes the rows, while a column
      // mixed up with another would be off by O(max |y|).
      const double scale = max_abs(yq);
      for (int64_t i = 0; i < A.num_rows; ++i)
        ASSERT_NEAR(Y(i, q), yq(i, 0), 16 * eps * (std::fabs(yq(i, 0)) + scale)) << M->describe() << ", column " << q;
    }
  }
}

// ---- errors -------------------------------------------------------------------------------------

TEST(Preconditioners, ZeroOrMissingDiagonalNamesTheRow) {
  using Crs = CrsOf<double>;
  HostCsr A = dominant_with_duplicate_diagonal(30, 3, 80);
  for (int64_t k = A.row_map[7]; k < A.row_map[8]; ++k)
    if (A.entries[k] == 7) A.values[k] = 0;  // explicit zeros
  EXPECT_NE(thrown_message([&] { make_jacobi(to_crs<Crs>(A)); }).find("row 7"), std::string::npos);
  EXPECT_NE(thrown_message([&] { make_chebyshev(to_crs<Crs>(A)); }).find("row 7"), std::string::npos);
  // Missing: row 11 stores no diagonal entry.
  HostCsr B = dominant_with_duplicate_diagonal(30, 3, 81);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < B.num_rows; ++i)
    for (int64_t k = B.row_map[i]; k < B.row_map[i + 1]; ++k)
      if (!(i == 11 && B.entries[k] == 11)) t.push_back({i, B.entries[k], B.values[k]});
  const HostCsr missing = HostCsr::from_triplets(30, 30, t);
  EXPECT_NE(thrown_message([&] { make_jacobi(to_crs<Crs>(missing)); }).find("row 11"), std::string::npos);
  // Non-finite diagonal.
  HostCsr C = dominant_with_duplicate_diagonal(30, 3, 82);
  C.values[C.row_map[4]] = std::numeric_limits<double>::infinity();
  EXPECT_NE(thrown_message([&] { make_jacobi(to_crs<Crs>(C)); }).find("row 4"), std::string::npos);
}

TEST(Preconditioners, SingularBlockNamesTheBlock) {
  using Crs = CrsOf<double>;
  // Block 2 (rows 8-11) gets two equal rows: singular; the matrix itself stays fine elsewhere.
  const HostCsr D = dominant_with_duplicate_diagonal(22, 3, 90);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < D.num_rows; ++i) {
    const int64_t source = i == 10 ? 9 : i;
    for (int64_t k = D.row_map[source]; k < D.row_map[source + 1]; ++k) t.push_back({i, D.entries[k], D.values[k]});
  }
  const HostCsr A = HostCsr::from_triplets(22, 22, t);
  const std::string message = thrown_message([&] { make_block_jacobi(to_crs<Crs>(A), 4); });
  EXPECT_NE(message.find("block 2"), std::string::npos) << message;
  EXPECT_NE(message.find("rows 8-11"), std::string::npos) << message;
  // The last, smaller block (rows 20-21) singular: a zero row.
  std::vector<Triplet> u;
  for (int64_t i = 0; i < D.num_rows; ++i)
    for (int64_t k = D.row_map[i]; k < D.row_map[i + 1]; ++k)
      if (i != 21) u.push_back({i, D.entries[k], D.values[k]});
  const std::string last = thrown_message([&] { make_block_jacobi(to_crs<Crs>(HostCsr::from_triplets(22, 22, u)), 4); });
  EXPECT_NE(last.find("rows 20-21"), std::string::npos) << last;
}

TEST(Preconditioners, MissingBsrDiagonalBlockIsSingular) {
  using Bsr = BsrMatrix<double, int, Device, int>;
  // Block rows 0..3 of 2 x 2 blocks; block row 1 has only an off-diagonal block.
  std::vector<Triplet> t;
  for (int64_t I = 0; I < 4; ++I)
    for (int r = 0; r < 2; ++r) {
      if (I != 1) t.push_back({2 * I + r, 2 * I + r, 4.0});
      t.push_back({2 * I + r, (2 * I + 2 + r) % 8, 1.0});
    }
  const HostCsr A = HostCsr::from_triplets(8, 8, t);
  const std::string message =
      thrown_message([&] { make_block_jacobi(csr_to_bsr<Bsr>(to_crs<CrsOf<double>>(A), 2)); });
  EXPECT_NE(message.find("block 1"), std::string::npos) << message;
}

TEST(Preconditioners, BadArgumentsThrow) {
  using Crs = CrsOf<double>;
  using MV = MultiVectorOf<double>;
  const Crs square = to_crs<Crs>(dominant_with_duplicate_diagonal(20, 3, 100));
  const Crs rect = to_crs<Crs>(test::random_csr(20, 21, 3, 101));
  EXPECT_THROW(make_jacobi(rect), InvalidArgument);
  EXPECT_THROW(make_block_jacobi(rect, 2), InvalidArgument);
  EXPECT_THROW(make_chebyshev(rect), InvalidArgument);
  EXPECT_THROW(make_block_jacobi(square, 0), InvalidArgument);
  ChebyshevOptions o;
  o.degree = 0;
  EXPECT_THROW(make_chebyshev(square, o), InvalidArgument);
  o = {};
  o.eig_ratio = 1;
  EXPECT_THROW(make_chebyshev(square, o), InvalidArgument);
  o = {};
  o.lambda_max = 1;
  o.lambda_min = 2;
  EXPECT_THROW(make_chebyshev(square, o), InvalidArgument);
  o = {};
  o.lambda_max = -1;
  EXPECT_THROW(make_chebyshev(square, o), InvalidArgument);
  o = {};
  o.power_iterations = 0;
  EXPECT_THROW(make_chebyshev(square, o), InvalidArgument);
  const auto M = make_jacobi(square);
  EXPECT_THROW(M->apply(MV("X", 19, 2), MV("Y", 20, 2)), InvalidArgument);
  EXPECT_THROW(M->apply(MV("X", 20, 2), MV("Y", 20, 3)), InvalidArgument);
  const auto C = make_chebyshev(square);
  EXPECT_THROW(C->apply(MV("X", 20, 1), MV("Y", 21, 1)), InvalidArgument);
  // Incomplete Cholesky: non-square, nonsymmetric (names the pair), bad diagonal (names the
  // row), bad options, mismatched extents; an empty matrix is fine.
  EXPECT_THROW(make_incomplete_cholesky(rect), InvalidArgument);
  HostCsr nonsymmetric = spd_unsorted_with_duplicates(20, 3, 1.0, 102);
  int64_t changed_row = -1, changed_col = -1;
  for (int64_t i = 0; i < 20 && changed_row < 0; ++i)
    for (int64_t k = nonsymmetric.row_map[i]; k < nonsymmetric.row_map[i + 1]; ++k)
      if (nonsymmetric.entries[k] > i) {
        changed_row = i, changed_col = nonsymmetric.entries[k];
        nonsymmetric.values[k] += 0.5;
        break;
      }
  ASSERT_GE(changed_row, 0);
  const std::string pair = "A(" + std::to_string(changed_row) + ", " + std::to_string(changed_col) + ")";
  const std::string not_symmetric = thrown_message([&] { make_incomplete_cholesky(to_crs<Crs>(nonsymmetric)); });
  EXPECT_NE(not_symmetric.find("not symmetric: " + pair), std::string::npos) << not_symmetric;
  {  // under a reordering the message still names A's own rows and columns
    IncompleteCholeskyOptions amd;
    amd.ordering = IncompleteCholeskyOptions::Ordering::amd;
    const std::string reordered = thrown_message([&] { make_incomplete_cholesky(to_crs<Crs>(nonsymmetric), amd); });
    const std::string mirrored = "A(" + std::to_string(changed_col) + ", " + std::to_string(changed_row) + ")";
    EXPECT_TRUE(reordered.find("not symmetric: " + pair + " = ") != std::string::npos ||
                reordered.find("not symmetric: " + mirrored + " = ") != std::string::npos)
        << reordered;
  }
  HostCsr negative = gen::poisson2d(5);
  for (int64_t k = negative.row_map[6]; k < negative.row_map[7]; ++k)
    if (negative.entries[k] == 6) negative.values[k] = -4;
  const std::string bad_diagonal = thrown_message([&] { make_incomplete_cholesky(to_crs<Crs>(negative)); });
  EXPECT_NE(bad_diagonal.find("row 6 has diagonal entry -4"), std::string::npos) << bad_diagonal;
  const Crs poisson = to_crs<Crs>(gen::poisson2d(5));
  for (double drop : {-1.0, std::numeric_limits<double>::quiet_NaN()}) {
    IncompleteCholeskyOptions io;
    io.drop_tolerance = drop;
    EXPECT_THROW(make_incomplete_cholesky(poisson, io), InvalidArgument) << drop;
  }
  IncompleteCholeskyOptions io;
  io.initial_shift = 0;
  EXPECT_THROW(make_incomplete_cholesky(poisson, io), InvalidArgument);
  io = {};
  io.max_attempts = 0;
  EXPECT_THROW(make_incomplete_cholesky(poisson, io), InvalidArgument);
  const auto ic = make_incomplete_cholesky(poisson);
  EXPECT_THROW(ic->apply(MV("X", 24, 1), MV("Y", 25, 1)), InvalidArgument);
  EXPECT_THROW(ic->apply(MV("X", 25, 2), MV("Y", 25, 1)), InvalidArgument);
  const auto empty = make_incomplete_cholesky(to_crs<Crs>(HostCsr::from_triplets(0, 0, {})));
  EXPECT_EQ(empty->num_rows(), 0);
  empty->apply(MV("X", 0, 2), MV("Y", 0, 2));
}

// The generic Chebyshev over any operator (here an SpMV plan) with the diagonal as a View equals
// the CRS convenience overload.
TEST(Preconditioners, ChebyshevOverAnyOperator) {
  using Crs = CrsOf<double>;
  const HostCsr A = gen::poisson2d(20);
  const Crs a = to_crs<Crs>(A);
  Kokkos::View<double*, Device> diagonal("diagonal", A.num_rows);
  Kokkos::deep_copy(diagonal, 4.0);  // the 5-point Laplacian's diagonal
  const auto generic = make_chebyshev(make_operator(SpmvPlan<Crs>(a)), diagonal);
  const auto convenience = make_chebyshev(a);
  const HostDense X = test::random_dense(A.num_rows, 2, 110);
  EXPECT_LE(max_abs_difference(apply(*generic, X), apply(*convenience, X)), 1e-13 * max_abs(X));
}

}  // namespace
