#pragma once
// Memory-access recording for the CPU emulation of the CUDA kernels (sprocket_cuda_emulation.hpp):
// what a GPU's memory system would see of an emulated launch, per warp instruction.
//
// How accesses are seen. A translation unit that launches kernels is compiled with GCC's
// kernel-address instrumentation in its outline form (SPROCKET_CUDA_ACCESS_FLAGS in
// cmake/SprocketCudaEmulation.cmake): every load and store the compiler emits calls
// __asan_{load,store}{1,2,4,8,16,N}_noabort(address), which this recorder defines (no sanitizer
// runtime is linked). The caller's address is the call site. An access is kept when it happens
// inside an emulated kernel thread (a fiber) and touches neither that fiber's stack (a CUDA
// thread's registers and local memory), the launching thread's stack (the kernel's parameters)
// nor the emulation's own state (threadIdx and friends); it is shared memory when it falls in
// the running block's static or dynamic shared memory, global memory otherwise. Atomics are the
// emulation's read-modify-writes (sprocket_cuda_emulation.hpp), told apart when the call sites
// are named.
//
// Warp instructions. Each lane's accesses are kept in program order; the k-th execution of call
// site S by the lanes of one warp is one warp instruction, whose active lanes are the lanes that
// executed S at least k times. That is how a SIMT machine runs structured code (a lane that left
// a loop early is inactive in the later iterations).
//
// Counts (Nsight Compute's names where it has them), per launch and per call site:
//   requests       global-memory warp instructions;
//   sectors        distinct 32-byte sectors an instruction touches, summed over instructions;
//   useful bytes   distinct bytes an instruction's active lanes asked for (a broadcast counts once);
//   wavefronts     shared-memory cycles: per phase (32 lanes for <= 4-byte accesses, 16 for 8-byte,
//                  8 for 16-byte), the most distinct 4-byte words any one bank holds; ideal is one
//                  per phase, so wavefronts / ideal is the average bank-conflict way count;
//   active lanes   summed over all memory instructions (/ 32 / instructions: the active fraction);
//   warp requests  global requests per warp: the busiest warp's and the mean (the critical path),
//                  and the most sectors any one warp fetched;
//   footprint      distinct sectors of the launch (and of everything recorded since start());
//   synchronization  warp-level synchronizing instructions (shuffles, ballots, __syncwarp) and
//                  __syncthreads barriers, which the memory counts do not show.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace Sprocket {
namespace cuda_emulation {

struct LaunchInfo;

enum class AccessKind : uint8_t { load = 0, store = 1, atomic = 2 };
enum class AccessSpace : uint8_t { global = 0, shared = 1 };

/// One call site of a launch.
struct SiteProfile {
  uintptr_t pc = 0;        // return address of the instrumentation call
  std::string where;       // file:line (function), filled by symbolize()
  AccessKind kind = AccessKind::load;
  AccessSpace space = AccessSpace::global;
  int bytes_per_lane = 0;  // access size (the largest seen at this site)
  uint64_t instructions = 0;
  uint64_t active_lanes = 0;
  uint64_t sectors = 0;         // global
  uint64_t useful_bytes = 0;    // global
  uint64_t wavefronts = 0;      // shared
  uint64_t ideal_wavefronts = 0;
};

/// One launch: totals over its sites, and the per-warp critical path.
struct LaunchProfile {
  std::string kernel;       // the kernel expression as the launcher writes it
  std::string launched_at;  // the launcher's file:line
  unsigned grid = 0, block = 0;
  size_t shared_bytes = 0;
  uint64_t blocks_recorded = 0;  // < grid when blocks were sampled
  uint64_t warps = 0;            // warps recorded
  uint64_t global_load_requests = 0, global_store_requests = 0, atomic_requests = 0;
  uint64_t global_load_sectors = 0, global_store_sectors = 0, atomic_sectors = 0;
  uint64_t global_load_useful_bytes = 0, global_store_useful_bytes = 0;
  uint64_t shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
  uint64_t instructions = 0, active_lanes = 0;  // every recorded memory instruction
  uint64_t warp_requests_max = 0;               // global requests of the busiest warp
  double warp_requests_mean = 0;
  uint64_t warp_sectors_max = 0;                // global sectors of the warp with the most
  uint64_t footprint_sectors = 0;  // distinct global sectors of this launch
  /// Warp-level synchronizing instructions (shuffles, ballots, __syncwarp: per warp the most any
  /// lane executed, summed over warps) and __syncthreads barriers (per block, summed over blocks):
  /// instructions the memory counts do not show (reductions).
  uint64_t warp_syncs = 0, barriers = 0;
  std::vector<SiteProfile> sites;

  uint64_t requests() const { return global_load_requests + global_store_requests + atomic_requests; }
  uint64_t sectors() const { return global_load_sectors + global_store_sectors + atomic_sectors; }
};

/// Records every emulated launch between start() and stop() (one recorder active at a time).
/// Block sampling: with sample_every = n > 1 only blocks b with b % n == n / 2 ... run (see
/// set_block_sampling); their counts stand for the grid's, scaled by the caller.
class AccessRecorder {
 public:
  AccessRecorder();
  ~AccessRecorder();
  AccessRecorder(const AccessRecorder&) = delete;
  AccessRecorder& operator=(const AccessRecorder&) = delete;

  void start();
  void stop();
  /// Run (and record) only every n-th block of each launch whose grid has more than
  /// `min_grid` blocks (n = 1: every block). Blocks not run write nothing: only for profiling
  /// launches whose results nothing reads.
  void set_block_sampling(unsigned every_nth, unsigned min_grid);
  const std::vector<LaunchProfile>& launches() const { return launches_; }
  /// Distinct global sectors over every launch since start().
  uint64_t footprint_sectors() const;

  // The emulation's hooks (sprocket_cuda_emulation.cpp).
  struct Impl;
  Impl* impl() { return impl_; }

 private:
  Impl* impl_;
  std::vector<LaunchProfile> launches_;
  friend struct Impl;
};

/// The unqualified name of a function, demangled ("void Sprocket::Impl::cuda::spmv_kernel<4>(...)")
/// or Itanium-mangled ("_ZN8Sprocket4Impl4cuda11spmv_kernelILi4EEEvv"): "spmv_kernel".
std::string unqualified_name(const std::string& function);

/// True when this executable's launching code was compiled with the access instrumentation
/// (a recorder in a program without it records nothing).
bool access_instrumentation_seen();

// ---- hooks between the emulation's scheduler and the recorder ---------------------------------
namespace detail {
/// Called by run_grid; null when no recorder is active.
struct EmulationObserver {
  virtual ~EmulationObserver() = default;
  virtual void launch_begin(const LaunchInfo& info) = 0;
  /// False: skip block b (not run at all).
  virtual bool block_begin(unsigned block, unsigned threads) = 0;
  virtual void block_end() = 0;
  virtual void launch_end() = 0;
  /// Thread `thread` of the running block reached a synchronization point: __syncthreads
  /// (`block_wide`), or a warp-level one (a shuffle, __ballot_sync, __syncwarp).
  virtual void synchronization(unsigned thread, bool block_wide) = 0;
};
void set_emulation_observer(EmulationObserver* observer);

enum class AddressClass : uint8_t { outside_kernel, private_memory, shared, global };
/// Where an access of the running code goes; `thread` is the running thread of the block.
AddressClass classify_access(uintptr_t address, int* thread);
}  // namespace detail

}  // namespace cuda_emulation
}  // namespace Sprocket
