#pragma once
// Device-side helpers every hand-written CUDA kernel family shares, and the seams that let the same
// kernel source run on the CPU in the test-only emulation (unit_tests/cuda_emulation/):
//   - kernel files open with `#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)`;
//   - static shared arrays are declared with SPROCKET_CUDA_SHARED(type, name, extents) and the
//     dynamic shared buffer is reached through SPROCKET_CUDA_DYNAMIC_SHARED(type), so every emulated
//     thread block gets fresh (poisoned) memory;
//   - launches go through SPROCKET_CUDA_LAUNCH (impl/common/cuda/cuda_launch.hpp).
// Everything else (threadIdx, __syncthreads, __shfl_*_sync, atomicAdd, __ldg) is CUDA as written.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && defined(SPROCKET_CUDA_EMULATION)
#error "SPROCKET_CUDA_EMULATION is for host builds: the CUDA build runs the kernels on the GPU"
#endif

#if defined(SPROCKET_CUDA_EMULATION)
// Found through the include path of the emulated tests only (unit_tests/cuda_emulation/).
#include "sprocket_cuda_emulation.hpp"
#endif

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
/// `__shared__ type name extents` (extents such as [2][8]).
#define SPROCKET_CUDA_SHARED(type, name, extents) __shared__ type name extents
/// The launch's dynamic shared memory as a `type*` (16-byte aligned).
#define SPROCKET_CUDA_DYNAMIC_SHARED(type) reinterpret_cast<type*>(::Sprocket::Impl::cuda::dynamic_shared_memory)
#else
#define SPROCKET_CUDA_SHARED(type, name, extents) \
  type(&name) extents = ::Sprocket::cuda_emulation::block_shared<type extents>(__FILE__, __LINE__)
#define SPROCKET_CUDA_DYNAMIC_SHARED(type) ::Sprocket::cuda_emulation::dynamic_shared<type>(__FILE__, __LINE__)
#endif

namespace Sprocket {
namespace Impl {
namespace cuda {

#if defined(KOKKOS_ENABLE_CUDA)
/// The one dynamic shared-memory declaration of the project (every extern __shared__ array of a
/// kernel starts at the same address, so one name serves all kernels).
extern __shared__ __align__(16) unsigned char dynamic_shared_memory[];
#endif

/// Read-only load through the non-coherent (texture) path where CUDA has an __ldg overload.
template <class T>
__device__ __forceinline__ T ldg(const T* p) {
  if constexpr (std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
                std::is_same_v<T, unsigned long> || std::is_same_v<T, long long> ||
                std::is_same_v<T, unsigned long long> || std::is_same_v<T, float> ||
                std::is_same_v<T, double>) {
    return __ldg(p);
  } else {
    return *p;
  }
}

/// Atomic *p += v: atomicAdd for float, and for double on sm_60 and newer (Kokkos' emulation below
/// that).
template <class T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 600)
  if constexpr (std::is_same_v<T, double>)
    Kokkos::atomic_add(p, v);
  else
    atomicAdd(p, v);
#else
  atomicAdd(p, v);
#endif
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif
