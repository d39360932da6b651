// The scheduler of the test-only CUDA emulation (see sprocket_cuda_emulation.hpp for the model and
// what it diagnoses). One block at a time: every thread is a ucontext fiber; the scheduler resumes
// one ready thread, which runs until it reaches a synchronization point or ends and switches back;
// the scheduler then completes the synchronization point if every thread it names has arrived.
#include "sprocket_cuda_emulation.hpp"
#include "sprocket_cuda_access_profile.hpp"

#include <pthread.h>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <new>
#include <numeric>
#include <random>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SPROCKET_EMULATION_ASAN 1
#else
#define SPROCKET_EMULATION_ASAN 0
#endif

// Switching between fibers. glibc's swapcontext saves and restores the signal mask with a system
// call on every switch (a third of the emulated tests' time went there); on x86-64 the switch
// below saves only what the ABI makes callee-saved (rbx, rbp, r12-r15, MXCSR, the x87 control
// word) and the stack pointer. Elsewhere ucontext serves.
#if defined(__x86_64__)
#define SPROCKET_EMULATION_OWN_SWITCH 1
extern "C" void sprocket_emulation_switch(void** save_sp, void* new_sp);
asm(R"(
  .text
  .globl sprocket_emulation_switch
  .type sprocket_emulation_switch, @function
sprocket_emulation_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size sprocket_emulation_switch, .-sprocket_emulation_switch
  .section .note.GNU-stack,"",@progbits
  .text
)");
#else
#define SPROCKET_EMULATION_OWN_SWITCH 0
#endif

namespace Sprocket {
namespace cuda_emulation {

std::string Schedule::name() const {
  switch (order) {
    case Order::in_order: return "in_order";
    case Order::reverse: return "reverse";
    case Order::random: return "random(seed " + std::to_string(seed) + ")";
    case Order::laggard_warp: return "laggard_warp(" + std::to_string(laggard_warp) + ")";
  }
  return "?";
}

std::vector<Schedule> standard_schedules(uint64_t seed) {
  return {Schedule{Order::in_order, seed, 0}, Schedule{Order::reverse, seed, 0}, Schedule{Order::random, seed, 0},
          Schedule{Order::laggard_warp, seed, 0}};
}

std::string kernel_instance_name(const char* pretty_function) {
  // GCC: "... [with auto Kernel = Sprocket::Impl::cuda::k<4, Sprocket::X<int> >; std::string =
  // ...]"; Clang: "... [Kernel = &Sprocket::Impl::cuda::k<4, Sprocket::X<int>>]". The name ends
  // at the first ';' or ']' outside brackets.
  const std::string pretty(pretty_function);
  const std::string key = "Kernel = ";
  const size_t begin = pretty.find(key);
  if (begin == std::string::npos) return pretty;
  std::string in;
  int depth = 0;
  for (size_t i = begin + key.size(); i < pretty.size(); ++i) {
    const char c = pretty[i];
    if (depth == 0 && (c == ';' || c == ']')) break;
    if (c == '<' || c == '(' || c == '{' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == '}' || c == ']') --depth;
    in += c;
  }
  if (!in.empty() && in.front() == '&') in.erase(0, 1);
  // Every qualifier before a "::" goes: a name, a name with template arguments, GCC's
  // "{anonymous}", Clang's "(anonymous namespace)".
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto drop_bracketed = [](std::string& out, char open, char close) {
    int depth = 0;
    while (!out.empty()) {
      const char c = out.back();
      out.pop_back();
      depth += c == close ? 1 : c == open ? -1 : 0;
      if (depth == 0) return;
    }
  };
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in.compare(i, 2, "::") != 0) {
      out += in[i];
      continue;
    }
    ++i;
    if (!out.empty() && out.back() == '}') drop_bracketed(out, '{', '}');
    if (!out.empty() && out.back() == ')') drop_bracketed(out, '(', ')');
    if (!out.empty() && out.back() == '>') drop_bracketed(out, '<', '>');
    while (!out.empty() && name_char(out.back())) out.pop_back();
  }
  return out;
}

namespace {

constexpr int warp_size = 32;
constexpr unsigned max_block_threads = 1024;
/// Largest dynamic shared memory a block may opt in to (H100 / H200: 227 KiB).
constexpr size_t max_shared_bytes = 227 * 1024;
/// Bytes after the dynamic shared memory checked for stray writes (builds without ASan; with
/// ASan the buffer has exactly the requested size and ASan reports any access past it).
constexpr size_t shared_guard_bytes = SPROCKET_EMULATION_ASAN ? 0 : 256;
constexpr unsigned char shared_poison_byte = 0xff;  // NaN in every float / double lane
constexpr unsigned char guard_byte = 0xa5;

enum class Status { ready, waiting, exited };
enum class WaitKind { none, syncthreads, syncwarp, shuffle, ballot };

struct Wait {
  WaitKind kind = WaitKind::none;
  const char* file = "";
  int line = 0;
  unsigned mask = 0;
  ShuffleKind shuffle = ShuffleKind::idx;
  int size = 0;
  bool floating = false;
  int arg = 0;
  int width = warp_size;
  uint64_t offered = 0;
  uint64_t received = 0;
};

struct Fiber {
#if SPROCKET_EMULATION_OWN_SWITCH
  void* sp = nullptr;  // saved stack pointer while switched out
#else
  ucontext_t context{};
#endif
  char* stack = nullptr;  // usable part (above the guard page)
  size_t stack_size = 0;
  Status status = Status::ready;
  Wait wait;
  ThreadCoordinates coordinates;
  void* asan_fake_stack = nullptr;
};

/// One block's run: its fibers, the scheduler's context, the first diagnosis (a diagnosed fiber
/// records it here and switches away for good; nothing is thrown across fiber frames), and the
/// block's shared memory.
struct BlockState {
  const LaunchInfo* info = nullptr;
  const std::function<void()>* body = nullptr;
  unsigned block_index = 0;
  std::vector<Fiber>* fibers = nullptr;
  unsigned count = 0;
  int running = -1;
#if SPROCKET_EMULATION_OWN_SWITCH
  void* scheduler_sp = nullptr;
#else
  ucontext_t scheduler{};
#endif
  std::string error;
  std::map<std::pair<const char*, int>, void*> statics;
  std::vector<std::pair<void*, size_t>> allocations;  // static shared memory (pointer, alignment)
  std::vector<std::pair<uintptr_t, uintptr_t>> shared_ranges;  // static shared memory [begin, end)
  unsigned char* dynamic = nullptr;
  std::mt19937_64 rng;
  /// Threads that can run (bit t of word t / 64): picking the next one is a bit scan, not a
  /// walk over up to 1024 fibers per switch.
  uint64_t ready[max_block_threads / 64] = {};
  void mark_ready(unsigned t) { ready[t / 64] |= uint64_t{1} << (t % 64); }
  void unmark_ready(unsigned t) { ready[t / 64] &= ~(uint64_t{1} << (t % 64)); }
  const void* main_stack_bottom = nullptr;
  size_t main_stack_size = 0;
  /// Threads waiting at __syncthreads, and per warp the lanes waiting at a warp-level point: a
  /// point cannot complete before enough threads wait, so most arrivals need no scan (a scan per
  /// arrival made a barrier of n threads cost n^2 / 2).
  unsigned syncthreads_waiting = 0;
  unsigned warp_waiting[max_block_threads / 32] = {};
};

BlockState* current = nullptr;
detail::EmulationObserver* observer = nullptr;

/// [begin, end) of the stack of the thread that launches kernels (the kernels' parameters live
/// there while a grid runs), for the access recorder.
std::pair<uintptr_t, uintptr_t> launching_stack() {
  pthread_attr_t attr;
  void* base = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
  }
  return {reinterpret_cast<uintptr_t>(base), reinterpret_cast<uintptr_t>(base) + size};
}
std::pair<uintptr_t, uintptr_t> launcher_stack{0, 0};

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

std::string where(const char* file, int line) { return std::string(base_name(file)) + ":" + std::to_string(line); }

std::string hex(unsigned v) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", v);
  return buffer;
}

const char* shuffle_name(ShuffleKind k) {
  switch (k) {
    case ShuffleKind::idx: return "__shfl_sync";
    case ShuffleKind::up: return "__shfl_up_sync";
    case ShuffleKind::down: return "__shfl_down_sync";
    case ShuffleKind::bfly: return "__shfl_xor_sync";
  }
  return "?";
}

std::string thread_name(unsigned t) {
  return "thread " + std::to_string(t) + " (warp " + std::to_string(t / warp_size) + ", lane " +
         std::to_string(t % warp_size) + ")";
}

std::string describe_wait(const Fiber& f) {
  const Wait& w = f.wait;
  switch (f.status) {
    case Status::exited: return "has exited";
    case Status::ready: return "is running";
    case Status::waiting: break;
  }
  switch (w.kind) {
    case WaitKind::syncthreads: return "waits at __syncthreads at " + where(w.file, w.line);
    case WaitKind::syncwarp: return "waits at __syncwarp(" + hex(w.mask) + ") at " + where(w.file, w.line);
    case WaitKind::shuffle:
      return "waits at " + std::string(shuffle_name(w.shuffle)) + "(" + hex(w.mask) + ", " +
             std::to_string(w.size) + "-byte value, width " + std::to_string(w.width) + ") at " +
             where(w.file, w.line);
    case WaitKind::ballot: return "waits at __ballot_sync(" + hex(w.mask) + ") at " + where(w.file, w.line);
    case WaitKind::none: break;
  }
  return "?";
}

std::string prefix(const BlockState& s) {
  return "CUDA emulation: kernel " + std::string(s.info->kernel) + " (launched at " +
         where(s.info->file, s.info->line) + ", grid " + std::to_string(s.info->grid) + " x block " +
         std::to_string(s.info->block) + "), block " + std::to_string(s.block_index) + ": ";
}

// ---- fiber stacks ------------------------------------------------------------------------------
size_t stack_bytes() { return SPROCKET_EMULATION_ASAN ? 1024 * 1024 : 256 * 1024; }

struct StackPool {
  std::vector<std::pair<char*, size_t>> mappings;  // (mapping, bytes) including the guard page
  ~StackPool() {
    for (auto& m : mappings) munmap(m.first, m.second);
  }
  void ensure(std::vector<Fiber>& fibers, unsigned count) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    while (fibers.size() < count) {
      const size_t bytes = stack_bytes() + page;
      void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      mprotect(p, page, PROT_NONE);  // a stack overflow faults instead of writing into a neighbour
      mappings.emplace_back(static_cast<char*>(p), bytes);
      Fiber f;
      f.stack = static_cast<char*>(p) + page;
      f.stack_size = stack_bytes();
      fibers.push_back(f);
    }
  }
};

StackPool& stack_pool() {
  static StackPool pool;
  return pool;
}
std::vector<Fiber>& fiber_pool() {
  static std::vector<Fiber> fibers;
  return fibers;
}

// ---- switching ---------------------------------------------------------------------------------
/// From the running fiber back to the scheduler; returns when the scheduler resumes it (never
/// when `final`).
void to_scheduler(BlockState& s, Fiber& f, bool final) {
#if SPROCKET_EMULATION_ASAN
  __sanitizer_start_switch_fiber(final ? nullptr : &f.asan_fake_stack, s.main_stack_bottom, s.main_stack_size);
#endif
#if SPROCKET_EMULATION_OWN_SWITCH
  sprocket_emulation_switch(&f.sp, s.scheduler_sp);
#else
  swapcontext(&f.context, &s.scheduler);
#endif
#if SPROCKET_EMULATION_ASAN
  __sanitizer_finish_switch_fiber(f.asan_fake_stack, &s.main_stack_bottom, &s.main_stack_size);
#endif
  (void)final;
}

void resume(BlockState& s, unsigned t) {
  Fiber& f = (*s.fibers)[t];
  s.running = static_cast<int>(t);
  s.unmark_ready(t);  // it comes back waiting or exited
#if SPROCKET_EMULATION_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f.stack, f.stack_size);
#endif
#if SPROCKET_EMULATION_OWN_SWITCH
  sprocket_emulation_switch(&s.scheduler_sp, f.sp);
#else
  swapcontext(&s.scheduler, &f.context);
#endif
#if SPROCKET_EMULATION_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  s.running = -1;
}

/// Leaves the running fiber for good after its diagnosis went into s.error. The fiber's stack is
/// abandoned, never unwound: no object owning memory may be alive on it (a message string built
/// in the caller's frame would be reported as a leak by LeakSanitizer), so callers build the
/// message in a scope that has ended.
[[noreturn]] void leave_failed_fiber(BlockState& s) {
  Fiber& f = (*s.fibers)[s.running];
  f.status = Status::exited;
  to_scheduler(s, f, true);
  std::abort();  // not reached: the scheduler never resumes a failed fiber
}

void fiber_entry() {
  BlockState& s = *current;
#if SPROCKET_EMULATION_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &s.main_stack_bottom, &s.main_stack_size);
#endif
  const unsigned t = static_cast<unsigned>(s.running);
  Fiber& f = (*s.fibers)[t];
  try {
    (*s.body)();
  } catch (const std::exception& e) {
    if (s.error.empty()) s.error = prefix(s) + thread_name(t) + " threw: " + e.what();
  } catch (...) {
    if (s.error.empty()) s.error = prefix(s) + thread_name(t) + " threw an unknown exception";
  }
  f.status = Status::exited;
  f.wait.kind = WaitKind::none;
  to_scheduler(s, f, true);
  std::abort();
}

BlockState& state_in_fiber(const char* what) {
  if (!current || current->running < 0)
    throw std::logic_error(std::string("CUDA emulation: ") + what + " used outside an emulated kernel");
  return *current;
}

// ---- synchronization ---------------------------------------------------------------------------
bool same_point(const Wait& a, const Wait& b) {
  return a.kind == b.kind && a.line == b.line && a.mask == b.mask &&
         (a.file == b.file || std::strcmp(a.file, b.file) == 0) &&
         (a.kind != WaitKind::shuffle || (a.shuffle == b.shuffle && a.width == b.width && a.size == b.size));
}

/// Fiber index of lane `lane` of the warp of thread t.
unsigned lane_thread(unsigned t, int lane) { return (t / warp_size) * warp_size + static_cast<unsigned>(lane); }

/// Source lane of a shuffle for `lane`, or -1 when the lane keeps its own value.
int shuffle_source(const Wait& w, int lane) {
  const int segment = lane & ~(w.width - 1);
  const int last = segment + w.width - 1;
  switch (w.shuffle) {
    case ShuffleKind::idx: return segment + (w.arg & (w.width - 1));
    case ShuffleKind::up: return (lane - segment) - w.arg < 0 ? -1 : lane - w.arg;
    case ShuffleKind::down: return lane + w.arg > last ? -1 : lane + w.arg;
    case ShuffleKind::bfly: {
      const int src = lane ^ w.arg;
      return src > last || src < 0 ? -1 : src;  // later groups (and beyond the warp): own value
    }
  }
  return -1;
}

uint64_t poison_bits(int size, bool floating) {
  if (floating) return size == 4 ? uint64_t{0x7fc5a5a5u} : uint64_t{0x7ff8a5a5a5a5a5a5ull};
  return 0x5a5a5a5a5a5a5a5aull;
}

/// Completes the synchronization point thread t waits at, if everyone it names is there.
void try_complete(BlockState& s, unsigned t) {
  std::vector<Fiber>& fb = *s.fibers;
  const Wait& w = fb[t].wait;
  if (fb[t].status != Status::waiting) return;
  if (w.kind == WaitKind::syncthreads) {
    if (s.syncthreads_waiting < s.count) return;
    for (unsigned u = 0; u < s.count; ++u)
      if (fb[u].status != Status::waiting || !same_point(fb[u].wait, w)) return;
    s.syncthreads_waiting = 0;
    for (unsigned u = 0; u < s.count; ++u) {
      fb[u].status = Status::ready;
      fb[u].wait.kind = WaitKind::none;
      s.mark_ready(u);
    }
    return;
  }
  // Warp-level: every lane of the mask at the same point (syncwarp: exited lanes excepted).
  if (w.kind != WaitKind::syncwarp && s.warp_waiting[t / warp_size] < static_cast<unsigned>(__builtin_popcount(w.mask)))
    return;
  unsigned lanes[warp_size];
  int num_lanes = 0;
  for (int l = 0; l < warp_size; ++l) {
    if (!(w.mask >> l & 1u)) continue;
    const unsigned u = lane_thread(t, l);
    if (w.kind == WaitKind::syncwarp && fb[u].status == Status::exited) continue;
    if (fb[u].status != Status::waiting || !same_point(fb[u].wait, w)) return;
    lanes[num_lanes++] = u;
  }
  if (w.kind == WaitKind::ballot) {
    uint64_t votes = 0;
    for (int i = 0; i < num_lanes; ++i)
      if (fb[lanes[i]].wait.offered) votes |= uint64_t{1} << (lanes[i] % warp_size);
    for (int i = 0; i < num_lanes; ++i) fb[lanes[i]].wait.received = votes;
  }
  if (w.kind == WaitKind::shuffle) {
    for (int i = 0; i < num_lanes; ++i) {
      const unsigned u = lanes[i];
      Wait& wu = fb[u].wait;
      const int lane = static_cast<int>(u % warp_size);
      const int src = shuffle_source(wu, lane);
      if (src < 0)
        wu.received = wu.offered;
      else if (w.mask >> src & 1u)
        wu.received = fb[lane_thread(t, src)].wait.offered;
      else
        wu.received = poison_bits(wu.size, wu.floating);  // a lane outside the mask: undefined
    }
  }
  s.warp_waiting[t / warp_size] -= static_cast<unsigned>(num_lanes);
  for (int i = 0; i < num_lanes; ++i) {
    fb[lanes[i]].status = Status::ready;
    fb[lanes[i]].wait.kind = WaitKind::none;
    s.mark_ready(lanes[i]);
  }
}

/// Nothing can run and threads wait: say why.
std::string diagnose_stuck(BlockState& s) {
  std::vector<Fiber>& fb = *s.fibers;
  for (unsigned t = 0; t < s.count; ++t) {
    if (fb[t].status != Status::waiting) continue;
    const Wait& w = fb[t].wait;
    if (w.kind == WaitKind::syncthreads) {
      for (unsigned u = 0; u < s.count; ++u) {
        if (fb[u].status == Status::exited)
          return "threads reach __syncthreads at different places: " + thread_name(t) + " " + describe_wait(fb[t]) +
                 ", " + thread_name(u) + " has exited (a barrier must be reached by every thread of the block)";
        if (!same_point(fb[u].wait, w))
          return "threads reach __syncthreads at different places: " + thread_name(t) + " " + describe_wait(fb[t]) +
                 ", " + thread_name(u) + " " + describe_wait(fb[u]);
      }
    } else {
      const char* what = w.kind == WaitKind::shuffle  ? shuffle_name(w.shuffle)
                         : w.kind == WaitKind::ballot ? "__ballot_sync"
                                                      : "__syncwarp";
      for (int l = 0; l < warp_size; ++l) {
        if (!(w.mask >> l & 1u)) continue;
        const unsigned u = lane_thread(t, l);
        if (fb[u].status == Status::exited) {
          if (w.kind == WaitKind::syncwarp) continue;
          return thread_name(t) + " calls " + what + " at " + where(w.file, w.line) + " with mask " + hex(w.mask) +
                 ", which names lane " + std::to_string(l) + ": that lane has exited";
        }
        if (!same_point(fb[u].wait, w))
          return "lanes of mask " + hex(w.mask) + " reach different synchronization points: " + thread_name(t) +
                 " " + describe_wait(fb[t]) + ", " + thread_name(u) + " " + describe_wait(fb[u]);
      }
    }
  }
  std::string message = "threads wait forever:";
  int listed = 0;
  for (unsigned t = 0; t < s.count && listed < 8; ++t)
    if (fb[t].status == Status::waiting) {
      message += " " + thread_name(t) + " " + describe_wait(fb[t]) + ";";
      ++listed;
    }
  return message;
}

/// Why thread t may not wait at `wait` (a warp-level synchronization), or "" when it may.
std::string invalid_warp_wait(const BlockState& s, unsigned t, const char* what, const Wait& wait) {
  const int lane = static_cast<int>(t % warp_size);
  if (!(wait.mask >> lane & 1u))
    return thread_name(t) + " calls " + what + " at " + where(wait.file, wait.line) + " with mask " + hex(wait.mask) +
           ", which does not include its own lane";
  const unsigned warp_first = (t / warp_size) * warp_size;
  const unsigned lanes_in_warp = std::min<unsigned>(warp_size, s.count - warp_first);
  if (lanes_in_warp < warp_size && (wait.mask >> lanes_in_warp) != 0)
    return thread_name(t) + " calls " + what + " at " + where(wait.file, wait.line) + " with mask " + hex(wait.mask) +
           ", which names lanes that do not exist (the warp has " + std::to_string(lanes_in_warp) + " threads)";
  if (wait.kind == WaitKind::shuffle &&
      (wait.width < 1 || wait.width > warp_size || (wait.width & (wait.width - 1)) != 0))
    return thread_name(t) + " calls " + what + " at " + where(wait.file, wait.line) + " with width " +
           std::to_string(wait.width) + " (a power of two <= 32 is required)";
  return {};
}

/// Arrival of the running thread at a synchronization point: validate, wait, return when released.
void arrive(const char* what, const Wait& wait) {
  BlockState& s = state_in_fiber(what);
  const unsigned t = static_cast<unsigned>(s.running);
  Fiber& f = (*s.fibers)[t];
  if (wait.kind != WaitKind::syncthreads) {
    bool invalid = false;
    {  // the message must be gone before the fiber is left (leave_failed_fiber)
      const std::string problem = invalid_warp_wait(s, t, what, wait);
      invalid = !problem.empty();
      if (invalid && s.error.empty()) s.error = prefix(s) + problem;
    }
    if (invalid) leave_failed_fiber(s);
  }
  f.wait = wait;
  f.status = Status::waiting;
  if (wait.kind == WaitKind::syncthreads)
    ++s.syncthreads_waiting;
  else
    ++s.warp_waiting[t / warp_size];
  if (observer) observer->synchronization(t, wait.kind == WaitKind::syncthreads);
  to_scheduler(s, f, false);
}

/// The next thread to run under the schedule, -1 if none is ready.
int pick_next(BlockState& s, const Schedule& schedule, unsigned laggard) {
  constexpr unsigned words = max_block_threads / 64;
  const auto lowest = [](const uint64_t* bits) -> int {
    for (unsigned w = 0; w < words; ++w)
      if (bits[w]) return static_cast<int>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits[w])));
    return -1;
  };
  switch (schedule.order) {
    case Order::in_order: return lowest(s.ready);
    case Order::reverse:
      for (unsigned w = words; w-- > 0;)
        if (s.ready[w]) return static_cast<int>(w * 64 + 63 - static_cast<unsigned>(__builtin_clzll(s.ready[w])));
      return -1;
    case Order::random: {
      unsigned total = 0;
      for (unsigned w = 0; w < words; ++w) total += static_cast<unsigned>(__builtin_popcountll(s.ready[w]));
      if (total == 0) return -1;
      unsigned k = static_cast<unsigned>(s.rng() % total);
      for (unsigned w = 0; w < words; ++w) {
        uint64_t bits = s.ready[w];
        const unsigned n = static_cast<unsigned>(__builtin_popcountll(bits));
        if (k >= n) {
          k -= n;
          continue;
        }
        while (k-- > 0) bits &= bits - 1;  // drop the k lowest ready threads of this word
        return static_cast<int>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
      }
      return -1;
    }
    case Order::laggard_warp: {
      uint64_t others[words];
      std::copy(s.ready, s.ready + words, others);
      others[laggard / 2] &= ~(uint64_t{0xffffffffu} << (32 * (laggard % 2)));
      const int t = lowest(others);
      return t >= 0 ? t : lowest(s.ready);
    }
  }
  return -1;
}

}  // namespace

ThreadCoordinates& coordinates() {
  BlockState& s = state_in_fiber("threadIdx / blockIdx / blockDim / gridDim");
  return (*s.fibers)[s.running].coordinates;
}

namespace detail {
void set_emulation_observer(EmulationObserver* o) { observer = o; }

AddressClass classify_access(uintptr_t address, int* thread) {
  if (!current || current->running < 0) return AddressClass::outside_kernel;
  const BlockState& s = *current;
  const Fiber& f = (*s.fibers)[s.running];
  *thread = s.running;
  const uintptr_t stack = reinterpret_cast<uintptr_t>(f.stack);
  if (address >= stack && address < stack + f.stack_size) return AddressClass::private_memory;
  const uintptr_t fibers = reinterpret_cast<uintptr_t>(s.fibers->data());
  if (address >= fibers && address < fibers + s.fibers->size() * sizeof(Fiber)) return AddressClass::private_memory;
  if (address >= launcher_stack.first && address < launcher_stack.second) return AddressClass::private_memory;
  const uintptr_t dynamic = reinterpret_cast<uintptr_t>(s.dynamic);
  if (address >= dynamic && address < dynamic + s.info->shared_bytes + shared_guard_bytes) return AddressClass::shared;
  for (const auto& r : s.shared_ranges)
    if (address >= r.first && address < r.second) return AddressClass::shared;
  return AddressClass::global;
}
}  // namespace detail

void syncthreads(const char* file, int line) {
  Wait w;
  w.kind = WaitKind::syncthreads;
  w.file = file;
  w.line = line;
  arrive("__syncthreads", w);
}

void syncwarp(const char* file, int line, unsigned mask) {
  Wait w;
  w.kind = WaitKind::syncwarp;
  w.file = file;
  w.line = line;
  w.mask = mask;
  arrive("__syncwarp", w);
}

unsigned ballot(const char* file, int line, unsigned mask, int predicate) {
  Wait w;
  w.kind = WaitKind::ballot;
  w.file = file;
  w.line = line;
  w.mask = mask;
  w.offered = predicate != 0 ? 1 : 0;
  arrive("__ballot_sync", w);
  BlockState& s = *current;
  return static_cast<unsigned>((*s.fibers)[s.running].wait.received);
}

uint64_t shuffle_bits(const char* file, int line, ShuffleKind kind, unsigned mask, uint64_t bits, int size,
                      bool floating, int arg, int width) {
  Wait w;
  w.kind = WaitKind::shuffle;
  w.file = file;
  w.line = line;
  w.mask = mask;
  w.shuffle = kind;
  w.size = size;
  w.floating = floating;
  w.arg = arg;
  w.width = width;
  w.offered = bits;
  arrive(shuffle_name(kind), w);
  BlockState& s = *current;
  return (*s.fibers)[s.running].wait.received;
}

void* block_shared_bytes(const char* file, int line, size_t bytes, size_t alignment) {
  BlockState& s = state_in_fiber("__shared__ memory");
  void*& p = s.statics[{file, line}];
  if (!p) {
    const size_t align = std::max<size_t>(alignment, 16);
    p = ::operator new(bytes, std::align_val_t(align));
    std::memset(p, shared_poison_byte, bytes);
    s.allocations.emplace_back(p, align);
    s.shared_ranges.emplace_back(reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + bytes);
  }
  return p;
}

void* dynamic_shared_bytes(const char*, int) {
  BlockState& s = state_in_fiber("dynamic shared memory");
  return s.dynamic;
}

void run_grid(const LaunchInfo& info, const std::function<void()>& thread_body) {
  const std::string where_launched = std::string(info.kernel) + " (launched at " + where(info.file, info.line) + ")";
  if (current) throw EmulationError("CUDA emulation: " + where_launched + " launched from inside a kernel");
  if (!info.stream) throw EmulationError("CUDA emulation: " + where_launched + " on a null stream");
  if (info.grid == 0 || info.block == 0)
    throw EmulationError("CUDA emulation: " + where_launched + ": invalid configuration, grid " +
                         std::to_string(info.grid) + " x block " + std::to_string(info.block));
  if (info.block > max_block_threads)
    throw EmulationError("CUDA emulation: " + where_launched + ": block of " + std::to_string(info.block) +
                         " threads, more than CUDA's 1024");
  if (info.block > info.launch_bound)
    throw EmulationError("CUDA emulation: " + where_launched + ": block of " + std::to_string(info.block) +
                         " threads exceeds the kernel's __launch_bounds__ of " + std::to_string(info.launch_bound));
  if (info.shared_bytes > max_shared_bytes)
    throw EmulationError("CUDA emulation: " + where_launched + ": " + std::to_string(info.shared_bytes) +
                         " bytes of dynamic shared memory, more than a block can have (" +
                         std::to_string(max_shared_bytes) + ")");
  info.stream->history.push_back(LaunchRecord{info.kernel, info.instance, info.grid, info.block, info.shared_bytes});
  if (observer) {
    if (launcher_stack.second == 0) launcher_stack = launching_stack();
    observer->launch_begin(info);
  }
  struct LaunchEnd {  // the observer hears of the launch's end on every path out
    ~LaunchEnd() {
      if (observer) observer->launch_end();
    }
  } launch_end;

  const Schedule& schedule = info.stream->schedule;
  std::vector<Fiber>& fibers = fiber_pool();
  stack_pool().ensure(fibers, info.block);
  std::vector<unsigned> block_order(info.grid);
  std::iota(block_order.begin(), block_order.end(), 0u);
  std::mt19937_64 rng(schedule.seed * 0x9E3779B97F4A7C15ull + info.grid * 31 + info.block);
  if (schedule.order == Order::reverse) std::reverse(block_order.begin(), block_order.end());
  if (schedule.order == Order::random) std::shuffle(block_order.begin(), block_order.end(), rng);
  const unsigned warps = (info.block + warp_size - 1) / warp_size;
  const unsigned laggard = static_cast<unsigned>(schedule.laggard_warp) % warps;

  for (unsigned b : block_order) {
    if (observer && !observer->block_begin(b, info.block)) continue;
    BlockState s;
    s.info = &info;
    s.body = &thread_body;
    s.block_index = b;
    s.fibers = &fibers;
    s.count = info.block;
    s.rng.seed(rng());
    std::unique_ptr<unsigned char[]> dynamic(new unsigned char[info.shared_bytes + shared_guard_bytes + 16]);
    // 16-byte alignment as CUDA guarantees for extern __shared__ __align__(16).
    s.dynamic = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(dynamic.get()) + 15) & ~uintptr_t{15});
    std::memset(s.dynamic, shared_poison_byte, info.shared_bytes);
    std::memset(s.dynamic + info.shared_bytes, guard_byte, shared_guard_bytes);
#if SPROCKET_EMULATION_ASAN
    // Exactly the requested bytes are addressable: ASan reports any access past them.
    ASAN_POISON_MEMORY_REGION(dynamic.get(), info.shared_bytes + 16);
    ASAN_UNPOISON_MEMORY_REGION(s.dynamic, info.shared_bytes);
#endif
    for (unsigned t = 0; t < info.block; ++t) {
      Fiber& f = fibers[t];
      f.status = Status::ready;
      s.mark_ready(t);
      f.wait = Wait{};
      f.coordinates.thread_idx = dim3{t, 0, 0};
      f.coordinates.block_idx = dim3{b, 0, 0};
      f.coordinates.block_dim = dim3{info.block, 1, 1};
      f.coordinates.grid_dim = dim3{info.grid, 1, 1};
#if SPROCKET_EMULATION_ASAN
      ASAN_UNPOISON_MEMORY_REGION(f.stack, f.stack_size);  // frames of an abandoned fiber
#endif
#if SPROCKET_EMULATION_OWN_SWITCH
      // The frame sprocket_emulation_switch pops: control words, six registers, then a return
      // into fiber_entry, which sees the stack as after a call (rsp = 8 mod 16).
      uint64_t* top = reinterpret_cast<uint64_t*>(
          (reinterpret_cast<uintptr_t>(f.stack) + f.stack_size) & ~uintptr_t{15});
      *--top = 0;  // fiber_entry's return address: it never returns
      *--top = reinterpret_cast<uint64_t>(&fiber_entry);
      for (int r = 0; r < 6; ++r) *--top = 0;
      *--top = uint64_t{0x037f} << 32 | 0x1f80;  // MXCSR and x87 control word at reset
      f.sp = top;
#else
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack;
      f.context.uc_stack.ss_size = f.stack_size;
      f.context.uc_link = nullptr;
      makecontext(&f.context, fiber_entry, 0);
#endif
    }
    current = &s;
    try {
      while (s.error.empty()) {
        const int next = pick_next(s, schedule, laggard);
        if (next < 0) {
          bool all_exited = true;
          for (unsigned t = 0; t < s.count; ++t) all_exited = all_exited && fibers[t].status == Status::exited;
          if (!all_exited) s.error = prefix(s) + "deadlock (no thread can run): " + diagnose_stuck(s);
          break;
        }
        const unsigned t = static_cast<unsigned>(next);
        resume(s, t);
        if (!s.error.empty()) break;
        if (fibers[t].status == Status::waiting) {
          try_complete(s, t);
        } else {
          // An exit may complete a __syncwarp that names the exited lane.
          for (int l = 0; l < warp_size; ++l) {
            const unsigned u = lane_thread(t, l);
            if (u < s.count && fibers[u].status == Status::waiting && fibers[u].wait.kind == WaitKind::syncwarp &&
                (fibers[u].wait.mask >> (t % warp_size) & 1u))
              try_complete(s, u);
          }
        }
      }
      if (s.error.empty())
        for (size_t i = 0; i < shared_guard_bytes; ++i)
          if (s.dynamic[info.shared_bytes + i] != guard_byte) {
            s.error = prefix(s) + "wrote past the " + std::to_string(info.shared_bytes) +
                      " bytes of dynamic shared memory the launch requested (byte " +
                      std::to_string(info.shared_bytes + i) + ")";
            break;
          }
    } catch (...) {
      current = nullptr;
      for (auto& a : s.allocations) ::operator delete(a.first, std::align_val_t(a.second));
      throw;
    }
    current = nullptr;
    if (observer) observer->block_end();
#if SPROCKET_EMULATION_ASAN
    ASAN_UNPOISON_MEMORY_REGION(dynamic.get(), info.shared_bytes + 16);
#endif
    for (auto& a : s.allocations) ::operator delete(a.first, std::align_val_t(a.second));
    if (!s.error.empty()) throw EmulationError(s.error);
  }
}

}  // namespace cuda_emulation
}  // namespace Sprocket
