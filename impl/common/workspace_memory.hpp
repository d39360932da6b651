#pragma once
// Memory checks for workspaces sized by the caller's arguments (a solver's restart x block x n
// basis, a BSR conversion's fill): the bytes are compared with what the execution space's memory
// can still take before anything is allocated, and a request past it throws ResourceError naming
// the workspace and its bytes, as the readers and SpGEMM do.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_Operator.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include "impl/common/cuda/cuda_launch.hpp"
#endif

namespace Sprocket {
namespace Impl {

/// Bytes a product of sizes takes, saturating at 2^62 (a product that would overflow is simply
/// more than any machine has, and the check below refuses it).
inline int64_t workspace_bytes(std::initializer_list<int64_t> factors) {
  constexpr int64_t cap = int64_t{1} << 62;
  int64_t bytes = 1;
  for (const int64_t f : factors) {
    if (f <= 0) return 0;
    if (bytes > cap / f) return cap;
    bytes *= f;
  }
  return bytes;
}

/// Throws ResourceError when `bytes` exceed what ExecSpace's memory can take: the host's
/// available memory and the ceiling (set_host_memory_limit, SPROCKET_MEMORY_LIMIT) on host
/// spaces, the device's free memory on CUDA.
template <class ExecSpace>
void require_space_memory(int64_t bytes, const std::string& what) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (is_cuda_space_v<ExecSpace>) {
    const int64_t free_bytes = cuda::device_free_bytes(ExecSpace());
    if (bytes > free_bytes)
      throw ResourceError(what + ": needs " + std::to_string(bytes) + " bytes, more than the " +
                              std::to_string(free_bytes) + " bytes free on the GPU",
                          bytes, free_bytes);
    return;
  }
#endif
  require_host_memory(bytes, what);
}

}  // namespace Impl
}  // namespace Sprocket
