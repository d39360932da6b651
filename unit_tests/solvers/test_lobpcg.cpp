// LOBPCG (src/Sprocket_Lobpcg.hpp): eigenvalues against dense LAPACK (dsyev / dsygv) on random
// symmetric matrices and pencils, against SciPy's eigsh (unit_tests/solvers/lobpcg_reference.py,
// run with /usr/bin/python3) on the shared SPD matrices, eigenvectors checked on the host in double
// (residuals, M-orthonormality), plus the repairs (dependent initial blocks, dropped P), the
// honest non-convergence reports and the argument checks.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/blocks/lapack.hpp"
#include "impl/solvers/lobpcg_dense.hpp"
#include "solvers/lobpcg_reference.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using Sprocket::HostCsr;
using Sprocket::HostDense;
using Sprocket::LobpcgOptions;
using Sprocket::LobpcgResult;
using Sprocket::SolverStatus;
using Sprocket::Which;
using DefaultDevice = Kokkos::DefaultExecutionSpace::device_type;
template <class Scalar, class Device = DefaultDevice>
using CrsOf = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
template <class Scalar, class Device = DefaultDevice>
using MVOf = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
template <class Scalar, class Device = DefaultDevice>
using OperatorOf = Sprocket::MultiVectorOperator<Scalar, Device>;

// ---------------------------------------------------------------------------------------------
// Dense references

HostDense dense_of(const HostCsr& A) {
  HostDense D(A.num_rows, A.num_cols);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) D(i, A.entries[k]) += A.values[k];
  return D;
}

/// All eigenvalues (ascending) of symmetric A (dsyev), or of the pencil (A, M) (dsygv).
std::vector<double> dense_eigenvalues(const HostCsr& A, const HostCsr* M = nullptr) {
  HostDense a = dense_of(A);
  const int n = static_cast<int>(A.num_rows);
  std::vector<double> w(n);
  const char jobz = 'N', uplo = 'U';
  int info = 0, lwork = 8 * n;
  std::vector<double> work(lwork);
  if (M) {
    HostDense b = dense_of(*M);
    const int itype = 1;
    dsygv_(&itype, &jobz, &uplo, &n, a.data.data(), &n, b.data.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  } else {
    dsyev_(&jobz, &uplo, &n, a.data.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  }
  EXPECT_EQ(info, 0) << "LAPACK reference failed";
  return w;
}

/// Eigenvectors of symmetric A (dsyev), columns in ascending eigenvalue order.
HostDense dense_eigenvectors(const HostCsr& A) {
  HostDense a = dense_of(A);
  const int n = static_cast<int>(A.num_rows);
  std::vector<double> w(n);
  const char jobz = 'V', uplo = 'U';
  int info = 0, lwork = 8 * n;
  std::vector<double> work(lwork);
  dsyev_(&jobz, &uplo, &n, a.data.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  return a;
}

/// The k wanted values of an ascending spectrum, most wanted first (the solver's order).
std::vector<double> wanted_end(const std::vector<double>& ascending, int k, Which which) {
  std::vector<double> out(k);
  const int n = static_cast<int>(ascending.size());
  for (int j = 0; j < k; ++j) out[j] = which == Which::smallest ? ascending[j] : ascending[n - 1 - j];
  return out;
}

double largest_magnitude(const std::vector<double>& values) {
  double m = 0;
  for (double v : values) m = std::max(m, std::fabs(v));
  return m;
}

// ---------------------------------------------------------------------------------------------
// Random test problems

/// Dense random symmetric matrix (entries in [-1, 1]) plus shift * I: a Wigner matrix, whose
/// extreme eigenvalues are separated by gaps of order n^(-2/3) of the spectral radius.
HostCsr random_symmetric(int64_t n, double shift, uint64_t salt) {
  const HostDense R = Sprocket::test::random_dense(n, n, salt);
  std::vector<double> rows(n * n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) rows[i * n + j] = R(std::min(i, j), std::max(i, j)) + (i == j ? shift : 0.0);
  return Sprocket::test::csr_from_dense(n, n, rows);
}

/// Symmetric positive definite "mass" matrix: diagonal with entries in [0.5, 2], or sparse
/// (a random symmetric pattern, entries in [-1, 1]) made strictly diagonally dominant.
HostCsr random_mass(int64_t n, bool diagonal, uint64_t salt) {
  const std::vector<double> d = Sprocket::test::random_vector(n, salt);
  std::vector<Sprocket::Triplet> t;
  if (diagonal) {
    for (int64_t i = 0; i < n; ++i) t.push_back({i, i, 1.25 + 0.75 * d[i]});
    return HostCsr::from_triplets(n, n, std::move(t));
  }
  const HostCsr R = Sprocket::test::random_csr(n, n, 3.0, salt + 1);
  std::vector<double> row_sum(n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) {
      const int64_t j = R.entries[k];
      if (j == i) continue;
      t.push_back({i, j, 0.5 * R.values[k]});
      t.push_back({j, i, 0.5 * R.values[k]});
      row_sum[i] += 0.5 * std::fabs(R.values[k]);
      row_sum[j] += 0.5 * std::fabs(R.values[k]);
    }
  for (int64_t i = 0; i < n; ++i) t.push_back({i, i, row_sum[i] + 1.0 + 0.5 * (d[i] + 1.0)});
  return HostCsr::from_triplets(n, n, std::move(t));
}

// ---------------------------------------------------------------------------------------------
// Running the solver and checking what it returns

template <class Scalar>
struct Run {
  LobpcgResult result;
  HostDense X;  // eigenvectors as returned (n x nev)
  int callbacks = 0;
  int last_callback_converged = -1;
  double last_callback_worst = -1;
};

/// Solves on the device: A (and M) through SpmvPlan operators, with the given preconditioner
/// (solve_with) or Jacobi from make_jacobi when asked (solve). X0: the initial guess (nullptr: an all-zero X, i.e. a random start); the returned
/// eigenvectors are read back from the same View.
template <class Scalar = double, class Device = DefaultDevice>
Run<Scalar> solve_with(const HostCsr& A, const HostCsr* M, std::shared_ptr<OperatorOf<Scalar, Device>> precond,
                       LobpcgOptions options, const HostDense* X0 = nullptr) {
  using Crs = CrsOf<Scalar, Device>;
  const Crs a = Sprocket::to_crs<Crs>(A);
  const auto op_a = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(a));
  std::shared_ptr<OperatorOf<Scalar, Device>> op_m;
  if (M) op_m = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(Sprocket::to_crs<Crs>(*M)));
  MVOf<Scalar, Device> X("X", A.num_rows, options.nev);
  if (X0) X = Sprocket::test::to_view<MVOf<Scalar, Device>>(*X0);
  Run<Scalar> run;
  options.on_iteration = [&run](const Sprocket::SolverIterationInfo& info) {
    ++run.callbacks;
    EXPECT_EQ(info.iteration, run.callbacks);
    EXPECT_GE(info.elapsed_seconds, 0.0);
    run.last_callback_converged = info.converged;
    run.last_callback_worst = info.worst_residual;
  };
  // On an execution-space instance of the Device: the solver queues and fences only that one.
  run.result = Sprocket::lobpcg(typename Device::execution_space(), *op_a, X, options, precond.get(), op_m.get());
  run.X = Sprocket::test::to_host_dense(X);
  return run;
}

template <class Scalar = double, class Device = DefaultDevice>
Run<Scalar> solve(const HostCsr& A, const HostCsr* M, bool jacobi, LobpcgOptions options,
                  const HostDense* X0 = nullptr) {
  std::shared_ptr<OperatorOf<Scalar, Device>> precond;
  if (jacobi) precond = Sprocket::make_jacobi(Sprocket::to_crs<CrsOf<Scalar, Device>>(A));
  return solve_with<Scalar, Device>(A, M, precond, options, X0);
}

/// The tests on random matrices run on every enabled execution space (TypeParam), the solve on
/// a Kokkos::Device of that space; the SciPy comparisons on the shared matrices run on the
/// default space.
template <class Space>
class Lobpcg : public ::testing::Test {
 protected:
  using device = Sprocket::test::DeviceOf<Space>;
  template <class Scalar = double>
  // auto: inside a ::testing::Test, Run names its member function.
  static auto solve(const HostCsr& A, const HostCsr* M, bool jacobi, LobpcgOptions options,
                    const HostDense* X0 = nullptr) {
    return ::solve<Scalar, device>(A, M, jacobi, options, X0);
  }
};
TYPED_TEST_SUITE(Lobpcg, Sprocket::test::SpaceTypes);

/// ||A x_j - lambda_j M x_j|| / (max(|lambda_j|, sqrt(eps) * norm) ||x_j||) on the host in double.
std::vector<double> host_residuals(const HostCsr& A, const HostCsr* M, const HostDense& X,
                                   const std::vector<double>& lambda, double norm, double eps) {
  std::vector<double> out;
  for (int64_t j = 0; j < X.num_cols; ++j) {
    std::vector<double> x(X.data.begin() + j * X.num_rows, X.data.begin() + (j + 1) * X.num_rows);
    std::vector<double> ax(X.num_rows, 0.0), mx = x;
    Sprocket::reference::spmv("N", 1.0, A, x, 0.0, ax);
    if (M) Sprocket::reference::spmv("N", 1.0, *M, x, 0.0, mx);
    double rr = 0, xx = 0;
    for (int64_t i = 0; i < X.num_rows; ++i) {
      rr += (ax[i] - lambda[j] * mx[i]) * (ax[i] - lambda[j] * mx[i]);
      xx += x[i] * x[i];
    }
    out.push_back(std::sqrt(rr) / (std::max(std::fabs(lambda[j]), std::sqrt(eps) * norm) * std::sqrt(xx)));
  }
  return out;
}

/// max |X^T M X - I|.
double orthonormality_error(const HostCsr* M, const HostDense& X) {
  double worst = 0;
  for (int64_t j = 0; j < X.num_cols; ++j) {
    std::vector<double> x(X.data.begin() + j * X.num_rows, X.data.begin() + (j + 1) * X.num_rows), mx = x;
    if (M) Sprocket::reference::spmv("N", 1.0, *M, x, 0.0, mx);
    for (int64_t i = 0; i < X.num_cols; ++i) {
      double d = 0;
      for (int64_t r = 0; r < X.num_rows; ++r) d += X(r, i) * mx[r];
      worst = Sprocket::test::max_keeping_nan(worst, std::fabs(d - (i == j ? 1.0 : 0.0)));
    }
  }
  return worst;
}

/// Everything a converged run promises: status, nev eigenvalues within rel_error of the
/// reference (relative, most wanted first), reported and recomputed residuals within tol, an
/// M-orthonormal X, a history and callbacks for every iteration, sane timings.
template <class Scalar>
void expect_converged(const Run<Scalar>& run, const HostCsr& A, const HostCsr* M, const std::vector<double>& expected,
                      double norm, double tol, double rel_error, const std::string& what) {
  SCOPED_TRACE(what);
  const LobpcgResult& r = run.result;
  const int k = static_cast<int>(expected.size());
  ASSERT_EQ(r.status, SolverStatus::converged) << r.message;
  EXPECT_NE(r.message.find("converged"), std::string::npos) << r.message;
  ASSERT_EQ(static_cast<int>(r.eigenvalues.size()), k);
  ASSERT_EQ(static_cast<int>(r.residuals.size()), k);
  for (int j = 0; j < k; ++j) {
    EXPECT_LE(std::fabs(r.eigenvalues[j] - expected[j]), rel_error * std::fabs(expected[j]))
        << "pair " << j << ": " << r.eigenvalues[j] << " vs reference " << expected[j];
    EXPECT_LE(r.residuals[j], tol) << "pair " << j;
  }
  // The vectors are checked independently of the solver's own arithmetic: host, double. The
  // device SpMV rounds in Scalar, hence the factor.
  const double eps = std::numeric_limits<Scalar>::epsilon();
  const std::vector<double> res = host_residuals(A, M, run.X, r.eigenvalues, norm, eps);
  for (int j = 0; j < k; ++j) EXPECT_LE(res[j], 2 * tol) << "recomputed residual of pair " << j;
  const double orthonormality_bound = std::is_same_v<Scalar, float> ? 1e-4 : 1e-10;
  EXPECT_LE(orthonormality_error(M, run.X), orthonormality_bound);
  EXPECT_EQ(static_cast<int>(r.history.size()), r.iterations);
  for (const auto& h : r.history) EXPECT_EQ(static_cast<int>(h.size()), k);
  EXPECT_EQ(run.callbacks, r.iterations);
  if (r.iterations > 0) {
    EXPECT_EQ(run.last_callback_converged, k);
    // The worst over every pair, converged ones too: positive and within the tolerance at the end.
    EXPECT_GT(run.last_callback_worst, 0.0);
    EXPECT_LE(run.last_callback_worst, tol);
    EXPECT_GT(r.timings.operator_apply, 0.0);
  }
  EXPECT_GT(r.timings.total, 0.0);
  EXPECT_LE(r.timings.setup + r.timings.operator_apply + r.timings.preconditioner + r.timings.orthogonalization,
            r.timings.total * 1.01 + 1e-3);
}

const char* name_of(Which w) { return w == Which::smallest ? "smallest" : "largest"; }

// ---------------------------------------------------------------------------------------------
// SciPy reference (eigsh), computed once per process for every shared matrix used here.

const std::vector<std::string>& shared_matrices() {
  static const std::vector<std::string> names{"bcsstk13", "bcsstk15", "bcsstk16", "crystm01", "msc04515", "1138_bus"};
  return names;
}

std::string matrix_path(const std::string& name) {
  return std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz";
}

using ScipyReference = Sprocket::test::EigshReference;

/// eigsh's 10 smallest and largest of every shared matrix here, computed once per process.
const ScipyReference& scipy_reference() {
  static const ScipyReference reference = Sprocket::test::eigsh_reference(shared_matrices(), 10);
  return reference;
}

/// A shared matrix read once per process.
const HostCsr& shared_matrix(const std::string& name) {
  static std::map<std::string, HostCsr> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, Sprocket::read_matrix_market(matrix_path(name))).first;
  return it->second;
}

// =============================================================================================
// Dense LAPACK references on random matrices

struct DenseCase {
  bool definite;  // SPD (shifted) or indefinite
  Which which;
  int nev;
  bool jacobi;
};

void PrintTo(const DenseCase& c, std::ostream* os) {
  *os << (c.definite ? "SPD " : "indefinite ") << name_of(c.which) << " nev " << c.nev << (c.jacobi ? " jacobi" : "");
}

class LobpcgVsDsyev : public ::testing::TestWithParam<DenseCase> {};

TEST_P(LobpcgVsDsyev, RandomSymmetric) {
  const DenseCase c = GetParam();
  const int64_t n = 120;
  const uint64_t salt = 100 + c.nev * 8 + (c.definite ? 4 : 0) + (c.which == Which::largest ? 2 : 0) + c.jacobi;
  // Spectral radius of the Wigner part is about 2 sqrt(n / 3) = 12.6: a shift of 14 makes it SPD.
  const HostCsr A = random_symmetric(n, c.definite ? 14.0 : 0.0, salt);
  const std::vector<double> all = dense_eigenvalues(A);
  if (c.definite) ASSERT_GT(all.front(), 0.0);
  LobpcgOptions options;
  options.nev = c.nev;
  options.which = c.which;
  options.tol = 1e-9;
  options.seed = static_cast<unsigned>(Sprocket::test::seed_for(salt));
  const auto run = solve(A, nullptr, c.jacobi, options);
  expect_converged(run, A, nullptr, wanted_end(all, c.nev, c.which), largest_magnitude(all), options.tol, 1e-10,
                   std::string(c.definite ? "SPD " : "indefinite ") + name_of(c.which) + " nev " +
                       std::to_string(c.nev) + (c.jacobi ? " jacobi" : ""));
}

std::vector<DenseCase> dense_cases() {
  std::vector<DenseCase> cases;
  for (bool definite : {true, false})
    for (Which which : {Which::smallest, Which::largest})
      for (int nev : {1, 5, 10})
        for (bool jacobi : {false, true})
          if (definite || !jacobi)  // Jacobi needs a positive diagonal
            cases.push_back({definite, which, nev, jacobi});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Random, LobpcgVsDsyev, ::testing::ValuesIn(dense_cases()),
                         [](const ::testing::TestParamInfo<DenseCase>& info) {
                           const DenseCase& c = info.param;
                           return std::string(c.definite ? "Spd" : "Indefinite") +
                                  (c.which == Which::smallest ? "Smallest" : "Largest") + std::to_string(c.nev) +
                                  (c.jacobi ? "Jacobi" : "");
                         });

// Generalized A x = lambda M x with M diagonal or sparse SPD, against dsygv.
TYPED_TEST(Lobpcg, GeneralizedMatchesDsygv) {
  const int64_t n = 150;
  int salt = 300;
  for (bool diagonal : {true, false})
    for (Which which : {Which::smallest, Which::largest})
      for (int nev : {1, 5, 10}) {
        ++salt;
        const HostCsr A = random_symmetric(n, which == Which::smallest ? 16.0 : 0.0, salt);
        const HostCsr M = random_mass(n, diagonal, salt + 50);
        const std::vector<double> all = dense_eigenvalues(A, &M);
        LobpcgOptions options;
        options.nev = nev;
        options.which = which;
        options.tol = 1e-9;
        options.seed = static_cast<unsigned>(Sprocket::test::seed_for(salt));
        const bool jacobi = which == Which::smallest && nev == 5;  // a preconditioned generalized case
        const auto run = this->solve(A, &M, jacobi, options);
        expect_converged(run, A, &M, wanted_end(all, nev, which), largest_magnitude(all), options.tol, 1e-10,
                         std::string(diagonal ? "diagonal M " : "sparse M ") + name_of(which) + " nev " +
                             std::to_string(nev));
      }
}

// float vectors and operator: the same algorithm with float's tolerances.
TYPED_TEST(Lobpcg, FloatMatchesDsyev) {
  const HostCsr A = random_symmetric(100, 14.0, 400);
  const std::vector<double> all = dense_eigenvalues(A);
  for (Which which : {Which::smallest, Which::largest}) {
    LobpcgOptions options;
    options.nev = 4;
    options.which = which;
    options.tol = 1e-4;
    const auto run = this->template solve<float>(A, nullptr, true, options);
    expect_converged(run, A, nullptr, wanted_end(all, 4, which), largest_magnitude(all), options.tol, 1e-5,
                     std::string("float ") + name_of(which));
  }
}

// =============================================================================================
// SciPy eigsh on the shared SPD matrices

/// The preconditioner of a case: none, Jacobi, or the one suited to the wanted end, incomplete
/// Cholesky of A ~ A^{-1} for the smallest and of sigma I - A ~ (sigma I - A)^{-1} for the largest
/// (sigma just above lambda_max from the power method: the shift-and-invert of the top, made
/// cheap and approximate; A^{-1}-like preconditioners point at the wrong end there).
enum class Prec { none, jacobi, suited };

const char* name_of(Prec p) { return p == Prec::none ? "none" : p == Prec::jacobi ? "jacobi" : "suited"; }

/// sigma I - A.
HostCsr shifted_negative(const HostCsr& A, double sigma) {
  std::vector<Sprocket::Triplet> t;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    t.push_back({i, i, sigma});
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) t.push_back({i, A.entries[k], -A.values[k]});
  }
  return HostCsr::from_triplets(A.num_rows, A.num_cols, t);
}

std::shared_ptr<OperatorOf<double>> preconditioner_for(const HostCsr& A, Which which, Prec prec) {
  using Crs = CrsOf<double>;
  if (prec == Prec::none) return nullptr;
  if (prec == Prec::jacobi) return Sprocket::make_jacobi(Sprocket::to_crs<Crs>(A));
  Sprocket::IncompleteCholeskyOptions options;
  options.drop_tolerance = 1e-4;
  if (which == Which::smallest) return Sprocket::make_incomplete_cholesky(Sprocket::to_crs<Crs>(A), options);
  const double sigma = 1.05 * Sprocket::reference::norm2_estimate(A, 30);
  return Sprocket::make_incomplete_cholesky(Sprocket::to_crs<Crs>(shifted_negative(A, sigma)), options);
}

/// A run that did not converge must say so with numbers that back the claim: max_iterations
/// after exactly the budget, the true residuals (recomputed on the host), at least one above
/// tol, and Ritz values on the right side of the true eigenvalues (Cauchy interlacing: the j-th
/// smallest Ritz value is never below the j-th smallest eigenvalue, the j-th largest never above
/// the j-th largest).
void expect_honest_report(const Run<double>& run, const HostCsr& A, const std::vector<double>& expected,
                          Which which, double norm, const LobpcgOptions& options, const std::string& what) {
  SCOPED_TRACE(what);
  const LobpcgResult& r = run.result;
  const int k = static_cast<int>(expected.size());
  EXPECT_EQ(r.status, SolverStatus::max_iterations) << r.message;
  EXPECT_EQ(r.iterations, options.max_iterations);
  EXPECT_NE(r.message.find("not converged"), std::string::npos) << r.message;
  ASSERT_EQ(static_cast<int>(r.eigenvalues.size()), k);
  ASSERT_EQ(static_cast<int>(r.residuals.size()), k);
  const std::vector<double> res = host_residuals(A, nullptr, run.X, r.eigenvalues, norm, 1e-16);
  bool some_unconverged = false;
  for (int j = 0; j < k; ++j) {
    ASSERT_TRUE(std::isfinite(r.eigenvalues[j]) && std::isfinite(r.residuals[j])) << "pair " << j;
    some_unconverged = some_unconverged || r.residuals[j] > options.tol;
    const double slack = 1e-12 * std::fabs(expected[j]);
    if (which == Which::smallest) EXPECT_GE(r.eigenvalues[j], expected[j] - slack) << "pair " << j;
    else EXPECT_LE(r.eigenvalues[j], expected[j] + slack) << "pair " << j;
  }
  // Recomputed with the floor 1e-8 ||A||_2, below the solver's sqrt(eps) ||A||_est unless its
  // estimate is far too small: a pair the solver calls unconverged is unconverged here too.
  for (int j = 0; j < k; ++j)
    if (r.residuals[j] > options.tol) EXPECT_GT(res[j], 0.5 * options.tol) << "pair " << j;
  EXPECT_TRUE(some_unconverged);
}

struct ScipyCase {
  const char* matrix;
  Which which;
  int nev;
  Prec prec;
  int max_iterations;
  /// The case is known to converge in max_iterations: anything else fails. Otherwise either
  /// outcome passes as long as it is the truth (expect_converged or expect_honest_report).
  bool must_converge;
  int block_size = 0;  ///< LobpcgOptions::block_size (0: the default guard vectors)
};

void PrintTo(const ScipyCase& c, std::ostream* os) {
  *os << c.matrix << " " << name_of(c.which) << " nev " << c.nev << " prec " << name_of(c.prec);
}

class LobpcgVsEigsh : public ::testing::TestWithParam<ScipyCase> {};

TEST_P(LobpcgVsEigsh, SharedMatrix) {
  const ScipyCase c = GetParam();
  const ScipyReference& ref = scipy_reference();
  ASSERT_TRUE(ref.error.empty()) << ref.error;
  const HostCsr& A = shared_matrix(c.matrix);
  const std::vector<double>& end = ref.values.at(c.matrix).at(name_of(c.which));
  const std::vector<double> expected(end.begin(), end.begin() + c.nev);
  const double norm = ref.values.at(c.matrix).at("largest").front();
  LobpcgOptions options;
  options.nev = c.nev;
  options.which = c.which;
  options.tol = 1e-8;
  options.max_iterations = c.max_iterations;
  options.block_size = c.block_size;
  options.seed = static_cast<unsigned>(Sprocket::test::seed_for(500 + c.nev));
  const auto run = solve_with<double>(A, nullptr, preconditioner_for(A, c.which, c.prec), options);
  std::printf("[lobpcg] %-9s %-8s nev %2d %-6s: %s, %d iterations, %.2f s\n", c.matrix, name_of(c.which), c.nev,
              name_of(c.prec), Sprocket::to_string(run.result.status), run.result.iterations,
              run.result.timings.total);
  const std::string what = std::string(c.matrix) + " " + name_of(c.which) + " nev " + std::to_string(c.nev) +
                           " prec " + name_of(c.prec);
  // Eigenvalues to 1e-8 relative (in fact far better: their error is of the order of the
  // squared residual).
  if (c.must_converge || run.result.status == SolverStatus::converged)
    expect_converged(run, A, nullptr, expected, norm, options.tol, 1e-8, what);
  else
    expect_honest_report(run, A, expected, c.which, norm, options, what);
}

/// The matrix: every shared SPD matrix, both ends, nev 1, 5 and 10, with no
/// preconditioner and with the one suited to the end. Must converge: every preconditioned case
/// and the unpreconditioned largest (except bcsstk15 nev 5, whose 7th and 8th largest eigenvalues
/// lie within 2e-5 relative of each other at the edge of the block: more than 1000 iterations).
/// The unpreconditioned smallest of ill-conditioned matrices (bcsstk13 1e10, msc04515 2e6,
/// bcsstk15, 1138_bus) need tens of thousands of iterations (convergence goes with the square
/// root of the relative gap, ~1e-8 there): those get a budget of 300 and must tell the truth.
std::vector<ScipyCase> eigsh_cases() {
  std::vector<ScipyCase> cases;
  for (const char* m : {"bcsstk13", "bcsstk15", "bcsstk16", "crystm01", "msc04515", "1138_bus"})
    for (Which which : {Which::smallest, Which::largest})
      for (int nev : {1, 5, 10})
        for (Prec prec : {Prec::none, Prec::suited}) {
          const bool hard = which == Which::smallest && prec == Prec::none;
          const bool cluster = std::string(m) == "bcsstk15" && which == Which::largest && nev == 5 && prec == Prec::none;
          // crystm01's smallest eigenvalues come in two 6-fold clusters 5e-5 apart (then a gap of
          // 10%): the default block of 7 for nev 5 cuts the second cluster, leaving the wanted
          // pairs a relative gap of 5e-5 (hundreds to thousands of iterations depending on the
          // start); a block covering both clusters converges in tens. nev 1 with the default
          // block sits inside the first cluster: usually tens of iterations, but one start
          // in CI (SPROCKET_TEST_SEED=8799762275750794276, preconditioned) stalled at a residual
          // of 4e-8 for 600; with a block covering the first cluster and its gap (7) that start
          // and eight others converged in 34-83.
          const bool crystm01_smallest = std::string(m) == "crystm01" && which == Which::smallest;
          // bcsstk15's largest, nev 5: the default block of 7 ends between the 7th and 8th largest
          // eigenvalues, 2e-5 relative apart; preconditioned, most starts converge in 310-350
          // iterations, but one in a make test (SPROCKET_TEST_SEED=2269073230590063486) stalled at a
          // residual of 1.8e-8 for 600. A block of 10 takes the pair in.
          const bool bcsstk15_largest5 = std::string(m) == "bcsstk15" && which == Which::largest && nev == 5;
          const int block = crystm01_smallest && nev == 5 ? 12
                            : crystm01_smallest && nev == 1 ? 7
                            : bcsstk15_largest5 ? 10 : 0;
          cases.push_back({m, which, nev, prec, hard || cluster ? 300 : 600, !hard && !cluster, block});
        }
  // Jacobi where it works: matrices whose diagonal varies little (crystm01) and bcsstk16's
  // 74-fold smallest eigenvalue 1.0.
  cases.push_back({"crystm01", Which::smallest, 10, Prec::jacobi, 300, true});
  cases.push_back({"crystm01", Which::largest, 1, Prec::jacobi, 500, true});
  cases.push_back({"bcsstk16", Which::smallest, 10, Prec::jacobi, 300, true});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shared, LobpcgVsEigsh, ::testing::ValuesIn(eigsh_cases()),
                         [](const ::testing::TestParamInfo<ScipyCase>& info) {
                           const ScipyCase& c = info.param;
                           std::string name = std::string(c.matrix) + (c.which == Which::smallest ? "Smallest" : "Largest") +
                                              std::to_string(c.nev) +
                                              (c.prec == Prec::none ? "" : c.prec == Prec::jacobi ? "Jacobi" : "Preconditioned");
                           std::replace(name.begin(), name.end(), '_', 'x');
                           return name;
                         });

// SciPy's lobpcg returns wrong or unconverged values for the smallest of msc04515 with Jacobi
// (condition 2.3e6, relative gap 1.5e-7 at the bottom, which Jacobi does not improve). Ours must
// either converge to the right pairs or say that it did not, with numbers that back the claim.
TEST(LobpcgShared, Msc04515SmallestJacobiConvergesOrReportsFailure) {
  const ScipyReference& ref = scipy_reference();
  ASSERT_TRUE(ref.error.empty()) << ref.error;
  const HostCsr& A = shared_matrix("msc04515");
  const std::vector<double>& smallest = ref.values.at("msc04515").at("smallest");
  const double norm = ref.values.at("msc04515").at("largest").front();
  LobpcgOptions options;
  options.nev = 5;
  options.tol = 1e-8;
  options.max_iterations = 300;
  const auto run = solve(A, nullptr, true, options);
  const LobpcgResult& r = run.result;
  std::printf("[lobpcg] msc04515 smallest nev 5 jacobi: %s\n", r.message.c_str());
  ASSERT_EQ(r.eigenvalues.size(), 5u);
  ASSERT_EQ(r.residuals.size(), 5u);
  if (r.status == SolverStatus::converged) {
    for (int j = 0; j < 5; ++j) EXPECT_LE(std::fabs(r.eigenvalues[j] - smallest[j]), 1e-8 * smallest[j]);
    return;
  }
  const std::vector<double> expected(smallest.begin(), smallest.begin() + 5);
  expect_honest_report(run, A, expected, Which::smallest, norm, options, "msc04515 smallest nev 5 jacobi");
  // Here |lambda| is far above the floor, so the reported residuals are the plain relative ones:
  // the same as recomputed on the host.
  const std::vector<double> res = host_residuals(A, nullptr, run.X, r.eigenvalues, norm, 1e-16);
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(res[j], r.residuals[j], 1e-6 * r.residuals[j] + 1e-12) << "pair " << j;
}

// The smallest of bcsstk13 without a preconditioner (condition 1.1e10) cannot converge in 100
// iterations: the report must say so, not claim convergence.
TEST(LobpcgShared, HopelessCaseReportsMaxIterations) {
  const HostCsr& A = shared_matrix("bcsstk13");
  LobpcgOptions options;
  options.nev = 1;
  options.max_iterations = 100;
  const auto run = solve(A, nullptr, false, options);
  EXPECT_EQ(run.result.status, SolverStatus::max_iterations) << run.result.message;
  ASSERT_EQ(run.result.residuals.size(), 1u);
  EXPECT_GT(run.result.residuals[0], options.tol);
  EXPECT_EQ(static_cast<int>(run.result.history.size()), 100);
}

// =============================================================================================
// Initial blocks

// Columns equal up to 1e-12 noise: the block is numerically of rank 1; the dependent columns are
// replaced by random ones and the solve converges as from a random start.
TEST(LobpcgShared, NearlyDependentInitialBlockConverges) {
  const ScipyReference& ref = scipy_reference();
  ASSERT_TRUE(ref.error.empty()) << ref.error;
  const HostCsr& A = shared_matrix("bcsstk16");
  const int64_t n = A.num_rows;
  const int nev = 5;
  const std::vector<double> v = Sprocket::test::random_vector(n, 600);
  const HostDense noise = Sprocket::test::random_dense(n, nev, 601);
  HostDense X0(n, nev);
  for (int j = 0; j < nev; ++j)
    for (int64_t i = 0; i < n; ++i) X0(i, j) = v[i] + 1e-12 * noise(i, j);
  LobpcgOptions options;
  options.nev = nev;
  options.max_iterations = 300;
  const auto run = solve(A, nullptr, true, options, &X0);
  const std::vector<double>& end = ref.values.at("bcsstk16").at("smallest");
  expect_converged(run, A, nullptr, std::vector<double>(end.begin(), end.begin() + nev),
                   ref.values.at("bcsstk16").at("largest").front(), options.tol, 1e-8, "nearly dependent block");
  EXPECT_NE(run.result.message.find("4 initial columns were zero or linearly dependent"), std::string::npos)
      << run.result.message;
}

// A singular operator: the smallest eigenvalue is 0 (ring graph Laplacian, eigenvector constant),
// where the relative residual falls back to sqrt(eps) ||A||; no division by zero, no NaN.
TYPED_TEST(Lobpcg, ZeroEigenvalueConverges) {
  const int64_t n = 60;
  std::vector<Sprocket::Triplet> t;
  for (int64_t i = 0; i < n; ++i) {
    t.push_back({i, i, 2.0});
    t.push_back({i, (i + 1) % n, -1.0});
    t.push_back({i, (i + n - 1) % n, -1.0});
  }
  const HostCsr A = HostCsr::from_triplets(n, n, std::move(t));
  const std::vector<double> all = dense_eigenvalues(A);
  LobpcgOptions options;
  options.nev = 3;
  options.tol = 1e-6;
  const auto run = this->solve(A, nullptr, false, options);
  ASSERT_EQ(run.result.status, SolverStatus::converged) << run.result.message;
  EXPECT_LE(std::fabs(run.result.eigenvalues[0]), 1e-12);
  for (int j = 1; j < 3; ++j) EXPECT_NEAR(run.result.eigenvalues[j], all[j], 1e-12);
  for (double r : run.result.residuals) EXPECT_TRUE(std::isfinite(r) && r <= options.tol) << r;
  const std::vector<double> res = host_residuals(A, nullptr, run.X, run.result.eigenvalues, 4.0, 2.2e-16);
  for (double r : res) EXPECT_LE(r, 2 * options.tol);
}

// Exact eigenvectors as the initial guess: converged before the first iteration.
TYPED_TEST(Lobpcg, ExactInitialGuessConvergesWithoutIterating) {
  const HostCsr A = random_symmetric(90, 14.0, 700);
  const HostDense V = dense_eigenvectors(A);
  const std::vector<double> all = dense_eigenvalues(A);
  const int nev = 3;
  HostDense X0(90, nev);
  for (int j = 0; j < nev; ++j)
    for (int64_t i = 0; i < 90; ++i) X0(i, j) = V(i, j);
  LobpcgOptions options;
  options.nev = nev;
  options.tol = 1e-10;
  const auto run = this->solve(A, nullptr, false, options, &X0);
  EXPECT_EQ(run.result.iterations, 0);
  expect_converged(run, A, nullptr, wanted_end(all, nev, Which::smallest), largest_magnitude(all), options.tol,
                   1e-12, "exact start");
}

// Zero columns in a given X are replaced (and reported); an X with no columns means "random
// start, no eigenvectors back"; the same seed gives the same answer.
TYPED_TEST(Lobpcg, RandomStartsAndZeroColumns) {
  using Device = typename TestFixture::device;
  const HostCsr A = random_symmetric(90, 14.0, 710);
  const std::vector<double> all = dense_eigenvalues(A);
  LobpcgOptions options;
  options.nev = 4;
  options.seed = 7;
  HostDense X0 = Sprocket::test::random_dense(90, 4, 711);
  for (int64_t i = 0; i < 90; ++i) X0(i, 2) = 0.0;
  const auto with_zero = this->solve(A, nullptr, false, options, &X0);
  expect_converged(with_zero, A, nullptr, wanted_end(all, 4, Which::smallest), largest_magnitude(all), options.tol,
                   1e-10, "zero column");
  EXPECT_NE(with_zero.result.message.find("1 initial columns"), std::string::npos) << with_zero.result.message;

  const auto first = this->solve(A, nullptr, false, options);
  const auto second = this->solve(A, nullptr, false, options);
  EXPECT_EQ(first.result.message.find("initial columns"), std::string::npos) << first.result.message;
  EXPECT_EQ(first.result.eigenvalues, second.result.eigenvalues);
  EXPECT_EQ(first.result.iterations, second.result.iterations);

  // No columns: random start, eigenvalues only.
  using Crs = CrsOf<double, Device>;
  const auto op = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(Sprocket::to_crs<Crs>(A)));
  MVOf<double, Device> none("none", 90, 0);
  const LobpcgResult r = Sprocket::lobpcg(*op, none, options);
  EXPECT_EQ(r.status, SolverStatus::converged) << r.message;
  ASSERT_EQ(r.eigenvalues.size(), 4u);
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(r.eigenvalues[j], all[j], 1e-10 * std::fabs(all[j]));
}

// max_iterations = 0: only the Rayleigh-Ritz step on the initial block, reported as such.
TYPED_TEST(Lobpcg, ZeroIterationsReportsInitialRitzValues) {
  const HostCsr A = random_symmetric(90, 14.0, 720);
  const std::vector<double> all = dense_eigenvalues(A);
  LobpcgOptions options;
  options.nev = 2;
  options.max_iterations = 0;
  const auto run = this->solve(A, nullptr, false, options);
  EXPECT_EQ(run.result.status, SolverStatus::max_iterations) << run.result.message;
  EXPECT_EQ(run.result.iterations, 0);
  EXPECT_TRUE(run.result.history.empty());
  ASSERT_EQ(run.result.eigenvalues.size(), 2u);
  ASSERT_EQ(run.result.residuals.size(), 2u);
  for (int j = 0; j < 2; ++j) {
    EXPECT_GE(run.result.eigenvalues[j], all[j] - 1e-12);  // Ritz values of a random block: above
    EXPECT_GT(run.result.residuals[j], options.tol);
  }
  EXPECT_LE(orthonormality_error(nullptr, run.X), 1e-10);
}

// =============================================================================================
// Breakdowns and repairs, through operators that misbehave on purpose

/// Wraps an operator; from apply number `from` on, writes `value` (0 or NaN) instead.
template <class Device>
class FaultyOperator final : public OperatorOf<double, Device> {
  using base = OperatorOf<double, Device>;

 public:
  FaultyOperator(std::shared_ptr<base> inner, int from, double value)
      : inner_(std::move(inner)), from_(from), value_(value) {}
  int64_t num_rows() const override { return inner_->num_rows(); }
  int64_t num_cols() const override { return inner_->num_cols(); }
  using base::apply;  // the execution-space overload
  void apply(const typename base::const_multivector& X, const typename base::multivector& Y) const override {
    if (applies_++ < from_)
      inner_->apply(X, Y);
    else
      Kokkos::deep_copy(Y, value_);
  }
  std::string describe() const override { return "faulty " + inner_->describe(); }

 private:
  std::shared_ptr<base> inner_;
  int from_;
  double value_;
  mutable int applies_ = 0;
};

template <class Device>
struct Operators {
  std::shared_ptr<OperatorOf<double, Device>> A, jacobi;
};

template <class Device>
Operators<Device> operators_of(const HostCsr& A) {
  using Crs = CrsOf<double, Device>;
  const Crs a = Sprocket::to_crs<Crs>(A);
  return {Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(a)), Sprocket::make_jacobi(a)};
}

// A preconditioner that goes to zero after a few iterations: W vanishes against [X P], P is
// dropped (counted), W still vanishes against X, X is rebuilt a few times, then breakdown.
TYPED_TEST(Lobpcg, VanishingPreconditionerDropsPThenBreaksDown) {
  using Device = typename TestFixture::device;
  const HostCsr A = random_symmetric(120, 14.0, 800);
  const Operators<Device> ops = operators_of<Device>(A);
  const FaultyOperator<Device> T(ops.jacobi, 3, 0.0);
  LobpcgOptions options;
  options.nev = 3;
  MVOf<double, Device> X("X", 120, 3);
  const LobpcgResult r = Sprocket::lobpcg(*ops.A, X, options, &T);
  EXPECT_EQ(r.status, SolverStatus::breakdown) << r.message;
  EXPECT_GE(r.restarts, 1) << r.message;
  EXPECT_NE(r.message.find("span of X"), std::string::npos) << r.message;
  EXPECT_LT(r.iterations, 10);
  ASSERT_EQ(r.eigenvalues.size(), 3u);
  for (double v : r.eigenvalues) EXPECT_TRUE(std::isfinite(v));
}

// NaN from A at the start, from A later, from the preconditioner, from M: breakdown, never
// NaN reported as converged.
TYPED_TEST(Lobpcg, NanFromOperatorsIsBreakdown) {
  using Device = typename TestFixture::device;
  const HostCsr A = random_symmetric(120, 14.0, 810);
  const HostCsr M = random_mass(120, true, 811);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  using Crs = CrsOf<double, Device>;
  LobpcgOptions options;
  options.nev = 2;
  for (int faulty = 0; faulty < 4; ++faulty) {
    SCOPED_TRACE("case " + std::to_string(faulty));
    const Operators<Device> ops = operators_of<Device>(A);
    const auto op_m = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(Sprocket::to_crs<Crs>(M)));
    const FaultyOperator<Device> bad_a_start(ops.A, 0, nan), bad_a_later(ops.A, 4, nan), bad_t(ops.jacobi, 2, nan),
        bad_m(op_m, 0, nan);
    MVOf<double, Device> X("X", 120, 2);
    LobpcgResult r;
    if (faulty == 0) r = Sprocket::lobpcg<double, Device>(bad_a_start, X, options);
    if (faulty == 1) r = Sprocket::lobpcg<double, Device>(bad_a_later, X, options);
    if (faulty == 2) r = Sprocket::lobpcg(*ops.A, X, options, &bad_t);
    if (faulty == 3) r = Sprocket::lobpcg(*ops.A, X, options, nullptr, &bad_m);
    EXPECT_EQ(r.status, SolverStatus::breakdown) << r.message;
    EXPECT_NE(r.message.find("NaN"), std::string::npos) << r.message;
  }
}

TYPED_TEST(Lobpcg, NanInInitialBlockIsInvalidInput) {
  const HostCsr A = random_symmetric(60, 14.0, 820);
  HostDense X0 = Sprocket::test::random_dense(60, 2, 821);
  X0(17, 1) = std::numeric_limits<double>::quiet_NaN();
  LobpcgOptions options;
  options.nev = 2;
  const auto run = this->solve(A, nullptr, false, options, &X0);
  EXPECT_EQ(run.result.status, SolverStatus::invalid_input) << run.result.message;
  EXPECT_EQ(run.result.iterations, 0);
}

// =============================================================================================
// Argument checks

TYPED_TEST(Lobpcg, RejectsBadArguments) {
  using Device = typename TestFixture::device;
  using Crs = CrsOf<double, Device>;
  const HostCsr A = random_symmetric(30, 14.0, 900);
  const Operators<Device> ops = operators_of<Device>(A);
  const auto op = ops.A;
  const auto expect_invalid = [&](LobpcgOptions options, int64_t rows, int64_t cols,
                                  const OperatorOf<double, Device>* T, const OperatorOf<double, Device>* M,
                                  const char* what) {
    MVOf<double, Device> X("X", rows, cols);
    EXPECT_THROW(Sprocket::lobpcg(*op, X, options, T, M), Sprocket::InvalidArgument) << what;
  };
  LobpcgOptions ok;
  ok.nev = 2;
  {
    MVOf<double, Device> X("X", 30, 2);
    EXPECT_NO_THROW(Sprocket::lobpcg(*op, X, ok));
  }
  LobpcgOptions o = ok;
  o.nev = 0;
  expect_invalid(o, 30, 0, nullptr, nullptr, "nev 0");
  o.nev = 11;  // 3 * 11 > 30
  expect_invalid(o, 30, 11, nullptr, nullptr, "nev > n / 3");
  o = ok;
  o.block_size = 1;
  expect_invalid(o, 30, 2, nullptr, nullptr, "block below nev");
  o.block_size = 11;
  expect_invalid(o, 30, 2, nullptr, nullptr, "block > n / 3");
  o = ok;
  o.tol = 0;
  expect_invalid(o, 30, 2, nullptr, nullptr, "tol 0");
  o.tol = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(o, 30, 2, nullptr, nullptr, "tol NaN");
  o = ok;
  o.max_iterations = -1;
  expect_invalid(o, 30, 2, nullptr, nullptr, "negative max_iterations");
  o = ok;
  o.single_thread_below = -1;
  expect_invalid(o, 30, 2, nullptr, nullptr, "negative single_thread_below");
  expect_invalid(ok, 30, 3, nullptr, nullptr, "X with nev + 1 columns");
  expect_invalid(ok, 29, 2, nullptr, nullptr, "X with n - 1 rows");

  const HostCsr other = random_symmetric(31, 14.0, 901);
  const Operators<Device> wrong = operators_of<Device>(other);
  expect_invalid(ok, 30, 2, wrong.jacobi.get(), nullptr, "preconditioner of another size");
  expect_invalid(ok, 30, 2, nullptr, wrong.A.get(), "M of another size");

  // Non-square A.
  const HostCsr rect = Sprocket::test::random_csr(30, 40, 4.0, 902);
  const auto op_rect = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(Sprocket::to_crs<Crs>(rect)));
  MVOf<double, Device> X("X", 30, 2);
  EXPECT_THROW(Sprocket::lobpcg(*op_rect, X, ok), Sprocket::InvalidArgument);
}

// Small problems run on the calling thread alone (single_thread_below): the same eigenpairs up
// to rounding as on all threads; 0 turns it off.
TEST(Lobpcg, SingleThreadBelowGivesTheSameEigenpairs) {
  const HostCsr A = random_symmetric(600, 14.0, 910);
  LobpcgOptions options;
  options.nev = 4;
  options.tol = 1e-9;
  options.single_thread_below = 0;
  const auto threads = solve(A, nullptr, true, options);
  options.single_thread_below = 600 * 8;  // block 4 + 2 guards = 6 columns
  const auto one = solve(A, nullptr, true, options);
  EXPECT_FALSE(threads.result.single_thread);
  bool several = false;
#ifdef KOKKOS_ENABLE_OPENMP
  several = std::is_same_v<DefaultDevice::execution_space, Kokkos::OpenMP> && Kokkos::OpenMP().concurrency() > 1;
#endif
  EXPECT_EQ(one.result.single_thread, several);
  ASSERT_EQ(threads.result.status, SolverStatus::converged) << threads.result.message;
  ASSERT_EQ(one.result.status, SolverStatus::converged) << one.result.message;
  ASSERT_EQ(one.result.eigenvalues.size(), threads.result.eigenvalues.size());
  for (size_t j = 0; j < one.result.eigenvalues.size(); ++j)
    EXPECT_NEAR(one.result.eigenvalues[j], threads.result.eigenvalues[j],
                1e-9 * std::fabs(threads.result.eigenvalues[j]));
  options.single_thread_below = 600 * 6;  // at the threshold: all threads
  EXPECT_FALSE(solve(A, nullptr, true, options).result.single_thread);
}

// =============================================================================================
// The small dense helpers behind the robustness

using Sprocket::Impl::blocks::DenseMatrix;

DenseMatrix gram_of(const DenseMatrix& V, const DenseMatrix* G = nullptr) {
  return Sprocket::Impl::blocks::multiply(V, G ? Sprocket::Impl::blocks::multiply(*G, V) : V, true);
}

// SVQB keeps the independent directions of a nearly dependent block and drops the rest, without
// dividing by noise; a second pass restores orthonormality to rounding.
TEST(LobpcgSmallDense, OrthonormalizingTransformDropsDependentColumns) {
  const int rows = 40, cols = 6;
  const HostDense R = Sprocket::test::random_dense(rows, cols, 950);
  DenseMatrix V(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) V(i, j) = j < 3 ? R(i, j) : R(i, 0) + 1e-13 * R(i, j);  // rank 3 numerically
  V(0, 5) *= 1e150;  // wildly different lengths must not matter
  for (int i = 1; i < rows; ++i) V(i, 5) *= 1e150;
  DenseMatrix T = Sprocket::Impl::lobpcg::orthonormalizing_transform(gram_of(V), 1e-14);
  EXPECT_EQ(T.cols, 3);
  DenseMatrix Q = Sprocket::Impl::blocks::multiply(V, T);
  const DenseMatrix T2 = Sprocket::Impl::lobpcg::orthonormalizing_transform(gram_of(Q), 1e-14);
  Q = Sprocket::Impl::blocks::multiply(Q, T2);
  EXPECT_EQ(Q.cols, 3);
  EXPECT_LE(Sprocket::Impl::blocks::distance_from_identity(gram_of(Q)), 1e-13);
  // Zero and NaN columns drop out.
  DenseMatrix Z(rows, 2);
  for (int i = 0; i < rows; ++i) Z(i, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Sprocket::Impl::lobpcg::orthonormalizing_transform(gram_of(Z), 1e-14).cols, 0);
}

// The next conjugate directions are GM-orthonormal and GM-orthogonal to the new X to rounding even
// when the active columns are nearly dependent (one SVQB round leaves errors of eps / theta_min).
TEST(LobpcgSmallDense, ConjugateDirectionsStayOrthonormal) {
  const int s = 12, m = 4;
  // GM: close to the identity, as in the solver.
  const HostDense E = Sprocket::test::random_dense(s, s, 960);
  DenseMatrix GM(s, s);
  for (int j = 0; j < s; ++j)
    for (int i = 0; i < s; ++i) GM(i, j) = (i == j) + 1e-9 * (E(i, j) + E(j, i));
  // Cx: GM-orthonormal columns whose non-X rows are tiny and nearly dependent (near convergence).
  const HostDense C = Sprocket::test::random_dense(s, m, 961);
  DenseMatrix Cx(s, m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < s; ++i) Cx(i, j) = i < m ? C(i, j) : 1e-7 * (C(i, 0) + 1e-6 * C(i, j));
  Cx = Sprocket::Impl::blocks::multiply(
      Cx, Sprocket::Impl::lobpcg::orthonormalizing_transform(gram_of(Cx, &GM), 1e-14));
  Cx = Sprocket::Impl::blocks::multiply(
      Cx, Sprocket::Impl::lobpcg::orthonormalizing_transform(gram_of(Cx, &GM), 1e-14));
  ASSERT_EQ(Cx.cols, m);
  const DenseMatrix Y = Sprocket::Impl::lobpcg::conjugate_direction_coefficients(GM, Cx, m, {0, 1, 2, 3}, 1e-14);
  ASSERT_GE(Y.cols, 1);
  EXPECT_LE(Sprocket::Impl::blocks::distance_from_identity(gram_of(Y, &GM)), 1e-12);
  const DenseMatrix cross = Sprocket::Impl::blocks::multiply(Y, Sprocket::Impl::blocks::multiply(GM, Cx), true);
  for (double v : cross.data) EXPECT_LE(std::fabs(v), 1e-12);
  // No active pairs, or Ritz vectors without W/P parts: no directions.
  EXPECT_EQ(Sprocket::Impl::lobpcg::conjugate_direction_coefficients(GM, Cx, m, {}, 1e-14).cols, 0);
}

}  // namespace
