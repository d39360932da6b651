#pragma once
// sprocket-cuda-profile (perf_tests/sprocket_cuda_profile.cpp): one apply of a plan's CUDA
// kernels run in the CPU emulation with every memory access recorded
// (unit_tests/cuda_emulation/sprocket_cuda_access_profile.hpp), the counts a GPU profiler would
// report, and an H100 time estimate from them (cuda_profile_model.hpp). docs/cuda-profile.md.
//
// The drivers (profile_<kernel>.cpp, one per kernel family) build the analysis the plan builds on
// Kokkos::Cuda, in host memory, and run the real launcher (Impl::cuda::<kernel>_apply) on the
// emulated device with an H100's shape (132 multiprocessors, grids unclamped). They are the only
// translation units compiled with the access instrumentation.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"
#include "sprocket_cuda_access_profile.hpp"

namespace Sprocket {
namespace cuda_profile {

/// What to profile: one apply of `kernel` on `matrix` (a file or gen: spec), in double with int
/// offsets and int ordinals (the recorded GPU runs' types).
struct ProfileRequest {
  std::string kernel;             // spmv | bsr | spmm | sddmm | spgemm
  std::string matrix;             // as given (for the output)
  std::string variant = "auto";   // sprocket-bench's --variant names of that kernel
  int k = 32;                     // spmm / sddmm: dense columns
  std::string layout = "right";   // spmm / sddmm: dense operands' layout (left | right)
  unsigned sample_every = 1;      // record every n-th block of large grids only (1: every block)
  /// spgemm: "" records what sprocket-bench's `seconds` covers (the plan and the first numeric
  /// pass); "numeric" only the numeric re-run on the plan's structure (its `numeric_seconds`).
  std::string phase;
};

/// One apply as recorded.
struct ApplyProfile {
  std::string kernel, matrix, variant;
  std::string chosen;  // what the plan's analysis chose (kernel / schedule names)
  int k = 0;
  std::string layout;
  int64_t rows = 0, cols = 0, nnz = 0;
  unsigned sample_every = 1;
  std::vector<cuda_emulation::LaunchProfile> launches;
  uint64_t footprint_sectors = 0;  // distinct global sectors of the whole apply
  std::string note;                // anything the reader must know (sampling, launches left out)
  /// Why no launch was recorded (empty when one was): the apply ran nothing the emulation records
  /// (a portable Kokkos kernel) or launched nothing, so its counts and time are not measured and
  /// the tool prints them as such, never as zeros. profile() also says it in `note`.
  std::string not_profiled;
};

/// Thrown for a request a driver cannot profile (a variant that launches no hand-written CUDA
/// kernel, such as `portable`). An unknown variant name is the library's InvalidArgument.
struct NotProfilable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

ApplyProfile profile_spmv(const ProfileRequest& request, const HostCsr& A);
ApplyProfile profile_bsr(const ProfileRequest& request, const HostCsr& A);
ApplyProfile profile_spmm(const ProfileRequest& request, const HostCsr& A);
ApplyProfile profile_sddmm(const ProfileRequest& request, const HostCsr& A);
ApplyProfile profile_spgemm(const ProfileRequest& request, const HostCsr& A);

/// Dispatches on request.kernel (loads the matrix); an apply without a recorded launch comes back
/// with not_profiled set.
ApplyProfile profile(const ProfileRequest& request);

}  // namespace cuda_profile
}  // namespace Sprocket
