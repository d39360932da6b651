// The access recorder of the CUDA emulation (sprocket_cuda_access_profile.hpp): small kernels
// whose memory traffic is known exactly, and the recorder's counts checked against the header's
// definitions by hand (sectors, useful bytes, bank-conflict wavefronts, active lanes, per-warp
// requests), plus what must not be recorded (a thread's private memory, the kernel's parameters,
// the read half of an atomic), the call sites' names and block sampling. This file is compiled
// with SPROCKET_CUDA_ACCESS_FLAGS (unit_tests/CMakeLists.txt), so its kernels' accesses are seen.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "impl/common/cuda/cuda_launch.hpp"
#include "sprocket_cuda_access_profile.hpp"

namespace {

using Sprocket::Impl::cuda::KernelLaunch;
namespace emu = Sprocket::cuda_emulation;
using emu::AccessKind;
using emu::AccessSpace;

KernelLaunch shape(unsigned grid, unsigned block, size_t shared_bytes = 0) {
  KernelLaunch l;
  l.grid = grid;
  l.block = block;
  l.shared_bytes = shared_bytes;
  return l;
}

/// "Device" memory: on the heap (not on the launching thread's stack, which the recorder treats
/// as the kernel's parameters) and 128-byte aligned, so that sector counts are exact.
template <class T>
class DeviceArray {
 public:
  static constexpr size_t alignment = 128;
  explicit DeviceArray(size_t n, T value = T{})
      : n_(n), data_(static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignment)))) {
    for (size_t i = 0; i < n_; ++i) new (data_ + i) T(value);
  }
  ~DeviceArray() { ::operator delete(data_, std::align_val_t(alignment)); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  size_t size() const { return n_; }

 private:
  size_t n_;
  T* data_;
};

/// A float4-like 16-byte value.
struct alignas(16) Float4 {
  float x, y, z, w;
};

/// Records exactly the launches `launch` makes (one expected) and returns the first.
template <class Launch>
emu::LaunchProfile record_one(Launch&& launch, unsigned sample_every = 1) {
  emu::AccessRecorder recorder;
  recorder.set_block_sampling(sample_every, 0);
  recorder.start();
  launch();
  recorder.stop();
  EXPECT_TRUE(emu::access_instrumentation_seen()) << "this file is not compiled with SPROCKET_CUDA_ACCESS_FLAGS";
  EXPECT_EQ(recorder.launches().size(), 1u);
  if (recorder.launches().empty()) return emu::LaunchProfile{};
  return recorder.launches()[0];
}

/// The one site of the launch with this kind and space (a failure and an empty site when there
/// is not exactly one).
emu::SiteProfile only_site(const emu::LaunchProfile& launch, AccessKind kind, AccessSpace space) {
  const emu::SiteProfile* found = nullptr;
  int count = 0;
  for (const emu::SiteProfile& s : launch.sites)
    if (s.kind == kind && s.space == space) {
      found = &s;
      ++count;
    }
  EXPECT_EQ(count, 1) << "sites of kind " << int(kind) << " in space " << int(space);
  return count == 1 ? *found : emu::SiteProfile{};
}

int count_sites(const emu::LaunchProfile& launch, AccessKind kind, AccessSpace space) {
  int count = 0;
  for (const emu::SiteProfile& s : launch.sites) count += s.kind == kind && s.space == space;
  return count;
}

// ---- kernels ---------------------------------------------------------------------------------
// The line of global_pattern_kernel's `b[t] = a[...]` (the site-naming test checks it).
constexpr int global_pattern_line = __LINE__ + 5;
/// Thread t reads a[Stride * t + Offset] and writes b[t].
template <class T, unsigned Stride, unsigned Offset>
__global__ void global_pattern_kernel(const T* a, T* b) {
  const unsigned t = threadIdx.x;
  b[t] = a[Stride * t + Offset];
}

/// Lanes below 8 copy one double.
__global__ void divergent_branch_kernel(const double* a, double* b) {
  const unsigned lane = threadIdx.x % 32;
  if (lane < 8) b[lane] = a[lane];
}

/// Lane i runs i iterations of the loop (the row k of a is 32 floats).
__global__ void divergent_loop_kernel(const float* a, float* b) {
  const unsigned lane = threadIdx.x % 32;
  float sum = 0.0f;
  for (unsigned k = 0; k < lane; ++k) sum += a[k * 32 + lane];
  b[lane] = sum;
}

/// Each lane stores in[lane] to s[Stride * lane] and, after a barrier, loads it back to out.
template <class T, unsigned Stride>
__global__ void shared_pattern_kernel(const T* in, T* out) {
  SPROCKET_CUDA_SHARED(T, s, [32 * 32]);
  const unsigned lane = threadIdx.x % 32;
  s[Stride * lane] = in[lane];
  __syncthreads();
  out[threadIdx.x] = s[Stride * lane];
}

/// Every thread adds 1 to one counter and exchanges a flag (the old value unused: the exchange's
/// read is optimized away and only its write remains), then copies a double.
__global__ void atomic_kernel(unsigned* counter, unsigned* flag, const double* a, double* b) {
  atomicAdd(counter, 1u);
  atomicExch(flag, threadIdx.x);
  b[threadIdx.x] = a[threadIdx.x];
}

/// Warp 0 loads 10 times, warp 1 once (the sums go to shared memory: no global store).
__global__ void uneven_warps_kernel(const double* a) {
  SPROCKET_CUDA_SHARED(double, sums, [64]);
  const unsigned t = threadIdx.x;
  const unsigned loads = t < 32 ? 10 : 1;
  double sum = 0.0;
  for (unsigned k = 0; k < loads; ++k) sum += a[k * 64 + t];
  sums[t] = sum;
}

/// Passed by value and larger than two registers: it lives in memory (the launching thread's
/// copy of the arguments, then the kernel thread's stack).
struct Params {
  const double* a;
  double* b;
  double scale[4];
};

/// Reads its by-value parameters (a runtime index keeps them in memory) and a local array on its
/// own stack (the same): only a[lane] and b[lane] are device memory.
__global__ void private_memory_kernel(Params p) {
  const unsigned lane = threadIdx.x % 32;
  double local[32];
  for (unsigned k = 0; k < 32; ++k) local[(lane + k) % 32] = p.scale[(lane + k) % 4] * k;
  p.b[lane] = local[(lane * 7) % 32] + p.a[lane];
}

/// b[t] += a[t]: a read-modify-write of b is a load and a store (y = beta y + ... in the kernels).
__global__ void read_modify_write_kernel(const double* a, double* b) {
  const unsigned t = threadIdx.x;
  b[t] += a[t];
}

// The lines of helper_calls_kernel's two reads through the device helper ldg (impl/common/cuda/
// cuda_device.cuh): each is its own site, named by the kernel's line, not the helper's.
constexpr int helper_first_line = __LINE__ + 4;
constexpr int helper_second_line = __LINE__ + 4;
__global__ void helper_calls_kernel(const double* a, const double* c, double* b) {
  const unsigned t = threadIdx.x;
  const double x = Sprocket::Impl::cuda::ldg(a + t);
  const double y = Sprocket::Impl::cuda::ldg(c + 2 * t);
  b[t] = x + y;
}

/// A warp sum by five __shfl_xor_sync rounds between two __syncthreads: per warp 5 warp-level
/// synchronizations, per block 2 barriers.
__global__ void reduction_kernel(const double* a, double* b) {
  const unsigned t = threadIdx.x;
  double v = a[t];
  __syncthreads();
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  __syncthreads();
  if (t % 32 == 0) b[t / 32] = v;
}

/// b[i] = a[i] over the grid.
__global__ void grid_copy_kernel(const double* a, double* b) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  b[i] = a[i];
}

// ---- tests -----------------------------------------------------------------------------------
// One block of 64 threads, thread i reads double a[i] and writes b[i]: per warp one request of 8
// sectors (256 bytes, 32-byte aligned), all 256 bytes useful, 32 active lanes.
TEST(CudaAccessProfile, CoalescedLoadsAndStores) {
  emu::Device device;
  DeviceArray<double> a(64, 1.0), b(64, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 64), stream_of(device), global_pattern_kernel<double, 1, 0>)(a.data(), b.data());
  });
  EXPECT_EQ(b[63], 1.0);
  EXPECT_EQ(l.kernel, "global_pattern_kernel<double, 1, 0>");
  EXPECT_EQ(l.grid, 1u);
  EXPECT_EQ(l.block, 64u);
  EXPECT_EQ(l.blocks_recorded, 1u);
  EXPECT_EQ(l.warps, 2u);
  EXPECT_EQ(l.global_load_requests, 2u);
  EXPECT_EQ(l.global_load_sectors, 16u);
  EXPECT_EQ(l.global_load_useful_bytes, 512u);
  EXPECT_EQ(l.global_store_requests, 2u);
  EXPECT_EQ(l.global_store_sectors, 16u);
  EXPECT_EQ(l.global_store_useful_bytes, 512u);
  EXPECT_EQ(l.atomic_requests, 0u);
  EXPECT_EQ(l.shared_requests, 0u);
  EXPECT_EQ(l.instructions, 4u);
  EXPECT_EQ(l.active_lanes, 4u * 32u);
  EXPECT_EQ(l.warp_requests_max, 2u);
  EXPECT_EQ(l.warp_requests_mean, 2.0);
  EXPECT_EQ(l.footprint_sectors, 32u);  // 512 bytes of a, 512 of b
  ASSERT_EQ(l.sites.size(), 2u);
  for (AccessKind kind : {AccessKind::load, AccessKind::store}) {
    const emu::SiteProfile s = only_site(l, kind, AccessSpace::global);
    EXPECT_EQ(s.bytes_per_lane, 8);
    EXPECT_EQ(s.instructions, 2u);
    EXPECT_EQ(s.active_lanes, 64u);
    EXPECT_EQ(s.sectors, 16u);
    EXPECT_EQ(s.sectors / s.instructions, 8u);
    EXPECT_EQ(s.useful_bytes, 512u);
    EXPECT_EQ(double(s.useful_bytes) / double(32 * s.sectors), 1.0);  // load / store efficiency
  }
}

// Lane i reads a[32 i]: every lane in its own sector.
TEST(CudaAccessProfile, StridedLoadsTouchASectorPerLane) {
  emu::Device device;
  DeviceArray<double> a(32 * 31 + 1, 1.0), b(32, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), global_pattern_kernel<double, 32, 0>)(a.data(), b.data());
  });
  const emu::SiteProfile load = only_site(l, AccessKind::load, AccessSpace::global);
  EXPECT_EQ(load.instructions, 1u);
  EXPECT_EQ(load.active_lanes, 32u);
  EXPECT_EQ(load.sectors, 32u);
  EXPECT_EQ(load.useful_bytes, 256u);
  EXPECT_EQ(l.global_load_requests, 1u);
  EXPECT_EQ(l.global_load_sectors, 32u);
  EXPECT_EQ(l.global_load_useful_bytes, 256u);
  EXPECT_EQ(l.global_store_sectors, 8u);
  EXPECT_EQ(l.footprint_sectors, 32u + 8u);
}

// Every lane reads a[0]: one sector, 8 useful bytes (a broadcast counts once).
TEST(CudaAccessProfile, BroadcastLoadIsOneSector) {
  emu::Device device;
  DeviceArray<double> a(1, 2.0), b(32, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), global_pattern_kernel<double, 0, 0>)(a.data(), b.data());
  });
  const emu::SiteProfile load = only_site(l, AccessKind::load, AccessSpace::global);
  EXPECT_EQ(load.instructions, 1u);
  EXPECT_EQ(load.active_lanes, 32u);
  EXPECT_EQ(load.sectors, 1u);
  EXPECT_EQ(load.useful_bytes, 8u);
  EXPECT_EQ(l.global_load_sectors, 1u);
  EXPECT_EQ(l.global_load_useful_bytes, 8u);
  EXPECT_EQ(l.footprint_sectors, 1u + 8u);
}

// Lane i reads float a[1 + i]: bytes 4..131 of a 128-byte aligned array, sectors 0..4.
TEST(CudaAccessProfile, MisalignedLoadCrossesIntoAFifthSector) {
  emu::Device device;
  DeviceArray<float> a(33, 1.0f), b(32, 0.0f);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), global_pattern_kernel<float, 1, 1>)(a.data(), b.data());
  });
  const emu::SiteProfile load = only_site(l, AccessKind::load, AccessSpace::global);
  EXPECT_EQ(load.bytes_per_lane, 4);
  EXPECT_EQ(load.instructions, 1u);
  EXPECT_EQ(load.sectors, 5u);
  EXPECT_EQ(load.useful_bytes, 128u);
  const emu::SiteProfile store = only_site(l, AccessKind::store, AccessSpace::global);
  EXPECT_EQ(store.sectors, 4u);
  EXPECT_EQ(store.useful_bytes, 128u);
}

// Only lanes 0..7 copy: 8 active lanes, 64 bytes in 2 sectors.
TEST(CudaAccessProfile, DivergentBranchCountsItsActiveLanes) {
  emu::Device device;
  DeviceArray<double> a(32, 1.0), b(32, 0.0);
  const emu::LaunchProfile l = record_one(
      [&] { SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), divergent_branch_kernel)(a.data(), b.data()); });
  for (AccessKind kind : {AccessKind::load, AccessKind::store}) {
    const emu::SiteProfile s = only_site(l, kind, AccessSpace::global);
    EXPECT_EQ(s.instructions, 1u);
    EXPECT_EQ(s.active_lanes, 8u);
    EXPECT_EQ(s.sectors, 2u);
    EXPECT_EQ(s.useful_bytes, 64u);
  }
  EXPECT_EQ(l.instructions, 2u);
  EXPECT_EQ(l.active_lanes, 16u);
}

// Lane i iterates i times: the k-th execution of the load (k = 0..30) is one warp instruction
// whose active lanes are k+1..31, so 31 instructions and 31 + 30 + ... + 1 = 496 active lanes.
// Instruction k reads bytes 4(k+1)..127 of row k (128-byte aligned): 4 - floor((k+1)/8) sectors,
// 124 - (8 + 16 + 24) = 76 in all.
TEST(CudaAccessProfile, DivergentLoopIsOneInstructionPerIterationOfAnyLane) {
  emu::Device device;
  DeviceArray<float> a(32 * 32, 1.0f), b(32, -1.0f);
  const emu::LaunchProfile l = record_one(
      [&] { SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), divergent_loop_kernel)(a.data(), b.data()); });
  EXPECT_EQ(b[31], 31.0f);
  const emu::SiteProfile load = only_site(l, AccessKind::load, AccessSpace::global);
  EXPECT_EQ(load.instructions, 31u);
  EXPECT_EQ(load.active_lanes, 496u);
  EXPECT_EQ(load.sectors, 76u);
  EXPECT_EQ(load.useful_bytes, 4u * 496u);
  const emu::SiteProfile store = only_site(l, AccessKind::store, AccessSpace::global);
  EXPECT_EQ(store.instructions, 1u);
  EXPECT_EQ(store.active_lanes, 32u);
  EXPECT_EQ(l.global_load_requests, 31u);
  EXPECT_EQ(l.instructions, 32u);
  EXPECT_EQ(l.active_lanes, 496u + 32u);
  EXPECT_EQ(l.warp_requests_max, 32u);
}

/// One warp of shared_pattern_kernel<T, Stride>: the shared store and load each have the given
/// wavefronts and ideal wavefronts.
template <class T, unsigned Stride>
void expect_shared_wavefronts(uint64_t wavefronts, uint64_t ideal) {
  SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte values at stride " + std::to_string(Stride));
  emu::Device device;
  DeviceArray<T> in(32), out(32);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), shared_pattern_kernel<T, Stride>)(in.data(), out.data());
  });
  for (AccessKind kind : {AccessKind::store, AccessKind::load}) {
    const emu::SiteProfile s = only_site(l, kind, AccessSpace::shared);
    EXPECT_EQ(s.bytes_per_lane, static_cast<int>(sizeof(T))) << int(kind);
    EXPECT_EQ(s.instructions, 1u) << int(kind);
    EXPECT_EQ(s.active_lanes, 32u) << int(kind);
    EXPECT_EQ(s.wavefronts, wavefronts) << int(kind);
    EXPECT_EQ(s.ideal_wavefronts, ideal) << int(kind);
    EXPECT_EQ(s.sectors, 0u) << int(kind);
  }
  EXPECT_EQ(l.shared_requests, 2u);
  EXPECT_EQ(l.shared_wavefronts, 2 * wavefronts);
  EXPECT_EQ(l.shared_ideal_wavefronts, 2 * ideal);
  EXPECT_EQ(l.global_load_requests, 1u);  // in[lane]
  EXPECT_EQ(l.global_store_requests, 1u);  // out[lane]
}

// Wavefronts per phase = the most distinct 4-byte words in one bank (word % 32); phases of 32,
// 16 and 8 lanes for 4-, 8- and 16-byte accesses.
TEST(CudaAccessProfile, SharedMemoryBankConflicts) {
  // 4 bytes, one phase: words l (1 per bank), 2l (banks 0, 2, ..: 2 each), 32l (all in bank 0),
  // all lanes word 0 (a broadcast: one word).
  expect_shared_wavefronts<float, 1>(1, 1);
  expect_shared_wavefronts<float, 2>(2, 1);
  expect_shared_wavefronts<float, 32>(32, 1);
  expect_shared_wavefronts<float, 0>(1, 1);
  // 8 bytes, two phases of 16 lanes: stride 1 covers words 0..31 per phase (1 each: no conflict);
  // stride 2 words 4l, 4l+1 (l < 16) put 2 words in banks 0, 1, 4, 5, ..; stride 32 words 64l,
  // 64l+1 put all 16 lanes in banks 0 and 1; the broadcast is one word pair per phase.
  expect_shared_wavefronts<double, 1>(2, 2);
  expect_shared_wavefronts<double, 2>(4, 2);
  expect_shared_wavefronts<double, 32>(32, 2);
  expect_shared_wavefronts<double, 0>(2, 2);
  // 16 bytes, four phases of 8 lanes: stride 1 covers words 0..31 per phase; stride 2 words
  // 8l..8l+3 (l < 8) put 2 words in banks 0..3, 8..11, ..
  expect_shared_wavefronts<Float4, 1>(4, 4);
  expect_shared_wavefronts<Float4, 2>(8, 4);
}

// atomicAdd and atomicExch by 64 threads on one word each: an atomic request per warp and
// operation (one sector), the read half of a read-modify-write not a load: the only load is a[t].
TEST(CudaAccessProfile, AtomicsAreNotLoads) {
  emu::Device device;
  DeviceArray<unsigned> counter(1, 0u), flag(1, 1000u);
  DeviceArray<double> a(64, 1.0), b(64, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 64), stream_of(device), atomic_kernel)(counter.data(), flag.data(), a.data(),
                                                                           b.data());
  });
  EXPECT_EQ(counter[0], 64u);
  EXPECT_LT(flag[0], 64u);
  EXPECT_EQ(l.atomic_requests, 4u);
  EXPECT_EQ(l.atomic_sectors, 4u);
  EXPECT_EQ(l.global_load_requests, 2u);
  EXPECT_EQ(l.global_load_sectors, 16u);
  EXPECT_EQ(l.global_load_useful_bytes, 512u);
  EXPECT_EQ(l.global_store_requests, 2u);
  EXPECT_EQ(l.requests(), 8u);
  EXPECT_EQ(l.sectors(), 36u);
  EXPECT_EQ(l.instructions, 8u);
  EXPECT_EQ(l.active_lanes, 8u * 32u);
  EXPECT_EQ(l.warp_requests_max, 4u);
  ASSERT_EQ(l.sites.size(), 4u);
  EXPECT_EQ(count_sites(l, AccessKind::load, AccessSpace::global), 1);
  EXPECT_EQ(count_sites(l, AccessKind::store, AccessSpace::global), 1);
  EXPECT_EQ(count_sites(l, AccessKind::atomic, AccessSpace::global), 2);
  for (const emu::SiteProfile& s : l.sites) {
    if (s.kind != AccessKind::atomic) continue;
    EXPECT_EQ(s.bytes_per_lane, 4) << s.where;
    EXPECT_EQ(s.instructions, 2u) << s.where;
    EXPECT_EQ(s.active_lanes, 64u) << s.where;
    EXPECT_EQ(s.sectors, 2u) << s.where;
    EXPECT_EQ(s.useful_bytes, 8u) << s.where;
    // Named where the kernel calls the atomic, not inside the emulation's header.
    EXPECT_EQ(s.where.rfind("test_cuda_access_profile.cpp:", 0), 0u) << s.where;
  }
}

// Warp 0 issues 10 load requests, warp 1 one: busiest 10, mean 5.5.
TEST(CudaAccessProfile, PerWarpRequests) {
  emu::Device device;
  DeviceArray<double> a(10 * 64, 1.0);
  const emu::LaunchProfile l = record_one(
      [&] { SPROCKET_CUDA_LAUNCH(shape(1, 64), stream_of(device), uneven_warps_kernel)(a.data()); });
  EXPECT_EQ(l.warps, 2u);
  EXPECT_EQ(l.global_load_requests, 11u);
  EXPECT_EQ(l.global_load_sectors, 11u * 8u);
  EXPECT_EQ(l.global_store_requests, 0u);
  EXPECT_EQ(l.warp_requests_max, 10u);
  EXPECT_EQ(l.warp_requests_mean, 5.5);
  EXPECT_EQ(l.shared_requests, 2u);  // sums[t], 8 bytes: 2 phases per warp
  EXPECT_EQ(l.shared_wavefronts, 4u);
  EXPECT_EQ(l.shared_ideal_wavefronts, 4u);
  const emu::SiteProfile load = only_site(l, AccessKind::load, AccessSpace::global);
  EXPECT_EQ(load.instructions, 11u);
  EXPECT_EQ(load.active_lanes, 11u * 32u);
}

// The kernel's parameters and its local array are private: only a[lane] and b[lane] are seen.
TEST(CudaAccessProfile, PrivateMemoryIsNotRecorded) {
  emu::Device device;
  DeviceArray<double> a(32, 1.0), b(32, 0.0);
  const Params p{a.data(), b.data(), {1.0, 2.0, 3.0, 4.0}};
  const emu::LaunchProfile l =
      record_one([&] { SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), private_memory_kernel)(p); });
  EXPECT_NE(b[0], 0.0);
  ASSERT_EQ(l.sites.size(), 2u);
  const emu::SiteProfile load = only_site(l, AccessKind::load, AccessSpace::global);
  EXPECT_EQ(load.bytes_per_lane, 8);
  EXPECT_EQ(load.instructions, 1u);
  EXPECT_EQ(load.sectors, 8u);
  const emu::SiteProfile store = only_site(l, AccessKind::store, AccessSpace::global);
  EXPECT_EQ(store.instructions, 1u);
  EXPECT_EQ(l.global_load_requests, 1u);
  EXPECT_EQ(l.global_store_requests, 1u);
  EXPECT_EQ(l.shared_requests, 0u);
  EXPECT_EQ(l.instructions, 2u);
  EXPECT_EQ(l.footprint_sectors, 16u);
}

// A site is named by this file and the line of the access.
TEST(CudaAccessProfile, SitesNameFileAndLine) {
  emu::Device device;
  DeviceArray<double> a(32, 1.0), b(32, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), global_pattern_kernel<double, 1, 0>)(a.data(), b.data());
  });
  const std::string expected = "test_cuda_access_profile.cpp:" + std::to_string(global_pattern_line) + " ";
  ASSERT_EQ(l.sites.size(), 2u);
  for (const emu::SiteProfile& s : l.sites) {
    EXPECT_EQ(s.where.rfind(expected, 0), 0u) << s.where << " (expected " << expected << "...)";
    EXPECT_NE(s.pc, 0u);
  }
}

// b[t] += a[t] on one warp: two loads (b and a) and the store of b, each one coalesced request.
TEST(CudaAccessProfile, ReadModifyWriteIsALoadAndAStore) {
  emu::Device device;
  DeviceArray<double> a(32, 1.0), b(32, 2.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), read_modify_write_kernel)(a.data(), b.data());
  });
  EXPECT_EQ(b[31], 3.0);
  EXPECT_EQ(l.global_load_requests, 2u);
  EXPECT_EQ(l.global_load_sectors, 16u);
  EXPECT_EQ(l.global_store_requests, 1u);
  EXPECT_EQ(l.global_store_sectors, 8u);
  EXPECT_EQ(count_sites(l, AccessKind::load, AccessSpace::global), 2);
  EXPECT_EQ(l.footprint_sectors, 16u);
}

// Two reads through the same device helper are two sites, named by the kernel's lines, with the
// strided one's sectors apart from the coalesced one's.
TEST(CudaAccessProfile, HelperCallsAreNamedByTheirCaller) {
  emu::Device device;
  DeviceArray<double> a(32, 1.0), c(64, 2.0), b(32, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), helper_calls_kernel)(a.data(), c.data(), b.data());
  });
  EXPECT_EQ(b[0], 3.0);
  ASSERT_EQ(count_sites(l, AccessKind::load, AccessSpace::global), 2);
  for (const emu::SiteProfile& s : l.sites) {
    if (s.kind != AccessKind::load) continue;
    const bool first = s.where.rfind("test_cuda_access_profile.cpp:" + std::to_string(helper_first_line) + " ", 0) == 0;
    const bool second = s.where.rfind("test_cuda_access_profile.cpp:" + std::to_string(helper_second_line) + " ", 0) == 0;
    EXPECT_TRUE(first || second) << s.where;
    EXPECT_EQ(s.sectors, first ? 8u : 16u) << s.where;
  }
}

// Two blocks of two warps: 5 shuffles per warp (20 in all), 2 barriers per block (4).
TEST(CudaAccessProfile, ShufflesAndBarriersAreCounted) {
  emu::Device device;
  DeviceArray<double> a(128, 1.0), b(4, 0.0);
  const emu::LaunchProfile l = record_one([&] {
    SPROCKET_CUDA_LAUNCH(shape(2, 64), stream_of(device), reduction_kernel)(a.data(), b.data());
  });
  EXPECT_EQ(b[0], 32.0);
  EXPECT_EQ(l.warps, 4u);
  EXPECT_EQ(l.warp_syncs, 20u);
  EXPECT_EQ(l.barriers, 4u);
  EXPECT_EQ(l.global_load_requests, 4u);   // one per warp
  EXPECT_EQ(l.global_store_requests, 4u);  // lane 0 of each warp
  EXPECT_EQ(l.active_lanes, 4u * 32u + 4u);
}

// Sampling every 4th block of a grid of 8 runs and records blocks 2 and 6 only.
TEST(CudaAccessProfile, BlockSamplingRecordsEveryNthBlock) {
  emu::Device device;
  DeviceArray<double> a(8 * 32, 1.0), b(8 * 32, 0.0);
  const emu::LaunchProfile l = record_one(
      [&] { SPROCKET_CUDA_LAUNCH(shape(8, 32), stream_of(device), grid_copy_kernel)(a.data(), b.data()); }, 4);
  EXPECT_EQ(l.grid, 8u);
  EXPECT_EQ(l.blocks_recorded, 2u);
  EXPECT_EQ(l.warps, 2u);
  EXPECT_EQ(l.global_load_requests, 2u);
  EXPECT_EQ(l.global_store_requests, 2u);
  EXPECT_EQ(l.footprint_sectors, 4u * 8u);
  for (unsigned block = 0; block < 8; ++block)
    EXPECT_EQ(b[block * 32], block == 2 || block == 6 ? 1.0 : 0.0) << "block " << block;
}

}  // namespace
