#pragma once
// Type lists for typed tests: every (Scalar, Offset) combination Sprocket supports, on every
// enabled execution space. Ordinal is always int.
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
using CrsTypes = ::testing::Types<SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::Cuda),
                                  SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::DefaultHostExecutionSpace)>;
#elif defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using CrsTypes = ::testing::Types<SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::OpenMP),
                                  SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::Serial)>;
#else
using CrsTypes = ::testing::Types<SPROCKET_CRS_TYPES_FOR_SPACE(Kokkos::DefaultExecutionSpace)>;
#endif

/// Every enabled execution space, for tests written once per space (the solvers).
#if defined(KOKKOS_ENABLE_CUDA)
using SpaceTypes = ::testing::Types<Kokkos::Cuda, Kokkos::DefaultHostExecutionSpace>;
#elif defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using SpaceTypes = ::testing::Types<Kokkos::OpenMP, Kokkos::Serial>;
#else
using SpaceTypes = ::testing::Types<Kokkos::DefaultExecutionSpace>;
#endif

}  // namespace test
}  // namespace Sprocket
