// Belos drives Sprocket operators on Sprocket multivectors (src/Sprocket_Belos.hpp): the
// multivector traits against a serial reference, Belos' BlockGmresSolMgr and
// PseudoBlockGmresSolMgr on shared and generated systems, and Sprocket's own block GMRES on the
// same problem, block size and restart within 10% of Belos' iteration count.
#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosPseudoBlockGmresSolMgr.hpp>
#include <Teuchos_ParameterList.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "Sprocket_Belos.hpp"
#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using Device = Kokkos::DefaultHostExecutionSpace::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using MV = Sprocket::MultiVector<double, Device>;
using OP = Sprocket::MultiVectorOperator<double, Device>;
using MVT = Belos::MultiVecTraits<double, MV>;
using OPT = Belos::OperatorTraits<double, MV, OP>;

MV to_mv(const HostDense& d) {
  MV X(d.num_rows, static_cast<int>(d.num_cols));
  const auto h = Kokkos::create_mirror_view(X.view());
  for (int64_t j = 0; j < d.num_cols; ++j)
    for (int64_t i = 0; i < d.num_rows; ++i) h(i, j) = d(i, j);
  Kokkos::deep_copy(X.view(), h);
  return X;
}

HostDense to_dense(const MV& X) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X.read_view());
  HostDense d(X.num_rows(), X.num_vectors());
  for (int64_t j = 0; j < d.num_cols; ++j)
    for (int64_t i = 0; i < d.num_rows; ++i) d(i, j) = h(i, j);
  return d;
}

HostDense columns_of(const HostDense& d, const std::vector<int>& index) {
  HostDense s(d.num_rows, static_cast<int64_t>(index.size()));
  for (size_t j = 0; j < index.size(); ++j)
    for (int64_t i = 0; i < d.num_rows; ++i) s(i, j) = d(i, index[j]);
  return s;
}

::testing::AssertionResult near(const HostDense& a, const HostDense& b, double tol) {
  if (a.num_rows != b.num_rows || a.num_cols != b.num_cols)
    return ::testing::AssertionFailure() << a.num_rows << " x " << a.num_cols << " vs " << b.num_rows << " x " << b.num_cols;
  for (int64_t j = 0; j < a.num_cols; ++j)
    for (int64_t i = 0; i < a.num_rows; ++i)
      if (!(std::fabs(a(i, j) - b(i, j)) <= tol * (1 + std::fabs(b(i, j)))))
        return ::testing::AssertionFailure() << "(" << i << ", " << j << "): " << a(i, j) << " vs " << b(i, j);
  return ::testing::AssertionSuccess();
}

// Every trait against the same operation on host arrays, on a non-contiguous column subset
// (columns {3, 0, 2} of a 5-column block) and on a contiguous one, outputs poisoned.
TEST(BelosTraits, MatchSerialReferenceOnColumnSubsets) {
  const int64_t n = 777;
  const HostDense A0 = test::random_dense(n, 5, 1), B0 = test::random_dense(n, 5, 2);
  for (const std::vector<int>& index : {std::vector<int>{3, 0, 2}, std::vector<int>{1, 2, 3}}) {
    MV A = to_mv(A0), B = to_mv(B0);
    const auto As = MVT::CloneViewNonConst(A, index);
    const auto Bs = MVT::CloneView(B, index);
    EXPECT_EQ(MVT::HasConstantStride(*As), index[0] == 1);
    EXPECT_EQ(MVT::GetNumberVecs(*As), 3);
    EXPECT_EQ(MVT::GetGlobalLength(*As), n);
    const HostDense a = columns_of(A0, index), b = columns_of(B0, index);
    // MvTransMv: G = 2 A_s^T B_s into a view of a larger SerialDenseMatrix (stride != rows).
    Teuchos::SerialDenseMatrix<int, double> big(5, 4);
    big.putScalar(std::nan(""));
    Teuchos::SerialDenseMatrix<int, double> G(Teuchos::View, big, 3, 3, 1, 1);
    MVT::MvTransMv(2.0, *As, *Bs, G);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double ref = 0;
        for (int64_t r = 0; r < n; ++r) ref += a(r, i) * b(r, j);
        EXPECT_NEAR(G(i, j), 2 * ref, 1e-12 * n) << i << ", " << j;
      }
    EXPECT_TRUE(std::isnan(big(0, 0)) && std::isnan(big(4, 3))) << "MvTransMv wrote outside its view";
    // MvDot and MvNorm.
    std::vector<double> dots, norms2, norms1, normsinf;
    MVT::MvDot(*As, *Bs, dots);
    MVT::MvNorm(*As, norms2);
    MVT::MvNorm(*As, norms1, Belos::OneNorm);
    MVT::MvNorm(*As, normsinf, Belos::InfNorm);
    for (int j = 0; j < 3; ++j) {
      double d = 0, s2 = 0, s1 = 0, m = 0;
      for (int64_t r = 0; r < n; ++r) {
        d += a(r, j) * b(r, j);
        s2 += a(r, j) * a(r, j);
        s1 += std::fabs(a(r, j));
        m = std::max(m, std::fabs(a(r, j)));
      }
      EXPECT_NEAR(dots[j], d, 1e-12 * n);
      EXPECT_NEAR(norms2[j], std::sqrt(s2), 1e-12 * n);
      EXPECT_NEAR(norms1[j], s1, 1e-12 * n);
      EXPECT_EQ(normsinf[j], m);
    }
    // MvTimesMatAddMv: A_s = 0.5 B_s C - 3 A_s with C 3 x 3 (a view with stride 5).
    Teuchos::SerialDenseMatrix<int, double> Cbig(5, 3);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 3; ++j) Cbig(i, j) = 0.25 * (i + 1) - 0.5 * j;
    Teuchos::SerialDenseMatrix<int, double> C(Teuchos::View, Cbig, 3, 3, 1, 0);
    MVT::MvTimesMatAddMv(0.5, *Bs, C, -3.0, *As);
    HostDense expected(n, 3);
    for (int j = 0; j < 3; ++j)
      for (int64_t r = 0; r < n; ++r) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += b(r, k) * C(k, j);
        expected(r, j) = 0.5 * s - 3 * a(r, j);
      }
    EXPECT_TRUE(near(to_dense(*As), expected, 1e-13));
    // The view wrote into A's own columns, and only those.
    const HostDense whole = to_dense(A);
    for (int j = 0; j < 5; ++j) {
      const bool written = std::find(index.begin(), index.end(), j) != index.end();
      if (!written) EXPECT_TRUE(near(columns_of(whole, {j}), columns_of(A0, {j}), 0)) << "column " << j;
    }
    EXPECT_TRUE(near(columns_of(whole, index), expected, 1e-13));
    // MvAddMv in place, MvScale, SetBlock, Assign, MvInit, CloneCopy (a deep copy).
    const auto copy = MVT::CloneCopy(*As);
    MVT::MvAddMv(2.0, *As, -1.0, *Bs, *As);
    MVT::MvScale(*As, std::vector<double>{1.0, 0.0, -2.0});
    HostDense added(n, 3);
    const double f[3] = {1.0, 0.0, -2.0};
    for (int j = 0; j < 3; ++j)
      for (int64_t r = 0; r < n; ++r) added(r, j) = f[j] * (2 * expected(r, j) - b(r, j));
    EXPECT_TRUE(near(to_dense(*As), added, 1e-13));
    EXPECT_TRUE(near(to_dense(*copy), expected, 1e-13)) << "CloneCopy must not share memory";
    MV target = to_mv(test::random_dense(n, 4, 3));
    MVT::SetBlock(*copy, std::vector<int>{3, 1}, target);  // copy's first two columns
    const HostDense t = to_dense(target);
    EXPECT_TRUE(near(columns_of(t, {3, 1}), columns_of(expected, {0, 1}), 1e-13));
    MVT::MvInit(*MVT::CloneViewNonConst(target, std::vector<int>{0, 2}), 7.0);
    const HostDense t2 = to_dense(target);
    for (int64_t r = 0; r < n; ++r) ASSERT_TRUE(t2(r, 0) == 7.0 && t2(r, 2) == 7.0);
    EXPECT_THROW(MVT::CloneView(B, std::vector<int>{5}), InvalidArgument);
  }
}

TEST(BelosTraits, OperatorAppliesOnSubsetsAndRefusesTranspose) {
  const HostCsr A = test::random_csr(300, 300, 5, 10);
  const Crs crs = to_crs<Crs>(A);
  const auto op = make_operator(SpmvPlan<Crs>(crs));
  const HostDense X0 = test::random_dense(300, 4, 11);
  MV X = to_mv(X0), Y(300, 4);
  MVT::MvInit(Y, std::nan(""));
  const auto Ys = MVT::CloneViewNonConst(Y, std::vector<int>{2, 0});
  OPT::Apply(*op, *MVT::CloneView(X, std::vector<int>{1, 3}), *Ys);
  HostDense expected(300, 2);
  reference::spmm("N", 1.0, A, columns_of(X0, {1, 3}), 0.0, expected);
  EXPECT_TRUE(near(to_dense(*Ys), expected, 1e-13));
  EXPECT_FALSE(OPT::HasApplyTranspose(*op));
  EXPECT_THROW(OPT::Apply(*op, X, Y, Belos::TRANS), InvalidArgument);
}

// ---- solves --------------------------------------------------------------------------------------

/// Counts the vectors an operator is applied to (the work of a Krylov solver).
class CountingOperator final : public OP {
 public:
  explicit CountingOperator(std::shared_ptr<OP> op) : op_(std::move(op)) {}
  int64_t num_rows() const override { return op_->num_rows(); }
  int64_t num_cols() const override { return op_->num_cols(); }
  void apply(const const_multivector& X, const multivector& Y) const override {
    applied_ += static_cast<int64_t>(X.extent(1));
    op_->apply(X, Y);
  }
  std::string describe() const override { return op_->describe(); }
  int64_t applied() const { return applied_; }

 private:
  std::shared_ptr<OP> op_;
  mutable int64_t applied_ = 0;
};

struct Solve {
  int64_t vectors_applied = 0;  // columns A was applied to
  int iterations = 0;
  bool converged = false;
  std::vector<double> true_residuals;  // ||b - A x|| / ||b||, recomputed on the host
};

std::vector<double> true_residuals(const HostCsr& A, const HostDense& B, const HostDense& X) {
  HostDense R = B;
  reference::spmm("N", -1.0, A, X, 1.0, R);
  std::vector<double> r(B.num_cols);
  for (int64_t j = 0; j < B.num_cols; ++j) {
    double rn = 0, bn = 0;
    for (int64_t i = 0; i < B.num_rows; ++i) {
      rn += R(i, j) * R(i, j);
      bn += B(i, j) * B(i, j);
    }
    r[j] = bn == 0 ? std::sqrt(rn) : std::sqrt(rn / bn);
  }
  return r;
}

Solve belos_solve(const std::string& solver, const HostCsr& A, const HostDense& B, int block, int restart, double tol,
                  bool jacobi) {
  const Crs crs = to_crs<Crs>(A);
  auto X = Teuchos::rcp(new MV(B.num_rows, static_cast<int>(B.num_cols)));
  const auto counted = std::make_shared<CountingOperator>(make_operator(SpmvPlan<Crs>(crs)));
  auto problem = Teuchos::rcp(new Belos::LinearProblem<double, MV, OP>(as_rcp(std::shared_ptr<OP>(counted)), X,
                                                                        Teuchos::rcp(new MV(to_mv(B)))));
  if (jacobi) problem->setRightPrec(as_rcp(make_jacobi(crs)));
  EXPECT_TRUE(problem->setProblem());
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Block Size", block);
  params->set("Num Blocks", restart);
  params->set("Maximum Iterations", 20000);
  params->set("Maximum Restarts", 1000);
  params->set("Convergence Tolerance", tol);
  // Both solvers then test what Sprocket's tests: ||b - A x|| / ||b||.
  params->set("Implicit Residual Scaling", "Norm of RHS");
  params->set("Explicit Residual Scaling", "Norm of RHS");
  params->set("Verbosity", Belos::Errors + Belos::Warnings);
  Belos::ReturnType ret;
  Solve s;
  if (solver == "BlockGmres") {
    Belos::BlockGmresSolMgr<double, MV, OP> mgr(problem, params);
    ret = mgr.solve();
    s.iterations = mgr.getNumIters();
  } else {
    Belos::PseudoBlockGmresSolMgr<double, MV, OP> mgr(problem, params);
    ret = mgr.solve();
    s.iterations = mgr.getNumIters();
  }
  s.converged = ret == Belos::Converged;
  s.true_residuals = true_residuals(A, B, to_dense(*X));
  s.vectors_applied = counted->applied();
  return s;
}

Solve sprocket_solve(const HostCsr& A, const HostDense& B, int block, int restart, double tol, bool jacobi) {
  const Crs crs = to_crs<Crs>(A);
  const CountingOperator op(make_operator(SpmvPlan<Crs>(crs)));
  const auto M = jacobi ? make_jacobi(crs) : nullptr;
  MV X(B.num_rows, static_cast<int>(B.num_cols));
  BlockGmresOptions options;
  options.block_size = block;
  options.restart = restart;
  options.tol = tol;
  options.max_iterations = 20000;
  const BlockGmresResult r = block_gmres<double, Device>(op, to_mv(B).view(), X.view(), options, M.get());
  return {op.applied(), r.iterations, r.status == SolverStatus::converged, true_residuals(A, B, to_dense(X))};
}

/// Right-hand sides: A * ones, then A * (deterministic wave) so every column is consistent.
HostDense rhs(const HostCsr& A, int count) {
  HostDense X(A.num_rows, count), B(A.num_rows, count);
  for (int j = 0; j < count; ++j)
    for (int64_t i = 0; i < A.num_rows; ++i) X(i, j) = j == 0 ? 1.0 : std::sin(0.37 * (j + 1) * (i + 1));
  reference::spmm("N", 1.0, A, X, 0.0, B);
  return B;
}

struct SolveCase {
  const char* matrix;  // shared matrix name or gen: spec
  bool jacobi;
  int restart;
};

void PrintTo(const SolveCase& c, std::ostream* os) { *os << c.matrix << (c.jacobi ? " jacobi" : ""); }

class BelosSolves : public ::testing::TestWithParam<SolveCase> {};

HostCsr matrix_of(const std::string& name) {
  if (name.rfind("gen:", 0) == 0) return load_matrix(name);
  return load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz");
}

TEST_P(BelosSolves, SharedAndGeneratedSystems) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const SolveCase c = GetParam();
  const HostCsr A = matrix_of(c.matrix);
  const double tol = 1e-8;
  for (int block : {1, 2, 4}) {
    const HostDense B = rhs(A, block);
    const Solve belos = belos_solve("BlockGmres", A, B, block, c.restart, tol, c.jacobi);
    const Solve pseudo = belos_solve("PseudoBlockGmres", A, B, block, c.restart, tol, c.jacobi);
    const Solve ours = sprocket_solve(A, B, block, c.restart, tol, c.jacobi);
    std::printf("[belos] %-20s %-6s block %d restart %d: iterations (vectors applied): Belos BlockGmres %d (%lld), "
                "PseudoBlockGmres %d (%lld), Sprocket %d (%lld)\n",
                c.matrix, c.jacobi ? "jacobi" : "none", block, c.restart, belos.iterations,
                static_cast<long long>(belos.vectors_applied), pseudo.iterations,
                static_cast<long long>(pseudo.vectors_applied), ours.iterations,
                static_cast<long long>(ours.vectors_applied));
    for (const Solve* s : {&belos, &pseudo, &ours}) {
      const char* who = s == &belos ? "Belos BlockGmres" : s == &pseudo ? "Belos PseudoBlockGmres" : "Sprocket";
      EXPECT_TRUE(s->converged) << who << ", block " << block;
      // Belos decides on its own residual; the true one may sit a rounding above tol.
      for (double r : s->true_residuals) EXPECT_LE(r, (s == &ours ? 1.0 : 1.5) * tol) << who << ", block " << block;
    }
    // Same method, same block size and restart: the iteration counts agree within 10%. Except
    // where Sprocket's block shrinks (a converged column leaves it, a negligible residual gets no
    // basis vector) and Belos' stays whole: then a Sprocket iteration applies A to fewer vectors
    // and may take more iterations for less work (sherman5, block 2: 209 iterations and 341
    // vectors against Belos' 167 and 438); the work must then be smaller.
    const bool close = std::abs(ours.iterations - belos.iterations) <= std::max(1.0, 0.1 * belos.iterations);
    EXPECT_TRUE(close || ours.vectors_applied < belos.vectors_applied)
        << "block " << block << ": Sprocket " << ours.iterations << " iterations (" << ours.vectors_applied
        << " vectors), Belos " << belos.iterations << " (" << belos.vectors_applied << ")";
    // Never more work than Belos (the first and the last true residual cost Sprocket two applies
    // per column where Belos' initial residual costs one).
    EXPECT_LE(ours.vectors_applied, belos.vectors_applied + 2 * block) << "block " << block;
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, BelosSolves,
                         ::testing::Values(SolveCase{"sherman5", true, 60}, SolveCase{"orsirr_1", true, 60},
                                           SolveCase{"hor_131", true, 60},
                                           SolveCase{"gen:poisson3d:n=14", false, 30}),
                         [](const ::testing::TestParamInfo<SolveCase>& info) {
                           std::string name = info.param.matrix;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = 'x';
                           return name;
                         });

}  // namespace
