// What the documentation promises about several host threads (README "Thread safety"):
//  - separate plans may be applied at the same time from different host threads;
//  - one SpmvPlan (mode "N") and one BsrSpmvPlan (every kernel, the symmetric one's spill workspace
//    included) may be applied from several host threads at once;
//  - the memory ceiling's functions are thread-safe.
// Kokkos 3.4's OpenMP backend runs work from several host threads only inside
// Kokkos::OpenMP::partition_master (each partition its own thread pool); elsewhere a dispatch
// from a second host thread throws. The tests run two partitions of one thread each, every
// partition with its own input, many repeats, and check every result against the serial
// reference: results mixed through shared state would differ.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using namespace Sprocket::test;

#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION < 40000
#define SPROCKET_HAVE_PARTITIONS 1
using Space = Kokkos::OpenMP;
using Device = Space::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using Bsr = BsrMatrix<double, int, Device, int>;
using Vec = Kokkos::View<double*, Device>;

constexpr int num_partitions = 2;
constexpr int repeats = 40;

/// Runs body(partition) in num_partitions partitions of one thread each, at the same time (nested
/// OpenMP on for the duration); returns how many distinct partitions ran.
template <class Body>
int in_partitions(const Body& body) {
  const int saved_levels = omp_get_max_active_levels();
  omp_set_max_active_levels(2);
  std::atomic<int> started{0};
  Space::partition_master(
      [&](int partition, int) {
        ++started;
        body(partition);
      },
      num_partitions, 1);
  omp_set_max_active_levels(saved_levels);
  return started.load();
}

/// Applies `plan` `repeats` times with partition p's own x (p's salt) into its own y; returns
/// whether every result matched the reference (the first mismatch in `failure`).
template <class Plan>
void apply_in_partitions(const std::vector<const Plan*>& plans, const HostCsr& A, int salt,
                         std::vector<std::string>& failures) {
  std::vector<std::vector<double>> xs(num_partitions);
  std::vector<Vec> xv(num_partitions), yv(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    xs[p] = random_vector(A.num_cols, salt + p);
    xv[p] = to_view<Vec>(xs[p], "x");
    yv[p] = Vec("y", A.num_rows);
  }
  failures.assign(num_partitions, "");
  const int ran = in_partitions([&](int p) {
    const Plan& plan = *plans[p % plans.size()];
    for (int r = 0; r < repeats && failures[p].empty(); ++r) {
      Kokkos::deep_copy(yv[p], std::nan(""));  // poisoned: beta = 0 must overwrite every entry
      plan.apply("N", 1.0, xv[p], 0.0, yv[p]);
      Space().fence();
      const std::vector<double> y = to_host_vector(yv[p]);
      const auto match = spmv_matches<double>("N", 1.0, A, xs[p], 0.0, std::vector<double>(A.num_rows, 0.0), y);
      if (!match) failures[p] = "partition " + std::to_string(p) + ", repeat " + std::to_string(r) + ": " + match.message();
    }
  });
  EXPECT_EQ(ran, num_partitions) << "nested OpenMP did not start " << num_partitions << " partitions";
}
#endif

TEST(Concurrency, SeparateSpmvPlansFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  std::cout << "seed " << test_seed() << "\n";
  const HostCsr A = random_csr(20000, 20000, 12, 1);
  const Crs a = to_crs<Crs>(A);
  const SpmvPlan<Crs> first(a), second(a);
  std::vector<std::string> failures;
  apply_in_partitions<SpmvPlan<Crs>>({&first, &second}, A, 10, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos 3.x with OpenMP (partition_master)";
#endif
}

TEST(Concurrency, OneSpmvPlanFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A = random_csr(20000, 15000, 12, 2);
  const SpmvPlan<Crs> plan(to_crs<Crs>(A));
  std::vector<std::string> failures;
  apply_in_partitions<SpmvPlan<Crs>>({&plan}, A, 20, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos 3.x with OpenMP (partition_master)";
#endif
}

// The symmetric kernel spills the transposed products of a part into a workspace: one plan from
// two threads is safe only because each apply has its own.
TEST(Concurrency, OneSymmetricBsrPlanFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A = gen::elasticity3d(12, 3, seed_for(3));
  const Bsr bsr = to_bsr<Bsr>(csr_to_host_bsr(A, 3));
  BsrSpmvOptions options;
  options.symmetric = true;
  options.kernel = BsrKernel::symmetric;
  options.host_parts = 16;
  const BsrSpmvPlan<Bsr> plan(bsr, options);
  std::vector<std::string> failures;
  apply_in_partitions<BsrSpmvPlan<Bsr>>({&plan}, A, 30, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos 3.x with OpenMP (partition_master)";
#endif
}

TEST(Concurrency, SeparateBsrPlansFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A = random_blocked(3000, 3000, 4, 6, 0.7, 4);
  const Bsr bsr = to_bsr<Bsr>(csr_to_host_bsr(A, 4));
  BsrSpmvOptions padded;
  padded.kernel = BsrKernel::padded;
  const BsrSpmvPlan<Bsr> first(bsr), second(bsr, padded);
  std::vector<std::string> failures;
  apply_in_partitions<BsrSpmvPlan<Bsr>>({&first, &second}, A, 40, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos 3.x with OpenMP (partition_master)";
#endif
}

// The memory ceiling is read and checked from any thread (the generators and readers of several
// threads share it).
TEST(Concurrency, MemoryCeilingFromManyThreads) {
  const int64_t saved = host_memory_limit();
  set_host_memory_limit(int64_t{1} << 30);
  std::atomic<int> refused{0}, accepted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        try {
          require_host_memory((i + t) % 2 ? int64_t{1} << 20 : int64_t{1} << 40, "concurrency test");
          ++accepted;
        } catch (const ResourceError&) {
          ++refused;
        }
        if (host_available_bytes() <= 0) ++refused;  // never: a positive number of bytes
      }
    });
  for (auto& th : threads) th.join();
  set_host_memory_limit(saved);
  EXPECT_EQ(accepted.load(), 8000);
  EXPECT_EQ(refused.load(), 8000);
}

}  // namespace
