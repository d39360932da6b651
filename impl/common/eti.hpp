#pragma once
// Explicit template instantiation (ETI) of the plans, as Kokkos Kernels does it: the library
// compiles each plan's implementation (analysis, dispatch, host / CUDA / portable kernels) once
// per combination listed here, in impl/<kernel>/eti/*.cpp, and the public headers declare those
// combinations `extern template`, so a program that includes them compiles only the thin
// adapters of apply() (which route any View to the one or two View types the plan is compiled
// for). A matrix type outside the list still works: its plan is instantiated from the headers, as
// every plan was before, in each translation unit that uses it.
//
// The list: Scalar float and double x Offset int and size_t, Ordinal int, on the spaces the
// build's tests run: Kokkos::Cuda in a CUDA build (its test programs test Cuda only; a host space
// used by a CUDA build's tool comes from the headers), Kokkos::OpenMP and Kokkos::Serial in a host
// build, each with its default memory space (the Device type test::DeviceOf and
// `ExecSpace::device_type` name). SPROCKET_ETI is defined for every target that links the library
// when the library was built with the list (CMake option SPROCKET_ETI, default ON).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstddef>

namespace Sprocket {
namespace Impl {

/// The matrix type of one listed combination.
template <class Scalar, class Offset, class ExecSpace>
using EtiCrs =
    KokkosSparse::CrsMatrix<Scalar, int, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, void, Offset>;

}  // namespace Impl
}  // namespace Sprocket

#if defined(KOKKOS_ENABLE_CUDA)
#define SPROCKET_ETI_FOR_SPACES_(M, Scalar, Offset) M(Scalar, Offset, Kokkos::Cuda)
#else
#if defined(KOKKOS_ENABLE_OPENMP)
#define SPROCKET_ETI_OPENMP_(M, Scalar, Offset) M(Scalar, Offset, Kokkos::OpenMP)
#else
#define SPROCKET_ETI_OPENMP_(M, Scalar, Offset)
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
#define SPROCKET_ETI_SERIAL_(M, Scalar, Offset) M(Scalar, Offset, Kokkos::Serial)
#else
#define SPROCKET_ETI_SERIAL_(M, Scalar, Offset)
#endif
#define SPROCKET_ETI_FOR_SPACES_(M, Scalar, Offset) \
  SPROCKET_ETI_OPENMP_(M, Scalar, Offset) SPROCKET_ETI_SERIAL_(M, Scalar, Offset)
#endif

/// M(Scalar, Offset, ExecSpace) for every listed combination with this Scalar (one ETI source
/// file per scalar type, so the library's ETI objects build in parallel).
#define SPROCKET_ETI_FOR_SCALAR(M, Scalar) \
  SPROCKET_ETI_FOR_SPACES_(M, Scalar, int) SPROCKET_ETI_FOR_SPACES_(M, Scalar, size_t)
/// M(Scalar, Offset, ExecSpace) for every listed combination.
#define SPROCKET_ETI_FOR_EACH(M) SPROCKET_ETI_FOR_SCALAR(M, double) SPROCKET_ETI_FOR_SCALAR(M, float)
