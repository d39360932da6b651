// Using Sprocket from Trilinos (docs/trilinos.md, which quotes this file): Belos' block GMRES on a
// Tpetra matrix distributed over the MPI ranks, applied by Sprocket::TpetraOperator and
// preconditioned by Sprocket's ILU(0) on each rank's diagonal block. Built and run by the
// Trilinos tests (in the build tree and as a find_package(Sprocket) consumer).
#include <BelosBlockGmresSolMgr.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Sprocket_Generators.hpp>
#include <Sprocket_Preconditioners.hpp>
#include <Sprocket_TpetraOperator.hpp>
#include <Tpetra_Core.hpp>
#include <iostream>

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);  // MPI and Kokkos
  using Node = Tpetra::Map<>::node_type;
  using Matrix = Tpetra::CrsMatrix<double, int, long long, Node>;
  using MV = Tpetra::MultiVector<double, int, long long, Node>;
  using OP = Tpetra::Operator<double, int, long long, Node>;
  const auto comm = Tpetra::getDefaultComm();

  // A 3-D Poisson matrix (Sprocket's generator), rows split over the ranks.
  const Sprocket::HostCsr host = Sprocket::load_matrix("gen:poisson3d:n=20");
  const auto map = Teuchos::rcp(new Tpetra::Map<int, long long, Node>(host.num_rows, 0, comm));
  auto A = Teuchos::rcp(new Matrix(map, 7));
  for (size_t l = 0; l < map->getNodeNumElements(); ++l) {
    const long long row = map->getGlobalElement(static_cast<int>(l));
    for (int64_t k = host.row_map[row]; k < host.row_map[row + 1]; ++k)
      A->insertGlobalValues(row, Teuchos::tuple<long long>(host.entries[k]), Teuchos::tuple(host.values[k]));
  }
  A->fillComplete();

  // Sprocket applies the local matrix (analysed once here); Tpetra exchanges the halo.
  auto op = Teuchos::rcp(new Sprocket::TpetraOperator<Node>(A));
  auto prec = Teuchos::rcp(new Sprocket::TpetraLocalPreconditioner<Node>(
      A, [](const auto& block) { return Sprocket::make_incomplete_lu(block); }));

  auto X = Teuchos::rcp(new MV(map, 4)), B = Teuchos::rcp(new MV(map, 4));
  B->randomize();
  auto problem = Teuchos::rcp(new Belos::LinearProblem<double, MV, OP>(op, X, B));
  problem->setRightPrec(prec);
  problem->setProblem();
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Block Size", 4);
  params->set("Convergence Tolerance", 1e-8);
  Belos::BlockGmresSolMgr<double, MV, OP> solver(problem, params);
  const bool converged = solver.solve() == Belos::Converged;
  if (comm->getRank() == 0)
    std::cout << (converged ? "converged" : "NOT converged") << " in " << solver.getNumIters()
              << " block iterations on " << comm->getSize() << " rank(s)\n";
  return converged ? 0 : 1;
}
