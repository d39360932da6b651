#pragma once
// Test-only CPU execution of Sprocket's hand-written CUDA kernels (issue: run every CUDA kernel on
// the CPU in `make test`). Included by impl/common/cuda/cuda_device.cuh when the test target
// defines SPROCKET_CUDA_EMULATION; never part of the library or of a CUDA build.
//
// Model. A launch runs its blocks one after another on the calling host thread. Every thread of
// a block is a fiber (ucontext) with its own stack that runs until its next synchronization point
// (__syncthreads, __syncwarp, a __shfl_*_sync) or its end; a scheduler then picks the next ready
// thread by the launch's Schedule (in order, reverse, seeded random, or one "laggard" warp that
// runs only when nothing else can), so a missing barrier shows as a read of another thread's
// not-yet-written (poisoned) data under some order. A synchronization point completes when every
// thread it names has reached it:
//   __syncthreads      all threads of the block, at the same source line;
//   __syncwarp(mask)   the lanes of the mask (exited lanes excepted), at the same source line;
//   __shfl_*_sync      the lanes of the mask, at the same line, same kind, width and value size;
//   __ballot_sync      the lanes of the mask, at the same line.
// What CUDA leaves undefined is diagnosed (EmulationError thrown from the launch, naming the
// kernel, block, thread/lane and file:line): a lane whose mask does not include itself, a shuffle
// mask naming an exited or missing lane, lanes of one mask at different shuffles or barriers,
// threads of a block at different __syncthreads or exited before one, deadlock, a block above
// the kernel's __launch_bounds__, an invalid grid, writes past the requested dynamic shared
// memory. A shuffle that reads a lane outside the mask returns poison (NaN / 0x5a5a... pattern);
// fresh shared memory (static and dynamic) is poisoned the same way in every block.
//
// Not seen: races between blocks (blocks run one at a time), the memory model (a fiber's writes
// are visible to all at once), timing and performance, warp-synchronous code that relies on
// implicit lockstep without *_sync intrinsics.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// ---- CUDA keywords ---------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

namespace Sprocket {
namespace cuda_emulation {

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// The order in which ready threads of a block run.
enum class Order {
  in_order,      // lowest thread index first
  reverse,       // highest first
  random,        // uniformly among the ready threads, from `seed`
  laggard_warp,  // in order, but warp `laggard_warp` (of every block) only when no other can run
};

struct Schedule {
  Order order = Order::in_order;
  uint64_t seed = 1;
  int laggard_warp = 0;
  std::string name() const;
};

/// The four schedules every emulated kernel test runs under: in order, reverse, random from
/// `seed`, laggard warp 0. The block order follows the thread order (reverse and random also run
/// the blocks of a grid in reverse / shuffled order).
std::vector<Schedule> standard_schedules(uint64_t seed);

/// One launch as it ran.
struct LaunchRecord {
  std::string kernel;    // the kernel expression as written in the launcher
  std::string instance;  // the function that ran, template arguments and all, without namespaces
                         // ("spmv_subvector_kernel<4, int, SpmvStoredColumns<int>, int, double, double>")
  unsigned grid, block;
  size_t shared_bytes;
};

/// cudaStream_t of the emulation: the schedule and grid clamp of the launches made on it, and
/// the launches it ran (tests check that the kernel they force really ran).
struct Stream {
  Schedule schedule;
  int64_t max_grid_blocks = 3;
  std::vector<LaunchRecord> history;
};

/// What the emulation diagnoses (kernel, block, thread, lane, file:line in what()).
class EmulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The emulated device: the execution-space argument of Impl::cuda::*_apply in the emulated
/// tests. Its data lives in host memory; stream_of / multiprocessor_count / grid_limit (and the
/// resource queries below) answer what the launchers ask of a Kokkos::Cuda. The resource fields
/// default to an H100's and may be set small by a test, so that launchers which size their work
/// from the device (SpGEMM's shared-memory configurations) reach their larger cases with small
/// inputs.
struct Device {
  using execution_space = Kokkos::DefaultHostExecutionSpace;
  using memory_space = Kokkos::HostSpace;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  explicit Device(Schedule schedule = {}, int multiprocessors = 2, int64_t max_grid_blocks = 3)
      : multiprocessors(multiprocessors) {
    stream.schedule = schedule;
    stream.max_grid_blocks = max_grid_blocks;
  }
  void fence() const {}
  mutable Stream stream;
  int multiprocessors;
  /// cudaDeviceProp::sharedMemPerBlock (without opting in) and sharedMemPerBlockOptin (at most
  /// the emulation's 227 KiB), maxThreadsPerBlock, maxThreadsPerMultiProcessor.
  int64_t shared_bytes_per_block = 48 * 1024;
  int64_t shared_bytes_optin = 227 * 1024;
  int max_threads_per_block = 1024;
  int max_threads_per_multiprocessor = 2048;
  /// cudaMemGetInfo's free bytes.
  int64_t free_bytes = int64_t{16} << 30;
};

inline Stream* stream_of(const Device& device) { return &device.stream; }
inline int multiprocessor_count(const Device& device) { return device.multiprocessors; }
inline int64_t grid_limit(const Device& device) { return device.stream.max_grid_blocks; }
inline int64_t shared_bytes_per_block(const Device& device) { return device.shared_bytes_per_block; }
inline int64_t shared_bytes_optin(const Device& device) { return device.shared_bytes_optin; }
inline int max_threads_per_block(const Device& device) { return device.max_threads_per_block; }
inline int max_threads_per_multiprocessor(const Device& device) { return device.max_threads_per_multiprocessor; }
inline int64_t device_free_bytes(const Device& device) { return device.free_bytes; }

// ---- the running thread --------------------------------------------------------------------
struct ThreadCoordinates {
  dim3 thread_idx, block_idx, block_dim, grid_dim;
};
/// Coordinates of the running emulated thread (diagnosed if none is running).
ThreadCoordinates& coordinates();

enum class ShuffleKind { idx, up, down, bfly };

void syncthreads(const char* file, int line);
void syncwarp(const char* file, int line, unsigned mask = 0xffffffffu);
/// __ballot_sync: a synchronization point of the mask's lanes, like a shuffle (every lane of the
/// mask at the same line, none exited); returns the mask's lanes whose predicate is nonzero.
unsigned ballot(const char* file, int line, unsigned mask, int predicate);
/// The shuffle on the bit pattern of a value of `size` bytes; `floating`: poison is a NaN.
uint64_t shuffle_bits(const char* file, int line, ShuffleKind kind, unsigned mask, uint64_t bits, int size,
                      bool floating, int arg, int width);

template <class T>
T shuffle(const char* file, int line, ShuffleKind kind, unsigned mask, T value, int arg, int width = 32) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "shuffles move values of at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  bits = shuffle_bits(file, line, kind, mask, bits, static_cast<int>(sizeof(T)), std::is_floating_point_v<T>, arg,
                      width);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}

/// Static shared memory of the running block for the declaration at file:line (fresh and
/// poisoned in every block; every thread of the block gets the same bytes).
void* block_shared_bytes(const char* file, int line, size_t bytes, size_t alignment);
template <class T>
T& block_shared(const char* file, int line) {
  return *static_cast<T*>(block_shared_bytes(file, line, sizeof(T), alignof(T)));
}
/// The launch's dynamic shared memory (exactly the requested bytes, poisoned, 16-byte aligned).
void* dynamic_shared_bytes(const char* file, int line);
template <class T>
T* dynamic_shared(const char* file, int line) {
  return static_cast<T*>(dynamic_shared_bytes(file, line));
}

struct LaunchInfo {
  unsigned grid, block;
  size_t shared_bytes;
  unsigned launch_bound;
  Stream* stream;
  const char* kernel;
  const char* instance;
  const char* file;
  int line;
};

/// The function named in `pretty_function`, kernel_instance's __PRETTY_FUNCTION__ ("... [with
/// auto Kernel = Sprocket::Impl::cuda::spmv_row_blocks_kernel<true, int, int, double, double>]"),
/// without its namespaces: "spmv_row_blocks_kernel<true, int, int, double, double>".
std::string kernel_instance_name(const char* pretty_function);

/// The name LaunchRecord::instance holds for the kernel Kernel (a function, so a template-id
/// names one instance with all its template arguments): what a launch of it records, and what a
/// test names as the instance it expects.
template <auto Kernel>
const std::string& kernel_instance() {
  static const std::string name = kernel_instance_name(__PRETTY_FUNCTION__);
  return name;
}

/// Runs the grid: every block, every thread of it a fiber calling `thread_body`.
void run_grid(const LaunchInfo& info, const std::function<void()>& thread_body);

/// SPROCKET_CUDA_LAUNCH's emulated expansion: returns the callable that takes the kernel's
/// arguments (copied once per launch, as CUDA copies them to the device) and runs the grid.
template <class Body>
auto launch_kernel(unsigned grid, unsigned block, size_t shared_bytes, unsigned launch_bound, Stream* stream,
                   const char* kernel, const std::string& instance, const char* file, int line, Body body) {
  const LaunchInfo info{grid, block, shared_bytes, launch_bound, stream, kernel, instance.c_str(), file, line};
  return [info, body](auto... args) {
    const std::tuple<decltype(args)...> copied(args...);
    run_grid(info, [&]() { std::apply(body, copied); });
  };
}

/// Atomics: blocks and threads never run at the same time on the host, so a plain
/// read-modify-write is atomic here (a fiber switches only at a synchronization point).
template <class T>
T atomic_add(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
template <class T, class Op>
T atomic_update(T* address, Op op) {
  const T old = *address;
  *address = op(old);
  return old;
}

}  // namespace cuda_emulation
}  // namespace Sprocket

// ---- the CUDA runtime names the launchers use -------------------------------------------------
using dim3 = ::Sprocket::cuda_emulation::dim3;
using cudaStream_t = ::Sprocket::cuda_emulation::Stream*;
enum cudaError_t { cudaSuccess = 0 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline const char* cudaGetErrorName(cudaError_t) { return "cudaSuccess"; }
inline const char* cudaGetErrorString(cudaError_t) { return "no error"; }
template <class F>
cudaError_t cudaFuncSetAttribute(F*, cudaFuncAttribute, int) {
  return cudaSuccess;
}

// ---- device built-ins ------------------------------------------------------------------------
#define threadIdx (::Sprocket::cuda_emulation::coordinates().thread_idx)
#define blockIdx (::Sprocket::cuda_emulation::coordinates().block_idx)
#define blockDim (::Sprocket::cuda_emulation::coordinates().block_dim)
#define gridDim (::Sprocket::cuda_emulation::coordinates().grid_dim)
#define warpSize 32

#define __syncthreads() ::Sprocket::cuda_emulation::syncthreads(__FILE__, __LINE__)
#define __syncwarp(...) ::Sprocket::cuda_emulation::syncwarp(__FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_sync(mask, value, ...)                                                                             \
  ::Sprocket::cuda_emulation::shuffle(__FILE__, __LINE__, ::Sprocket::cuda_emulation::ShuffleKind::idx, (mask), \
                                      (value), __VA_ARGS__)
#define __shfl_up_sync(mask, value, ...)                                                                         \
  ::Sprocket::cuda_emulation::shuffle(__FILE__, __LINE__, ::Sprocket::cuda_emulation::ShuffleKind::up, (mask), \
                                      (value), __VA_ARGS__)
#define __shfl_down_sync(mask, value, ...)                                                                         \
  ::Sprocket::cuda_emulation::shuffle(__FILE__, __LINE__, ::Sprocket::cuda_emulation::ShuffleKind::down, (mask), \
                                      (value), __VA_ARGS__)
#define __shfl_xor_sync(mask, value, ...)                                                                          \
  ::Sprocket::cuda_emulation::shuffle(__FILE__, __LINE__, ::Sprocket::cuda_emulation::ShuffleKind::bfly, (mask), \
                                      (value), __VA_ARGS__)

template <class T>
inline T __ldg(const T* p) {
  return *p;
}
#define __ballot_sync(mask, predicate) \
  ::Sprocket::cuda_emulation::ballot(__FILE__, __LINE__, (mask), (predicate) ? 1 : 0)

template <class T>
inline T atomicAdd(T* address, T value) {
  return ::Sprocket::cuda_emulation::atomic_add(address, value);
}
// The integer atomics with CUDA's overloads exactly (int, unsigned, unsigned long long; atomicMax
// and atomicMin also long long), so a call CUDA lacks fails to compile here too.
#define SPROCKET_EMULATION_ATOMIC(name, T, expression)                                                  \
  inline T name(T* address, T value) {                                                                \
    return ::Sprocket::cuda_emulation::atomic_update(address, [value](T old) -> T {                  \
      (void)old;                                                                                      \
      return expression;                                                                              \
    });                                                                                               \
  }
#define SPROCKET_EMULATION_INTEGER_ATOMICS(T)                        \
  SPROCKET_EMULATION_ATOMIC(atomicOr, T, old | value)                \
  SPROCKET_EMULATION_ATOMIC(atomicAnd, T, old & value)               \
  SPROCKET_EMULATION_ATOMIC(atomicXor, T, old ^ value)               \
  SPROCKET_EMULATION_ATOMIC(atomicExch, T, value)                    \
  SPROCKET_EMULATION_ATOMIC(atomicMax, T, old > value ? old : value) \
  SPROCKET_EMULATION_ATOMIC(atomicMin, T, old < value ? old : value) \
  inline T atomicCAS(T* address, T compare, T value) {               \
    const T old = *address;                                          \
    if (old == compare) *address = value;                            \
    return old;                                                      \
  }
SPROCKET_EMULATION_INTEGER_ATOMICS(int)
SPROCKET_EMULATION_INTEGER_ATOMICS(unsigned)
SPROCKET_EMULATION_INTEGER_ATOMICS(unsigned long long)
SPROCKET_EMULATION_ATOMIC(atomicMax, long long, old > value ? old : value)
SPROCKET_EMULATION_ATOMIC(atomicMin, long long, old < value ? old : value)
SPROCKET_EMULATION_ATOMIC(atomicExch, float, value)
#undef SPROCKET_EMULATION_INTEGER_ATOMICS
#undef SPROCKET_EMULATION_ATOMIC

// Bit intrinsics.
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
