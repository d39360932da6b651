#pragma once
// sprocket-bench's command line: the parsed arguments (Args), the registry's entry type and the
// parser that validates variants and peers against a registry. Kokkos-free, so that the argument
// fuzzer (unit_tests/fuzz/) drives the parser sprocket-bench runs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sprocket_bench {

/// Largest BSR block size --block-size accepts: Sprocket::max_bsr_block_size (sprocket_bench.cpp
/// checks that the two agree).
inline constexpr int max_block_size_arg = 32;

/// Bad usage: reported with the usage hint, exit status 2.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

/// The parsed command line. Variants and peers are validated and expanded against the kernel's
/// entry before its run function sees them.
struct Args {
  std::string kernel;
  std::vector<std::string> matrices;  ///< --matrix, in order, repeats allowed
  std::vector<std::string> variants;  ///< expanded (no "all"), deduplicated, in order
  std::vector<std::string> peers;     ///< --compare, deduplicated, in order
  int repeat = 20;
  int warmup = 3;
  bool consecutive = false;  // --order consecutive: each implementation's calls back to back
  bool check = false;
  bool json = false;
  bool describe = false;
  bool stream = false;          ///< spmv (and later kernels): add the stream lines to the run
  std::string scalar = "double";
  std::string offset = "int";
  double alpha = 1.0;
  double beta = 0.0;
  int64_t stream_n = int64_t(1) << 26;  ///< elements per stream array
  std::vector<int64_t> ks{32, 128};     ///< spmm, sddmm: --k, columns of the dense operands
  /// spmm, sddmm: --layout right|left|both, layout of the dense operands; empty: the kernel's
  /// default (spmm both, sddmm right)
  std::string layout;
  int block_size = 0;                   ///< bsr: --block-size, 0 = auto (detect_block_size), else b
  std::vector<int64_t> rows{32768, 262144};  ///< gram: --rows, rows n of the blocks
  std::vector<int64_t> cols{4, 8, 16, 24};   ///< gram: --cols, columns p = q of the blocks
};

/// A comparison implementation a kernel can be measured against (--compare).
struct Peer {
  std::string name;
  bool available = true;
  std::string unavailable_reason;  ///< shown when requested but not available
};

/// One benchmark kernel of the registry.
struct KernelEntry {
  std::string name;
  std::string summary;                      ///< one line for --help
  std::vector<std::string> variants;        ///< names accepted by --variant (besides "all")
  std::vector<std::string> all_variants;    ///< what --variant all means
  std::string default_variant;              ///< without --variant
  /// Older names --variant still accepts (old name -> name in `variants`).
  std::vector<std::pair<std::string, std::string>> variant_aliases;
  std::vector<Peer> peers;                  ///< names accepted by --compare
  bool uses_matrices = false;               ///< --matrix required (and allowed)
  std::string example;                      ///< an example command line for --help
  /// Runs the benchmark; returns the exit status (0, or 1 after a failed check / bad matrix).
  std::function<int(const Args&)> run;
};

inline std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

inline std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

inline void add_unique(std::vector<std::string>& v, const std::string& item) {
  for (const auto& x : v)
    if (x == item) return;
  v.push_back(item);
}

inline int64_t parse_integer(const std::string& option, const std::string& value, int64_t min) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v < min)
    throw UsageError(option + " needs an integer >= " + std::to_string(min) + ", not \"" + value + "\"");
  return v;
}

inline double parse_real(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(v))
    throw UsageError(option + " needs a finite number, not \"" + value + "\"");
  return v;
}

/// Parses the arguments Kokkos left; validates variants and peers against the kernel's entry.
inline Args parse_args(int argc, char** argv, const std::vector<KernelEntry>& registry,
                       const KernelEntry** entry_out) {
  Args args;
  std::vector<std::string> variants_raw, peers_raw;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool has_value = false;
    if (arg.rfind("--", 0) == 0) {
      const size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
    }
    auto take = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    auto flag = [&] {
      if (has_value) throw UsageError(arg + " takes no value");
      return true;
    };
    if (arg == "--kernel") args.kernel = take();
    else if (arg == "--matrix") args.matrices.push_back(take());
    else if (arg == "--variant") variants_raw.push_back(take());
    else if (arg == "--compare") peers_raw.push_back(take());
    else if (arg == "--repeat") args.repeat = static_cast<int>(parse_integer(arg, take(), 1));
    else if (arg == "--warmup") args.warmup = static_cast<int>(parse_integer(arg, take(), 0));
    else if (arg == "--order") {
      const std::string order = take();
      if (order != "interleaved" && order != "consecutive")
        throw UsageError("--order: \"" + order + "\" (valid: interleaved, consecutive)");
      args.consecutive = order == "consecutive";
    }
    else if (arg == "--check") args.check = flag();
    else if (arg == "--json") args.json = flag();
    else if (arg == "--describe") args.describe = flag();
    else if (arg == "--stream") args.stream = flag();
    else if (arg == "--scalar") args.scalar = take();
    else if (arg == "--offset") args.offset = take();
    else if (arg == "--alpha") args.alpha = parse_real(arg, take());
    else if (arg == "--beta") args.beta = parse_real(arg, take());
    else if (arg == "--stream-size") args.stream_n = parse_integer(arg, take(), 1);
    else if (arg == "--block-size") {
      const std::string value = take();
      char* end = nullptr;
      const long b = value == "auto" ? 0 : std::strtol(value.c_str(), &end, 10);
      if (value != "auto" && (value.empty() || *end != '\0' || b < 1 || b > max_block_size_arg))
        throw UsageError("--block-size needs auto or an integer in [1, " +
                         std::to_string(max_block_size_arg) + "], not \"" + value + "\"");
      args.block_size = static_cast<int>(b);
    }
    else if (arg == "--k") {
      const std::vector<std::string> items = split_commas(take());
      if (items.empty()) throw UsageError("--k needs a comma-separated list of integers >= 1");
      args.ks.clear();
      for (const std::string& item : items) {
        const int64_t k = parse_integer(arg, item, 1);
        if (std::find(args.ks.begin(), args.ks.end(), k) == args.ks.end()) args.ks.push_back(k);
      }
    } else if (arg == "--rows" || arg == "--cols") {
      const std::vector<std::string> items = split_commas(take());
      if (items.empty()) throw UsageError(arg + " needs a comma-separated list of integers >= 1");
      std::vector<int64_t>& list = arg == "--rows" ? args.rows : args.cols;
      list.clear();
      for (const std::string& item : items) {
        const int64_t v = parse_integer(arg, item, 1);
        if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
      }
    } else if (arg == "--layout") {
      args.layout = take();
      if (args.layout == "right,left" || args.layout == "left,right") args.layout = "both";
      if (args.layout != "right" && args.layout != "left" && args.layout != "both")
        throw UsageError("--layout must be right, left or both, not \"" + args.layout + "\"");
    }
    // Kokkos reads (and leaves in argv) its unprefixed options: --threads=N, --numa=N, ...
    else if (has_value && (arg == "--threads" || arg == "--numa" || arg == "--device" || arg == "--device-id" ||
                           arg == "--ndevices" || arg == "--num-devices" || arg == "--skip-device"))
      continue;
    else if (arg.rfind("--kokkos-", 0) == 0) continue;
    else if (!arg.empty() && arg[0] == '-') throw UsageError("unknown option " + std::string(argv[i]));
    else throw UsageError("unexpected argument \"" + arg + "\" (matrices are given with --matrix)");
  }

  std::vector<std::string> kernel_names;
  const KernelEntry* entry = nullptr;
  for (const KernelEntry& k : registry) {
    kernel_names.push_back(k.name);
    if (k.name == args.kernel) entry = &k;
  }
  if (args.kernel.empty()) throw UsageError("--kernel is required (" + join(kernel_names) + ")");
  if (!entry) throw UsageError("unknown kernel \"" + args.kernel + "\" (valid: " + join(kernel_names) + ")");

  if (variants_raw.empty()) variants_raw.push_back(entry->default_variant);
  for (const std::string& raw : variants_raw) {
    const std::vector<std::string> items = split_commas(raw);
    if (items.empty()) throw UsageError("--variant needs a name");
    for (std::string v : items) {
      for (const auto& alias : entry->variant_aliases)
        if (v == alias.first) v = alias.second;
      if (v == "all") {
        for (const std::string& a : entry->all_variants) add_unique(args.variants, a);
      } else if (std::find(entry->variants.begin(), entry->variants.end(), v) != entry->variants.end()) {
        add_unique(args.variants, v);
      } else {
        throw UsageError("unknown " + entry->name + " variant \"" + v + "\" (valid: " + join(entry->variants) +
                         ", all)");
      }
    }
  }
  for (const std::string& raw : peers_raw) {
    for (const std::string& p : split_commas(raw)) {
      const Peer* peer = nullptr;
      std::vector<std::string> names;
      for (const Peer& q : entry->peers) {
        names.push_back(q.name);
        if (q.name == p) peer = &q;
      }
      if (!peer)
        throw UsageError("unknown peer \"" + p + "\" for --kernel " + entry->name +
                         (names.empty() ? std::string(" (it has none)") : " (valid: " + join(names) + ")"));
      if (!peer->available) throw UsageError(peer->unavailable_reason);
      add_unique(args.peers, p);
    }
  }
  if (entry->uses_matrices && args.matrices.empty())
    throw UsageError("--kernel " + entry->name + " needs at least one --matrix <file.mtx[.gz] | gen:...>");
  if (!entry->uses_matrices && !args.matrices.empty())
    throw UsageError("--kernel " + entry->name + " takes no --matrix");
  if (args.scalar != "double" && args.scalar != "float")
    throw UsageError("--scalar must be double or float, not \"" + args.scalar + "\"");
  if (args.offset != "int" && args.offset != "size_t")
    throw UsageError("--offset must be int or size_t, not \"" + args.offset + "\"");
#ifdef SPROCKET_BENCH_DOUBLE_INT_ONLY
  if (args.scalar != "double" || args.offset != "int")
    throw UsageError("this sprocket-bench was built for --scalar double --offset int only (SPROCKET_BENCH_TYPES="
                     "double_int: the build of make test and of the CI compile check); --scalar " + args.scalar + " --offset " + args.offset +
                     " needs a build with SPROCKET_BENCH_TYPES=all (make bench, make cuda-check)");
#endif
  *entry_out = entry;
  return args;
}

}  // namespace sprocket_bench
