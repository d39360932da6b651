// Shared main of every unit test: Kokkos must be initialized before any View exists and
// finalized after the last one is gone, so gtest runs in between.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::initialize(argc, argv);
  int result = 0;
  {
    Kokkos::print_configuration(std::cout, false);
    result = RUN_ALL_TESTS();
  }
  Kokkos::finalize();
  return result;
}
