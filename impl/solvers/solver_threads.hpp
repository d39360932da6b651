#pragma once
/// \file solver_threads.hpp
/// Where a solve runs on the host: all threads, or the calling thread alone for small problems
/// (BlockGmresOptions / LobpcgOptions::single_thread_below), and OpenBLAS' threads beside Kokkos'.
///
/// Why one thread: every Kokkos parallel region on a multi-threaded host space ends in a thread
/// barrier, and a solver iteration on a small problem is dozens of regions of microseconds each
/// (products, updates, norms, the operator). Idle, two threads still pay the barriers; on a
/// loaded machine a descheduled thread turns each barrier into a scheduler time slice (block
/// GMRES on west0479, 300 steps on two threads: 0.04 s idle, up to 4 s beside two compiles; on
/// one thread 0.010 s idle and at most 0.023 s beside them). On one thread there is no barrier to
/// wait at. The threshold is measured: perf_tests/results/block-ops-2026-11-26.md.
///
/// How (Kokkos 3.4; Kokkos 4, which has no partition_master, in run_solve): on Kokkos::OpenMP
/// the solve runs inside Kokkos::OpenMP::partition_master with one
/// partition of one thread: Kokkos gives the calling thread its own OpenMP instance with a pool
/// of one, so the operator, the preconditioner and the block kernels (parallel_for, reductions,
/// team policies alike) run on it with the same code, and the result is the same up to rounding.
/// partition_master needs nested OpenMP (max active levels >= 2), set for the call and restored
/// after; it also sets the OpenMP thread count to one inside, so OpenBLAS' OpenMP build stays on
/// the thread as well. (Merely calling the solve inside a one-thread `omp parallel` region is not
/// enough in Kokkos 3.4: its reductions there still split the range over the full pool and
/// visit only the first thread's share.) Other spaces (Serial, devices) run as they are.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <exception>
#include <type_traits>
#include <utility>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include "impl/blocks/block_ops.hpp"
#include "impl/blocks/host_blas.hpp"

namespace Sprocket {
namespace Impl {
namespace solvers {

/// True when a solve of this size on `space` would run on the calling thread: an OpenMP space
/// whose current pool has several threads (not already one thread, as inside another such solve,
/// nor inside a parallel region), and rows * block_columns below single_thread_below (0: never).
template <class ExecSpace>
bool runs_on_one_thread(const ExecSpace& space, int64_t rows, int64_t block_columns, int64_t single_thread_below) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
#if KOKKOS_VERSION >= 40000
    // Kokkos 4: outside any OpenMP parallel region (the one-thread region of another such solve
    // included), on an instance of several threads.
    return single_thread_below > 0 && rows * block_columns < single_thread_below && omp_get_level() == 0 &&
           space.concurrency() > 1;
#else
    (void)space;
    return single_thread_below > 0 && rows * block_columns < single_thread_below && !Kokkos::OpenMP::in_parallel() &&
           Kokkos::OpenMP::impl_thread_pool_size() > 1;
#endif
  }
#endif
  (void)space, (void)rows, (void)block_columns, (void)single_thread_below;
  return false;
}

/// Runs the solve f() (returning its result) on the calling thread alone when one_thread (see
/// runs_on_one_thread), else as it is. On a multi-threaded host space a pthreads OpenBLAS is held
/// at one thread for the duration (host_blas.hpp: its threads would spin beside Kokkos').
/// Exceptions thrown by f propagate.
template <class ExecSpace, class F>
auto run_solve(const ExecSpace& space, bool one_thread, F&& f) -> decltype(f()) {
  blocks::BlasThreadScope blas_threads(blocks::runs_on_host_v<ExecSpace> && space.concurrency() > 1);
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) {
    if (one_thread) {
      decltype(f()) result{};
      std::exception_ptr error;
      const int levels = omp_get_max_active_levels();
#if KOKKOS_VERSION >= 40000
      // Kokkos 4 has no partition_master. Inside an OpenMP parallel region of one thread, with
      // nested parallelism off, Kokkos::OpenMP runs every parallel construct on the calling thread
      // (its execute_in_serial: the whole range, reductions and scans included), and OpenBLAS'
      // OpenMP build, inside a parallel region, stays on it too, once the region's own thread
      // count is one (perf_tests/results/kokkos4-host-bench-2026-11-28.md).
      if (levels > 1) omp_set_max_active_levels(1);
#pragma omp parallel num_threads(1)
      {
        // The region's own thread count for what asks omp_get_max_threads() inside (OpenBLAS'
        // OpenMP build sizes its work by it), as partition_master set it in 3.4.
        omp_set_num_threads(1);
        try {
          result = f();
        } catch (...) {
          error = std::current_exception();
        }
      }
      if (levels > 1) omp_set_max_active_levels(levels);
#else
      if (levels < 2) omp_set_max_active_levels(2);
      Kokkos::OpenMP::partition_master(
          [&](int, int) {
            try {
              result = f();
            } catch (...) {
              error = std::current_exception();
            }
          },
          1, 1);
      if (levels < 2) omp_set_max_active_levels(levels);
#endif
      if (error) std::rethrow_exception(error);
      return result;
    }
  }
#endif
  (void)one_thread;
  return f();
}

}  // namespace solvers
}  // namespace Impl
}  // namespace Sprocket
