#pragma once
// The Kokkos peers' SpMV, SpMM and SDDMM definitions (bench_kk_peers.hpp declares them); Kokkos
// Kernels' SpGEMM is in bench_kk_spgemm_impl.hpp. Instantiated by files generated from
// bench_kk_instance.cpp.in (perf_tests/CMakeLists.txt), one per kind and (Scalar, Offset) pair:
// SPROCKET_BENCH_KK_SPMV (Kokkos Kernels' SpMV and the kokkos_team SDDMM), SPROCKET_BENCH_KK_SPMM_LEFT
// and _RIGHT (Kokkos Kernels' rank-2 SpMV for one layout: most of the peers' device code). Kokkos
// Kernels' kernels for all pairs in one file were the slowest object of the CUDA build by far; a
// kind and pair per file compiles on both cores and keeps every object well under nvcc's 5 minutes
// (perf_tests/results/build-times-bench-peers-2026-11-28.md, -2026-11-29.md). Host builds compile
// these files for this machine's -march (perf_tests/CMakeLists.txt).
#include "bench_kk_peers.hpp"

// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Controls.hpp>
#include <KokkosSparse_spmv.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#ifdef KOKKOS_ENABLE_OPENMP
#include <omp.h>
#endif

#include "Sprocket_Crs.hpp"

namespace sprocket_bench {
namespace kk {

template <class Scalar, class Offset>
std::vector<Way> spmv_ways(const Crs<Scalar, Offset>& A, Scalar alpha, const Vec<Scalar>& x, Scalar beta,
                           const Vec<Scalar>& y) {
  std::vector<Way> ways;
  ways.push_back({"default", [A, alpha, x, beta, y] { KokkosSparse::spmv("N", alpha, A, x, beta, y); }});
#if KOKKOS_VERSION >= 40000
  // Kokkos Kernels 4: the handle, kept across applies as its users keep it, with its native
  // kernels and its own merge path (the Controls of 3.4 are deprecated there).
  using Handle = KokkosSparse::SPMVHandle<Space, Crs<Scalar, Offset>, Vec<Scalar>, Vec<Scalar>>;
  for (const auto& [name, algorithm] :
       {std::pair<const char*, KokkosSparse::SPMVAlgorithm>{"native", KokkosSparse::SPMV_NATIVE},
        std::pair<const char*, KokkosSparse::SPMVAlgorithm>{"merge_path", KokkosSparse::SPMV_NATIVE_MERGE_PATH}}) {
    const auto handle = std::make_shared<Handle>(algorithm);
    ways.push_back({std::string("handle_") + name,
                    [handle, A, alpha, x, beta, y] { KokkosSparse::spmv(handle.get(), "N", alpha, A, x, beta, y); }});
  }
#else
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible) {
    for (const char* schedule : {"static", "dynamic"}) {
      KokkosKernels::Experimental::Controls controls;
      controls.setParameter("schedule", schedule);
      ways.push_back({std::string("schedule_") + schedule,
                      [controls, A, alpha, x, beta, y] { KokkosSparse::spmv(controls, "N", alpha, A, x, beta, y); }});
    }
  }
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  // The raw OpenMP kernel runs only for doubles, on a graph partitioned into one block per OpenMP
  // thread, with x and y 64-byte aligned; Kokkos Kernels falls back silently otherwise, so the way
  // is offered only where every condition holds.
  if constexpr (std::is_same_v<Space, Kokkos::OpenMP> && std::is_same_v<Scalar, double>) {
    const bool aligned = reinterpret_cast<uintptr_t>(x.data()) % 64 == 0 && reinterpret_cast<uintptr_t>(y.data()) % 64 == 0;
    if (aligned && A.numRows() >= omp_get_max_threads()) {
      Crs<Scalar, Offset> partitioned = A;
      partitioned.graph.create_block_partitioning(omp_get_max_threads());
      ways.push_back({"raw_openmp_partitioned", [partitioned, alpha, x, beta, y] {
                        KokkosSparse::spmv("N", alpha, partitioned, x, beta, y);
                      }});
    }
  }
#endif
  return ways;
}

template <class Scalar, class Offset, class Layout>
void spmm(const Crs<Scalar, Offset>& A, Scalar alpha, const Mat<Scalar, Layout>& B, Scalar beta,
          const Mat<Scalar, Layout>& C) {
  KokkosSparse::spmv("N", alpha, A, B, beta, C);
}

template <class Scalar, class Offset, class Layout>
void kokkos_team_sddmm(const Crs<Scalar, Offset>& S, const Mat<Scalar, Layout>& A, const Mat<Scalar, Layout>& B,
                       Scalar alpha, Scalar beta, const typename Crs<Scalar, Offset>::values_type& out) {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  const auto row_map = S.graph.row_map;
  const auto entries = S.graph.entries;
  const int64_t K = A.extent(1);
  int vector_length = 1;
  while (vector_length < K && vector_length < 32) vector_length *= 2;
  vector_length = std::min(vector_length, Policy::vector_length_max());
  Kokkos::parallel_for(
      "sprocket-bench::sddmm::kokkos_team", Policy(S.numRows(), Kokkos::AUTO, vector_length),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t i = team.league_rank();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, row_map(i), row_map(i + 1)), [&](const Offset k) {
          const int64_t j = entries(k);
          Scalar dot = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, K), [&](const int64_t p, Scalar& sum) { sum += A(i, p) * B(j, p); },
              dot);
          Kokkos::single(Kokkos::PerThread(team), [&]() {
            out(k) = beta == Scalar(0) ? alpha * dot : alpha * dot + beta * out(k);
          });
        });
      });
}

#define SPROCKET_BENCH_KK_SDDMM_LAYOUT(S, O, L)                                                                     \
  template void kokkos_team_sddmm<S, O, Kokkos::L>(const Crs<S, O>&, const Mat<S, Kokkos::L>&,                     \
                                                   const Mat<S, Kokkos::L>&, S, S,                                 \
                                                   const typename Crs<S, O>::values_type&);
#define SPROCKET_BENCH_KK_SPMV(S, O)                                                                               \
  template std::vector<Way> spmv_ways<S, O>(const Crs<S, O>&, S, const Vec<S>&, S, const Vec<S>&);              \
  SPROCKET_BENCH_KK_SDDMM_LAYOUT(S, O, LayoutLeft)                                                                 \
  SPROCKET_BENCH_KK_SDDMM_LAYOUT(S, O, LayoutRight)
#define SPROCKET_BENCH_KK_SPMM_LAYOUT(S, O, L) \
  template void spmm<S, O, Kokkos::L>(const Crs<S, O>&, S, const Mat<S, Kokkos::L>&, S, const Mat<S, Kokkos::L>&);
#define SPROCKET_BENCH_KK_SPMM_LEFT(S, O) SPROCKET_BENCH_KK_SPMM_LAYOUT(S, O, LayoutLeft)
#define SPROCKET_BENCH_KK_SPMM_RIGHT(S, O) SPROCKET_BENCH_KK_SPMM_LAYOUT(S, O, LayoutRight)
}  // namespace kk
}  // namespace sprocket_bench
