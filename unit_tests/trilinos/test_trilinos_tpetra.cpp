// Sprocket::TpetraOperator and TpetraLocalPreconditioner over MPI (run by ctest on 1, 2 and 4
// ranks): the operator's apply equals Tpetra's own CrsMatrix::apply to rounding, Belos block
// GMRES through it solves gen:poisson3d and a shared nonsymmetric matrix to the tolerance on the
// true residual, and the iteration count equals (+-1) that of the same solve on one rank, which
// every rank also runs alone on its own communicator.
#include <BelosBlockGmresSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_TpetraOperator.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using Node = Tpetra::Map<>::node_type;
using crs_type = Tpetra::CrsMatrix<double, int, long long, Node>;
using mv_type = Tpetra::MultiVector<double, int, long long, Node>;
using map_type = Tpetra::Map<int, long long, Node>;
using op_type = Tpetra::Operator<double, int, long long, Node>;
using Comm = Teuchos::RCP<const Teuchos::Comm<int>>;

HostCsr matrix_of(const std::string& name) {
  if (name.rfind("gen:", 0) == 0) return load_matrix(name);
  return load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz");
}


/// Deterministic, rank-count independent vectors: entry (global row g, column j).
void fill_wave(mv_type& X, double shift) {
  const auto map = X.getMap();
  auto x = X.getLocalViewHost(Tpetra::Access::OverwriteAll);
  for (size_t j = 0; j < X.getNumVectors(); ++j)
    for (size_t l = 0; l < X.getLocalLength(); ++l)
      x(l, j) = std::sin(0.37 * (j + 1) * (map->getGlobalElement(static_cast<int>(l)) + 1) + shift);
}

double max_relative_difference(const mv_type& A, const mv_type& B) {
  mv_type D(A, Teuchos::Copy);
  D.update(-1.0, B, 1.0);
  std::vector<double> d(A.getNumVectors()), b(A.getNumVectors());
  D.normInf(d);
  B.normInf(b);
  double worst = 0;
  for (size_t j = 0; j < d.size(); ++j) worst = Sprocket::test::max_keeping_nan(worst, d[j] / std::max(b[j], 1e-300));
  return worst;
}

class TpetraOperatorTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TpetraOperatorTest, ApplyEqualsTpetraApply) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const Comm comm = Tpetra::getDefaultComm();
  const auto A = Sprocket::to_tpetra_crs<Node>(matrix_of(GetParam()), comm);
  TpetraOperator<Node> op(A);
  for (size_t k : {1, 3, 6}) {
    mv_type X(A->getDomainMap(), k), Y_ours(A->getRangeMap(), k), Y_tpetra(A->getRangeMap(), k);
    fill_wave(X, 0.1);
    for (const auto& [alpha, beta] : std::vector<std::pair<double, double>>{{1.0, 0.0}, {2.0, -0.5}}) {
      fill_wave(Y_ours, 0.7);
      fill_wave(Y_tpetra, 0.7);
      op.apply(X, Y_ours, Teuchos::NO_TRANS, alpha, beta);
      A->apply(X, Y_tpetra, Teuchos::NO_TRANS, alpha, beta);
      EXPECT_LE(max_relative_difference(Y_ours, Y_tpetra), 1e-13) << k << " vectors, alpha " << alpha << ", beta " << beta;
    }
  }
  // A column subset of a larger multivector (no constant stride) as X and as Y.
  mv_type Xw(A->getDomainMap(), 5), Yw(A->getRangeMap(), 5), Yt(A->getRangeMap(), 2);
  fill_wave(Xw, 0.3);
  fill_wave(Yw, 0.9);
  const std::vector<size_t> cols{4, 1};
  const auto Xs = Xw.subView(Teuchos::ArrayView<const size_t>(cols));
  const auto Ys = Yw.subViewNonConst(Teuchos::ArrayView<const size_t>(cols));
  Tpetra::deep_copy(Yt, *Ys);
  op.apply(*Xs, *Ys, Teuchos::NO_TRANS, 1.5, 0.25);
  A->apply(*Xs, Yt, Teuchos::NO_TRANS, 1.5, 0.25);
  EXPECT_LE(max_relative_difference(*Ys, Yt), 1e-13);
  EXPECT_THROW(op.apply(Xw, Yw, Teuchos::TRANS), InvalidArgument);
  mv_type wrong(A->getRangeMap(), 2);
  EXPECT_THROW(op.apply(Xw, wrong), InvalidArgument);

  // New values on the same pattern: update_values() makes the operator see them.
  auto Am = Teuchos::rcp_const_cast<crs_type>(A);
  Am->resumeFill();
  Am->scale(3.0);
  Am->fillComplete();
  op.update_values();
  mv_type Y1(A->getRangeMap(), 3), Y2(A->getRangeMap(), 3), X3(A->getDomainMap(), 3);
  fill_wave(X3, 0.2);
  op.apply(X3, Y1);
  A->apply(X3, Y2);
  EXPECT_LE(max_relative_difference(Y1, Y2), 1e-13);
  auto y1 = X3.getVector(0);
  mv_type Y3(A->getRangeMap(), 1), Y4(A->getRangeMap(), 1);
  op.apply(*y1, Y3);
  A->apply(*y1, Y4);
  EXPECT_LE(max_relative_difference(Y3, Y4), 1e-13);
}

struct GmresRun {
  int iterations = 0;
  bool converged = false;
  double worst_true_residual = 0;
};

using LocalFactory = TpetraLocalPreconditioner<Node>::factory_type;

std::shared_ptr<Preconditioner<double, TpetraLocalPreconditioner<Node>::device_type>> local_jacobi(
    const TpetraOperator<Node>::local_matrix_type& D) {
  return make_jacobi(D);
}

/// Belos block GMRES through TpetraOperator with a rank-local preconditioner (by default Jacobi,
/// which is rank-count independent), 2 right-hand sides in one block, restart 40, tol 1e-8; true
/// residuals by Tpetra's apply.
GmresRun solve(const HostCsr& host, const Comm& comm, const LocalFactory& make = local_jacobi) {
  const auto A = Sprocket::to_tpetra_crs<Node>(host, comm);
  const auto op = Teuchos::rcp(new TpetraOperator<Node>(A));
  const auto M = Teuchos::rcp(new TpetraLocalPreconditioner<Node>(A, make));
  const double tol = 1e-8;
  auto X = Teuchos::rcp(new mv_type(A->getDomainMap(), 2));
  auto B = Teuchos::rcp(new mv_type(A->getRangeMap(), 2));
  mv_type Xtrue(A->getDomainMap(), 2);
  fill_wave(Xtrue, 0.0);
  A->apply(Xtrue, *B);
  auto problem = Teuchos::rcp(new Belos::LinearProblem<double, mv_type, op_type>(op, X, B));
  problem->setRightPrec(M);
  EXPECT_TRUE(problem->setProblem());
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Block Size", 2);
  params->set("Num Blocks", 40);
  params->set("Maximum Iterations", 10000);
  params->set("Maximum Restarts", 1000);
  params->set("Convergence Tolerance", tol);
  params->set("Implicit Residual Scaling", "Norm of RHS");
  params->set("Explicit Residual Scaling", "Norm of RHS");
  Belos::BlockGmresSolMgr<double, mv_type, op_type> mgr(problem, params);
  GmresRun run;
  run.converged = mgr.solve() == Belos::Converged;
  run.iterations = mgr.getNumIters();
  mv_type R(*B, Teuchos::Copy);
  A->apply(*X, R, Teuchos::NO_TRANS, -1.0, 1.0);
  std::vector<double> r(2), b(2);
  R.norm2(r);
  B->norm2(b);
  for (int j = 0; j < 2; ++j)
    run.worst_true_residual = Sprocket::test::max_keeping_nan(run.worst_true_residual, r[j] / b[j]);
  return run;
}

TEST_P(TpetraOperatorTest, BelosBlockGmresSameIterationsOnEveryRankCount) {
  SPROCKET_REQUIRE_SHARED_MATRICES();
  const Comm comm = Tpetra::getDefaultComm();
  const HostCsr host = matrix_of(GetParam());
  const GmresRun distributed = solve(host, comm);
  // The same solve on one rank: every rank alone on a communicator of its own.
  const Comm alone = comm->split(comm->getRank(), 0);
  const GmresRun one = solve(host, alone);
  if (comm->getRank() == 0)
    std::printf("[tpetra] %-20s %d ranks: %d iterations (1 rank: %d), true residual %.2e\n", GetParam(),
                comm->getSize(), distributed.iterations, one.iterations, distributed.worst_true_residual);
  EXPECT_TRUE(distributed.converged && one.converged);
  EXPECT_LE(distributed.worst_true_residual, 1.5e-8);
  EXPECT_LE(std::abs(distributed.iterations - one.iterations), 1)
      << comm->getSize() << " ranks: " << distributed.iterations << ", one rank: " << one.iterations;
}

INSTANTIATE_TEST_SUITE_P(Distributed, TpetraOperatorTest, ::testing::Values("gen:poisson3d:n=16", "sherman5"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = 'x';
                           return name;
                         });

// The other local preconditioners as Tpetra operators (block Jacobi over ranks: iteration counts
// depend on the rank count, the solution does not).
TEST(TpetraLocalPreconditioner, ChebyshevIncompleteCholeskyAndIluPreconditionBelos) {
  const Comm comm = Tpetra::getDefaultComm();
  const HostCsr host = load_matrix("gen:poisson3d:n=16");
  const std::vector<std::pair<const char*, LocalFactory>> kinds{
      {"chebyshev", [](const auto& D) { return make_chebyshev(D); }},
      {"incomplete_cholesky", [](const auto& D) { return make_incomplete_cholesky(D); }},
      {"incomplete_lu", [](const auto& D) { return make_incomplete_lu(D); }}};
  const GmresRun jacobi = solve(host, comm);
  for (const auto& [name, make] : kinds) {
    const GmresRun run = solve(host, comm, make);
    if (comm->getRank() == 0)
      std::printf("[tpetra] poisson3d n=16, %d ranks, local %s: %d iterations (jacobi %d)\n", comm->getSize(), name,
                  run.iterations, jacobi.iterations);
    EXPECT_TRUE(run.converged) << name;
    EXPECT_LE(run.worst_true_residual, 1.5e-8) << name;
    EXPECT_LT(run.iterations, jacobi.iterations) << name << " should beat point Jacobi";
  }
}

// The local preconditioner is block Jacobi over ranks: on one rank, make_jacobi of the whole
// matrix; on any number, point Jacobi equals D^{-1} x.
TEST(TpetraLocalPreconditioner, JacobiIsDiagonalScalingOnEveryRankCount) {
  const Comm comm = Tpetra::getDefaultComm();
  const HostCsr host = load_matrix("gen:poisson3d:n=10");
  const auto A = Sprocket::to_tpetra_crs<Node>(host, comm);
  TpetraLocalPreconditioner<Node> M(A, [](const auto& D) { return make_jacobi(D); });
  EXPECT_EQ(static_cast<size_t>(M.local_block().numRows()), Sprocket::Impl::tpetra_local_elements(*A->getRowMap()));
  mv_type X(A->getDomainMap(), 2), Y(A->getRangeMap(), 2), expected(A->getRangeMap(), 2);
  fill_wave(X, 0.4);
  M.apply(X, Y);
  Tpetra::Vector<double, int, long long, Node> diagonal(A->getRowMap());
  A->getLocalDiagCopy(diagonal);
  {
    const auto d = diagonal.getLocalViewHost(Tpetra::Access::ReadOnly);
    const auto x = X.getLocalViewHost(Tpetra::Access::ReadOnly);
    auto e = expected.getLocalViewHost(Tpetra::Access::OverwriteAll);
    for (size_t j = 0; j < 2; ++j)
      for (size_t l = 0; l < X.getLocalLength(); ++l) e(l, j) = x(l, j) / d(l, 0);
  }
  EXPECT_LE(max_relative_difference(Y, expected), 1e-15);
  // Arguments on the wrong map or with a transpose are refused with the sizes.
  const auto other = Sprocket::to_tpetra_crs<Node>(load_matrix("gen:poisson3d:n=6"), comm);
  mv_type Xo(other->getDomainMap(), 2);
  EXPECT_THROW(M.apply(Xo, Y), InvalidArgument);
  EXPECT_THROW(M.apply(X, Y, Teuchos::TRANS), InvalidArgument);
  EXPECT_THROW(Sprocket::to_tpetra_crs<Node>(test::random_csr(5, 7, 2, 1), comm), InvalidArgument);
}

/// A map with `map`'s local lengths on every rank but its global indices in reverse: position p
/// of the contiguous numbering gets index n - 1 - p. The same lengths, another distribution
/// (on one rank: another order).
Teuchos::RCP<const map_type> reversed(const map_type& map) {
  const long long n = static_cast<long long>(map.getGlobalNumElements());
  std::vector<long long> indices;
  for (size_t l = 0; l < Sprocket::Impl::tpetra_local_elements(map); ++l)
    indices.push_back(n - 1 - map.getGlobalElement(static_cast<int>(l)));
  return Teuchos::rcp(new map_type(map.getGlobalNumElements(), Teuchos::ArrayView<const long long>(indices), 0,
                                   map.getComm()));
}

/// The same global indices as `map`, as a map object of its own and listed (not contiguous), so
/// that comparing it with `map` takes Tpetra's all-reduce.
Teuchos::RCP<const map_type> listed_copy(const map_type& map) {
  std::vector<long long> indices;
  for (size_t l = 0; l < Sprocket::Impl::tpetra_local_elements(map); ++l) indices.push_back(map.getGlobalElement(static_cast<int>(l)));
  return Teuchos::rcp(new map_type(map.getGlobalNumElements(), Teuchos::ArrayView<const long long>(indices), 0,
                                   map.getComm()));
}

/// Copies `from` (its values, in local order) into a new multivector on `map` (same lengths).
mv_type on_map(const mv_type& from, const Teuchos::RCP<const map_type>& map) {
  mv_type to(map, from.getNumVectors());
  Kokkos::deep_copy(to.getLocalViewDevice(Tpetra::Access::OverwriteAll), from.getLocalViewDevice(Tpetra::Access::ReadOnly));
  return to;
}

// Arguments the length checks alone would let through, and arguments that must work (issue 30):
//  - a foreign map (same lengths, other global indices) is refused by both operators, for X and
//    for Y, on every rank; the same map as another object, even a listed one, is accepted and
//    gives Tpetra's result;
//  - X aliasing Y, and column subsets without constant stride, give what separate multivectors
//    give.
TEST(TpetraArguments, ForeignMapsAreRefusedAliasesAndStridesWork) {
  const Comm comm = Tpetra::getDefaultComm();
  const auto A = Sprocket::to_tpetra_crs<Node>(load_matrix("gen:poisson3d:n=10"), comm);
  TpetraOperator<Node> op(A);
  TpetraLocalPreconditioner<Node> M(A, [](const auto& D) { return make_jacobi(D); });
  const auto domain = A->getDomainMap(), range = A->getRangeMap();
  mv_type X(domain, 3), Y(range, 3), expected(range, 3);
  fill_wave(X, 0.5);

  // Foreign maps: refused, naming the argument.
  const mv_type X_foreign = on_map(X, reversed(*domain));
  mv_type Y_foreign(reversed(*range), 3);
  for (const auto& [who, apply] : std::vector<std::pair<std::string, std::function<void(const mv_type&, mv_type&)>>>{
           {"TpetraOperator::apply", [&](const mv_type& x, mv_type& y) { op.apply(x, y); }},
           {"TpetraLocalPreconditioner::apply", [&](const mv_type& x, mv_type& y) { M.apply(x, y); }}}) {
    const std::string x_message = test::message_of<InvalidArgument>([&] { apply(X_foreign, Y); });
    EXPECT_NE(x_message.find(who + ": X has the lengths of the domain map but another distribution"), std::string::npos)
        << x_message;
    const std::string y_message = test::message_of<InvalidArgument>([&] { apply(X, Y_foreign); });
    EXPECT_NE(y_message.find(who + ": Y has the lengths of the range map but another distribution"), std::string::npos)
        << y_message;
  }

  // The same maps as other objects (contiguous, and listed): accepted, twice, with Tpetra's result.
  for (const auto& make : std::vector<std::function<Teuchos::RCP<const map_type>(const map_type&)>>{
           [](const map_type& m) { return Teuchos::rcp(new map_type(m.getGlobalNumElements(), 0, m.getComm())); },
           listed_copy}) {
    const mv_type Xc = on_map(X, make(*domain));
    mv_type Yc(make(*range), 3);
    for (int repeat = 0; repeat < 2; ++repeat) {
      op.apply(Xc, Yc);
      A->apply(X, expected);
      EXPECT_LE(max_relative_difference(on_map(Yc, range), expected), 1e-13) << "repeat " << repeat;
    }
  }

  // X aliasing Y: Y = alpha A Y + beta Y and Y = alpha M^-1 Y + beta Y, whole and as a column subset.
  for (const bool subset : {false, true}) {
    mv_type W(range, 4), reference_in(range, 2), reference(range, 2);
    fill_wave(W, 0.8);
    const std::vector<size_t> cols{3, 1};
    const Teuchos::RCP<mv_type> Z = subset ? W.subViewNonConst(Teuchos::ArrayView<const size_t>(cols))
                                           : W.subViewNonConst(Teuchos::Range1D(0, 1));
    EXPECT_EQ(Z->isConstantStride(), !subset);
    Tpetra::deep_copy(reference_in, *Z);
    Tpetra::deep_copy(reference, *Z);
    op.apply(*Z, *Z, Teuchos::NO_TRANS, 1.5, -0.5);
    A->apply(reference_in, reference, Teuchos::NO_TRANS, 1.5, -0.5);
    EXPECT_LE(max_relative_difference(*Z, reference), 1e-13) << (subset ? "column subset" : "whole");
    Tpetra::deep_copy(reference_in, *Z);
    Tpetra::deep_copy(reference, *Z);
    M.apply(*Z, *Z, Teuchos::NO_TRANS, 2.0, 0.25);
    mv_type separate(range, 2);
    Tpetra::deep_copy(separate, reference_in);
    M.apply(reference_in, separate, Teuchos::NO_TRANS, 2.0, 0.25);
    EXPECT_LE(max_relative_difference(*Z, separate), 1e-15) << (subset ? "column subset" : "whole");
  }

  // Non-constant stride, not aliased, through the preconditioner (the operator's case is above).
  mv_type Xw(domain, 4), Yw(range, 4), Yt(range, 2);
  fill_wave(Xw, 0.1);
  fill_wave(Yw, 0.2);
  const std::vector<size_t> xs{2, 0}, ys{1, 3};
  const auto Xs = Xw.subView(Teuchos::ArrayView<const size_t>(xs));
  const auto Ys = Yw.subViewNonConst(Teuchos::ArrayView<const size_t>(ys));
  mv_type Xcopy(*Xs, Teuchos::Copy);
  Tpetra::deep_copy(Yt, *Ys);
  M.apply(*Xs, *Ys, Teuchos::NO_TRANS, 1.0, 1.0);
  M.apply(Xcopy, Yt, Teuchos::NO_TRANS, 1.0, 1.0);
  EXPECT_LE(max_relative_difference(*Ys, Yt), 1e-15);
}

}  // namespace
