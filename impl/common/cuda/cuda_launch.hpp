#pragma once
// Host-side pieces every hand-written CUDA kernel family shares: grid sizing, launch checks,
// which scalar types the raw kernels are instantiated for.
#include <Kokkos_Core.hpp>

#ifdef KOKKOS_ENABLE_CUDA
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Grid clamp: far above what an H100/H200 keeps resident (about 1000 blocks of 256 threads),
/// far below gridDim.x's 2^31 - 1; the kernels' grid-stride loops cover any remaining work.
inline constexpr int64_t max_grid_blocks = int64_t(1) << 20;

/// Blocks for `work` items at `per_block` items per block, at least 1, at most max_grid_blocks.
inline unsigned grid_blocks(int64_t work, int64_t per_block) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, max_grid_blocks)));
}

/// Throws Sprocket::Error if the last launch failed (does not synchronize).
inline void check_launch(const char* component, const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw Error(std::string(component) + " (CUDA): launching " + kernel + " failed: " + cudaGetErrorName(err) +
                ": " + cudaGetErrorString(err));
}

/// Brackets raw launches in a Kokkos Tools region (a raw <<<>>> launch has no parallel_for label);
/// costs nothing (no string) when no tool is loaded.
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const char* name) : active_(Kokkos::Tools::profileLibraryLoaded()) {
    if (active_) Kokkos::Tools::pushRegion(name);
  }
  ~ProfilingRegion() {
    if (active_) Kokkos::Tools::popRegion();
  }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;

 private:
  bool active_;
};

/// The raw kernels are written for float and double with y of the same type; anything else
/// takes the portable Kokkos path.
template <class Scalar, class YValue>
inline constexpr bool raw_kernel_supported_v =
    (std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>) && std::is_same_v<YValue, Scalar>;

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif
