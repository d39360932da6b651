#pragma once
// Host-side pieces every hand-written CUDA kernel family shares: the launch description and the
// one launch seam, grid sizing, launch checks, which scalar types the raw kernels are
// instantiated for. Compiled for the CUDA build and for the test-only CPU emulation of the
// kernels (SPROCKET_CUDA_EMULATION, unit_tests/cuda_emulation/): the launchers are the same code
// in both, so the emulated tests exercise the real launch decisions.
#include <Kokkos_Core.hpp>

#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {
namespace cuda {

/// One launch as the launcher decided it: grid and block size (1-D), dynamic shared memory, and
/// the kernel's __launch_bounds__ maximum (the same named constant the kernel declares), which
/// the block size must not exceed (the emulation checks it).
struct KernelLaunch {
  unsigned grid = 1;
  unsigned block = 1;
  size_t shared_bytes = 0;
  unsigned launch_bound = 1024;
};

/// SPROCKET_CUDA_LAUNCH(launch, stream, kernel)(args...): kernel<<<grid, block, shared, stream>>>
/// (args...) on the GPU; on the CPU emulation the same kernel runs there, block by block, every
/// thread a fiber. `kernel` names one instance, a constant: a function, or a template-id with all
/// its template arguments (commas allowed), none left to deduction from the arguments. The
/// emulation records which instance ran (cuda_emulation::LaunchRecord::instance), so that the
/// tests can tell a variant from another of the same template.
#if defined(KOKKOS_ENABLE_CUDA)
#define SPROCKET_CUDA_LAUNCH(launch, stream, ...) \
  __VA_ARGS__<<<(launch).grid, (launch).block, (launch).shared_bytes, (stream)>>>
#else
#define SPROCKET_CUDA_LAUNCH(launch, stream, ...)                                                                  \
  ::Sprocket::cuda_emulation::launch_kernel((launch).grid, (launch).block, (launch).shared_bytes,                 \
                                            (launch).launch_bound, (stream), #__VA_ARGS__,                         \
                                            ::Sprocket::cuda_emulation::kernel_instance<__VA_ARGS__>(), __FILE__, \
                                            __LINE__, [&](auto... sprocket_kernel_args) {                         \
                                              __VA_ARGS__(sprocket_kernel_args...);                               \
                                            })
#endif

/// Grid clamp: far above what an H100/H200 keeps resident (about 1000 blocks of 256 threads),
/// far below gridDim.x's 2^31 - 1; the kernels' grid-stride loops cover any remaining work.
inline constexpr int64_t max_grid_blocks = int64_t(1) << 20;

/// Blocks for `work` items at `per_block` items per block, at least 1, at most `limit`
/// (grid_limit(space): max_grid_blocks on a GPU; the emulated tests force small grids so that
/// the grid-stride loops take several turns).
inline unsigned grid_blocks(int64_t work, int64_t per_block, int64_t limit = max_grid_blocks) {
  const int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min({blocks, limit, max_grid_blocks})));
}

#if defined(KOKKOS_ENABLE_CUDA)
/// What a launcher needs of its execution space; the emulation has the same functions for its
/// emulated device (found by argument-dependent lookup).
inline cudaStream_t stream_of(const Kokkos::Cuda& space) { return space.cuda_stream(); }
inline int multiprocessor_count(const Kokkos::Cuda& space) { return space.cuda_device_prop().multiProcessorCount; }
inline int64_t grid_limit(const Kokkos::Cuda&) { return max_grid_blocks; }
/// Shared memory of one block without opting in (48 KiB) and with (sm_80: 163 KiB, sm_90: 227 KiB),
/// threads per block and per multiprocessor, of the space's device.
inline int64_t shared_bytes_per_block(const Kokkos::Cuda& space) {
  return static_cast<int64_t>(space.cuda_device_prop().sharedMemPerBlock);
}
inline int64_t shared_bytes_optin(const Kokkos::Cuda& space) {
  return static_cast<int64_t>(space.cuda_device_prop().sharedMemPerBlockOptin);
}
inline int max_threads_per_block(const Kokkos::Cuda& space) { return space.cuda_device_prop().maxThreadsPerBlock; }
inline int max_threads_per_multiprocessor(const Kokkos::Cuda& space) {
  return space.cuda_device_prop().maxThreadsPerMultiProcessor;
}
/// Free bytes of the current device's memory (cudaMemGetInfo). When the query fails the device's
/// memory is unknown: a huge number, so only a caller's own limit applies (rather than refusing
/// everything with a limit of 0).
inline int64_t device_free_bytes(const Kokkos::Cuda&) {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    (void)cudaGetLastError();  // do not leave the error for the next launch check
    return int64_t(1) << 62;
  }
  return static_cast<int64_t>(free_bytes);
}
#endif

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
