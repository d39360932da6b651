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
//   mpirun -np R build/trilinos/bin/sprocket-bench --kernel tpetra-spmv --matrix <...> [--check]:
//                  Tpetra's apply vs Sprocket::TpetraOperator on 1, 2, 4, ... R ranks (the Trilinos
//                  configuration's sprocket-bench holds only this kernel; the host one says so)
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

#ifdef SPROCKET_BENCH_TRILINOS
#include <Tpetra_Core.hpp>
#endif

#include "Sprocket_BsrMatrix.hpp"
#include "bench_common.hpp"
#include "bench_kernels.hpp"
#include "bench_stream.hpp"

namespace sprocket_bench {
static_assert(max_block_size_arg == Sprocket::max_bsr_block_size, "--block-size range");
namespace {

const std::vector<KernelEntry>& registry() {
#ifdef SPROCKET_BENCH_TRILINOS
  static const std::vector<KernelEntry> kernels{tpetra_spmv_entry()};
#else
  static const std::vector<KernelEntry> kernels{spmv_entry(),   stream_entry(), bsr_entry(),        spmm_entry(),
                                                sddmm_entry(),  spgemm_entry(), gram_entry(), tpetra_spmv_entry()};
#endif
  return kernels;
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
        "  --order O        interleaved (default: repeat r runs every implementation once, in turn,\n"
        "                   starting with implementation r mod n: lines say \"order\":\"rotated\")\n"
        "                   or consecutive (each implementation's runs back to back, its caches warm)\n"
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
        "  Threads and devices are Kokkos' options: --kokkos-threads=N (--kokkos-num-threads=N from\n"
        "  Kokkos 4.3), --kokkos-device-id=N\n"
        "  (or OMP_NUM_THREADS; OMP_PROC_BIND=spread OMP_PLACES=threads recommended).\n"
        "  --threads=N --numa=N --device=N --device-id=N --ndevices=N --num-devices=N --skip-device=N\n"
        "                   Kokkos' older spellings of its --kokkos-* options, passed on to Kokkos\n"
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
#ifdef SPROCKET_BENCH_TRILINOS
  // MPI and Kokkos together (Tpetra's ScopeGuard finalizes both at the end of main).
  Tpetra::ScopeGuard mpi_and_kokkos(&argc, &argv);
#else
  Kokkos::initialize(argc, argv);  // removes the --kokkos-* options from argv
#endif
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
      args = sprocket_bench::parse_args(argc, argv, sprocket_bench::registry(), &entry);
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
#ifndef SPROCKET_BENCH_TRILINOS
  Kokkos::finalize();
#endif
  return status;
}
