// The CUDA SpGEMM kernels (impl/spgemm/cuda/spgemm_cuda_kernels.cuh: the bin kernel, the symbolic
// and numeric hash and dense kernels, the direct kernel, the segmented sort) run on the CPU through
// the test-only emulation (unit_tests/cuda_emulation/: every thread a fiber, CUDA's barriers,
// shuffles and ballots, poisoned shared memory, diagnostics of what CUDA leaves undefined),
// launched by the real launcher (impl/spgemm/cuda/spgemm_cuda.hpp: spgemm_symbolic,
// spgemm_numeric_schedule, spgemm_numeric<true / false>) on the emulated device.
//
// The analysis is built as SpgemmPlan builds it on Kokkos::Cuda (the row analysis on the host
// execution space, the options with the CUDA thresholds, the memory limit from the device's free
// bytes). The emulated device has little shared memory, so the configurations are small and the
// larger paths (several configurations, speculative hashing and its overflow to global memory,
// dense chunks, global hash maps, the segmented sort in shared and in global memory) are reached
// with small matrices:
//   small: 10 KiB opt-in / 5 KiB default, 256 threads: configurations 256 / 10 KiB, 256 / 5 KiB,
//          128 / 2.5 KiB, 64 / 1.25 KiB (symbolic hash keys 2400, 1120, 480, 160; numeric keys of
//          double 533, 248, 106, 35; the largest sorts afterwards, the others in their table);
//   tiny:  1152 bytes, 64 threads: one configuration (128 symbolic keys, 32 numeric dense
//          columns of double).
// Every product is checked against reference::spgemm (sorted columns, duplicates summed,
// cancellations kept) under the four standard schedules (grid clamped to 3 blocks), then re-run
// with new values (numeric<false>: C's columns known) and checked again. Each test asserts the
// paths it exists for: the launches the emulation recorded (kernel, block, shared memory), the
// schedule's decisions and bins, and the counters the kernels keep (group sizes, multi-row
// blocks, dense chunks, overflows, sorts).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Spgemm.hpp"
#include "impl/spgemm/cuda/spgemm_cuda.hpp"
#include "spgemm_test_utils.hpp"
#include "sprocket_cuda_emulation.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
namespace emu = Sprocket::cuda_emulation;
namespace icuda = Sprocket::Impl::cuda;

namespace {

// ------------------------------------------------------------------------------------------------
// The emulated device

struct DeviceShape {
  int64_t shared_default, shared_optin;
  int max_threads;
};
const DeviceShape small_device{5120, 10240, 256};
const DeviceShape tiny_device{1152, 1152, 64};
const DeviceShape medium_device{20480, 40960, 256};

emu::Device make_device(const emu::Schedule& schedule, const DeviceShape& shape) {
  emu::Device d(schedule);
  d.shared_bytes_per_block = shape.shared_default;
  d.shared_bytes_optin = shape.shared_optin;
  d.max_threads_per_block = shape.max_threads;
  d.max_threads_per_multiprocessor = 2048;
  d.free_bytes = int64_t{1} << 30;
  return d;
}

// ------------------------------------------------------------------------------------------------
// One product as SpgemmPlan<Crs on Kokkos::Cuda> computes it, on the emulated device

template <class Scalar_, class Offset_>
struct Kit {
  using Scalar = Scalar_;
  using Offset = Offset_;
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Crs = test::Crs<Scalar, Offset, Host>;
  using Device = typename Crs::device_type;
  using Analysis = Impl::SpgemmAnalysis<Scalar, int, Offset, Device>;
};

using Counters = std::array<int64_t, Impl::spgemm_num_counters>;

/// What makes the host wait for the device while a CountingHostWaits is alive, seen through Kokkos
/// Tools' callbacks as a profiler sees it, whichever code path does it:
///   allocations  Kokkos allocations labelled "Sprocket::spgemm::" (on a GPU each one is a
///                cudaMalloc and a blocking copy of its header);
///   copies_out   deep copies out of the plan's device memory (a View labelled "Sprocket::spgemm::"
///                or a subview of one) into anything else: read-backs. The emulated device's memory
///                is host memory, so the labels are what tells the plan's device Views from the rest;
///   fences       fences the plan asks for itself (space.fence(), Kokkos::fence(), which Kokkos
///                names "... Unnamed Instance Fence" / "... Unnamed Global Fence"), not those Kokkos
///                takes inside its own operations. Kokkos reports fences to tools from 3.5 on
///                (Kokkos 3.4 has the callback but never calls it): fences_reported says whether
///                this one does.
struct SpgemmHostWaits {
  static inline int64_t allocations = 0, copies_out = 0, fences = 0;
  static bool plans(const char* label) { return std::strncmp(label, "Sprocket::spgemm::", 18) == 0; }
  static void on_allocate(Kokkos::Profiling::SpaceHandle, const char* label, const void*, uint64_t) {
    if (plans(label)) ++allocations;
  }
  static void on_deep_copy(Kokkos::Profiling::SpaceHandle, const char* dst_label, const void*,
                           Kokkos::Profiling::SpaceHandle, const char* src_label, const void*, uint64_t) {
    if (plans(src_label) && !plans(dst_label)) ++copies_out;
  }
  static void on_fence(const char* name, const uint32_t, uint64_t* handle) {
    *handle = 0;
    if (std::strstr(name, "Unnamed") != nullptr) ++fences;
  }
};
class CountingHostWaits {
 public:
  CountingHostWaits() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(&SpgemmHostWaits::on_allocate);
    Kokkos::Tools::Experimental::set_begin_deep_copy_callback(&SpgemmHostWaits::on_deep_copy);
    Kokkos::Tools::Experimental::set_begin_fence_callback(&SpgemmHostWaits::on_fence);
    const int64_t before = SpgemmHostWaits::fences;
    Kokkos::DefaultHostExecutionSpace().fence();
    fences_reported_ = SpgemmHostWaits::fences > before;
  }
  ~CountingHostWaits() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_deep_copy_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_fence_callback(nullptr);
  }
  CountingHostWaits(const CountingHostWaits&) = delete;
  CountingHostWaits& operator=(const CountingHostWaits&) = delete;
  bool fences_reported() const { return fences_reported_; }

 private:
  bool fences_reported_ = false;
};

/// Whether `instance` (LaunchRecord::instance) is one of `kernel`: part of a kernel's name ("dense_
/// kernel": any instance of the dense kernels), or that up to one of its template arguments
/// ("spgemm_numeric_hash_kernel<false": the re-runs' instances).
bool is_of(const std::string& instance, const std::string& kernel) {
  for (size_t at = instance.find(kernel); at != std::string::npos; at = instance.find(kernel, at + 1)) {
    const size_t end = at + kernel.size();
    if (end == instance.size() || instance[end] == '<' || instance[end] == ',' || instance[end] == '>') return true;
  }
  return false;
}

/// Every numeric kernel in `history` (hash, dense, direct) is the instance of its pass: the first
/// pass (first = true: C's columns found) or a re-run (first = false: C's columns read).
::testing::AssertionResult numeric_instances_of_pass(const std::vector<emu::LaunchRecord>& history, bool first) {
  const std::string pass = first ? "<true" : "<false";
  const char* const kernels[] = {"spgemm_numeric_hash_kernel", "spgemm_numeric_dense_kernel", "spgemm_direct_kernel"};
  for (const auto& r : history)
    for (const std::string kernel : kernels)
      if (is_of(r.instance, kernel) && !is_of(r.instance, kernel + pass))
        return ::testing::AssertionFailure() << "ran " << r.instance << " in "
                                             << (first ? "the first pass" : "a re-run");
  return ::testing::AssertionSuccess();
}

template <class K>
struct Outcome {
  typename K::Analysis an;
  HostCsr C;
  std::vector<emu::LaunchRecord> symbolic_launches, numeric_launches, rerun_launches, second_rerun_launches;
  Counters numeric_counters{}, rerun_counters{};
  /// After the analysis, the symbolic pass, the numeric schedule and the first numeric pass: the
  /// read-backs so far by the plan's own count (SpgemmAnalysis::host_reads), and the allocations,
  /// copies out of the plan's device memory and fences so far that a CountingHostWaits saw.
  std::array<int64_t, 4> reads{}, allocations{}, copies_out{}, fences{};
};

/// The options as the plan resolves them for CUDA.
SpgemmOptions cuda_options(SpgemmOptions o) {
  o.symbolic_thresholds = Impl::spgemm_resolve_thresholds(o.symbolic_thresholds, Impl::spgemm_cuda_symbolic_thresholds);
  o.numeric_thresholds = Impl::spgemm_resolve_thresholds(o.numeric_thresholds, Impl::spgemm_cuda_numeric_thresholds);
  return o;
}

template <class K>
void prepare(typename K::Analysis& an, const typename K::Crs& A, const typename K::Crs& B, const SpgemmOptions& options,
             const emu::Device& device) {
  an.backend = Backend::native;
  an.options = cuda_options(options);
  an.memory.limit_bytes =
      Impl::spgemm_memory_limit(options.memory_limit_bytes, icuda::spgemm_device_free_bytes(device));
  Impl::spgemm_analyse(typename K::Host(), A, B, an, true);  // B's ranges kept, as on Kokkos::Cuda
}

/// C = A * B (A and B rounded to Scalar first), checked; then the numeric pass again with new
/// values of A and B (C's columns known), checked again.
template <class K>
Outcome<K> run_product(const HostCsr& A0, const HostCsr& B0, const SpgemmOptions& options, const DeviceShape& shape,
                       const emu::Schedule& schedule, uint64_t salt = 1) {
  using Scalar = typename K::Scalar;
  using Crs = typename K::Crs;
  Outcome<K> out;
  const HostCsr A = test::rounded<Scalar>(A0), B = test::rounded<Scalar>(B0);
  const Crs Ad = to_crs<Crs>(A), Bd = to_crs<Crs>(B);
  emu::Device device = make_device(schedule, shape);
  auto& an = out.an;
  const int64_t allocations = SpgemmHostWaits::allocations, copies_out = SpgemmHostWaits::copies_out,
                fences = SpgemmHostWaits::fences;
  const auto step = [&](int k) {
    out.reads[k] = an.host_reads;
    out.allocations[k] = SpgemmHostWaits::allocations - allocations;
    out.copies_out[k] = SpgemmHostWaits::copies_out - copies_out;
    out.fences[k] = SpgemmHostWaits::fences - fences;
  };
  prepare<K>(an, Ad, Bd, options, device);
  step(0);
  icuda::spgemm_symbolic(device, Ad, Bd, an);
  step(1);
  out.symbolic_launches = device.stream.history;
  device.stream.history.clear();
  const int64_t held =
      an.memory.analysis_bytes + Impl::spgemm_bytes<int>(an.nnz_c) + Impl::spgemm_bytes<Scalar>(an.nnz_c);
  icuda::spgemm_numeric_schedule(device, Ad, an, held);
  step(2);
  an.memory.output_bytes = Impl::spgemm_bytes<typename K::Offset>(an.num_rows + 1) + Impl::spgemm_bytes<int>(an.nnz_c) +
                           Impl::spgemm_bytes<Scalar>(an.nnz_c);
  Impl::spgemm_update_peak(an.memory);

  using Entries = typename Crs::staticcrsgraph_type::entries_type::non_const_type;
  using Values = typename Crs::values_type::non_const_type;
  Entries entries("C::entries", an.nnz_c);
  Values values("C::values", an.nnz_c);
  Kokkos::deep_copy(entries, -1);
  Kokkos::deep_copy(values, std::numeric_limits<Scalar>::quiet_NaN());
  const Crs C("C", static_cast<int>(an.num_rows), static_cast<int>(an.num_cols), an.nnz_c, values, an.row_map_c,
              entries);
  icuda::spgemm_numeric<true>(device, Ad, Bd, an, C);
  step(3);
  out.numeric_launches = device.stream.history;
  EXPECT_TRUE(numeric_instances_of_pass(out.numeric_launches, true));
  device.stream.history.clear();
  out.numeric_counters = icuda::spgemm_cuda_numeric_counters(an);
  out.C = to_host_csr(C);
  EXPECT_TRUE(test::spgemm_matches<Scalar>(A, B, out.C, options.sorted)) << schedule.name();

  // The re-run: new values, C's values poisoned, its columns kept.
  const HostCsr A2 = test::rounded<Scalar>(test::new_values(A, salt + 101));
  const HostCsr B2 = test::rounded<Scalar>(test::new_values(B, salt + 202));
  Kokkos::deep_copy(Ad.values, to_crs<Crs>(A2).values);
  Kokkos::deep_copy(Bd.values, to_crs<Crs>(B2).values);
  Kokkos::deep_copy(values, std::numeric_limits<Scalar>::quiet_NaN());
  icuda::spgemm_numeric<false>(device, Ad, Bd, an, C);
  out.rerun_launches = device.stream.history;
  EXPECT_TRUE(numeric_instances_of_pass(out.rerun_launches, false));
  out.rerun_counters = icuda::spgemm_cuda_numeric_counters(an);
  const HostCsr C2 = to_host_csr(C);
  EXPECT_EQ(C2.entries, out.C.entries) << "the re-run changed C's columns (" << schedule.name() << ")";
  EXPECT_TRUE(test::spgemm_matches<Scalar>(A2, B2, C2, options.sorted)) << "re-run, " << schedule.name();

  // A second re-run (by position: reads what the first recorded).
  const HostCsr A3 = test::rounded<Scalar>(test::new_values(A, salt + 303));
  const HostCsr B3 = test::rounded<Scalar>(test::new_values(B, salt + 404));
  Kokkos::deep_copy(Ad.values, to_crs<Crs>(A3).values);
  Kokkos::deep_copy(Bd.values, to_crs<Crs>(B3).values);
  Kokkos::deep_copy(values, std::numeric_limits<Scalar>::quiet_NaN());
  device.stream.history.clear();
  icuda::spgemm_numeric<false>(device, Ad, Bd, an, C);
  out.second_rerun_launches = device.stream.history;
  EXPECT_TRUE(numeric_instances_of_pass(out.second_rerun_launches, false));
  const HostCsr C3 = to_host_csr(C);
  EXPECT_EQ(C3.entries, out.C.entries) << "the second re-run changed C's columns (" << schedule.name() << ")";
  EXPECT_TRUE(test::spgemm_matches<Scalar>(A3, B3, C3, options.sorted)) << "second re-run, " << schedule.name();
  return out;
}

// ------------------------------------------------------------------------------------------------
// What ran

int64_t launches_of(const std::vector<emu::LaunchRecord>& history, const std::string& kernel) {
  int64_t n = 0;
  for (const auto& r : history) n += is_of(r.instance, kernel);
  return n;
}

/// A launch of `kernel` with `block` threads and `shared` bytes of dynamic shared memory.
bool launched(const std::vector<emu::LaunchRecord>& history, const std::string& kernel, unsigned block, size_t shared) {
  for (const auto& r : history)
    if (is_of(r.instance, kernel) && r.block == block && r.shared_bytes == shared) return true;
  return false;
}

std::string launches_text(const std::vector<emu::LaunchRecord>& history) {
  std::string s;
  for (const auto& r : history)
    s += "\n  " + r.instance + " grid " + std::to_string(r.grid) + " block " + std::to_string(r.block) + " shared " +
         std::to_string(r.shared_bytes);
  return s;
}

int64_t group_blocks(const Counters& c, int g) {
  int l = 0;
  while ((1 << l) < g) ++l;
  return c[Impl::spgemm_counter_group_sizes + l];
}
int64_t all_group_blocks(const Counters& c) {
  int64_t n = 0;
  for (int l = 0; l <= 10; ++l) n += c[Impl::spgemm_counter_group_sizes + l];
  return n;
}

using Double = Kit<double, int>;
using FloatWide = Kit<float, size_t>;

std::vector<emu::Schedule> schedules(uint64_t salt, size_t count = 4) {
  std::vector<emu::Schedule> all = emu::standard_schedules(test::seed_for(salt));
  all.resize(std::min(count, all.size()));
  return all;
}

SpgemmOptions with(SpgemmBalance symbolic, SpgemmBalance numeric, bool sorted = true,
                   SpgemmAccumulator accumulator = SpgemmAccumulator::automatic) {
  SpgemmOptions o;
  o.symbolic_balance = symbolic;
  o.numeric_balance = numeric;
  o.sorted = sorted;
  o.accumulator = accumulator;
  return o;
}

// ------------------------------------------------------------------------------------------------
// Host decisions

TEST(SpgemmCudaConfigs, SizedFromTheDeviceHalvingSharedMemoryAndThreads) {
  icuda::SpgemmCudaDevice h100{48 * 1024, 227 * 1024, 1024, 2048, 132};
  const auto c = icuda::spgemm_cuda_configs<int>(h100, 8);
  ASSERT_EQ(c.size(), 6u);
  const int threads[] = {1024, 1024, 512, 256, 128, 64};
  const int64_t shared[] = {227 * 1024, 48 * 1024, 24 * 1024, 12 * 1024, 6 * 1024, 3 * 1024};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(c[k].threads, threads[k]);
    EXPECT_EQ(c[k].shared_bytes, shared[k]);
    EXPECT_EQ(c[k].table_bytes, shared[k] - 640);
    EXPECT_EQ(c[k].symbolic_slots, (shared[k] - 640) / 4);
    EXPECT_LE(c[k].numeric_slots * 12, c[k].table_bytes);
    EXPECT_EQ(c[k].numeric_keys, c[k].numeric_slots * 2 / 3);
    EXPECT_EQ(c[k].numeric_dense_columns % 32, 0);
    EXPECT_LE(c[k].numeric_dense_columns * 8 + c[k].numeric_dense_columns / 8, c[k].table_bytes);
  }
  EXPECT_TRUE(c[0].optin);
  EXPECT_FALSE(c[1].optin);
  // No opt-in beyond the default: the opt-in configuration is left out.
  const auto same = icuda::spgemm_cuda_configs<int>(icuda::SpgemmCudaDevice{48 * 1024, 48 * 1024, 1024, 2048, 80}, 4);
  ASSERT_EQ(same.size(), 5u);
  EXPECT_EQ(same[0].shared_bytes, 48 * 1024);
  // The emulated small device of these tests (5 KiB default, 10 KiB opt-in, 256 threads): the
  // opt-in configuration, then the default one halved down to 64 threads, each table filled as
  // documented: 4-byte symbolic keys to the last slot, numeric keys and values (8-byte doubles)
  // as many as fit, at most 2/3 of them used.
  const icuda::SpgemmCudaDevice small_device{5120, 10240, 256, 2048, 2};
  const auto small = icuda::spgemm_cuda_configs<int>(small_device, 8);
  ASSERT_EQ(small.size(), 4u);
  EXPECT_EQ(small[0].shared_bytes, small_device.shared_optin);
  for (int k = 1; k < 4; ++k) {
    EXPECT_EQ(small[k].threads, small_device.max_threads >> (k - 1)) << "configuration " << k;
    EXPECT_EQ(small[k].shared_bytes, small_device.shared_default >> (k - 1)) << "configuration " << k;
  }
  for (const auto& config : small) {
    EXPECT_LE(config.symbolic_slots * 4, config.table_bytes);
    EXPECT_GT((config.symbolic_slots + 1) * 4, config.table_bytes);
    EXPECT_LE(config.numeric_slots * (4 + 8), config.table_bytes);
    EXPECT_GT((config.numeric_slots + 2) * (4 + 8), config.table_bytes);  // one slot of key padding at most
    EXPECT_LE(config.numeric_keys * 3, config.numeric_slots * 2);
    EXPECT_GT((config.numeric_keys + 1) * 3, config.numeric_slots * 2);
  }
  // Halving stops where a table would be smaller than 512 bytes.
  EXPECT_EQ(icuda::spgemm_cuda_configs<int>(icuda::SpgemmCudaDevice{4096, 4096, 1024, 2048, 2}, 8).size(), 2u);
  EXPECT_THROW(icuda::spgemm_cuda_configs<int>(icuda::SpgemmCudaDevice{600, 600, 1024, 2048, 1}, 8), InvalidArgument);
}

TEST(SpgemmCudaLocalBalancing, GroupSizeFollowsThePaperRule) {
  // Average referenced row of 8: g = 8 when the longest row does not dominate.
  EXPECT_EQ(icuda::spgemm_group_size(256, 64, 512, 10, 0), 8);
  // Few A entries: more groups than entries are not kept (g >= threads / entries).
  EXPECT_EQ(icuda::spgemm_group_size(256, 4, 16, 4, 0), 64);
  // One long referenced row among short ones: iter_max >> n_rows, g grows.
  EXPECT_EQ(icuda::spgemm_round_pow2((63 + 2000) / 64.0), 32);
  EXPECT_EQ(icuda::spgemm_group_size(256, 64, 63 + 2000, 2000, 0), 128);
  // Many entries, short rows: n_rows >> iter_max, g shrinks below the average.
  EXPECT_EQ(icuda::spgemm_group_size(64, 100000, 800000, 8, 0), 1);
  // Forced, and clamped to the block.
  EXPECT_EQ(icuda::spgemm_group_size(256, 64, 512, 10, 4), 4);
  EXPECT_EQ(icuda::spgemm_group_size(64, 64, 512, 10, 1024), 64);
  for (int threads : {64, 128, 1024})
    for (int64_t entries : {1, 3, 17, 1000})
      for (int64_t avg : {1, 2, 7, 40, 900}) {
        const int g = icuda::spgemm_group_size(threads, entries, entries * avg, avg * 3, 0);
        EXPECT_TRUE(g >= 1 && g <= threads && (g & (g - 1)) == 0) << g;
      }
}

/// Lanes per row of a re-run by position: the power of two covering the average referenced row
/// of B, 4 to 32; a forced group as given.
TEST(SpgemmCudaReuse, GroupCoversTheAverageReferencedRow) {
  EXPECT_EQ(icuda::spgemm_reuse_group(0.0, 0), 4);
  EXPECT_EQ(icuda::spgemm_reuse_group(3.0, 0), 4);
  EXPECT_EQ(icuda::spgemm_reuse_group(4.0, 0), 4);
  EXPECT_EQ(icuda::spgemm_reuse_group(4.5, 0), 8);
  EXPECT_EQ(icuda::spgemm_reuse_group(7.0, 0), 8);  // Poisson's 7-point rows
  EXPECT_EQ(icuda::spgemm_reuse_group(9.0, 0), 16);
  EXPECT_EQ(icuda::spgemm_reuse_group(81.0, 0), 32);  // elasticity's 81-entry rows
  EXPECT_EQ(icuda::spgemm_reuse_group(5000.0, 0), 32);
  EXPECT_EQ(icuda::spgemm_reuse_group(81.0, 2), 2);
}

TEST(SpgemmCudaBins, RowRuleFollowsThePaper) {
  icuda::SpgemmBinRule r;
  r.num_configs = 4;
  const int64_t keys[] = {600, 300, 150, 75}, cols[] = {900, 450, 224, 96};
  for (int c = 0; c < 4; ++c) {
    r.hash_keys[c] = keys[c];
    r.dense_columns[c] = cols[c];
  }
  r.direct = true;
  int64_t need = 0;
  EXPECT_EQ(icuda::spgemm_row_bin(r, 3, 0, 0, 0, need), -1);
  EXPECT_EQ(icuda::spgemm_row_bin(r, 1, 40, 100, 0, need), Impl::spgemm_cuda_direct_bin);
  // Symbolic: the need is min(products, range); speculative up to twice the largest; then dense.
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 200, 50, 0, need), Impl::spgemm_cuda_hash_bin(3));
  EXPECT_EQ(need, 50);
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 200, 5000, 0, need), Impl::spgemm_cuda_hash_bin(1));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 1100, 5000, 0, need), Impl::spgemm_cuda_hash_bin(0));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 1300, 5000, 0, need), Impl::spgemm_cuda_dense_bin(0));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 1300, 900 * 33, 0, need), Impl::spgemm_cuda_global_bin);
  // Numeric: hash in the three smallest; dense within three chunks; else hash; the largest dense.
  r.symbolic = false;
  for (int c = 0; c < 4; ++c) EXPECT_EQ(icuda::spgemm_sorts_in_table(r, c), c >= 1) << c;
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 400, 5000, 280, need), Impl::spgemm_cuda_hash_bin(1));
  // (The third smallest table takes the row before a dense chunk would: it sorts in place.)
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 400, 1000, 280, need), Impl::spgemm_cuda_hash_bin(1));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 400, 700, 400, need), Impl::spgemm_cuda_dense_bin(1));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 900, 5000, 500, need), Impl::spgemm_cuda_dense_bin(0));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 900, 900 * 40, 500, need), Impl::spgemm_cuda_hash_bin(0));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 900, 900 * 40, 700, need), Impl::spgemm_cuda_global_bin);
  r.forced = static_cast<int>(SpgemmAccumulator::hash);
  EXPECT_EQ(icuda::spgemm_row_bin(r, 5, 400, 700, 400, need), Impl::spgemm_cuda_hash_bin(0));
  EXPECT_EQ(icuda::spgemm_row_bin(r, 1, 400, 700, 400, need), Impl::spgemm_cuda_direct_bin);
}

// ------------------------------------------------------------------------------------------------
// Products

/// A 2-D Poisson operator squared: uniform (few rows), several rows per block with compound keys,
/// numeric rows sorted in their table, float and double, int and size_t offsets.
TEST(SpgemmCudaEmulated, UniformBlocksOfSeveralRowsWithCompoundKeys) {
  const HostCsr A = gen::poisson2d(9);
  for (const auto& schedule : schedules(11)) {
    const auto d = run_product<Double>(A, A, SpgemmOptions{}, small_device, schedule);
    const auto f = run_product<FloatWide>(A, A, SpgemmOptions{}, small_device, schedule);
    const auto check = [](const auto& cu) {
      EXPECT_EQ(cu.symbolic.balance, SpgemmBalance::uniform);
      EXPECT_EQ(cu.symbolic.uniform_kind, Impl::SpgemmCudaKind::hash);
      EXPECT_EQ(cu.symbolic.uniform_config, 3);  // the smallest configuration holds a row's 25 products
      EXPECT_GT(cu.symbolic.rows_per_block, 1);
      EXPECT_GT(cu.symbolic.counters[Impl::spgemm_counter_multi_row_blocks], 0);
      EXPECT_EQ(cu.numeric.balance, SpgemmBalance::uniform);
      EXPECT_GT(cu.numeric.rows_per_block, 1);
    };
    check(d.an.cuda);
    check(f.an.cuda);
    // The smallest configuration's launch: its threads, its table as the dynamic shared memory.
    const auto& smallest = d.an.cuda.configs[3];
    EXPECT_TRUE(launched(d.symbolic_launches, "spgemm_symbolic_hash_kernel", static_cast<unsigned>(smallest.threads),
                         static_cast<size_t>(smallest.table_bytes)))
        << launches_text(d.symbolic_launches);
    EXPECT_EQ(launches_of(d.symbolic_launches, "spgemm_bin_kernel"), 0);
    EXPECT_GT(d.numeric_counters[Impl::spgemm_counter_multi_row_blocks], 0);
    EXPECT_EQ(d.numeric_counters[Impl::spgemm_counter_table_sorted_rows], 81);
    EXPECT_EQ(launches_of(d.numeric_launches, "spgemm_sort_kernel"), 0);
    EXPECT_EQ(d.an.symbolic_rows.hash, 81);
  }
}

/// Short rows with a few long ones, squared, both passes binned: the bin kernel's count and
/// write passes, rows in several configurations, the smallest one's neighbours merged into blocks
/// (Algorithm 2: at most 32 rows whose needs fit the configuration, consecutive in the bin), the
/// bins' lists in row order.
HostCsr short_and_long_rows(int64_t n, uint64_t salt) {
  const HostCsr R = test::random_csr(n, n, 2, salt);
  std::mt19937_64 rng(test::seed_for(salt + 1));
  std::vector<Triplet> t;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) t.push_back({i, R.entries[k], R.values[k]});
    if (i % 37 == 5)
      for (int k = 0; k < 100; ++k) t.push_back({i, static_cast<int64_t>(rng() % n), 0.25});
  }
  return HostCsr::from_triplets(n, n, std::move(t));
}

TEST(SpgemmCudaEmulated, BinnedPassesMergeNeighbouringRowsInRowOrder) {
  const HostCsr A = short_and_long_rows(300, 21);
  const SpgemmOptions o = with(SpgemmBalance::binned, SpgemmBalance::binned);
  for (const auto& schedule : schedules(22)) {
    const auto d = run_product<Double>(A, A, o, small_device, schedule, 23);
    const auto f = run_product<FloatWide>(A, A, o, small_device, schedule, 24);
    EXPECT_EQ(d.an.symbolic_balance, SpgemmBalance::binned);
    EXPECT_EQ(d.an.numeric_balance, SpgemmBalance::binned);
    EXPECT_EQ(launches_of(d.symbolic_launches, "spgemm_bin_kernel"), 2) << launches_text(d.symbolic_launches);
    EXPECT_EQ(launches_of(d.numeric_launches, "spgemm_bin_kernel"), 2);
    EXPECT_EQ(launches_of(d.rerun_launches, "spgemm_bin_kernel"), 0);  // the re-run reuses the bins
    for (const auto* pass : {&d.an.cuda.symbolic, &d.an.cuda.numeric, &f.an.cuda.symbolic, &f.an.cuda.numeric}) {
      int used = 0;
      for (int c = 0; c < Impl::spgemm_cuda_max_configs; ++c) used += pass->bin_rows[Impl::spgemm_cuda_hash_bin(c)] > 0;
      EXPECT_GE(used, 2);
      ASSERT_EQ(pass->merge_bin, Impl::spgemm_cuda_hash_bin(3));
      EXPECT_LT(pass->merged_blocks, pass->bin_rows[pass->merge_bin]);
      EXPECT_GT(pass->merged_blocks, 0);
    }
    EXPECT_GT(d.an.cuda.symbolic.counters[Impl::spgemm_counter_multi_row_blocks], 0);
    EXPECT_GT(d.numeric_counters[Impl::spgemm_counter_multi_row_blocks], 0);
    // The numeric bins kept by the plan: every bin's rows ascending within each bin block of 256
    // rows, all in order when the blocks run in order; the merged blocks cover the smallest
    // configuration's rows once, consecutive, at most 32, their needs within its keys.
    const auto& cu = d.an.cuda;
    const auto& pass = cu.numeric;
    std::vector<int> list(cu.numeric_list.data(), cu.numeric_list.data() + pass.listed_rows);
    for (int b = 0; b < Impl::spgemm_cuda_num_bins; ++b) {
      if (pass.bin_rows[b] == 0) continue;
      const auto first = list.begin() + pass.bin_offset[b], last = first + pass.bin_rows[b];
      if (schedule.order == emu::Order::in_order) {
        EXPECT_TRUE(std::is_sorted(first, last)) << "bin " << b;
      }
      std::vector<int> rows(first, last);
      std::sort(rows.begin(), rows.end());
      EXPECT_TRUE(std::adjacent_find(rows.begin(), rows.end()) == rows.end()) << "bin " << b;
    }
    const int64_t keys = cu.configs[3].numeric_keys;
    std::vector<int64_t> covered(pass.bin_rows[pass.merge_bin], 0);
    const HostCsr ref = reference::spgemm(A, A);
    for (int64_t k = 0; k < pass.merged_blocks; ++k) {
      const unsigned long long desc = cu.numeric_blocks(k);
      const int64_t start = static_cast<int64_t>(desc >> 6), count = static_cast<int64_t>(desc & 63);
      ASSERT_TRUE(count >= 1 && count <= 32 && start + count <= pass.bin_rows[pass.merge_bin]);
      int64_t need = 0;
      for (int64_t q = start; q < start + count; ++q) {
        ++covered[q];
        need += ref.row_length(list[pass.bin_offset[pass.merge_bin] + q]);
      }
      EXPECT_LE(need, count > 1 ? keys : need);
    }
    for (int64_t q = 0; q < static_cast<int64_t>(covered.size()); ++q) EXPECT_EQ(covered[q], 1) << q;
  }
}

/// Automatic global load balancing follows the thresholds (the paper's Table 2 by default: 300
/// rows are too few to bin; thresholds of ratio 2 and 10 rows bin both passes).
TEST(SpgemmCudaEmulated, AutomaticBalanceFollowsTheThresholds) {
  const HostCsr A = short_and_long_rows(300, 25);
  const auto defaults = run_product<Double>(A, A, SpgemmOptions{}, small_device, schedules(26)[2], 27);
  EXPECT_EQ(defaults.an.symbolic_balance, SpgemmBalance::uniform);
  EXPECT_EQ(defaults.an.numeric_balance, SpgemmBalance::uniform);
  EXPECT_NE(defaults.an.symbolic_balance_reason.find("automatic"), std::string::npos);
  SpgemmOptions low;
  low.symbolic_thresholds = SpgemmBalanceThresholds{2.0, 10, 2.0, 10};
  low.numeric_thresholds = low.symbolic_thresholds;
  const auto binned = run_product<Double>(A, A, low, small_device, schedules(26)[3], 28);
  EXPECT_EQ(binned.an.symbolic_balance, SpgemmBalance::binned) << binned.an.symbolic_balance_reason;
  EXPECT_EQ(binned.an.numeric_balance, SpgemmBalance::binned) << binned.an.numeric_balance_reason;
  EXPECT_EQ(launches_of(binned.symbolic_launches, "spgemm_bin_kernel"), 2);
  // R-MAT scale 9 (512 power-law rows, the longest hundreds of entries) with the low thresholds,
  // float with size_t offsets, under every schedule.
  const HostCsr R = gen::rmat(9, 8, test::seed_for(29));
  for (const auto& schedule : schedules(30)) {
    const auto r = run_product<FloatWide>(R, R, low, small_device, schedule, 31);
    EXPECT_EQ(r.an.symbolic_balance, SpgemmBalance::binned);
    EXPECT_GT(r.an.symbolic_rows.hash, 0);
    EXPECT_GT(r.an.numeric_rows.hash, 0);
  }
}

/// Rows of A with one entry reference B's row directly (B's rows sorted): counted without a
/// kernel in the symbolic pass, copied by the direct kernel (binned) or inside the hash blocks
/// (uniform); direct_rows = false accumulates them instead.
TEST(SpgemmCudaEmulated, SingleEntryRowsReferenceBDirectly) {
  const HostCsr A = test::single_entry_rows(160, 90, 31);
  const HostCsr B = test::random_csr(90, 120, 5, 32);
  int64_t single = 0;
  for (int64_t i = 0; i < A.num_rows; ++i)
    if (A.row_length(i) == 1 && B.row_length(A.entries[A.row_map[i]]) > 0) ++single;
  ASSERT_GT(single, 20);
  for (const auto& schedule : schedules(33)) {
    for (const SpgemmBalance balance : {SpgemmBalance::uniform, SpgemmBalance::binned}) {
      const auto r = run_product<Double>(A, B, with(balance, balance), small_device, schedule, 34);
      EXPECT_TRUE(r.an.stats.b_rows_sorted);
      EXPECT_EQ(r.an.symbolic_rows.direct, single);
      EXPECT_EQ(r.an.numeric_rows.direct, single);
      EXPECT_EQ(r.numeric_counters[Impl::spgemm_counter_direct_rows], single);
      // The re-run goes by position (a single-entry row like any other); with a forced accumulator,
      // through the direct rows again.
      EXPECT_GT(r.an.cuda.reuse_group, 0);
      EXPECT_EQ(r.rerun_counters[Impl::spgemm_counter_direct_rows], 0);
      EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_direct_kernel<true"), balance == SpgemmBalance::binned ? 1 : 0);
      const auto h = run_product<Double>(A, B, with(balance, balance, true, SpgemmAccumulator::hash), small_device,
                                         schedule, 36);
      EXPECT_EQ(h.an.cuda.reuse_group, 0);
      EXPECT_EQ(h.rerun_counters[Impl::spgemm_counter_direct_rows], single);
      EXPECT_EQ(launches_of(h.rerun_launches, "spgemm_direct_kernel<false"), balance == SpgemmBalance::binned ? 1 : 0)
          << launches_text(h.rerun_launches);
    }
    SpgemmOptions off = with(SpgemmBalance::binned, SpgemmBalance::binned);
    off.direct_rows = false;
    const auto r = run_product<FloatWide>(A, B, off, small_device, schedule, 35);
    EXPECT_EQ(r.an.symbolic_rows.direct, 0);
    EXPECT_EQ(r.numeric_counters[Impl::spgemm_counter_direct_rows], 0);
    EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_direct_kernel"), 0);
  }
}

/// The symbolic pass sizes its accumulators by the rows it accumulates: with direct rows on, the
/// dense row of B that only a single-entry row reaches is copied, not accumulated, so the need and
/// the column range are those of the rows of several entries; with them off, every row's.
TEST(SpgemmCudaEmulated, DirectRowsLeaveTheNeedToAccumulatedRows) {
  const auto [A, B] = test::single_entry_row_reaches_dense_row(120, 100, 110, 161);
  int64_t need_multi = 0, range_multi = 0, single = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    if (A.row_length(i) == 1) single += B.row_length(A.entries[A.row_map[i]]) > 0;
    if (A.row_length(i) < 2) continue;
    int64_t products = 0, lo = B.num_cols, hi = -1;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      if (B.row_length(j) == 0) continue;
      products += B.row_length(j);
      lo = std::min<int64_t>(lo, B.entries[B.row_map[j]]);
      hi = std::max<int64_t>(hi, B.entries[B.row_map[j + 1] - 1]);
    }
    if (products == 0) continue;
    need_multi = std::max(need_multi, std::min(products, hi - lo + 1));
    range_multi = std::max(range_multi, hi - lo + 1);
  }
  ASSERT_LT(need_multi, 110);
  for (const bool direct : {true, false}) {
    SpgemmOptions o = with(SpgemmBalance::uniform, SpgemmBalance::uniform);
    o.direct_rows = direct;
    const auto r = run_product<Double>(A, B, o, small_device, schedules(162)[direct ? 0 : 1], 163);
    EXPECT_EQ(r.an.cuda.symbolic.max_need, direct ? need_multi : 110) << direct;
    EXPECT_EQ(r.an.cuda.symbolic.max_range, direct ? range_multi : 110) << direct;
    EXPECT_EQ(r.an.symbolic_rows.direct, direct ? single : 0) << direct;
  }
}

/// The sorted first pass sorts a shared table in place (spgemm_bitonic_sort), blocks of several
/// rows with single-entry (direct) and empty rows between them, on medium_device: its smallest
/// configuration (64 threads / 5 KiB) has 373 numeric slots of double, so the merges of 128, 256
/// and 512 run their long steps in shared memory. small_device's smallest have 53 slots (every
/// step in registers) and 160 (merges of 128 and 256), here one row per block (several in
/// UniformBlocksOfSeveralRowsWithCompoundKeys).
TEST(SpgemmCudaEmulated, SortedFirstPassSortsSharedTablesInPlace) {
  const HostCsr A = test::single_entry_rows(160, 90, 61);
  const HostCsr B = test::random_csr(90, 120, 5, 62);
  for (const auto& schedule : schedules(63)) {
    for (const DeviceShape* device : {&medium_device, &small_device}) {
      const auto d = run_product<Double>(A, B, SpgemmOptions{}, *device, schedule, 64);
      const auto f = run_product<FloatWide>(A, B, SpgemmOptions{}, *device, schedule, 65);
      for (const auto* r : {&d.numeric_counters, &f.numeric_counters}) {
        EXPECT_GT((*r)[Impl::spgemm_counter_table_sorted_rows], 0);
        if (device == &medium_device) EXPECT_GT((*r)[Impl::spgemm_counter_multi_row_blocks], 0);
        EXPECT_GT((*r)[Impl::spgemm_counter_direct_rows], 0);
      }
      EXPECT_GT(d.an.numeric_rows.empty, 0);
      EXPECT_EQ(launches_of(d.numeric_launches, "spgemm_sort_kernel"), 0);
    }
  }
}

/// A with empty, single-entry and short rows and two of 40 and 70 entries (more than a warp of
/// lanes), B with rows up to 45 entries (more than any group), 48 columns wide.
std::pair<HostCsr, HostCsr> rerun_operands(uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  std::vector<Triplet> a, b;
  for (int64_t i = 0; i < 90; ++i) {
    const int64_t len = i % 10 == 3 ? 0 : i % 10 == 4 ? 1 : i == 7 ? 40 : i == 8 ? 70 : 1 + static_cast<int64_t>(rng() % 5);
    for (int64_t k = 0; k < len; ++k)
      a.push_back({i, static_cast<int64_t>(rng() % 80), static_cast<double>(rng() % 1000) / 500.0 - 1.0});
  }
  for (int64_t i = 0; i < 80; ++i) {
    const int64_t len = i == 11 ? 45 : i == 12 ? 33 : static_cast<int64_t>(rng() % 7);
    for (int64_t k = 0; k < len; ++k)
      b.push_back({i, static_cast<int64_t>(rng() % 48), static_cast<double>(rng() % 1000) / 500.0 - 1.0});
  }
  return {HostCsr::from_triplets(90, 80, std::move(a)), HostCsr::from_triplets(80, 48, std::move(b))};
}

/// A re-run after the one that recorded the products' positions reads them: on r's plan (positions
/// recorded), one more re-run with new values of A and B matches the reference, and with every
/// recorded position moved to its row's first entry the same re-run must not (the products then
/// pile up there).
template <class K>
::testing::AssertionResult reads_recorded_positions(const Outcome<K>& r, const HostCsr& A0, const HostCsr& B0,
                                                    const SpgemmOptions& options, const DeviceShape& shape,
                                                    const emu::Schedule& schedule, uint64_t salt) {
  using Scalar = typename K::Scalar;
  using Crs = typename K::Crs;
  const auto& cu = r.an.cuda;
  if (!cu.reuse_recorded || cu.reuse_positions.extent(0) == 0)
    return ::testing::AssertionFailure() << "no positions recorded";
  const HostCsr A = test::rounded<Scalar>(test::new_values(A0, salt));
  const HostCsr B = test::rounded<Scalar>(test::new_values(B0, salt + 1));
  const Crs Ad = to_crs<Crs>(A), Bd = to_crs<Crs>(B), C = to_crs<Crs>(r.C);
  emu::Device device = make_device(schedule, shape);
  const auto rerun = [&] {
    Kokkos::deep_copy(C.values, std::numeric_limits<Scalar>::quiet_NaN());
    device.stream.history.clear();
    icuda::spgemm_numeric<false>(device, Ad, Bd, r.an, C);
    return launches_of(device.stream.history, "spgemm_numeric_reuse_kernel") == 1 &&
           device.stream.history.size() == 1;
  };
  if (!rerun()) return ::testing::AssertionFailure() << "launched" << launches_text(device.stream.history);
  const auto intact = test::spgemm_matches<Scalar>(A, B, to_host_csr(C), options.sorted);
  if (!intact) return ::testing::AssertionFailure() << "with the recorded positions: " << intact.message();
  const auto positions = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cu.reuse_positions);
  Kokkos::deep_copy(positions, static_cast<unsigned short>(0));
  Kokkos::deep_copy(cu.reuse_positions, positions);
  if (!rerun()) return ::testing::AssertionFailure() << "launched" << launches_text(device.stream.history);
  if (test::spgemm_matches<Scalar>(A, B, to_host_csr(C), options.sorted))
    return ::testing::AssertionFailure() << "the re-run matches with every position at its row's first entry: it did "
                                            "not read the recorded positions";
  return ::testing::AssertionSuccess();
}

/// Re-runs by position (spgemm_numeric_reuse_kernel): with C's rows sorted and B's strictly
/// increasing, a re-run is one launch, a group of lanes per row of C: the power of two covering
/// the average referenced row of B (4 to 32 lanes) or the forced threads_per_b_row, in the
/// largest block (up to 256 threads, down to one group) whose groups' slots (C's longest row
/// each) fit the default shared memory. The first re-run records every product's position and
/// the second reads them, unless they would take more than 4 times C's bytes. Unsorted C, a forced accumulator, a group above a warp or rows too long for
/// shared memory keep the numeric pass's accumulators for the re-runs.
TEST(SpgemmCudaEmulated, ReRunsByPositionInSortedRows) {
  const auto [A, B] = rerun_operands(161);
  const auto slot_bytes = [](const auto& cu) {
    return static_cast<size_t>((cu.reuse_threads / cu.reuse_group) * cu.reuse_capacity) * sizeof(double);
  };
  for (const auto& schedule : schedules(162)) {
    for (const SpgemmBalance balance : {SpgemmBalance::uniform, SpgemmBalance::binned}) {
      for (const int forced : {0, 1, 2, 4, 8, 16, 32}) {
        SCOPED_TRACE(std::string(to_string(balance)) + ", threads_per_b_row " + std::to_string(forced));
        SpgemmOptions o = with(balance, balance);
        o.threads_per_b_row = forced;
        const auto r = run_product<Double>(A, B, o, small_device, schedule, 163);
        const auto& cu = r.an.cuda;
        const int expected = forced > 0 ? forced : Impl::cuda::spgemm_reuse_group(r.an.stats.average_b_row(), 0);
        ASSERT_EQ(cu.reuse_group, expected);
        EXPECT_EQ(cu.reuse_capacity, r.an.max_row_nnz);
        EXPECT_LE(slot_bytes(cu), 5120u);
        // The largest block that fits: 256 threads, or twice the block would not fit.
        EXPECT_TRUE(cu.reuse_threads == 256 || 2 * slot_bytes(cu) > 5120u) << cu.reuse_threads;
        EXPECT_GE(cu.reuse_threads, expected);
        ASSERT_EQ(r.rerun_launches.size(), 1u) << launches_text(r.rerun_launches);
        EXPECT_TRUE(launched(r.rerun_launches, "spgemm_numeric_reuse_kernel", cu.reuse_threads, slot_bytes(cu)))
            << launches_text(r.rerun_launches);
        EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_numeric_reuse_kernel"), 0);
        ASSERT_EQ(r.second_rerun_launches.size(), 1u) << launches_text(r.second_rerun_launches);
        EXPECT_EQ(launches_of(r.second_rerun_launches, "spgemm_numeric_reuse_kernel"), 1);
        // Positions kept (about one product per entry of C here): recorded by the first re-run,
        // read by the later ones; reserved in the plan's analysis bytes.
        EXPECT_EQ(cu.reuse_positions_bytes,
                  static_cast<int64_t>(2 * r.an.stats.products + 8 * (r.an.num_rows + 1)));
        EXPECT_TRUE(cu.reuse_recorded);
        EXPECT_EQ(static_cast<int64_t>(cu.reuse_positions.extent(0)), r.an.stats.products);
        EXPECT_TRUE(reads_recorded_positions(r, A, B, o, small_device, schedule, 166));
        EXPECT_NE(r.an.schedule_summary.find("re-runs by position in C's rows, " + std::to_string(expected) +
                                             " lanes per row, " + std::to_string(cu.reuse_threads) +
                                             " threads per block, positions kept"),
                  std::string::npos)
            << r.an.schedule_summary;
      }
    }
    // The automatic group on these operands (3 to 5 entries per referenced row of B, as the draw
    // falls): 4 or 8 lanes.
    const auto f = run_product<FloatWide>(A, B, SpgemmOptions{}, small_device, schedule, 164);
    EXPECT_EQ(f.an.cuda.reuse_group, Impl::cuda::spgemm_reuse_group(f.an.stats.average_b_row(), 0));
    EXPECT_TRUE(f.an.cuda.reuse_group == 4 || f.an.cuda.reuse_group == 8) << f.an.cuda.reuse_group;
    EXPECT_EQ(launches_of(f.rerun_launches, "spgemm_numeric_reuse_kernel"), 1) << launches_text(f.rerun_launches);
    // Re-runs through the pass's accumulators.
    SpgemmOptions unsorted = with(SpgemmBalance::automatic, SpgemmBalance::automatic, false);
    SpgemmOptions hash = with(SpgemmBalance::automatic, SpgemmBalance::automatic, true, SpgemmAccumulator::hash);
    SpgemmOptions wide_group;
    wide_group.threads_per_b_row = 64;
    for (const SpgemmOptions& o : {unsorted, hash, wide_group}) {
      const auto r = run_product<Double>(A, B, o, small_device, schedule, 165);
      EXPECT_EQ(r.an.cuda.reuse_group, 0);
      EXPECT_EQ(launches_of(r.rerun_launches, "spgemm_numeric_reuse_kernel"), 0);
      EXPECT_GE(launches_of(r.rerun_launches, "spgemm_numeric_hash_kernel"), 1) << launches_text(r.rerun_launches);
      EXPECT_EQ(r.an.schedule_summary.find("re-runs by position"), std::string::npos);
    }
  }
  // 60 products per entry of C (A 20 x 60 and B 60 x 30, both dense): positions would take 10
  // times C's bytes, so every re-run searches C's rows.
  {
    std::vector<Triplet> a, b;
    for (int64_t i = 0; i < 20; ++i)
      for (int64_t k = 0; k < 60; ++k) a.push_back({i, k, 0.01 * static_cast<double>((i * 7 + k * 3) % 11) - 0.05});
    for (int64_t k = 0; k < 60; ++k)
      for (int64_t j = 0; j < 30; ++j) b.push_back({k, j, 0.02 * static_cast<double>((k * 5 + j) % 13) - 0.1});
    const HostCsr D = HostCsr::from_triplets(20, 60, std::move(a)), E = HostCsr::from_triplets(60, 30, std::move(b));
    for (const auto& schedule : schedules(170, 2)) {
      const auto r = run_product<Double>(D, E, SpgemmOptions{}, small_device, schedule, 171);
      const auto& cu = r.an.cuda;
      EXPECT_EQ(cu.reuse_group, 32);
      EXPECT_EQ(cu.reuse_positions_bytes, 0);
      EXPECT_FALSE(cu.reuse_recorded);
      EXPECT_EQ(cu.reuse_positions.extent(0), 0u);
      EXPECT_EQ(launches_of(r.rerun_launches, "spgemm_numeric_reuse_kernel"), 1);
      EXPECT_EQ(launches_of(r.second_rerun_launches, "spgemm_numeric_reuse_kernel"), 1);
      EXPECT_NE(r.an.schedule_summary.find("positions searched"), std::string::npos) << r.an.schedule_summary;
    }
  }
  // A row of C of more than 640 entries (about 780 of B's 900 columns): even a block of one group
  // (32 lanes, the referenced rows of B being about 45 long) needs more than the 5120 bytes: the
  // accumulators re-run.
  const HostCsr W = test::with_dense_row(6, 40, 2, 166);
  const HostCsr V = test::random_csr(40, 900, 45, 167);
  const auto r = run_product<Double>(W, V, SpgemmOptions{}, small_device, schedules(168, 1)[0], 169);
  ASSERT_GT(r.an.max_row_nnz, 640);
  EXPECT_EQ(r.an.cuda.reuse_group, 0);
  EXPECT_EQ(launches_of(r.rerun_launches, "spgemm_numeric_reuse_kernel"), 0);
}

/// B with unsorted rows and duplicate columns: no direct referencing (the analysis sees B
/// unsorted), duplicates summed by every accumulator, the dense chunks test every entry of B's
/// rows instead of searching them.
TEST(SpgemmCudaEmulated, UnsortedBWithDuplicatesTurnsDirectRowsOff) {
  const HostCsr A = test::single_entry_rows(120, 80, 41);
  const HostCsr B = test::unsorted_with_duplicates(80, 70, 9, 42);
  for (const auto& schedule : schedules(43)) {
    for (const SpgemmAccumulator acc :
         {SpgemmAccumulator::automatic, SpgemmAccumulator::dense, SpgemmAccumulator::global_hash}) {
      const auto r = run_product<Double>(A, B, with(SpgemmBalance::binned, SpgemmBalance::uniform, true, acc),
                                         small_device, schedule, 44);
      EXPECT_FALSE(r.an.stats.b_rows_sorted);
      EXPECT_EQ(r.an.symbolic_rows.direct, 0);
      EXPECT_EQ(r.an.numeric_rows.direct, 0);
      EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_direct_kernel"), 0);
      if (acc == SpgemmAccumulator::dense) {
        EXPECT_GT(r.numeric_counters[Impl::spgemm_counter_dense_rows], 0);
        EXPECT_GT(r.an.cuda.symbolic.counters[Impl::spgemm_counter_dense_rows], 0);
      }
    }
  }
}

/// The tiny device (one configuration: 128 symbolic keys, 28 numeric keys of double, numeric
/// dense chunks of 32 columns). A dense row of A reaches every row of B: its ~400 products
/// exceed twice the hash map, so the symbolic pass counts it with the dense bitmask; a row of
/// ~200 distinct columns is hashed speculatively in the one configuration, overflows it and is
/// redone in global memory. In the numeric pass, with B 600 columns wide, the long rows are
/// dense over many chunks (sorted output without a sort); with B 2000 wide (more than 32
/// chunks), in global hash maps sorted afterwards.
TEST(SpgemmCudaEmulated, TinyDeviceOverflowsToGlobalMemoryAndChunksDenseRows) {
  // Rows 3 (dense) and 5 (40 entries: ~200 products over ~600 columns).
  HostCsr A = test::with_dense_row(40, 80, 3, 51);
  {
    std::vector<Triplet> t;
    for (int64_t i = 0; i < A.num_rows; ++i)
      if (i != 5)
        for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) t.push_back({i, A.entries[k], A.values[k]});
    for (int c = 0; c < 80; c += 2) t.push_back({5, c, 0.5 + c / 64.0});
    A = HostCsr::from_triplets(A.num_rows, A.num_cols, std::move(t));
  }
  const HostCsr B = test::random_csr(80, 600, 5, 52), wide = test::random_csr(80, 2000, 5, 55);
  for (const auto& schedule : schedules(53)) {
    const auto w = run_product<Double>(A, wide, SpgemmOptions{}, tiny_device, schedule, 56);
    EXPECT_GE(w.an.cuda.symbolic.overflow_rows, 1);
    EXPECT_GE(w.an.numeric_rows.global_hash, 2);
    EXPECT_GE(w.numeric_counters[Impl::spgemm_counter_merge_sorted_shared] +
                  w.numeric_counters[Impl::spgemm_counter_merge_sorted_global],
              w.an.numeric_rows.global_hash);
    EXPECT_GT(w.an.memory.numeric_bytes, 0);
    const auto r = run_product<Double>(A, B, SpgemmOptions{}, tiny_device, schedule, 54);
    const auto& cu = r.an.cuda;
    ASSERT_EQ(cu.configs.size(), 1u);
    EXPECT_EQ(cu.configs[0].symbolic_slots, 128);
    EXPECT_EQ(r.an.symbolic_balance, SpgemmBalance::binned);
    EXPECT_NE(r.an.symbolic_balance_reason.find("uniform impossible"), std::string::npos)
        << r.an.symbolic_balance_reason;
    EXPECT_GE(cu.symbolic.overflow_rows, 1);
    EXPECT_EQ(cu.symbolic.counters[Impl::spgemm_counter_overflow_rows], cu.symbolic.overflow_rows);
    EXPECT_GE(r.an.symbolic_rows.global_hash, 1);
    EXPECT_GE(r.an.symbolic_rows.dense, 1);
    EXPECT_GE(cu.symbolic.counters[Impl::spgemm_counter_global_rows], cu.symbolic.overflow_rows);
    // The redo: a hash launch with global tables (no dynamic shared memory) after the shared ones.
    EXPECT_TRUE(launched(r.symbolic_launches, "spgemm_symbolic_hash_kernel", 64, 0))
        << launches_text(r.symbolic_launches);
    EXPECT_TRUE(launched(r.symbolic_launches, "spgemm_symbolic_dense_kernel", 64, 512));
    EXPECT_GE(r.an.numeric_rows.dense, 2);
    EXPECT_GE(launches_of(r.numeric_launches, "spgemm_numeric_dense_kernel"), 1) << launches_text(r.numeric_launches);
    EXPECT_GT(r.numeric_counters[Impl::spgemm_counter_dense_chunks],
              3 * r.numeric_counters[Impl::spgemm_counter_dense_rows]);
    EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_sort_kernel"), 0);
    EXPECT_GT(r.an.memory.symbolic_bytes, 0);
  }
}

/// Forced dense over a B of 9000 columns: the symbolic bitmask (4096 columns on the tiny device)
/// in three chunks, the numeric chunks of 32 columns many times over.
TEST(SpgemmCudaEmulated, DenseChunksCoverWideRows) {
  const HostCsr A = test::with_dense_row(4, 30, 1, 61);
  const HostCsr B = test::random_csr(30, 9000, 4, 62);
  const SpgemmOptions o = with(SpgemmBalance::automatic, SpgemmBalance::automatic, true, SpgemmAccumulator::dense);
  for (const auto& schedule : schedules(63, 2)) {
    const auto r = run_product<FloatWide>(A, B, o, tiny_device, schedule, 64);
    const auto& cu = r.an.cuda;
    EXPECT_EQ(cu.symbolic.uniform_kind, Impl::SpgemmCudaKind::dense);
    EXPECT_GE(cu.symbolic.counters[Impl::spgemm_counter_dense_chunks],
              cu.symbolic.counters[Impl::spgemm_counter_dense_rows] + 2);
    // (The dense row of A alone spans most of B's 9000 columns: dozens of 32-column chunks, however
    // the random rows fall.)
    EXPECT_GT(r.numeric_counters[Impl::spgemm_counter_dense_chunks],
              3 * r.numeric_counters[Impl::spgemm_counter_dense_rows]);
    EXPECT_GT(r.numeric_counters[Impl::spgemm_counter_dense_chunks], 50);
    // The numeric pass and its re-run are the dense kernel's, on one row per block: it accumulated
    // every row the result check above accepted.
    EXPECT_GE(launches_of(r.numeric_launches, "spgemm_numeric_dense_kernel"), 1) << launches_text(r.numeric_launches);
    EXPECT_GE(launches_of(r.rerun_launches, "spgemm_numeric_dense_kernel"), 1) << launches_text(r.rerun_launches);
    EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_numeric_hash_kernel"), 0);
    EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_sort_kernel"), 0);
  }
}

/// Every forced accumulator under both balances, sorted and not: the kernels that ran are the
/// forced ones (global hash: the hash kernels with global tables and no dynamic shared memory).
TEST(SpgemmCudaEmulated, ForcedAccumulatorsUnderBothBalances) {
  const HostCsr A = gen::rmat(6, 4, test::seed_for(71));
  const HostCsr B = test::random_csr(64, 50, 3, 72);
  for (const SpgemmAccumulator acc :
       {SpgemmAccumulator::hash, SpgemmAccumulator::dense, SpgemmAccumulator::global_hash})
    for (const SpgemmBalance balance : {SpgemmBalance::uniform, SpgemmBalance::binned})
      for (const bool sorted : {true, false})
        for (const auto& schedule : schedules(73)) {
          SCOPED_TRACE(std::string(to_string(acc)) + ", " + to_string(balance) + (sorted ? ", sorted" : ", unsorted"));
          const auto r = run_product<Double>(A, B, with(balance, balance, sorted, acc), small_device, schedule, 74);
          const auto& rows = r.an.numeric_rows;
          const int64_t accumulated = r.an.stats.rows_with_products - rows.direct;
          const auto all = r.symbolic_launches.size() + r.numeric_launches.size();
          const int64_t dense =
              launches_of(r.symbolic_launches, "dense_kernel") + launches_of(r.numeric_launches, "dense_kernel");
          const int64_t hash =
              launches_of(r.symbolic_launches, "hash_kernel") + launches_of(r.numeric_launches, "hash_kernel");
          EXPECT_GT(all, 0u);
          if (acc == SpgemmAccumulator::dense) {
            EXPECT_EQ(rows.dense, accumulated);
            if (accumulated > 0)
              EXPECT_GE(launches_of(r.numeric_launches, "spgemm_numeric_dense_kernel"), 1)
                  << launches_text(r.numeric_launches);
            EXPECT_EQ(hash, 0);
            EXPECT_GT(dense, 0);
          } else if (acc == SpgemmAccumulator::global_hash) {
            EXPECT_EQ(rows.global_hash, accumulated);
            EXPECT_EQ(dense, 0);
            EXPECT_TRUE(launched(r.numeric_launches, "spgemm_numeric_hash_kernel", 256, 0))
                << launches_text(r.numeric_launches);
            EXPECT_FALSE(launched(r.numeric_launches, "spgemm_numeric_hash_kernel", 256, 10240 - 640));
            EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_sort_kernel") > 0, sorted);
          } else {
            EXPECT_EQ(rows.hash + rows.global_hash, accumulated);
            EXPECT_EQ(dense, 0);
          }
          EXPECT_EQ(r.an.symbolic_balance, balance);
          EXPECT_EQ(r.an.numeric_balance, balance);
        }
}

/// SpgemmOptions::threads_per_b_row forces the group size of every accumulating block.
TEST(SpgemmCudaEmulated, ThreadsPerBRowForcesTheGroupSize) {
  const HostCsr A = gen::rmat(6, 6, test::seed_for(81));
  for (const int g : {1, 8, 64})
    for (const auto& schedule : schedules(82)) {
      SpgemmOptions o = with(SpgemmBalance::binned, SpgemmBalance::automatic);
      o.threads_per_b_row = g;
      const auto r = run_product<Double>(A, A, o, small_device, schedule, 83);
      const auto& sym = r.an.cuda.symbolic.counters;
      EXPECT_GT(group_blocks(sym, g), 0);
      EXPECT_EQ(group_blocks(sym, g), all_group_blocks(sym));
      EXPECT_GT(group_blocks(r.numeric_counters, g), 0);
      EXPECT_EQ(group_blocks(r.numeric_counters, g), all_group_blocks(r.numeric_counters));
    }
  // Automatic: several group sizes for rows of B this uneven.
  const auto r =
      run_product<Double>(A, A, with(SpgemmBalance::binned, SpgemmBalance::binned), small_device, schedules(84)[0], 85);
  int sizes = 0;
  for (int l = 0; l <= 10; ++l) sizes += r.an.cuda.symbolic.counters[Impl::spgemm_counter_group_sizes + l] > 0;
  EXPECT_GE(sizes, 2);
}

/// Rectangular A * B and A * A^T, float and double, int and size_t offsets.
TEST(SpgemmCudaEmulated, RectangularAndTransposedProducts) {
  const HostCsr A = test::random_csr(70, 50, 4, 91);
  const HostCsr B = test::random_csr(50, 90, 6, 92);
  const HostCsr At = transpose(A);
  for (const auto& schedule : schedules(93)) {
    const auto ab = run_product<Double>(A, B, SpgemmOptions{}, small_device, schedule, 94);
    const auto aat = run_product<FloatWide>(A, At, SpgemmOptions{}, small_device, schedule, 95);
    const auto binned = run_product<Kit<float, int>>(A, B, with(SpgemmBalance::binned, SpgemmBalance::binned, false),
                                                     small_device, schedule, 96);
    const auto mixed = run_product<Kit<double, size_t>>(A, At, with(SpgemmBalance::binned, SpgemmBalance::uniform),
                                                        small_device, schedule, 97);
    EXPECT_EQ(ab.C.num_rows, 70);
    EXPECT_EQ(ab.C.num_cols, 90);
    EXPECT_EQ(aat.C.num_cols, 70);
    for (const auto* launches : {&ab.numeric_launches, &aat.numeric_launches, &mixed.numeric_launches})
      EXPECT_EQ(launches_of(*launches, "spgemm_numeric_hash_kernel"), 1) << launches_text(*launches);
    EXPECT_GE(launches_of(binned.numeric_launches, "spgemm_numeric_hash_kernel"), 1);
    EXPECT_GT(binned.an.cuda.numeric.merged_blocks, 0);
    EXPECT_EQ(launches_of(binned.symbolic_launches, "spgemm_bin_kernel"), 2);
    EXPECT_EQ(launches_of(mixed.symbolic_launches, "spgemm_bin_kernel"), 2);
    EXPECT_EQ(mixed.an.numeric_balance, SpgemmBalance::uniform);
  }
}

/// Rows that no shared configuration sorts go through the segmented sort: in shared memory when
/// they fit (186 pairs of double on the small device), in global memory with a buffer when not.
TEST(SpgemmCudaEmulated, SegmentedSortInSharedAndGlobalMemory) {
  const HostCsr A = test::with_dense_row(50, 80, 9, 101);
  const HostCsr B = test::random_csr(80, 700, 5, 102);
  for (const auto& schedule : schedules(103)) {
    const auto r = run_product<Double>(
        A, B, with(SpgemmBalance::binned, SpgemmBalance::binned, true, SpgemmAccumulator::global_hash), small_device,
        schedule, 104);
    const auto& pass = r.an.cuda.numeric;
    EXPECT_TRUE(pass.bin_sorted_after[Impl::spgemm_cuda_global_bin]);
    EXPECT_EQ(pass.sort_shared_pairs, (5120 - 640) / 24);
    EXPECT_GT(r.an.max_row_nnz, pass.sort_shared_pairs);
    EXPECT_GE(pass.sort_tables, 1);
    EXPECT_GT(r.numeric_counters[Impl::spgemm_counter_merge_sorted_shared], 0);
    EXPECT_GT(r.numeric_counters[Impl::spgemm_counter_merge_sorted_global], 0);
    EXPECT_EQ(launches_of(r.rerun_launches, "spgemm_sort_kernel"), 0);  // C's columns are known
    // Forced hash: the long rows need the largest configuration, which sorts afterwards.
    const auto h = run_product<Kit<double, size_t>>(
        A, B, with(SpgemmBalance::binned, SpgemmBalance::binned, true, SpgemmAccumulator::hash), small_device, schedule,
        105);
    EXPECT_TRUE(h.an.cuda.numeric.bin_sorted_after[Impl::spgemm_cuda_hash_bin(0)]);
    EXPECT_GT(h.numeric_counters[Impl::spgemm_counter_table_sorted_rows], 0);
    EXPECT_GT(h.numeric_counters[Impl::spgemm_counter_merge_sorted_shared] +
                  h.numeric_counters[Impl::spgemm_counter_merge_sorted_global],
              0);
  }
}

/// Products that cancel stay entries of C (C's pattern is the symbolic product); empty rows of A
/// and B; products without any entry; A without rows.
TEST(SpgemmCudaEmulated, CancellationsEmptyRowsAndEmptyProducts) {
  const auto [A, B] = test::cancelling_pair();
  const HostCsr empty_rows_a =
      test::empty_rows_unless(test::random_csr(60, 40, 3, 111), [](int64_t i) { return i % 3 != 0; });
  const HostCsr empty_rows_b =
      test::empty_rows_unless(test::random_csr(40, 30, 3, 112), [](int64_t i) { return i % 2 == 0; });
  for (const auto& schedule : schedules(113)) {
    const auto r = run_product<Double>(A, B, SpgemmOptions{}, small_device, schedule, 114);
    EXPECT_EQ(r.C.nnz(), reference::spgemm(A, B).nnz());
    EXPECT_NE(std::find(r.C.values.begin(), r.C.values.end(), 0.0), r.C.values.end());
    EXPECT_EQ(launches_of(r.numeric_launches, "spgemm_numeric_hash_kernel"), 1);
    for (const SpgemmBalance balance : {SpgemmBalance::uniform, SpgemmBalance::binned}) {
      const auto some =
          run_product<Double>(empty_rows_a, empty_rows_b, with(balance, balance), small_device, schedule, 115);
      EXPECT_GT(some.an.symbolic_rows.empty, 20);
      EXPECT_GT(some.an.nnz_c, 0);
      EXPECT_GE(launches_of(some.numeric_launches, "spgemm_numeric_hash_kernel"), 1);
      // Without products nothing is launched: C's row map is zero, the numeric pass returns.
      const auto none = run_product<FloatWide>(empty_rows_a, test::no_entries(40, 30), with(balance, balance),
                                               small_device, schedule, 116);
      EXPECT_EQ(none.an.nnz_c, 0);
      EXPECT_EQ(none.symbolic_launches.size() + none.numeric_launches.size() + none.rerun_launches.size(), 0u);
      const auto no_rows = run_product<Double>(test::no_entries(0, 40), empty_rows_b, with(balance, balance),
                                               small_device, schedule, 117);
      EXPECT_EQ(no_rows.an.nnz_c, 0);
      EXPECT_EQ(no_rows.symbolic_launches.size() + no_rows.numeric_launches.size(), 0u);
    }
  }
}

/// num_cols >= 2^27: compound keys would not fit, so every hash block holds one row (uniform:
/// one row per block; binned: no merging).
TEST(SpgemmCudaEmulated, WideColumnsKeepOneRowPerBlock) {
  const int64_t cols = int64_t{1} << 27;
  std::mt19937_64 rng(test::seed_for(121));
  std::vector<Triplet> ta, tb;
  for (int64_t i = 0; i < 48; ++i)
    for (int k = 0; k < 3; ++k) ta.push_back({i, static_cast<int64_t>(rng() % 32), static_cast<double>(rng() % 5) + 1});
  for (int64_t i = 0; i < 32; ++i)
    for (int k = 0; k < 4; ++k)
      tb.push_back({i, k == 0 ? cols - 1 : static_cast<int64_t>(rng() % cols), static_cast<double>(rng() % 7) - 3});
  const HostCsr A = HostCsr::from_triplets(48, 32, std::move(ta)), B = HostCsr::from_triplets(32, cols, std::move(tb));
  // The product by maps (reference::spgemm's dense accumulator over 2^27 columns is too large).
  HostCsr expected;
  expected.num_rows = 48;
  expected.num_cols = cols;
  expected.row_map.assign(49, 0);
  for (int64_t i = 0; i < 48; ++i) {
    std::map<int, double> row;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      for (int64_t q = B.row_map[A.entries[k]]; q < B.row_map[A.entries[k] + 1]; ++q)
        row[B.entries[q]] += A.values[k] * B.values[q];
    for (const auto& [c, v] : row) {
      expected.entries.push_back(c);
      expected.values.push_back(v);
    }
    expected.row_map[i + 1] = expected.nnz();
  }
  for (const SpgemmBalance balance : {SpgemmBalance::uniform, SpgemmBalance::binned}) {
    emu::Device device = make_device(schedules(122)[balance == SpgemmBalance::binned ? 2 : 0], small_device);
    typename Double::Analysis an;
    const auto Ad = to_crs<Double::Crs>(A), Bd = to_crs<Double::Crs>(B);
    prepare<Double>(an, Ad, Bd, with(balance, balance), device);
    icuda::spgemm_symbolic(device, Ad, Bd, an);
    icuda::spgemm_numeric_schedule(device, Ad, an, an.memory.analysis_bytes + 12 * an.nnz_c);
    Double::Crs::staticcrsgraph_type::entries_type entries("C::entries", an.nnz_c);
    Double::Crs::values_type::non_const_type values("C::values", an.nnz_c);
    const Double::Crs C("C", 48, static_cast<int>(cols), an.nnz_c, values, an.row_map_c, entries);
    icuda::spgemm_numeric<true>(device, Ad, Bd, an, C);
    EXPECT_TRUE(test::same_csr(to_host_csr(C), expected)) << to_string(balance);
    EXPECT_FALSE(an.cuda.compound_keys);
    EXPECT_EQ(an.cuda.symbolic.counters[Impl::spgemm_counter_multi_row_blocks], 0);
    EXPECT_EQ(icuda::spgemm_cuda_numeric_counters(an)[Impl::spgemm_counter_multi_row_blocks], 0);
    if (balance == SpgemmBalance::uniform) {
      EXPECT_EQ(an.cuda.symbolic.rows_per_block, 1);
    } else {
      EXPECT_EQ(an.cuda.symbolic.merged_blocks, an.cuda.symbolic.bin_rows[an.cuda.symbolic.merge_bin]);
    }
  }
}

/// The memory limit: global hash tables shrink to what fits (here one table), and a limit below
/// what a phase needs throws ResourceError before anything of it is allocated.
TEST(SpgemmCudaEmulated, MemoryLimitShrinksGlobalTablesOrThrows) {
  const HostCsr A = gen::rmat(6, 6, test::seed_for(131));
  const SpgemmOptions forced =
      with(SpgemmBalance::uniform, SpgemmBalance::uniform, true, SpgemmAccumulator::global_hash);
  const auto free_run = run_product<Double>(A, A, forced, small_device, schedules(132)[0], 133);
  ASSERT_GT(free_run.an.cuda.numeric.global_tables, 1);
  const auto& m = free_run.an.memory;
  // Room for one global table less than the free run used: the numeric pass (its peak) shrinks.
  const int64_t table = free_run.an.cuda.numeric.global_slots * 12;
  ASSERT_EQ(m.peak_bytes, m.analysis_bytes + m.output_bytes + m.numeric_bytes);
  SpgemmOptions tight = forced;
  tight.memory_limit_bytes = m.peak_bytes - table;
  const auto tight_run = run_product<Double>(A, A, tight, small_device, schedules(132)[1], 134);
  EXPECT_EQ(tight_run.an.cuda.numeric.global_tables, free_run.an.cuda.numeric.global_tables - 1);
  EXPECT_LE(tight_run.an.memory.peak_bytes, tight.memory_limit_bytes);
  // Room for the row analysis only: the symbolic pass throws before it allocates.
  SpgemmOptions tiny = forced;
  tiny.memory_limit_bytes =
      Impl::spgemm_analysis_bytes<int, int>(A.num_rows, A.num_cols, true) + 16;
  emu::Device device = make_device(schedules(132)[0], small_device);
  typename Double::Analysis an;
  const auto Ad = to_crs<Double::Crs>(A);
  prepare<Double>(an, Ad, Ad, tiny, device);
  EXPECT_THROW(icuda::spgemm_symbolic(device, Ad, Ad, an), ResourceError);
}

/// What a plan costs the host beyond its kernels on a GPU: each allocation (cudaMalloc, then a
/// blocking copy of its header, in Kokkos 3.4) and each read-back (a copy out of the plan's device
/// memory and a fence) waits for the device. Counted as a profiler sees them (Kokkos Tools'
/// callbacks), whichever code path makes them, and cross-checked against the plan's own count of
/// read-backs (SpgemmAnalysis::host_reads). Uniform passes: the analysis allocates its one storage
/// and reads back its two reductions at once; the symbolic pass allocates C's row map and reads
/// back once at its end (counters, row counts); the numeric schedule and the first numeric pass
/// neither allocate nor read. Binned passes add their bin counts' read-back and row lists (and the
/// symbolic pass its overflow count, when a row may overflow; the numeric schedule its merged-block
/// count). Each read-back is one copy and one fence; fences are checked where Kokkos reports them
/// to tools (from 3.5 on).
TEST(SpgemmCudaEmulated, PlanAllocatesAndReadsBackOncePerStep) {
  const HostCsr A = gen::poisson3d(14);  // large enough for the parallel (read-back) analysis
  ASSERT_GE(2 * (A.num_rows + A.nnz()), Impl::spgemm_host_serial_work);
  const CountingHostWaits counting;
  const auto u = run_product<Double>(A, A, SpgemmOptions{}, small_device, schedules(151)[0], 152);
  ASSERT_EQ(u.an.cuda.symbolic.balance, SpgemmBalance::uniform);
  ASSERT_EQ(u.an.cuda.numeric.balance, SpgemmBalance::uniform);
  using Steps = std::array<int64_t, 4>;
  EXPECT_EQ(u.copies_out, (Steps{1, 2, 2, 2}));
  EXPECT_EQ(u.reads, (Steps{1, 2, 2, 2}));
  if (counting.fences_reported()) {
    EXPECT_EQ(u.fences, (Steps{1, 2, 2, 2}));
  }
  EXPECT_EQ(u.allocations, (Steps{1, 2, 2, 2}));

  const auto b = run_product<Double>(A, A, with(SpgemmBalance::binned, SpgemmBalance::binned), small_device,
                                     schedules(151)[1], 153);
  const auto& sym = b.an.cuda.symbolic;
  ASSERT_EQ(sym.balance, SpgemmBalance::binned);
  ASSERT_EQ(b.an.cuda.numeric.balance, SpgemmBalance::binned);
  const int speculative = Impl::spgemm_cuda_hash_bin(0);
  const bool may_overflow =
      sym.bin_rows[speculative] > 0 && sym.bin_max_need[speculative] > b.an.cuda.configs[0].symbolic_slots;
  const int64_t symbolic_reads = 2 + may_overflow;
  const Steps binned_reads{1, 1 + symbolic_reads, 3 + symbolic_reads, 3 + symbolic_reads};
  EXPECT_EQ(b.copies_out, binned_reads);
  EXPECT_EQ(b.reads, binned_reads);
  if (counting.fences_reported()) {
    EXPECT_EQ(b.fences, binned_reads);
  }
  // C's row map, the symbolic bins' list and merged blocks; the numeric bins' list and merged
  // blocks; no global tables or sort buffers for these short rows.
  EXPECT_EQ(sym.global_tables, 0);
  EXPECT_EQ(b.an.cuda.numeric.global_tables + b.an.cuda.numeric.sort_tables, 0);
  EXPECT_EQ(b.allocations, (Steps{1, 4 + may_overflow, 6 + may_overflow, 6 + may_overflow}));
}

TEST(SpgemmCudaEmulated, DescribeListsConfigurationsAndBins) {
  const HostCsr A = gen::rmat(6, 4, test::seed_for(141));
  const auto r = run_product<Double>(A, A, with(SpgemmBalance::binned, SpgemmBalance::uniform), small_device,
                                     schedules(142)[0], 143);
  const std::string text = Impl::spgemm_cuda_describe(r.an.cuda);
  EXPECT_NE(text.find("[3] 64 / 1.2 KiB"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda symbolic: binned"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda numeric: uniform"), std::string::npos) << text;
  EXPECT_NE(text.find("merged blocks"), std::string::npos) << text;
  EXPECT_NE(r.an.schedule_summary.find("cuda: 4 configurations"), std::string::npos) << r.an.schedule_summary;
  EXPECT_NE(r.an.schedule_summary.find("symbolic binned in"), std::string::npos) << r.an.schedule_summary;
  EXPECT_NE(r.an.schedule_summary.find("numeric uniform hash in configuration"), std::string::npos)
      << r.an.schedule_summary;
}

}  // namespace
