#pragma once
// sprocket-bench: the SuiteSparse:GraphBLAS peers of spmv, spmm, sddmm and spgemm, two libraries:
//   graphblas    Debian's libgraphblas 7.4 (SPROCKET_BENCH_HAVE_GRAPHBLAS, found by CMake)
//   graphblas9   GraphBLAS 9.3.1 with its JIT, built for this machine by `make bench` from
//                ../shared/deps (SPROCKET_BENCH_HAVE_GRAPHBLAS9; cmake/sprocket-graphblas9.sh)
// The operations themselves, and how each is written (graphblas_peer.hpp), live in
// graphblas_peer.cpp, compiled once per library; here are the adapters between the bench's
// Views and the peers' row-major vectors, and the candidates the kernels time.
//
// GraphBLAS works on its own opaque objects, so each peer holds its own copies of the operands,
// built once at set-up (copy_seconds, not counted as a set-up of the peer) from the values the
// bench's Views hold. alpha is folded into
// a copy (GraphBLAS has no scaled product); beta != 0 is not supported (graphblas_skip_reason).
// GraphBLAS runs on the host (OpenMP) with as many threads as Kokkos' host execution space.
// fetch_result() copies the last result into the bench's output View for --check, untimed.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Sprocket_HostMatrix.hpp"
#include "bench_common.hpp"
#include "bench_matrix_loop.hpp"
#include "graphblas_peer.hpp"

namespace sprocket_bench {

/// The graphblas entry of a kernel's peer list: available where GraphBLAS was found at build time.
inline Peer graphblas_peer() {
#ifdef SPROCKET_BENCH_HAVE_GRAPHBLAS
  return {"graphblas", true, ""};
#else
  return {"graphblas", false,
          "graphblas: this sprocket-bench was built without SuiteSparse:GraphBLAS (install libgraphblas-dev, "
          "e.g. with cmake/install-packages.sh, and reconfigure)"};
#endif
}

/// The graphblas9 entry: available where `make bench` built GraphBLAS 9.3.1.
inline Peer graphblas9_peer() {
#ifdef SPROCKET_BENCH_HAVE_GRAPHBLAS9
  return {"graphblas9", true, ""};
#else
  return {"graphblas9", false,
          "graphblas9: this sprocket-bench was built without GraphBLAS 9.3.1. `make bench` builds it (once, into the "
          "dependency cache) from ../shared/deps/GraphBLAS-9.3.1.tar.gz: put the upstream v9.3.1 release archive "
          "there (git archive of tag v9.3.1 of DrTimothyAldenDavis/GraphBLAS, sha256 "
          "ef34615c3cb1cab2268a47de26f0f3807ed0bdc20006f5155421f3fc50740739) and run it again"};
#endif
}

inline bool is_graphblas_peer(const std::string& peer) { return peer == "graphblas" || peer == "graphblas9"; }

/// The GraphBLAS peers a kernel compares with when --compare is not given: every one built.
inline void add_default_graphblas_peers(std::vector<std::string>& peers) {
  if (graphblas_peer().available) peers.push_back("graphblas");
  if (graphblas9_peer().available) peers.push_back("graphblas9");
}

/// The line a run prints when its default peers would have included graphblas but the build has none.
inline const char* graphblas_absent_note() {
  return "sprocket-bench: note: built without SuiteSparse:GraphBLAS (libgraphblas-dev not found at configure "
         "time): no graphblas peer in this run";
}

/// Why the graphblas peers cannot run this problem ("" when they can): beta != 0 (the peers compute
/// the product alone), or a row with a repeated column (a GraphBLAS matrix holds one entry per
/// position).
inline std::string graphblas_skip_reason(const Sprocket::HostCsr& host, double beta) {
  if (beta != 0) return "beta != 0 (the graphblas peers compute alpha times the product only)";
  if (host.is_sorted_and_unique()) return "";
  std::vector<int> row;
  for (int64_t i = 0; i < host.num_rows; ++i) {
    row.assign(host.entries.begin() + host.row_map[i], host.entries.begin() + host.row_map[i + 1]);
    std::sort(row.begin(), row.end());
    if (std::adjacent_find(row.begin(), row.end()) != row.end())
      return "row " + std::to_string(i) + " holds column " +
             std::to_string(*std::adjacent_find(row.begin(), row.end())) +
             " twice, which a GraphBLAS matrix cannot represent";
  }
  return "";
}

namespace graphblas {

inline Flavor flavor_of(const std::string& peer) { return peer == "graphblas9" ? Flavor::v9 : Flavor::debian; }

[[noreturn]] inline void not_built(Flavor f) {
  throw std::runtime_error(f == Flavor::debian ? graphblas_peer().unavailable_reason
                                               : graphblas9_peer().unavailable_reason);
}

// Dispatch to the library's own copy of graphblas_peer.cpp.
#if defined(SPROCKET_BENCH_HAVE_GRAPHBLAS) && defined(SPROCKET_BENCH_HAVE_GRAPHBLAS9)
#define SPROCKET_GRAPHBLAS_DISPATCH(f, call) return f == Flavor::debian ? debian::call : v9::call
#elif defined(SPROCKET_BENCH_HAVE_GRAPHBLAS)
#define SPROCKET_GRAPHBLAS_DISPATCH(f, call) \
  if (f == Flavor::debian) return debian::call; \
  not_built(f)
#elif defined(SPROCKET_BENCH_HAVE_GRAPHBLAS9)
#define SPROCKET_GRAPHBLAS_DISPATCH(f, call) \
  if (f == Flavor::v9) return v9::call;     \
  not_built(f)
#else
#define SPROCKET_GRAPHBLAS_DISPATCH(f, call) not_built(f)
#endif

inline std::string library_version(Flavor f) { SPROCKET_GRAPHBLAS_DISPATCH(f, version()); }
inline std::unique_ptr<SpmvOp> spmv(Flavor f, const Config& c, const Sprocket::HostCsr& A, double alpha,
                                    const std::vector<double>& x) {
  SPROCKET_GRAPHBLAS_DISPATCH(f, make_spmv(c, A, alpha, x));
}
inline std::unique_ptr<SpmmOp> spmm(Flavor f, const Config& c, const Sprocket::HostCsr& A, double alpha,
                                    const std::vector<double>& B, int64_t k) {
  SPROCKET_GRAPHBLAS_DISPATCH(f, make_spmm(c, A, alpha, B, k));
}
inline std::unique_ptr<SddmmOp> sddmm(Flavor f, const Config& c, const Sprocket::HostCsr& S, double alpha,
                                      const std::vector<double>& A, const std::vector<double>& B, int64_t k) {
  SPROCKET_GRAPHBLAS_DISPATCH(f, make_sddmm(c, S, alpha, A, B, k));
}
inline std::unique_ptr<SpgemmOp> spgemm(Flavor f, const Config& c, const Sprocket::HostCsr& A,
                                        const Sprocket::HostCsr* B) {
  SPROCKET_GRAPHBLAS_DISPATCH(f, make_spgemm(c, A, B));
}
#undef SPROCKET_GRAPHBLAS_DISPATCH

template <class Scalar>
Config config() {
  Config c;
  c.single = std::is_same_v<Scalar, float>;
  c.threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  return c;
}

/// host with its values rounded to Scalar (what the bench's matrices hold).
template <class Scalar>
Sprocket::HostCsr rounded(const Sprocket::HostCsr& host) {
  Sprocket::HostCsr r = host;
  for (double& v : r.values) v = static_cast<double>(static_cast<Scalar>(v));
  return r;
}

/// A rank-1 or rank-2 View's values as doubles, rank-2 by row whatever its layout.
template <class View>
std::vector<double> row_major_values(const View& view) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  std::vector<double> v;
  if constexpr (View::rank == 1) {
    v.resize(h.extent(0));
    for (size_t i = 0; i < h.extent(0); ++i) v[i] = static_cast<double>(h(i));
  } else {
    const size_t rows = h.extent(0), cols = h.extent(1);
    v.resize(rows * cols);
    for (size_t i = 0; i < rows; ++i)
      for (size_t j = 0; j < cols; ++j) v[i * cols + j] = static_cast<double>(h(i, j));
  }
  return v;
}

/// Writes row-major doubles into a rank-1 or rank-2 View (any layout and space).
template <class View>
void store_row_major(const std::vector<double>& v, const View& view) {
  using Scalar = typename View::non_const_value_type;
  auto h = Kokkos::create_mirror_view(view);
  if constexpr (View::rank == 1) {
    for (size_t i = 0; i < h.extent(0); ++i) h(i) = static_cast<Scalar>(v[i]);
  } else {
    const size_t rows = h.extent(0), cols = h.extent(1);
    for (size_t i = 0; i < rows; ++i)
      for (size_t j = 0; j < cols; ++j) h(i, j) = static_cast<Scalar>(v[i * cols + j]);
  }
  Kokkos::deep_copy(view, h);
}

/// The candidate of an operation: apply timed; the way it chose as peer_algorithm; the trials and
/// the first call's seconds (the JIT's compile or cache load) as details. The copies of the
/// operands into GraphBLAS's objects are `copy_seconds`, not a set-up: a GraphBLAS user's data is
/// already in its objects, so the setup-inclusive ratios count none for it. The trial of its ways
/// is set-up (setup_seconds = peer_trial_seconds, count_trial_as_setup): a user who picks the
/// fastest way runs them first, as our analysis runs first.
template <class OpPtr>
Candidate candidate_of(const std::string& peer, const OpPtr& op) {
  Candidate c = candidate(peer, "default", [op] { op->apply(); }, -1, op->note());
  c.peer_algorithm = op->algorithm();
  c.details.set("copy_seconds", op->setup_seconds())
      .set("peer_version", library_version(flavor_of(peer)))
      .set("peer_trials", op->trials())
      .set("peer_first_use_seconds", op->first_use_seconds());
  count_trial_as_setup(c, -1, op->trial_seconds());
  return c;
}

/// candidate_of, with fetch_result writing the operation's row-major result into `out`.
template <class OpPtr, class View>
Candidate candidate_storing(const std::string& peer, const OpPtr& op, const View& out) {
  Candidate c = candidate_of(peer, op);
  c.fetch_result = [op, out] {
    std::vector<double> v;
    op->result(v);
    store_row_major(v, out);
  };
  return c;
}

/// Prints why a GraphBLAS peer skips this problem; true when it does.
inline bool skipped(const std::string& peer, const std::string& matrix, const std::string& reason) {
  if (reason.empty()) return false;
  std::cerr << "sprocket-bench: " << peer << " skipped on " << matrix << ": " << reason << "\n";
  return true;
}

/// spmv: y = alpha A x (fetch_result writes y).
template <class Vec>
std::optional<Candidate> spmv_candidate(const std::string& peer, const std::string& matrix,
                                        const Sprocket::HostCsr& host, const Vec& x, const Vec& y, double alpha,
                                        double beta) {
  using Scalar = typename Vec::non_const_value_type;
  if (skipped(peer, matrix, graphblas_skip_reason(host, beta))) return std::nullopt;
  std::shared_ptr<SpmvOp> op = spmv(flavor_of(peer), config<Scalar>(), rounded<Scalar>(host), alpha, row_major_values(x));
  return candidate_storing(peer, op, y);
}

/// spmm: C = alpha A B, B and C of any layout (the peer holds both by row).
template <class Mat>
std::optional<Candidate> spmm_candidate(const std::string& peer, const std::string& matrix,
                                        const Sprocket::HostCsr& host, const Mat& B, const Mat& C, double alpha,
                                        double beta) {
  using Scalar = typename Mat::non_const_value_type;
  if (skipped(peer, matrix, graphblas_skip_reason(host, beta))) return std::nullopt;
  std::shared_ptr<SpmmOp> op = spmm(flavor_of(peer), config<Scalar>(), rounded<Scalar>(host), alpha,
                                    row_major_values(B), static_cast<int64_t>(B.extent(1)));
  return candidate_storing(peer, op, C);
}

/// sddmm: out(k) = alpha A(i, :) . B(j, :) for S's entry k = (i, j).
template <class Mat, class Out>
std::optional<Candidate> sddmm_candidate(const std::string& peer, const std::string& matrix,
                                         const Sprocket::HostCsr& S, const Mat& A, const Mat& B, const Out& out,
                                         double alpha, double beta) {
  using Scalar = typename Mat::non_const_value_type;
  if (skipped(peer, matrix, graphblas_skip_reason(S, beta))) return std::nullopt;
  std::shared_ptr<SddmmOp> op = sddmm(flavor_of(peer), config<Scalar>(), S, alpha, row_major_values(A),
                                      row_major_values(B), static_cast<int64_t>(A.extent(1)));
  return candidate_storing(peer, op, out);
}

}  // namespace graphblas
}  // namespace sprocket_bench
