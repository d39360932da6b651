#pragma once
// sprocket-bench: the Intel MKL peers of spmv, bsr, spmm and spgemm (SPROCKET_BENCH_HAVE_MKL, host
// builds where `make bench` / `make test` unpacked MKL 2020.4 into the dependency cache). The
// operations and how each is written are in mkl_peer.{hpp,cpp}; here are the adapters between the
// bench's Views (host memory: MKL reads and writes them in place) and MKL's arrays, and the
// candidates the kernels time.
//
// MKL's LP64 interface takes 32-bit offsets: with --offset size_t the peer gets an int copy of the
// row map (copy_seconds, not a set-up: an MKL user's row map is already 32-bit). Every way MKL
// offers is set up (its setup: handle, hints, mkl_sparse_optimize), tried (fastest_way), and the
// fastest kept; the candidate's setup_seconds is those set-ups plus the trial's seconds
// (peer_prepare_seconds, peer_trial_seconds), as an expert who tries the ways pays both, and as
// Kokkos Kernels' ways are counted.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "bench_matrix_loop.hpp"
#include "mkl_peer.hpp"

namespace sprocket_bench {

/// The mkl entry of a kernel's peer list: available in host builds with MKL.
inline Peer mkl_peer(const char* name = "mkl") {
#if defined(SPROCKET_BENCH_HAVE_MKL)
  if (Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>::accessible)
    return {name, true, ""};
  return {name, false, std::string(name) + ": Intel MKL runs on the host, and this build's default space is " +
                           Kokkos::DefaultExecutionSpace::name()};
#else
  return {name, false,
          std::string(name) + ": this sprocket-bench was built without Intel MKL. `make bench` and `make test` unpack "
          "MKL 2020.4 from Debian's non-free archive into the dependency cache (cmake/sprocket-mkl.sh) unless "
          "SPROCKET_MKL=0; a CMake configuration of its own needs -DSPROCKET_BENCH_MKL=ON -DSPROCKET_MKL_ROOT=<prefix>"};
#endif
}

inline bool is_mkl_peer(const std::string& peer) { return peer == "mkl" || peer == "mkl_unsorted"; }

#if defined(SPROCKET_BENCH_HAVE_MKL)
namespace mkl {

/// MKL's threads: as many as Kokkos' host space has. Unbound OpenMP threads (OMP_PROC_BIND unset)
/// with MKL's parallel regions beside Kokkos' were seen to make every candidate's apply, ours and
/// the peers', take about 8 ms on a 2-core VM: the run says so rather than publish such figures.
inline void prepare_threads() {
  set_threads(Kokkos::DefaultHostExecutionSpace().concurrency());
  static const bool warned = [] {
    const char* bind = std::getenv("OMP_PROC_BIND");
    if (!bind || !*bind || std::string(bind) == "false")
      std::cerr << "sprocket-bench: warning: OMP_PROC_BIND is not set: with the mkl peer's threads beside Kokkos' "
                   "unbound ones every candidate may be slowed by scheduling (seen: about 8 ms per apply on 2 "
                   "cores); run with OMP_PROC_BIND=spread OMP_PLACES=threads (the build script and "
                   "perf_tests/host_compare.sh set them)\n";
    return true;
  }();
  (void)warned;
}

/// MKL's view of a CSR or BSR of the bench: its own arrays, with an int row map (a copy when the
/// bench's offsets are size_t: copy_seconds).
struct Arrays {
  std::shared_ptr<std::vector<int>> row_map_copy;
  const int* row_map = nullptr;
  double copy_seconds = 0;
};

template <class RowMap>
Arrays int_row_map(const RowMap& row_map) {
  using Offset = typename RowMap::non_const_value_type;
  Arrays a;
  if constexpr (std::is_same_v<Offset, int>) {
    a.row_map = row_map.data();
  } else {
    a.copy_seconds = seconds_of([&] {
      const size_t n = row_map.extent(0);
      if (n && static_cast<uint64_t>(row_map(n - 1)) > static_cast<uint64_t>(std::numeric_limits<int>::max()))
        throw std::runtime_error("mkl: " + std::to_string(row_map(n - 1)) +
                                 " entries do not fit MKL's 32-bit LP64 offsets");
      a.row_map_copy = std::make_shared<std::vector<int>>(row_map.data(), row_map.data() + n);
    });
    a.row_map = a.row_map_copy->data();
  }
  return a;
}

template <class Crs>
std::pair<Csr, Arrays> csr_of(const Crs& A) {
  Arrays arrays = int_row_map(A.graph.row_map);
  Csr c;
  c.rows = A.numRows();
  c.cols = A.numCols();
  c.row_map = arrays.row_map;
  c.entries = A.graph.entries.data();
  c.values = A.values.data();
  c.single = std::is_same_v<typename Crs::non_const_value_type, float>;
  return {c, arrays};
}

template <class BsrMatrix>
std::pair<Bsr, Arrays> bsr_of(const BsrMatrix& A) {
  Arrays arrays = int_row_map(A.row_map);
  Bsr b;
  b.block_rows = A.num_block_rows();
  b.block_cols = A.num_block_cols();
  b.block_size = A.block_size();
  b.row_map = arrays.row_map;
  b.entries = A.entries.data();
  b.values = A.values.data();
  b.single = std::is_same_v<typename BsrMatrix::value_type, float>;
  return {b, arrays};
}

/// A rank-2 View as MKL's dense operand (by row for LayoutRight, by column for LayoutLeft).
template <class Mat>
Dense dense_of(const Mat& M) {
  Dense d;
  d.data = M.data();
  d.rows = static_cast<int64_t>(M.extent(0));
  d.cols = static_cast<int64_t>(M.extent(1));
  d.row_major = std::is_same_v<typename Mat::array_layout, Kokkos::LayoutRight>;
  d.ld = d.row_major ? static_cast<int64_t>(M.stride(0)) : static_cast<int64_t>(M.stride(1));
  if (d.ld == 0) d.ld = d.row_major ? std::max<int64_t>(1, d.cols) : std::max<int64_t>(1, d.rows);
  return d;
}

/// The calls each set-up is told to expect: the bench's warm-ups and timed repeats, the check's
/// and the trial's calls.
inline int expected_calls(const Args& args) { return args.warmup + args.repeat + 8; }

/// What every mkl line carries: the library's version and the code path MKL chose for this CPU.
inline void describe(Candidate& c, double copy_seconds) {
  c.details.set("peer_version", version()).set("peer_code_path", code_path()).set("dgemm_from", dgemm_library());
  if (copy_seconds > 0) c.details.set("copy_seconds", copy_seconds);
}

/// The fastest of MKL's ways (each set up, then tried: fastest_candidate): setup_seconds is every
/// way's set-up (peer_prepare_seconds; each in peer_setups) plus the trial (peer_trial_seconds).
/// way_bytes(name) gives a way's bytes per apply (< 0: the section's).
template <class WayBytes>
Candidate fastest_of(std::vector<std::pair<std::string, std::unique_ptr<Op>>> made, const std::string& note,
                     const std::vector<Arrays>& arrays, WayBytes&& way_bytes) {
  std::vector<std::shared_ptr<Op>> ops;
  std::vector<Way> ways;
  for (auto& [name, op] : made) {
    ops.push_back(std::shared_ptr<Op>(std::move(op)));
    const std::shared_ptr<Op> kept = ops.back();
    ways.push_back({name, [kept] { kept->apply(); }});
  }
  // Every way set up is the preparation (as for Kokkos Kernels' ways), then the trial.
  double prepare_seconds = 0;
  std::string setups;
  for (size_t i = 0; i < ways.size(); ++i) {
    prepare_seconds += ops[i]->setup_seconds();
    setups += (i ? ", " : "") + ways[i].name + " " + format_number(ops[i]->setup_seconds(), "%.3g");
  }
  Candidate c = fastest_candidate("mkl", ways, prepare_seconds, note);
  c.bytes = way_bytes(c.peer_algorithm);
  c.details.set("peer_setups", setups);
  // MKL's handles read the int row maps copied for them (size_t offsets): kept alive with the apply.
  double copy_seconds = 0;
  std::vector<std::shared_ptr<std::vector<int>>> row_maps;
  for (const Arrays& a : arrays) {
    copy_seconds += a.copy_seconds;
    if (a.row_map_copy) row_maps.push_back(a.row_map_copy);
  }
  if (!row_maps.empty()) c.apply = [run = c.apply, row_maps] { run(); };
  describe(c, copy_seconds);
  return c;
}

/// spmv: y = alpha A x + beta y on the bench's A, x and y.
template <class Crs, class Vec>
Candidate spmv_candidate(const Args& args, const Crs& A, const Vec& x, const Vec& y) {
  prepare_threads();
  const auto [csr, arrays] = csr_of(A);
  Candidate c = fastest_of(spmv_ways(csr, args.alpha, x.data(), args.beta, y.data(), expected_calls(args)),
                           "Intel MKL inspector-executor mkl_sparse_?_mv, the faster of a plain handle and a hinted, "
                           "optimised one (peer_trials)",
                           {arrays}, [](const std::string&) { return -1.0; });
  c.details.set("peer_arrays", arrays.row_map_copy ? "int copy of the row map" : "the bench's own");
  return c;
}

/// bsr: the CSR and the BSR handles (csr_plain, csr_ie, bsr_ie), the fastest kept; csr_bytes and
/// bsr_bytes are the bytes per apply of the two formats.
template <class Crs, class BsrMatrix, class Vec>
Candidate bsr_candidate(const Args& args, const Crs& C, const BsrMatrix& A, const Vec& x, const Vec& y,
                        double csr_bytes, double bsr_bytes) {
  prepare_threads();
  const auto [csr, csr_arrays] = csr_of(C);
  const auto [bsr, bsr_arrays] = bsr_of(A);
  Candidate c = fastest_of(
      bsr_ways(csr, bsr, args.alpha, x.data(), args.beta, y.data(), expected_calls(args)),
      "Intel MKL inspector-executor mkl_sparse_?_mv on the CSR and on a BSR handle of the bench's blocks "
      "(mkl_sparse_?_create_bsr), the fastest kept (peer_trials)",
      {csr_arrays, bsr_arrays}, [&](const std::string& way) { return way == "bsr_ie" ? bsr_bytes : csr_bytes; });
  c.details.set("block_size_mkl", A.block_size());
  return c;
}

/// spmm: C = alpha A B + beta C in B's and C's layout.
template <class Crs, class Mat>
Candidate spmm_candidate(const Args& args, const Crs& A, const Mat& B, const Mat& C) {
  prepare_threads();
  const auto [csr, arrays] = csr_of(A);
  Candidate c = fastest_of(spmm_ways(csr, args.alpha, dense_of(B), args.beta, dense_of(C), expected_calls(args)),
                           "Intel MKL inspector-executor mkl_sparse_?_mm in B's and C's layout, the faster of a plain "
                           "handle and one hinted for this layout and K (peer_trials)",
                           {arrays}, [](const std::string&) { return -1.0; });
  return c;
}

}  // namespace mkl
#endif  // SPROCKET_BENCH_HAVE_MKL

/// Throws the reason the mkl peers are not in this build (a kernel that was asked for one).
[[noreturn]] inline void mkl_not_built(const std::string& peer) {
  throw std::runtime_error(mkl_peer(peer.c_str()).unavailable_reason);
}

}  // namespace sprocket_bench
