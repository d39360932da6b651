// A Kokkos Tools library that writes a timeline of host events: where a host-driven pipeline (the
// CUDA SpGEMM's analysis, symbolic pass, read-backs and allocations) spends its wall time besides
// the kernels. Loaded through KOKKOS_PROFILE_LIBRARY=<this .so>; SPROCKET_TRACE_FILE names the
// output (default kokkos-trace.tsv). One line per event, microseconds since Kokkos' initialization:
//   start_us  duration_us  kind  name  bytes
// kind: region (push to pop), for / reduce / scan (the host time of the launch: the kernel runs
// asynchronously), deep_copy (host time of the copy, a wait for the device included when it
// reads back), fence (the host's wait), alloc / free (the callback's moment, duration 0: the time
// of the cudaMalloc itself is in the gap before it, cudaFree's in the gap after).
// No dependency on CUDA or Kokkos: the interface is the C one Kokkos 3.4 and 4.x load by name.
//   g++ -O2 -shared -fPIC -o libkokkos_trace.so perf_tests/gpu/kokkos_trace.cpp
// perf_tests/gpu/trace_summary.py reads the lines.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Event {
  double start = 0, duration = -1;
  const char* kind = "";
  std::string name;
  uint64_t bytes = 0;
};

struct Trace {
  Clock::time_point origin = Clock::now();
  std::vector<Event> events;
  std::vector<size_t> regions;  // open regions, indices into events
  std::vector<size_t> open;     // open kernels / fences by id - 1
  size_t copy = 0;              // the deep copy in flight (Kokkos does not nest them)
  double now() const { return std::chrono::duration<double, std::micro>(Clock::now() - origin).count(); }
  size_t add(const char* kind, const char* name, uint64_t bytes = 0, bool instant = false) {
    Event e;
    e.start = now();
    e.kind = kind;
    e.name = name ? name : "";
    e.bytes = bytes;
    if (instant) e.duration = 0;
    events.push_back(std::move(e));
    return events.size() - 1;
  }
  void close(size_t i) {
    if (i < events.size() && events[i].duration < 0) events[i].duration = now() - events[i].start;
  }
};

Trace* trace = nullptr;

struct SpaceHandle {
  char name[64];
};

void begin(const char* kind, const char* name, uint64_t* id) {
  if (!trace) return;
  trace->open.push_back(trace->add(kind, name));
  *id = trace->open.size();
}
void end(uint64_t id) {
  if (trace && id >= 1 && id <= trace->open.size()) trace->close(trace->open[id - 1]);
}

}  // namespace

extern "C" {

void kokkosp_init_library(int, uint64_t, uint32_t, void*) { trace = new Trace(); }

void kokkosp_finalize_library() {
  if (!trace) return;
  const char* path = std::getenv("SPROCKET_TRACE_FILE");
  FILE* f = std::fopen(path && *path ? path : "kokkos-trace.tsv", "w");
  if (f) {
    std::fprintf(f, "start_us\tduration_us\tkind\tname\tbytes\n");
    for (const Event& e : trace->events)
      std::fprintf(f, "%.1f\t%.1f\t%s\t%s\t%llu\n", e.start, e.duration, e.kind, e.name.c_str(),
                   static_cast<unsigned long long>(e.bytes));
    std::fclose(f);
  }
  delete trace;
  trace = nullptr;
}

void kokkosp_begin_parallel_for(const char* name, uint32_t, uint64_t* id) { begin("for", name, id); }
void kokkosp_end_parallel_for(uint64_t id) { end(id); }
void kokkosp_begin_parallel_reduce(const char* name, uint32_t, uint64_t* id) { begin("reduce", name, id); }
void kokkosp_end_parallel_reduce(uint64_t id) { end(id); }
void kokkosp_begin_parallel_scan(const char* name, uint32_t, uint64_t* id) { begin("scan", name, id); }
void kokkosp_end_parallel_scan(uint64_t id) { end(id); }
void kokkosp_begin_fence(const char* name, uint32_t, uint64_t* id) { begin("fence", name, id); }
void kokkosp_end_fence(uint64_t id) { end(id); }

void kokkosp_push_profile_region(const char* name) {
  if (trace) trace->regions.push_back(trace->add("region", name));
}
void kokkosp_pop_profile_region() {
  if (!trace || trace->regions.empty()) return;
  trace->close(trace->regions.back());
  trace->regions.pop_back();
}

void kokkosp_allocate_data(SpaceHandle space, const char* label, const void*, uint64_t size) {
  if (trace) trace->add("alloc", (std::string(space.name) + ":" + (label ? label : "")).c_str(), size, true);
}
void kokkosp_deallocate_data(SpaceHandle space, const char* label, const void*, uint64_t size) {
  if (trace) trace->add("free", (std::string(space.name) + ":" + (label ? label : "")).c_str(), size, true);
}

void kokkosp_begin_deep_copy(SpaceHandle dst, const char* dst_label, const void*, SpaceHandle src,
                             const char* src_label, const void*, uint64_t size) {
  if (!trace) return;
  const std::string name = std::string(src.name) + ":" + (src_label ? src_label : "") + " -> " + dst.name + ":" +
                           (dst_label ? dst_label : "");
  trace->copy = trace->add("deep_copy", name.c_str(), size);
}
void kokkosp_end_deep_copy() {
  if (trace) trace->close(trace->copy);
}

}  // extern "C"
