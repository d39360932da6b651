#pragma once
// Device-side helpers every hand-written CUDA kernel family shares.
#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include <type_traits>

namespace Sprocket {
namespace Impl {
namespace cuda {

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

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif
