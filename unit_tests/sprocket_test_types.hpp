#pragma once
// Type lists for typed tests: every (Scalar, Offset) combination Sprocket supports, on every
// execution space the build tests. Ordinal is always int.
//
// A CUDA build's test programs test Kokkos::Cuda only: the host spaces are the host build's
// (`make test`, the same code compiled by g++), and instantiating them again under nvcc doubled
// these programs' compile time without testing anything the host build does not.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

namespace Sprocket {
namespace test {

template <class Space>
using DeviceOf = Kokkos::Device<typename Space::execution_space, typename Space::memory_space>;

template <class Scalar, class Offset, class Space>
using Crs = KokkosSparse::CrsMatrix<Scalar, int, DeviceOf<Space>, void, Offset>;

#define SPROCKET_CRS_TYPES_FOR_SPACE(Space)                                          \
  Sprocket::test::Crs<double, int, Space>, Sprocket::test::Crs<float, int, Space>,   \
      Sprocket::test::Crs<double, size_t, Space>, Sprocket::test::Crs<float, size_t, Space>

#if defined(KOKKOS_ENABLE_CUDA)
using CrsTypes = ::testing::Types<SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::Cuda)>;
#elif defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using CrsTypes = ::testing::Types<SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::OpenMP),
                                  SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::Serial)>;
#else
using CrsTypes = ::testing::Types<SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::DefaultExecutionSpace)>;
#endif

/// Every tested execution space, for tests written once per space (the solvers).
#if defined(KOKKOS_ENABLE_CUDA)
using SpaceTypes = ::testing::Types<Kokkos::Cuda>;
#elif defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using SpaceTypes = ::testing::Types<Kokkos::OpenMP, Kokkos::Serial>;
#else
using SpaceTypes = ::testing::Types<Kokkos::DefaultExecutionSpace>;
#endif

}  // namespace test
}  // namespace Sprocket
