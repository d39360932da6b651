// sprocket-bench: Sprocket's benchmark driver. One registry of kernels (spmv, bsr, spmm, sddmm,
// spgemm, stream, gram); each prints one line per (matrix, variant or peer) with the median seconds of
// --repeat timed runs after --warmup untimed ones, GB/s from counted bytes, GFLOP/s, and
// ratio_vs_<peer> on our lines.
//
//   sprocket-bench --kernel spmv --matrix <file.mtx[.gz] | gen:...> [--matrix ...]
//                  [--compare kk,cusparse] [--variant auto|<name>|all] [--repeat N] [--warmup N]
//                  [--check] [--json] [--describe] [--stream] [--scalar double|float]
//                  [--offset int|size_t] [--alpha A] [--beta B]
//   sprocket-bench --kernel bsr --matrix <...> [--block-size auto|<b>] [--compare kk,csr,cusparse]
//                  [--variant auto|<BsrKernel name>|portable|all] (and the common options above)
//   sprocket-bench --kernel spmm --matrix <...> [--k 32,128] [--layout right|left|both]
//                  [--compare kk,spmv,cusparse] [--variant auto|<SpmmKernel name>|portable|all] (and the
//                  common options)
//   sprocket-bench --kernel sddmm --matrix <...> [--k 32,128] [--layout right|left|both]
//                  [--compare graphblas,kokkos_team,cusparse]
//                  [--variant auto|<SddmmKernel name>|build_tiles|from_spmm|portable|all] (and the common
//                  options)
//   sprocket-bench --kernel spgemm --matrix <...> [--compare kk,kk_unsorted,graphblas,cusparse]
//                  [--variant auto|hash|dense|global_hash|uniform|binned|unsorted|portable|all] (and the
//                  common options but --alpha / --beta): C = A*A (square) or A*A^T, full products
//                  timed, numeric_seconds the numeric-only re-run, peak_bytes
//   sprocket-bench --kernel stream [--variant copy|triad|all] [--stream-size N] [--json]
//   sprocket-bench --kernel gram [--rows N1,N2] [--cols P1,P2] [--variant auto|kokkos|all]
//                  [--compare dgemm] [--check] [--json]: the solvers' tall-skinny block products
//
// Exit status: 0 on success, 1 after a failed --check or an unreadable matrix (the other
// matrices still run), 2 on bad usage. See perf_tests/README.md.
//
// Adding a kernel: write bench_<kernel>.cpp with a function returning its KernelEntry (name,
// variants, peers, run function), declare it in bench_kernels.hpp, list it in registry() below
// and add the file to sprocket-bench in CMakeLists.txt; bench_common.hpp has the shared loading,
// timing, checking and output helpers, bench_matrix_loop.hpp the loop every matrix kernel runs.

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "Sprocket_BsrMatrix.hpp"
#include "bench_common.hpp"
#include "bench_kernels.hpp"
#include "bench_stream.hpp"

namespace sprocket_bench {
namespace {

const std::vector<KernelEntry>& registry() {
  static const std::vector<KernelEntry> kernels{spmv_entry(), stream_entry(), bsr_entry(), spmm_entry(),
                                                sddmm_entry(), spgemm_entry(), gram_entry()};
  return kernels;
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

void usage(std::ostream& os) {
  os << "usage: sprocket-bench --kernel <name> [options]\n"
        "  --kernel K       the benchmark (see below)\n"
        "  --matrix M       Matrix Market file (.mtx, .mtx.gz) or generator spec gen:<name>:<k>=<v>,...;\n"
        "                   give it several times to benchmark several matrices in one run\n"
        "  --variant V      our variants to run, comma-separated or repeated; 'all' for every one\n"
        "  --compare P      peers measured in the same run, comma-separated (e.g. kk,cusparse)\n"
        "  --repeat N       timed runs per implementation, median reported (default 20)\n"
        "  --warmup N       untimed runs first (default 3)\n"
        "  --check          verify every result (ours and peers) against the reference; exit 1 on\n"
        "                   a mismatch\n"
        "  --json           one JSON object per line (informational text goes to stderr)\n"
        "  --describe       print what each plan's analysis chose (describe())\n"
        "  --stream         add the stream copy/triad lines to this run (roofline reference)\n"
        "  --scalar S       double (default) or float\n"
        "  --offset O       row-map offset type: int (default) or size_t\n"
        "  --alpha A        y = alpha A x + beta y: alpha (default 1; not for spgemm)\n"
        "  --beta B         beta (default 0: y is only written, not read; not for spgemm)\n"
        "  --stream-size N  elements per stream array (default 2^26 = 67108864)\n"
        "  --block-size B   bsr: auto (default: detect_block_size) or the block size b (1..32)\n"
        "  --k K1,K2,...    spmm, sddmm: columns of the dense operands, comma-separated (default 32,128)\n"
        "  --layout L       spmm, sddmm: layout of the dense operands: right, left or both (also right,left);\n"
        "                   default both for spmm, right for sddmm\n"
        "  --rows N1,N2,... gram: rows n of the blocks (default 32768,262144)\n"
        "  --cols P1,P2,... gram: columns p = q of the blocks (default 4,8,16,24)\n"
        "  Threads and devices are Kokkos' options: --kokkos-threads=N, --kokkos-device-id=N\n"
        "  (or OMP_NUM_THREADS; OMP_PROC_BIND=spread OMP_PLACES=threads recommended).\n"
        "kernels:\n";
  for (const KernelEntry& k : registry()) {
    os << "  " << k.name << ": " << k.summary << "\n"
       << "      variants: " << join(k.variants) << ", all (default: " << k.default_variant << ")\n";
    if (!k.variant_aliases.empty()) {
      std::vector<std::string> aliases;
      for (const auto& alias : k.variant_aliases) aliases.push_back(alias.first + " = " + alias.second);
      os << "      older variant names: " << join(aliases) << "\n";
    }
    if (!k.peers.empty()) {
      std::vector<std::string> names;
      for (const Peer& p : k.peers) names.push_back(p.name + (p.available ? "" : " (not in this build)"));
      os << "      peers: " << join(names) << "\n";
    }
    os << "      e.g. " << k.example << "\n";
  }
}

std::vector<std::string> split_commas(const std::string& s) {
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

void add_unique(std::vector<std::string>& v, const std::string& item) {
  for (const auto& x : v)
    if (x == item) return;
  v.push_back(item);
}

int64_t parse_integer(const std::string& option, const std::string& value, int64_t min) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || v < min)
    throw UsageError(option + " needs an integer >= " + std::to_string(min) + ", not \"" + value + "\"");
  return v;
}

double parse_real(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(v))
    throw UsageError(option + " needs a finite number, not \"" + value + "\"");
  return v;
}

/// Parses the arguments Kokkos left; validates variants and peers against the kernel's entry.
Args parse(int argc, char** argv, const KernelEntry** entry_out) {
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
      if (value != "auto" && (value.empty() || *end != '\0' || b < 1 || b > Sprocket::max_bsr_block_size))
        throw UsageError("--block-size needs auto or an integer in [1, " +
                         std::to_string(Sprocket::max_bsr_block_size) + "], not \"" + value + "\"");
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
  for (const KernelEntry& k : registry()) {
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
  *entry_out = entry;
  return args;
}

}  // namespace
}  // namespace sprocket_bench

int main(int argc, char** argv) {
  // --help before Kokkos::initialize, which would print its own help for --help too.
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      sprocket_bench::usage(std::cout);
      return 0;
    }

  // Kokkos::initialize printf()s its warnings (OMP_PROC_BIND not set, ...) on stdout, which
  // --json reserves for records: send what it prints to stderr.
  std::fflush(stdout);
  const int saved_stdout = dup(STDOUT_FILENO);
  if (saved_stdout >= 0) dup2(STDERR_FILENO, STDOUT_FILENO);
  Kokkos::initialize(argc, argv);  // removes the --kokkos-* options from argv
  std::fflush(stdout);
  if (saved_stdout >= 0) {
    dup2(saved_stdout, STDOUT_FILENO);
    close(saved_stdout);
  }
  int status = 0;
  {
    const sprocket_bench::KernelEntry* entry = nullptr;
    sprocket_bench::Args args;
    try {
      args = sprocket_bench::parse(argc, argv, &entry);
    } catch (const sprocket_bench::UsageError& e) {
      std::cerr << "sprocket-bench: " << e.what() << "\n(sprocket-bench --help for usage)\n";
      status = 2;
    }
    if (entry) {
      try {
        status = entry->run(args);
      } catch (const std::exception& e) {
        std::cerr << "sprocket-bench: " << e.what() << "\n";
        status = 1;
      }
    }
  }
  Kokkos::finalize();
  return status;
}
