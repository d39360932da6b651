// The CPU emulation of CUDA kernels itself (unit_tests/cuda_emulation/): thread coordinates,
// CUDA's shuffle rules (width, out-of-range lanes, lanes outside the mask), barriers under every
// schedule, fresh shared memory, and each diagnosis of what CUDA leaves undefined. The kernels
// here are small free functions written for these tests; the project's kernels have their own
// emulated tests (test_*_cuda_emulated).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "impl/common/cuda/cuda_launch.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using Sprocket::Impl::cuda::KernelLaunch;
namespace emu = Sprocket::cuda_emulation;

KernelLaunch shape(unsigned grid, unsigned block, size_t shared_bytes = 0, unsigned bound = 1024) {
  KernelLaunch l;
  l.grid = grid;
  l.block = block;
  l.shared_bytes = shared_bytes;
  l.launch_bound = bound;
  return l;
}

/// Runs f (which launches on the given stream) and returns the EmulationError's text ("" if none).
template <class F>
std::string diagnosis(F&& f) {
  try {
    f();
  } catch (const emu::EmulationError& e) {
    return e.what();
  }
  return "";
}

// ---- kernels ---------------------------------------------------------------------------------
__global__ void coordinates_kernel(int* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[4 * i + 0] = static_cast<int>(threadIdx.x);
  out[4 * i + 1] = static_cast<int>(blockIdx.x);
  out[4 * i + 2] = static_cast<int>(blockDim.x);
  out[4 * i + 3] = static_cast<int>(gridDim.x);
}

/// out[kind][lane] for lane values 100 + lane.
__global__ void shuffle_kernel(double* out, int width, int delta) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const double v = 100.0 + lane;
  out[0 * 32 + lane] = __shfl_sync(0xffffffffu, v, delta, width);
  out[1 * 32 + lane] = __shfl_up_sync(0xffffffffu, v, delta, width);
  out[2 * 32 + lane] = __shfl_down_sync(0xffffffffu, v, delta, width);
  out[3 * 32 + lane] = __shfl_xor_sync(0xffffffffu, v, delta, width);
}

/// Lanes 0..15 only, reading lane 20 (outside their mask).
__global__ void shuffle_outside_mask_kernel(float* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (lane < 16) out[lane] = __shfl_sync(0x0000ffffu, 1.0f + lane, 20);
}

/// Block sum through shared memory: per-warp butterflies, one value per warp, barrier, warp 0 adds.
template <bool WithBarrier>
__global__ void block_sum_kernel(const double* in, double* out) {
  SPROCKET_CUDA_SHARED(double, warp_sums, [32]);
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  double v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (lane == 0) warp_sums[warp] = v;
  if (WithBarrier) __syncthreads();
  if (warp == 0) {
    const int warps = static_cast<int>(blockDim.x / 32);
    double w = lane < warps ? warp_sums[lane] : 0.0;
    for (int o = 16; o > 0; o /= 2) w += __shfl_xor_sync(0xffffffffu, w, o);
    if (lane == 0) out[blockIdx.x] = w;
  }
}

/// block_sum_kernel<WithBarrier> on one block of 64 threads: one kernel expression for both instances.
template <bool WithBarrier>
void launch_block_sum(const emu::Device& device, const double* in, double* out) {
  SPROCKET_CUDA_LAUNCH(shape(1, 64), stream_of(device), block_sum_kernel<WithBarrier>)(in, out);
}

/// Each thread reads its shared slot before anything writes it.
__global__ void fresh_shared_kernel(float* out, int* first) {
  SPROCKET_CUDA_SHARED(float, slots, [64]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = slots[threadIdx.x];
  if (threadIdx.x == 0) *first = 1;
  slots[threadIdx.x] = 1.0f;
  float* dynamic = SPROCKET_CUDA_DYNAMIC_SHARED(float);
  out[gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x] = dynamic[threadIdx.x];
  dynamic[threadIdx.x] = 2.0f;
}

/// Records the order in which warps first run.
__global__ void order_kernel(int* order, int* next) {
  if (threadIdx.x % 32 == 0) order[(*next)++] = static_cast<int>(threadIdx.x / 32);
}

__global__ void mask_without_self_kernel(float* out) {
  if (threadIdx.x == 3) out[0] = __shfl_down_sync(0x1u, 1.0f, 1);
}

__global__ void exited_lane_kernel(float* out) {
  if (threadIdx.x == 5) return;
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}

__global__ void different_shuffles_kernel(float* out) {
  float v = 1.0f;
  if (threadIdx.x < 16)
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  else
    v = __shfl_xor_sync(0xffffffffu, v, 2);
  out[threadIdx.x] = v;
}

__global__ void divergent_barrier_kernel(float* out) {
  if (threadIdx.x < 40)
    __syncthreads();
  else
    __syncthreads();
  out[threadIdx.x] = 1.0f;
}

__global__ void barrier_after_exit_kernel(float* out) {
  if (threadIdx.x >= 60) return;
  __syncthreads();
  out[threadIdx.x] = 1.0f;
}

__global__ void syncwarp_subset_kernel(float* out) {
  // Lanes 0..7 synchronize as a group while lanes 8..31 have exited: allowed (exited lanes of a
  // __syncwarp mask are excepted).
  if (threadIdx.x >= 8) return;
  out[threadIdx.x] = 1.0f;
  __syncwarp(0xffffffffu);
  out[8 + threadIdx.x] = out[threadIdx.x] + out[(threadIdx.x + 1) % 8];
}

__global__ void overflow_dynamic_kernel(float* out) {
  float* dynamic = SPROCKET_CUDA_DYNAMIC_SHARED(float);
  dynamic[threadIdx.x] = 1.0f;  // 32 threads, 16 floats requested
  out[threadIdx.x] = 0.0f;
}

/// Each lane votes lane % 3 == 0; lanes 0..15 then vote again among themselves.
__global__ void ballot_kernel(unsigned* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  out[threadIdx.x] = __ballot_sync(0xffffffffu, lane % 3 == 0);
  if (lane < 16) out[64 + threadIdx.x] = __ballot_sync(0x0000ffffu, lane >= 10);
}

__global__ void ballot_exited_lane_kernel(unsigned* out) {
  if (threadIdx.x == 7) return;
  out[threadIdx.x] = __ballot_sync(0xffffffffu, 1);
}

/// Every thread adds to shared counters with the integer atomics; one thread reports.
__global__ void atomics_kernel(unsigned long long* out) {
  SPROCKET_CUDA_SHARED(unsigned, bits, [4]);
  SPROCKET_CUDA_SHARED(int, values, [4]);
  SPROCKET_CUDA_SHARED(unsigned long long, wide, [2]);
  const int t = static_cast<int>(threadIdx.x);
  if (t == 0) {
    for (int i = 0; i < 4; ++i) bits[i] = 0u;
    values[0] = 0;               // max
    values[1] = 1 << 30;         // min
    values[2] = -1;              // CAS winner
    values[3] = 0;               // exchanges
    wide[0] = 0;
    wide[1] = 0;
  }
  __syncthreads();
  atomicOr(bits + t / 32 % 4, 1u << (t % 32));
  atomicMax(values + 0, t * 7 % 101);
  atomicMin(values + 1, 1000 - t);
  atomicCAS(values + 2, -1, t);
  atomicExch(values + 3, 5);
  atomicMax(wide + 0, static_cast<unsigned long long>(t) << 40);
  atomicAdd(wide + 1, 1ull);
  __syncthreads();
  if (t == 0) {
    out[0] = static_cast<unsigned long long>(__popc(bits[0])) + __popc(bits[1]) + __popc(bits[2]) + __popc(bits[3]);
    out[1] = static_cast<unsigned long long>(values[0]);
    out[2] = static_cast<unsigned long long>(values[1]);
    out[3] = static_cast<unsigned long long>(values[2]);
    out[4] = static_cast<unsigned long long>(values[3]);
    out[5] = wide[0];
    out[6] = wide[1];
    out[7] = static_cast<unsigned long long>(__ffs(0x50) + __clz(1) + __popcll(~0ull) + __umulhi(0x80000000u, 6u));
  }
}

// ---- tests -----------------------------------------------------------------------------------
TEST(CudaEmulation, ThreadCoordinatesCoverTheGridOnce) {
  for (const emu::Schedule& schedule : emu::standard_schedules(Sprocket::test::seed_for(1))) {
    SCOPED_TRACE(schedule.name());
    emu::Device device(schedule);
    const unsigned grid = 3, block = 70;  // a partial last warp
    std::vector<int> out(4 * grid * block, -1);
    SPROCKET_CUDA_LAUNCH(shape(grid, block), stream_of(device), coordinates_kernel)(out.data());
    for (unsigned i = 0; i < grid * block; ++i) {
      ASSERT_EQ(out[4 * i + 0], static_cast<int>(i % block));
      ASSERT_EQ(out[4 * i + 1], static_cast<int>(i / block));
      ASSERT_EQ(out[4 * i + 2], static_cast<int>(block));
      ASSERT_EQ(out[4 * i + 3], static_cast<int>(grid));
    }
    ASSERT_EQ(device.stream.history.size(), 1u);
    EXPECT_EQ(device.stream.history[0].kernel, "coordinates_kernel");
    EXPECT_EQ(device.stream.history[0].instance, "coordinates_kernel");
  }
}

// A launch records the instance that ran, template arguments and all: the two instances of one
// template launched by the same expression are told apart.
TEST(CudaEmulation, LaunchesRecordTheKernelInstance) {
  std::vector<double> in(64, 1.0), out(1, 0.0);
  emu::Device device;
  launch_block_sum<true>(device, in.data(), out.data());
  launch_block_sum<false>(device, in.data(), out.data());
  ASSERT_EQ(device.stream.history.size(), 2u);
  EXPECT_EQ(device.stream.history[0].kernel, "block_sum_kernel<WithBarrier>");
  EXPECT_EQ(device.stream.history[1].kernel, "block_sum_kernel<WithBarrier>");
  EXPECT_EQ(device.stream.history[0].instance, "block_sum_kernel<true>");
  EXPECT_EQ(device.stream.history[1].instance, "block_sum_kernel<false>");
  EXPECT_EQ(device.stream.history[1].instance, emu::kernel_instance<block_sum_kernel<false>>());
}

// Instance names drop every namespace and class qualifier, in the template arguments too, from
// what GCC and Clang write.
TEST(CudaEmulation, InstanceNamesWithoutQualifiers) {
  EXPECT_EQ(emu::kernel_instance_name("const string& Sprocket::cuda_emulation::kernel_instance() [with auto Kernel = "
                                      "Sprocket::Impl::cuda::spmv_subvector_kernel<4, int, "
                                      "Sprocket::Impl::cuda::SpmvStoredColumns<int>, int, float, float>; "
                                      "std::string = std::__cxx11::basic_string<char>]"),
            "spmv_subvector_kernel<4, int, SpmvStoredColumns<int>, int, float, float>");
  EXPECT_EQ(emu::kernel_instance_name("const std::string &Sprocket::cuda_emulation::kernel_instance() [Kernel = "
                                      "&Sprocket::Impl::cuda::spmv_row_blocks_kernel<true, unsigned long, int, "
                                      "double, double>]"),
            "spmv_row_blocks_kernel<true, unsigned long, int, double, double>");
  EXPECT_EQ(emu::kernel_instance_name("const string& f() [with auto Kernel = {anonymous}::k<(anonymous "
                                      "namespace)::T, Outer<int>::Inner>]"),
            "k<T, Inner>");
}

TEST(CudaEmulation, ShufflesFollowCudaWidthAndRangeRules) {
  emu::Device device;
  for (int width : {1, 2, 8, 32})
    for (int delta : {0, 1, 3, 5, 17}) {
      SCOPED_TRACE("width " + std::to_string(width) + " delta " + std::to_string(delta));
      std::vector<double> out(4 * 32, -1);
      SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), shuffle_kernel)(out.data(), width, delta);
      for (int lane = 0; lane < 32; ++lane) {
        const int segment = lane / width * width, in_segment = lane % width;
        EXPECT_EQ(out[0 * 32 + lane], 100.0 + segment + delta % width) << "shfl lane " << lane;
        EXPECT_EQ(out[1 * 32 + lane], 100.0 + (in_segment >= delta ? lane - delta : lane)) << "up lane " << lane;
        EXPECT_EQ(out[2 * 32 + lane], 100.0 + (in_segment + delta < width ? lane + delta : lane))
            << "down lane " << lane;
        const int x = lane ^ delta;
        EXPECT_EQ(out[3 * 32 + lane], 100.0 + (x < segment + width ? x : lane)) << "xor lane " << lane;
      }
    }
}

TEST(CudaEmulation, ShuffleFromALaneOutsideTheMaskIsPoison) {
  emu::Device device;
  std::vector<float> out(16, 0.0f);
  SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), shuffle_outside_mask_kernel)(out.data());
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(CudaEmulation, BarrierMakesABlockSumCorrectUnderEverySchedule) {
  const unsigned grid = 2, block = 256;
  std::vector<double> in(grid * block);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i % 7) - 3.0;
  for (const emu::Schedule& schedule : emu::standard_schedules(Sprocket::test::seed_for(2))) {
    SCOPED_TRACE(schedule.name());
    emu::Device device(schedule);
    std::vector<double> out(grid, NAN);
    SPROCKET_CUDA_LAUNCH(shape(grid, block), stream_of(device), block_sum_kernel<true>)(in.data(), out.data());
    for (unsigned b = 0; b < grid; ++b) {
      double expected = 0;
      for (unsigned t = 0; t < block; ++t) expected += in[b * block + t];
      EXPECT_EQ(out[b], expected);
    }
  }
}

// Warp 0 reads what the other warps wrote: it sees poison when it runs ahead (in order) or when a
// writer lags (laggard warp 3); reverse order and laggard warp 0 hide the race.
TEST(CudaEmulation, AMissingBarrierShowsUnderTheInOrderAndLaggardSchedules) {
  const unsigned block = 256;
  std::vector<double> in(block, 1.0);
  for (const emu::Schedule& schedule :
       {emu::Schedule{emu::Order::in_order, 1, 0}, emu::Schedule{emu::Order::laggard_warp, 1, 3}}) {
    emu::Device device(schedule);
    std::vector<double> out(1, 0.0);
    SPROCKET_CUDA_LAUNCH(shape(1, block), stream_of(device), block_sum_kernel<false>)(in.data(), out.data());
    EXPECT_TRUE(std::isnan(out[0])) << device.stream.schedule.name() << ": " << out[0];
  }
}

TEST(CudaEmulation, FreshSharedMemoryIsPoisonedInEveryBlock) {
  emu::Device device;
  const unsigned grid = 2, block = 64;
  std::vector<float> out(2 * grid * block, 0.0f);
  int first = 0;
  SPROCKET_CUDA_LAUNCH(shape(grid, block, block * sizeof(float)), stream_of(device), fresh_shared_kernel)(
      out.data(), &first);
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(CudaEmulation, LaggardWarpRunsLastAndReverseRunsBackwards) {
  for (emu::Order order : {emu::Order::in_order, emu::Order::reverse, emu::Order::laggard_warp}) {
    emu::Device device(emu::Schedule{order, 1, 0});
    std::vector<int> warps(4, -1);
    int next = 0;
    SPROCKET_CUDA_LAUNCH(shape(1, 128), stream_of(device), order_kernel)(warps.data(), &next);
    const std::vector<int> expected = order == emu::Order::in_order  ? std::vector<int>{0, 1, 2, 3}
                                      : order == emu::Order::reverse ? std::vector<int>{3, 2, 1, 0}
                                                                     : std::vector<int>{1, 2, 3, 0};
    EXPECT_EQ(warps, expected) << device.stream.schedule.name();
  }
}

TEST(CudaEmulation, SyncwarpExceptsExitedLanes) {
  emu::Device device;
  std::vector<float> out(16, 0.0f);
  SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), syncwarp_subset_kernel)(out.data());
  for (int i = 8; i < 16; ++i) EXPECT_EQ(out[i], 2.0f);
}

TEST(CudaEmulation, DiagnosesWhatCudaLeavesUndefined) {
  emu::Device device;
  std::vector<float> out(1024, 0.0f);
  float* o = out.data();
  const auto expect = [](const std::string& message, const std::string& part) {
    EXPECT_NE(message.find(part), std::string::npos) << "diagnosis: \"" << message << "\" lacks \"" << part << "\"";
  };
  const std::string self = diagnosis(
      [&] { SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), mask_without_self_kernel)(o); });
  expect(self, "does not include its own lane");
  expect(self, "thread 3 (warp 0, lane 3)");
  expect(self, "test_cuda_emulation.cpp:");
  expect(diagnosis([&] { SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), exited_lane_kernel)(o); }),
         "names lane 5: that lane has exited");
  const std::string divergent =
      diagnosis([&] { SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), different_shuffles_kernel)(o); });
  expect(divergent, "deadlock (no thread can run): lanes of mask 0xffffffff reach different synchronization points");
  expect(divergent, "waits at __shfl_xor_sync(0xffffffff, 4-byte value, width 32) at test_cuda_emulation.cpp:");
  expect(diagnosis([&] { SPROCKET_CUDA_LAUNCH(shape(2, 64), stream_of(device), divergent_barrier_kernel)(o); }),
         "threads reach __syncthreads at different places");
  expect(diagnosis([&] { SPROCKET_CUDA_LAUNCH(shape(1, 64), stream_of(device), barrier_after_exit_kernel)(o); }),
         "has exited");
  expect(diagnosis([&] { SPROCKET_CUDA_LAUNCH(shape(1, 512, 0, 256), stream_of(device), coordinates_kernel)(
                             reinterpret_cast<int*>(o)); }),
         "exceeds the kernel's __launch_bounds__ of 256");
  expect(diagnosis([&] { SPROCKET_CUDA_LAUNCH(shape(0, 32), stream_of(device), coordinates_kernel)(
                             reinterpret_cast<int*>(o)); }),
         "invalid configuration");
#if !defined(__SANITIZE_ADDRESS__)  // with ASan the overflow is ASan's report
  expect(diagnosis([&] {
           SPROCKET_CUDA_LAUNCH(shape(1, 32, 16 * sizeof(float)), stream_of(device), overflow_dynamic_kernel)(o);
         }),
         "wrote past the 64 bytes of dynamic shared memory");
#endif
  // The emulation is usable again after a diagnosed launch.
  std::vector<int> coordinates(4 * 32);
  SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), coordinates_kernel)(coordinates.data());
  EXPECT_EQ(coordinates[4 * 31], 31);
}

TEST(CudaEmulation, BallotCollectsTheMaskLanesVotes) {
  for (const emu::Schedule& schedule : emu::standard_schedules(Sprocket::test::seed_for(3))) {
    emu::Device device(schedule);
    std::vector<unsigned> out(128, 0xdeadu);
    SPROCKET_CUDA_LAUNCH(shape(1, 64), stream_of(device), ballot_kernel)(out.data());
    unsigned every_third = 0;
    for (int l = 0; l < 32; l += 3) every_third |= 1u << l;
    for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], every_third) << schedule.name();
    for (int t = 0; t < 64; ++t) {
      if (t % 32 < 16) {
        EXPECT_EQ(out[64 + t], 0xfc00u) << schedule.name();
      }
    }
  }
  emu::Device device;
  std::vector<unsigned> out(32);
  try {
    SPROCKET_CUDA_LAUNCH(shape(1, 32), stream_of(device), ballot_exited_lane_kernel)(out.data());
    ADD_FAILURE() << "no diagnosis";
  } catch (const emu::EmulationError& e) {
    EXPECT_NE(std::string(e.what()).find("__ballot_sync"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("names lane 7: that lane has exited"), std::string::npos) << e.what();
  }
}

TEST(CudaEmulation, IntegerAtomicsAndBitIntrinsics) {
  for (const emu::Schedule& schedule : emu::standard_schedules(Sprocket::test::seed_for(4))) {
    emu::Device device(schedule);
    std::vector<unsigned long long> out(8, 0);
    SPROCKET_CUDA_LAUNCH(shape(1, 128), stream_of(device), atomics_kernel)(out.data());
    EXPECT_EQ(out[0], 128u);
    EXPECT_EQ(out[1], 100u);                     // max of t * 7 % 101 over t < 128
    EXPECT_EQ(out[2], 1000u - 127u);
    EXPECT_LT(out[3], 128u);                     // one thread won the compare-and-swap
    EXPECT_EQ(out[4], 5u);
    EXPECT_EQ(out[5], 127ull << 40);
    EXPECT_EQ(out[6], 128u);
    EXPECT_EQ(out[7], 5u + 31u + 64u + 3u);
  }
}

TEST(CudaEmulation, BuiltinsOutsideAKernelAreAnError) {
  EXPECT_THROW((void)threadIdx.x, std::logic_error);
}

}  // namespace
