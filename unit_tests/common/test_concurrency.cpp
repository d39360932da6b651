// What the documentation promises about several host threads (README "Thread safety"):
//  - separate plans may be applied at the same time from different host threads;
//  - one SpmvPlan (mode "N") and one BsrSpmvPlan (every kernel, the symmetric one's spill workspace
//    included) may be applied from several host threads at once;
//  - copies of a plan are independent (Sprocket_Operator.hpp, "Copies"): copies of SpmvPlan,
//    SpmmPlan, SddmmPlan and SpgemmPlan, made after the original grew its workspaces or cached
//    transpose and given other values by update_values, run at the same time and each equals the
//    reference with its own values;
//  - the memory ceiling's functions are thread-safe.
// Kokkos 3.4's OpenMP backend runs work from several host threads only inside
// Kokkos::OpenMP::partition_master (each partition its own thread pool); elsewhere a dispatch
// from a second host thread throws. Kokkos 4 has no partition_master: there each partition is a
// host thread of its own with an OpenMP instance of one thread (Kokkos::OpenMP(1), what
// Kokkos::Experimental::partition_space makes), which every apply, copy and fence of the partition
// names. The tests run two partitions of one thread each, every
// partition with its own input, and check every result against the serial reference: results
// mixed through shared state would differ. The overlap is forced, not hoped for: the partitions
// meet at a barrier before each of many applies on matrices that take milliseconds per apply,
// and the test asserts from the applies' start and end times that they did run at the same time.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <thread>
#include <utility>
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
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spgemm.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using namespace Sprocket::test;

#if defined(KOKKOS_ENABLE_OPENMP)
#define SPROCKET_HAVE_PARTITIONS 1
using Space = Kokkos::OpenMP;
using Device = Space::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using Bsr = BsrMatrix<double, int, Device, int>;
using Vec = Kokkos::View<double*, Device>;

constexpr int num_partitions = 2;
constexpr int repeats = 30;

/// The partitions meet here before every apply: a reusable barrier (a generation counter). The
/// first to arrive spins on its core (so that both leave within microseconds), yielding only
/// after a while, in case the other partition needs that core to get here at all.
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    const int generation = generation_.load();
    if (waiting_.fetch_add(1) + 1 == count_) {
      waiting_.store(0);
      generation_.fetch_add(1);
      return;
    }
    for (int spins = 0; generation_.load() == generation; ++spins)
      if (spins > 100000) std::this_thread::yield();
  }

 private:
  const int count_;
  std::atomic<int> waiting_{0}, generation_{0};
};

#if KOKKOS_VERSION >= 40000
/// The calling partition's instance (Kokkos 4): set by in_partitions for its threads.
thread_local const Space* partition_instance = nullptr;
/// Where a partition's work runs: its own instance (Kokkos 4), else the default instance, which
/// inside partition_master is the partition's pool (Kokkos 3.4).
Space here() { return partition_instance ? *partition_instance : Space(); }

/// Runs body(partition) in num_partitions host threads at the same time, each with an OpenMP
/// instance of one thread; returns how many distinct partitions ran.
template <class Body>
int in_partitions(const Body& body) {
  std::vector<Space> instances;
  for (int p = 0; p < num_partitions; ++p) instances.emplace_back(1);
  std::atomic<int> started{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < num_partitions; ++p)
    threads.emplace_back([&, p] {
      partition_instance = &instances[p];
      ++started;
      body(p);
      partition_instance = nullptr;
    });
  for (std::thread& t : threads) t.join();
  return started.load();
}
#else
Space here() { return Space(); }

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
#endif

/// y = A x by the serial reference, with each entry's rounding bound (spmv_matches' formula),
/// computed once per input: the partitions compare every repeat against it.
struct Expected {
  std::vector<double> y, bound;
  /// "" when y matches, else the first mismatch.
  std::string mismatch(const std::vector<double>& got) const {
    for (size_t i = 0; i < y.size(); ++i)
      if (!(std::fabs(got[i] - y[i]) <= bound[i]))  // also catches NaN
        return "entry " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " + std::to_string(y[i]);
    return "";
  }
};

Expected expected_product(const HostCsr& A, const std::vector<double>& x) {
  Expected e;
  e.y.assign(A.num_rows, 0.0);
  e.bound.assign(A.num_rows, 0.0);
  reference::spmv("N", 1.0, A, x, 0.0, e.y);
  std::vector<double> abs_x(x.size());
  for (size_t i = 0; i < x.size(); ++i) abs_x[i] = std::fabs(x[i]);
  reference::spmv("N", 1.0, absolute(A), abs_x, 0.0, e.bound);
  const double scale = 4.0 * std::numeric_limits<double>::epsilon() * static_cast<double>(longest_dot("N", A) + 2);
  for (double& b : e.bound) b = scale * b + std::numeric_limits<double>::min();
  return e;
}

/// Applies `plan` `repeats` times with partition p's own x (p's salt) into its own y, the
/// partitions released together before every apply; `failures` gets each partition's first
/// mismatch with the reference. Asserts that the applies overlapped in time in most repeats (so
/// that a test passing says something about concurrent applies).
template <class Plan>
void apply_in_partitions(const std::vector<const Plan*>& plans, const HostCsr& A, int salt,
                         std::vector<std::string>& failures) {
  using Clock = std::chrono::steady_clock;
  std::vector<Expected> expected(num_partitions);
  std::vector<Vec> xv(num_partitions), yv(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    const std::vector<double> x = random_vector(A.num_cols, salt + p);
    expected[p] = expected_product(A, x);
    xv[p] = to_view<Vec>(x, "x");
    yv[p] = Vec("y", A.num_rows);
  }
  failures.assign(num_partitions, "");
  std::vector<std::vector<std::pair<Clock::time_point, Clock::time_point>>> spans(
      num_partitions, std::vector<std::pair<Clock::time_point, Clock::time_point>>(repeats));
  Barrier barrier(num_partitions);
  const int ran = in_partitions([&](int p) {
    const Plan& plan = *plans[p % plans.size()];
    // Every partition runs every repeat (a failed one too), or the other would wait forever.
    for (int r = 0; r < repeats; ++r) {
      Kokkos::deep_copy(here(), yv[p], std::nan(""));  // poisoned: beta = 0 must overwrite every entry
      here().fence();
      barrier.arrive_and_wait();
      spans[p][r].first = Clock::now();
      plan.apply(here(), "N", 1.0, xv[p], 0.0, yv[p]);
      here().fence();
      spans[p][r].second = Clock::now();
      if (!failures[p].empty()) continue;
      const std::string mismatch = expected[p].mismatch(to_host_vector(yv[p]));
      if (!mismatch.empty()) failures[p] = "partition " + std::to_string(p) + ", repeat " + std::to_string(r) + ": " + mismatch;
    }
  });
  ASSERT_EQ(ran, num_partitions) << "nested OpenMP did not start " << num_partitions << " partitions";
  int overlapped = 0;
  double apply_ms = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto& a = spans[0][r];
    const auto& b = spans[1][r];
    overlapped += std::max(a.first, b.first) < std::min(a.second, b.second);
    apply_ms += std::chrono::duration<double, std::milli>(a.second - a.first).count() / repeats;
  }
  std::cout << "[sprocket] applies overlapped in " << overlapped << " of " << repeats << " repeats (" << apply_ms
            << " ms per apply)\n";
  // Nearly every repeat overlaps on an idle machine; on a loaded one (ctest -j runs other tests
  // beside this one) the scheduler may delay a partition by a time slice longer than an apply, so
  // the test asks for a few overlaps, not most.
  EXPECT_GE(overlapped, 3) << "the applies did not run at the same time: the test would not see shared state";
}
#endif

#ifdef SPROCKET_HAVE_PARTITIONS
/// One partition's part in the copy tests: `apply` runs its copy of a plan on its own operands
/// into its own output (after `poison` wrote NaN there), `read` returns the output, `expected`
/// and `bound` the serial reference and the rounding bound of each entry.
struct PartitionWork {
  std::function<void()> poison, apply;
  std::function<std::vector<double>()> read;
  std::vector<double> expected, bound;
};

/// Bounds of a sum of `terms` products whose absolute values sum to scale[i], in Scalar = double.
std::vector<double> rounding_bounds(std::vector<double> scale, int64_t terms) {
  const double factor = 4.0 * std::numeric_limits<double>::epsilon() * static_cast<double>(terms + 2);
  for (double& b : scale) b = factor * b + std::numeric_limits<double>::min();
  return scale;
}

/// apply_in_partitions for any work: every partition's apply at the same time, `repeats` times,
/// each result checked (a failure per partition, its first mismatch); asserts that the applies
/// overlapped.
void run_together(const std::vector<PartitionWork>& work) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::string> failures(num_partitions);
  std::vector<std::vector<std::pair<Clock::time_point, Clock::time_point>>> spans(
      num_partitions, std::vector<std::pair<Clock::time_point, Clock::time_point>>(repeats));
  Barrier barrier(num_partitions);
  const int ran = in_partitions([&](int p) {
    const PartitionWork& w = work[p];
    for (int r = 0; r < repeats; ++r) {
      w.poison();
      here().fence();
      barrier.arrive_and_wait();
      spans[p][r].first = Clock::now();
      w.apply();
      here().fence();
      spans[p][r].second = Clock::now();
      if (!failures[p].empty()) continue;
      const std::vector<double> got = w.read();
      for (size_t i = 0; i < got.size() && failures[p].empty(); ++i)
        if (!(std::fabs(got[i] - w.expected[i]) <= w.bound[i]))  // also catches NaN
          failures[p] = "partition " + std::to_string(p) + ", repeat " + std::to_string(r) + ", entry " +
                        std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
                        std::to_string(w.expected[i]);
    }
  });
  ASSERT_EQ(ran, num_partitions) << "nested OpenMP did not start " << num_partitions << " partitions";
  int overlapped = 0;
  for (int r = 0; r < repeats; ++r)
    overlapped += std::max(spans[0][r].first, spans[1][r].first) < std::min(spans[0][r].second, spans[1][r].second);
  std::cout << "[sprocket] applies overlapped in " << overlapped << " of " << repeats << " repeats\n";
  EXPECT_GE(overlapped, 3) << "the applies did not run at the same time: the test would not see shared state";
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
}

/// A with other values (same pattern).
HostCsr revalued(const HostCsr& A, uint64_t salt) {
  HostCsr B = A;
  B.values = random_vector(A.nnz(), salt);
  return B;
}

using Block = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
#endif

// Mode T of a cached-transpose SpmvPlan writes A's values into its transpose before every
// transposed apply: a copy that shared the original's transpose would mix the two matrices.
TEST(Concurrency, CopiesOfAnSpmvPlanInModeT) {
#ifdef SPROCKET_HAVE_PARTITIONS
  std::cout << "seed " << test_seed() << "\n";
  const HostCsr A0 = random_csr(150000, 120000, 12, 50), A1 = revalued(A0, 51);
  const Crs a0 = to_crs<Crs>(A0), a1 = to_crs<Crs>(A1);
  const SpmvPlan<Crs> original(a0);
  original.apply("T", 1.0, Vec("x", A0.num_rows), 0.0, Vec("y", A0.num_cols));  // builds the transpose
  SpmvPlan<Crs> copy = original;
  copy.update_values(a1);
  const SpmvPlan<Crs>* plans[] = {&original, &copy};
  const HostCsr* matrices[] = {&A0, &A1};
  std::vector<PartitionWork> work(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    const HostCsr& A = *matrices[p];
    const std::vector<double> x = random_vector(A.num_rows, 52 + p);
    const Vec xv = to_view<Vec>(x, "x"), yv("y", A.num_cols);
    std::vector<double> y(A.num_cols, 0.0), scale(A.num_cols, 0.0), abs_x(x.size());
    reference::spmv("T", 1.0, A, x, 0.0, y);
    for (size_t i = 0; i < x.size(); ++i) abs_x[i] = std::fabs(x[i]);
    reference::spmv("T", 1.0, absolute(A), abs_x, 0.0, scale);
    const SpmvPlan<Crs>* plan = plans[p];
    work[p] = {[yv] { Kokkos::deep_copy(here(), yv, std::nan("")); },
               [plan, xv, yv] { plan->apply(here(), "T", 1.0, xv, 0.0, yv); },
               [yv] { return to_host_vector(yv); }, y, rounding_bounds(scale, longest_dot("T", A))};
  }
  run_together(work);
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

#ifdef SPROCKET_HAVE_PARTITIONS
/// An SpmmPlan on A0 that has grown its workspace (LayoutLeft B and C of K columns) and a copy of
/// it given A1's values (same pattern) by update_values, applied together on two partitions.
/// `column_groups`: whether the plan must read B in place in column groups (else it packs B).
void copies_of_an_spmm_plan_together(const HostCsr& A0, const HostCsr& A1, int64_t K, bool column_groups,
                                     uint64_t salt) {
  const Crs a0 = to_crs<Crs>(A0), a1 = to_crs<Crs>(A1);
  const SpmmPlan<Crs> original(a0);
  ASSERT_EQ(original.analysis().column_groups, column_groups) << original.describe();
  original.apply("N", 1.0, Block("B", A0.num_cols, K), 0.0, Block("C", A0.num_rows, K));  // grows the workspace
  SpmmPlan<Crs> copy = original;
  copy.update_values(a1);
  const SpmmPlan<Crs>* plans[] = {&original, &copy};
  const HostCsr* matrices[] = {&A0, &A1};
  std::vector<PartitionWork> work(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    const HostCsr& A = *matrices[p];
    const HostDense X = random_dense(A.num_cols, K, salt + p);
    HostDense abs_X = X;
    for (double& v : abs_X.data) v = std::fabs(v);
    HostDense Y(A.num_rows, K), scale(A.num_rows, K);
    reference::spmm("N", 1.0, A, X, 0.0, Y);
    reference::spmm("N", 1.0, absolute(A), abs_X, 0.0, scale);
    const Block Xv = to_view<Block>(X, "B"), Yv("C", A.num_rows, K);
    const SpmmPlan<Crs>* plan = plans[p];
    work[p] = {[Yv] { Kokkos::deep_copy(here(), Yv, std::nan("")); },
               [plan, Xv, Yv] { plan->apply(here(), "N", 1.0, Xv, 0.0, Yv); },
               [Yv] { return to_host_dense(Yv).data; }, Y.data, rounding_bounds(scale.data, longest_dot("N", A))};
  }
  run_together(work);
}
#endif

// An SpmmPlan's host kernels copy a LayoutLeft B row-major into a workspace, and update_values
// gathers A's values into the plan's reordered copy: copies share neither.
TEST(Concurrency, CopiesOfAnSpmmPlanWithColumnMajorBlocks) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A0 = random_csr(120000, 100000, 10, 60), A1 = revalued(A0, 61);
  copies_of_an_spmm_plan_together(A0, A1, 8, false, 62);  // K >= 4: B packed into the workspace
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

// On a stencil the host kernels read column-major B in place and transpose the values of sliding
// rows into a per-thread workspace: copies share it no more than the packed B.
TEST(Concurrency, CopiesOfAnSpmmPlanWithColumnGroups) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A0 = gen::poisson3d(50), A1 = revalued(A0, 63);
  copies_of_an_spmm_plan_together(A0, A1, 6, true, 64);
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

// An SddmmPlan's host kernels copy LayoutLeft A and B row-major into a workspace.
TEST(Concurrency, CopiesOfAnSddmmPlanWithColumnMajorOperands) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr S0 = random_csr(100000, 90000, 12, 70), S1 = revalued(S0, 71);
  const Crs s0 = to_crs<Crs>(S0), s1 = to_crs<Crs>(S1);
  constexpr int64_t K = 8;
  const SddmmPlan<Crs> original(s0);
  original.apply(SddmmForm::scaled, 1.0, Block("A", S0.num_rows, K), Block("B", S0.num_cols, K), 0.0,
                 Vec("out", S0.nnz()));  // grows the workspace
  SddmmPlan<Crs> copy = original;
  copy.update_values(s1);
  const SddmmPlan<Crs>* plans[] = {&original, &copy};
  const HostCsr* matrices[] = {&S0, &S1};
  std::vector<PartitionWork> work(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    const HostCsr& S = *matrices[p];
    const HostDense A = random_dense(S.num_rows, K, 72 + 2 * p), B = random_dense(S.num_cols, K, 73 + 2 * p);
    HostDense abs_A = A, abs_B = B;
    for (double& v : abs_A.data) v = std::fabs(v);
    for (double& v : abs_B.data) v = std::fabs(v);
    const Block Av = to_view<Block>(A, "A"), Bv = to_view<Block>(B, "B");
    const Vec out("out", S.nnz());
    const SddmmPlan<Crs>* plan = plans[p];
    work[p] = {[out] { Kokkos::deep_copy(here(), out, std::nan("")); },
               [plan, Av, Bv, out] { plan->apply(here(), SddmmForm::scaled, 1.0, Av, Bv, 0.0, out); },
               [out] { return to_host_vector(out); }, reference::sddmm(S, A, B).values,
               rounding_bounds(reference::sddmm(absolute(S), abs_A, abs_B).values, K)};
  }
  run_together(work);
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

// An SpgemmPlan's host numeric pass keeps its accumulators (hash tables, dense rows) in a
// workspace from the symbolic pass on: copies get their own.
TEST(Concurrency, CopiesOfAnSpgemmPlan) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A0 = random_csr(40000, 30000, 10, 80), A1 = revalued(A0, 81), B = random_csr(30000, 35000, 10, 82);
  const Crs a0 = to_crs<Crs>(A0), a1 = to_crs<Crs>(A1), b = to_crs<Crs>(B);
  SpgemmPlan<Crs> original(a0, b);
  SpgemmPlan<Crs> copy = original;
  SpgemmPlan<Crs>* plans[] = {&original, &copy};
  const Crs* lefts[] = {&a0, &a1};
  const HostCsr* matrices[] = {&A0, &A1};
  std::vector<PartitionWork> work(num_partitions);
  for (int p = 0; p < num_partitions; ++p) {
    SpgemmPlan<Crs>* plan = plans[p];
    const Crs C = plan->numeric(*lefts[p], b);  // sorted columns: the reference's order
    const HostCsr expected = reference::spgemm(*matrices[p], B);
    ASSERT_EQ(to_host_csr(C).entries, expected.entries);
    const Crs a = *lefts[p];
    work[p] = {[C] { Kokkos::deep_copy(here(), C.values, std::nan("")); },
               [plan, a, b, C] { plan->numeric(here(), a, b, C); },
               [C] { return to_host_vector(C.values); }, expected.values,
               rounding_bounds(reference::spgemm(absolute(*matrices[p]), absolute(B)).values, 200)};
  }
  run_together(work);
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

TEST(Concurrency, SeparateSpmvPlansFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  std::cout << "seed " << test_seed() << "\n";
  const HostCsr A = random_csr(200000, 200000, 12, 1);  // 2.4 million entries: milliseconds per apply
  const Crs a = to_crs<Crs>(A);
  const SpmvPlan<Crs> first(a), second(a);
  std::vector<std::string> failures;
  apply_in_partitions<SpmvPlan<Crs>>({&first, &second}, A, 10, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

TEST(Concurrency, OneSpmvPlanFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A = random_csr(200000, 150000, 12, 2);
  const SpmvPlan<Crs> plan(to_crs<Crs>(A));
  std::vector<std::string> failures;
  apply_in_partitions<SpmvPlan<Crs>>({&plan}, A, 20, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

// The symmetric kernel spills the transposed products of a part into a workspace: one plan from
// two threads is safe only because each apply has its own (a workspace kept by the plan fails
// here).
TEST(Concurrency, OneSymmetricBsrPlanFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A = gen::elasticity3d(36, 3, seed_for(3));  // 139968 rows, 11 million entries
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
  GTEST_SKIP() << "needs Kokkos::OpenMP";
#endif
}

TEST(Concurrency, SeparateBsrPlansFromTwoThreads) {
#ifdef SPROCKET_HAVE_PARTITIONS
  const HostCsr A = random_blocked(60000, 60000, 4, 6, 0.7, 4);  // 240000 rows, 4 million entries
  const Bsr bsr = to_bsr<Bsr>(csr_to_host_bsr(A, 4));
  BsrSpmvOptions padded;
  padded.kernel = BsrKernel::padded;
  const BsrSpmvPlan<Bsr> first(bsr), second(bsr, padded);
  std::vector<std::string> failures;
  apply_in_partitions<BsrSpmvPlan<Bsr>>({&first, &second}, A, 40, failures);
  for (const std::string& f : failures) EXPECT_TRUE(f.empty()) << f;
#else
  GTEST_SKIP() << "needs Kokkos::OpenMP";
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
