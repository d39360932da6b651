// Main of the Trilinos adapters' tests: Tpetra::ScopeGuard initializes MPI and Kokkos (Trilinos'
// own Kokkos, the only one in the process) and finalizes both after gtest. Ranks other than 0
// keep their failures but print nothing else.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <Tpetra_Core.hpp>

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const auto comm = Tpetra::getDefaultComm();
  if (comm->getRank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  } else {
    Kokkos::print_configuration(std::cout, false);
    std::cout << "MPI ranks: " << comm->getSize() << "\n";
  }
  int result = RUN_ALL_TESTS();
  // Every rank must pass: a failure on one rank fails the run on all.
  int worst = result;
  Teuchos::reduceAll(*comm, Teuchos::REDUCE_MAX, result, Teuchos::outArg(worst));
  return worst;
}
