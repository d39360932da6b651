// Anasazi drives Sprocket operators on Sprocket multivectors (src/Sprocket_Anasazi.hpp):
// Anasazi's LOBPCGSolMgr and Sprocket's LOBPCG compute the same eigenvalues (1e-8 relative) of
// the shared SPD matrices.
#include <AnasaziBasicEigenproblem.hpp>
#include <AnasaziLOBPCGSolMgr.hpp>
#include <Teuchos_ParameterList.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "Sprocket_Anasazi.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using Device = Kokkos::DefaultHostExecutionSpace::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using MV = Sprocket::MultiVector<double, Device>;
using OP = Sprocket::MultiVectorOperator<double, Device>;

struct EigenCase {
  const char* matrix;
  Which which;
  int nev;
  bool incomplete_cholesky;  // preconditioner (the smallest end of ill-conditioned matrices)
};

void PrintTo(const EigenCase& c, std::ostream* os) {
  *os << c.matrix << (c.which == Which::smallest ? " smallest " : " largest ") << c.nev;
}

class AnasaziLobpcg : public ::testing::TestWithParam<EigenCase> {};

TEST_P(AnasaziLobpcg, SameEigenvaluesAsSprocket) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const EigenCase c = GetParam();
  const HostCsr A = load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + c.matrix + ".mtx.gz");
  const Crs crs = to_crs<Crs>(A);
  const auto op = make_operator(SpmvPlan<Crs>(crs));
  std::shared_ptr<Preconditioner<double, Device>> T;
  if (c.incomplete_cholesky) {
    IncompleteCholeskyOptions ic;
    ic.drop_tolerance = 1e-4;
    T = make_incomplete_cholesky(crs, ic);
  }
  const int block = c.nev + 3;

  // Anasazi.
  MV X0(A.num_rows, block);
  Anasazi::MultiVecTraits<double, MV>::MvRandom(X0);
  auto problem = Teuchos::rcp(new Anasazi::BasicEigenproblem<double, MV, OP>(as_rcp(op), Teuchos::rcp(new MV(X0))));
  if (T) problem->setPrec(as_rcp(T));
  problem->setHermitian(true);
  problem->setNEV(c.nev);
  ASSERT_TRUE(problem->setProblem());
  Teuchos::ParameterList params;
  params.set("Which", c.which == Which::smallest ? "SR" : "LR");
  params.set("Block Size", block);
  params.set("Maximum Iterations", 3000);
  params.set("Convergence Tolerance", 1e-9);
  params.set("Relative Convergence Tolerance", true);
  params.set("Use Locking", true);
  params.set("Full Ortho", true);
  params.set("Verbosity", Anasazi::Errors + Anasazi::Warnings);
  Anasazi::LOBPCGSolMgr<double, MV, OP> mgr(problem, params);
  const Anasazi::ReturnType ret = mgr.solve();
  ASSERT_EQ(ret, Anasazi::Converged) << "Anasazi LOBPCG after " << mgr.getNumIters() << " iterations";
  const Anasazi::Eigensolution<double, MV>& solution = problem->getSolution();
  ASSERT_GE(solution.numVecs, c.nev);
  std::vector<double> theirs;
  for (int j = 0; j < solution.numVecs; ++j) theirs.push_back(solution.Evals[j].realpart);
  std::sort(theirs.begin(), theirs.end());
  if (c.which == Which::largest) std::reverse(theirs.begin(), theirs.end());
  theirs.resize(c.nev);

  // Sprocket.
  LobpcgOptions options;
  options.nev = c.nev;
  options.which = c.which;
  options.tol = 1e-9;
  options.max_iterations = 3000;
  options.block_size = block;
  MV X(A.num_rows, c.nev);
  const LobpcgResult ours = lobpcg(*op, X.view(), options, T.get());
  ASSERT_EQ(ours.status, SolverStatus::converged) << ours.message;

  std::printf("[anasazi] %-9s %-8s nev %d: Anasazi %d iterations, Sprocket %d\n", c.matrix,
              c.which == Which::smallest ? "smallest" : "largest", c.nev, mgr.getNumIters(), ours.iterations);
  for (int j = 0; j < c.nev; ++j)
    EXPECT_NEAR(ours.eigenvalues[j], theirs[j], 1e-8 * std::fabs(theirs[j]))
        << "eigenvalue " << j << ": Sprocket " << ours.eigenvalues[j] << ", Anasazi " << theirs[j];
}

// Left out, measured 2026-11-27 with the same preconditioner: the smallest of crystm01 (Anasazi
// stops at iteration 41, "Cholesky factorization failed during full orthogonalization", the
// ill-conditioned Gram matrix Sprocket's LOBPCG handles by SVQB and restarts) and of bcsstk13
// (Anasazi not converged in 3000 iterations to 1e-9; Sprocket converges in about 100).
INSTANTIATE_TEST_SUITE_P(Shared, AnasaziLobpcg,
                         ::testing::Values(EigenCase{"crystm01", Which::largest, 4, false},
                                           EigenCase{"bcsstk16", Which::largest, 4, false},
                                           EigenCase{"1138_bus", Which::largest, 3, false},
                                           EigenCase{"msc04515", Which::smallest, 3, true}),
                         [](const ::testing::TestParamInfo<EigenCase>& info) {
                           std::string name = std::string(info.param.matrix) +
                                              (info.param.which == Which::smallest ? "Smallest" : "Largest");
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = 'x';
                           return name;
                         });

TEST(AnasaziTraits, OperatorAppliesOnAColumnSubset) {
  const HostCsr A = test::random_csr(200, 200, 4, 20);
  const Crs crs = to_crs<Crs>(A);
  const auto op = make_operator(SpmvPlan<Crs>(crs));
  MV X(200, 3), Y(200, 3);
  Anasazi::MultiVecTraits<double, MV>::MvRandom(X);
  Anasazi::MultiVecTraits<double, MV>::MvInit(Y, std::nan(""));
  const auto Ys = Anasazi::MultiVecTraits<double, MV>::CloneViewNonConst(Y, std::vector<int>{2, 0});
  Anasazi::OperatorTraits<double, MV, OP>::Apply(*op, *Anasazi::MultiVecTraits<double, MV>::CloneView(X, std::vector<int>{0, 1}),
                                                 *Ys);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X.view());
  const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y.view());
  for (int j = 0; j < 2; ++j) {
    std::vector<double> xj(200), yj(200, 0.0);
    for (int i = 0; i < 200; ++i) xj[i] = x(i, j);
    reference::spmv("N", 1.0, A, xj, 0.0, yj);
    const int target = j == 0 ? 2 : 0;
    for (int i = 0; i < 200; ++i) ASSERT_NEAR(y(i, target), yj[i], 1e-13 * (1 + std::fabs(yj[i]))) << i;
  }
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(std::isnan(y(i, 1))) << "column 1 is not in the view";
}

}  // namespace
