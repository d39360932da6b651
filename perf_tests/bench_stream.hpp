#pragma once
// sprocket-bench --kernel stream: the memory-bandwidth ceiling of the default execution space,
// measured the STREAM way with Kokkos parallel_for over arrays larger than the last-level cache.
//   copy:  a(i) = b(i)             16 bytes per element (one read, one write)
//   triad: a(i) = b(i) + s * c(i)  24 bytes per element (two reads, one write), 2 flops
// Write-allocate traffic on CPUs (reading a's lines before writing them) is not counted, as in
// STREAM. Other kernels' --stream flag adds these lines to their own run (stream_lines()).
#include <Kokkos_Core.hpp>

#include "bench_common.hpp"

namespace sprocket_bench {
namespace stream {

using Space = Kokkos::DefaultExecutionSpace;
using Array = Kokkos::View<double*, Space::device_type>;

struct Copy {
  Array a, b;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { a(i) = b(i); }
};
struct Triad {
  Array a, b, c;
  double s;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const { a(i) = b(i) + s * c(i); }
};
struct Init {
  Array a, b, c;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i) const {
    a(i) = -1.0;
    b(i) = 1.0 + 0.125 * static_cast<double>(i % 8);
    c(i) = 2.0 - 0.25 * static_cast<double>(i % 5);
  }
};
/// Counts entries where a differs from the expected copy / triad result (exact: one rounding).
struct Verify {
  Array a, b, c;
  double s;
  bool triad;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, int64_t& bad) const {
    const double expected = triad ? b(i) + s * c(i) : b(i);
    if (!(a(i) == expected)) ++bad;
  }
};

inline int64_t count_wrong(const Array& a, const Array& b, const Array& c, double s, bool triad) {
  int64_t bad = 0;
  Kokkos::parallel_reduce("sprocket-bench::stream::verify",
                          Kokkos::RangePolicy<Space, Kokkos::IndexType<int64_t>>(0, a.extent(0)),
                          Verify{a, b, c, s, triad}, bad);
  return bad;
}

/// Measures the requested variants ("copy", "triad") and returns their records (kernel
/// "stream", impl "sprocket"). With check, verifies a after one run of each; *failed is set on a
/// mismatch.
inline std::vector<Record> measure(const Args& args, const std::vector<std::string>& variants, bool* failed) {
  const int64_t n = args.stream_n;
  const double s = 3.0;
  Array a(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::stream::a"), n);
  Array b(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::stream::b"), n);
  Array c(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::stream::c"), n);
  using Policy = Kokkos::RangePolicy<Space, Kokkos::IndexType<int64_t>>;
  // First touch by the same parallel pattern as the kernels (NUMA placement on the host).
  Kokkos::parallel_for("sprocket-bench::stream::init", Policy(0, n), Init{a, b, c});
  Kokkos::fence();

  std::vector<std::function<void()>> fns;
  for (const std::string& v : variants) {
    if (v == "copy")
      fns.push_back([=] { Kokkos::parallel_for("sprocket-bench::stream::copy", Policy(0, n), Copy{a, b}); });
    else
      fns.push_back([=] { Kokkos::parallel_for("sprocket-bench::stream::triad", Policy(0, n), Triad{a, b, c, s}); });
  }

  std::vector<bool> ok(variants.size(), true);
  if (args.check) {
    for (size_t i = 0; i < variants.size(); ++i) {
      Kokkos::deep_copy(a, -1.0);
      fns[i]();
      Kokkos::fence();
      const int64_t bad = count_wrong(a, b, c, s, variants[i] == "triad");
      if (bad) {
        std::cerr << "sprocket-bench: check FAILED for stream " << variants[i] << ": " << bad << " of " << n
                  << " elements wrong\n";
        ok[i] = false;
        if (failed) *failed = true;
      }
    }
  }

  const std::vector<Timing> t = time_interleaved(fns, args.warmup, args.repeat);
  std::vector<Record> records;
  for (size_t i = 0; i < variants.size(); ++i) {
    const bool triad = variants[i] == "triad";
    const double bytes = static_cast<double>(n) * (triad ? 24.0 : 16.0);
    Record r;
    r.set("kernel", "stream")
        .set("impl", "sprocket")
        .set("variant", variants[i])
        .set("seconds", t[i].median)
        .set("gbps", bytes / t[i].median * 1e-9)
        .set("gflops", triad ? 2.0 * static_cast<double>(n) / t[i].median * 1e-9 : 0.0)
        .set("n", n)
        .set("bytes", static_cast<int64_t>(bytes))
        .set("repeat", args.repeat)
        .set("warmup", args.warmup)
        .set("seconds_min", t[i].min)
        .set("seconds_max", t[i].max)
        .set("space", Space::name());
    if (args.check) r.set("check", static_cast<bool>(ok[i]));
    records.push_back(r);
  }
  return records;
}

inline std::vector<Column> columns() {
  return {{"impl", "impl"},           {"variant", "variant"},  {"seconds", "seconds", "%.4e"},
          {"gbps", "GB/s", "%.2f"},   {"gflops", "GFLOP/s", "%.2f"}, {"check", "check"}};
}

inline std::string title(const Args& args) {
  std::ostringstream os;
  os << "stream  " << args.stream_n << " doubles per array (" << human_bytes(8.0 * args.stream_n)
     << "), " << Space::name() << ", median of " << args.repeat << " (warm-up " << args.warmup << ")";
  return os.str();
}

/// The stream lines another kernel's --stream adds to its run: copy and triad, printed as their
/// own section. Returns the triad GB/s (the roofline reference), 0 on failure.
inline double stream_lines(const Args& args, bool* failed) {
  const std::vector<Record> records = measure(args, {"copy", "triad"}, failed);
  emit_section(args, title(args), records, columns());
  return records.back().number("gbps", 0.0);
}

inline int run(const Args& args) {
  bool failed = false;
  emit_section(args, title(args), measure(args, args.variants, &failed), columns());
  return failed ? 1 : 0;
}

}  // namespace stream

inline KernelEntry stream_entry() {
  KernelEntry e;
  e.name = "stream";
  e.summary = "memory bandwidth: copy (16 B/element) and triad (24 B/element) over 2^26 doubles";
  e.variants = {"copy", "triad"};
  e.all_variants = {"copy", "triad"};
  e.default_variant = "all";
  e.uses_matrices = false;
  e.example = "sprocket-bench --kernel stream --json";
  e.run = stream::run;
  return e;
}

}  // namespace sprocket_bench
