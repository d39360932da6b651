#pragma once
// CUDA SpGEMM after spECK (paper speck-spgemm), Backend::native on Kokkos::Cuda: the symbolic pass
// and the numeric pass's schedule (spgemm_symbolic, spgemm_numeric_schedule) and the numeric pass
// (spgemm_numeric<first>), called by impl/spgemm/spgemm_dispatch.hpp after the row analysis
// (Algorithm 1, impl/spgemm/spgemm_analysis.hpp). Hand-written kernels
// (impl/spgemm/cuda/spgemm_cuda_kernels.cuh) on the execution-space instance's stream; host-side
// prefix sums and read-backs through Kokkos on that instance. The entry points are templates over
// the execution space (Kokkos::Cuda, or the emulated device of the tests), which they ask for
// stream_of, multiprocessor_count, grid_limit and the resource queries shared_bytes_per_block,
// shared_bytes_optin, max_threads_per_block, max_threads_per_multiprocessor, device_free_bytes:
// every launch decision is a plain host function, and the test-only CPU emulation
// (unit_tests/spgemm/test_spgemm_cuda_emulated.cpp) runs this same launcher.
//
// Configurations (spgemm_cuda_configs; paper section 4.2), sized from the device, not hard-coded:
// the opt-in shared memory per block with the most threads (up to 1024), then the default shared
// memory with the most threads, then halves of both, down to 64 threads (six on an H100: 227 KiB /
// 1024, 48 KiB / 1024, 24 KiB / 512, 12 KiB / 256, 6 KiB / 128, 3 KiB / 64). A configuration's
// table is its shared memory less a 640-byte static header; its hash map holds table / 4 keys in
// the symbolic pass (keys only), and in the numeric pass keys and values at most 2/3 full (the
// paper's 66%); its dense chunk is a bitmask of table * 8 columns (symbolic) or values plus a
// flag bit per column (numeric).
//
// Global load balancing (paper sections 4.2 and 5), decided per pass by spgemm_decide_balance
// with the paper's Table 2 thresholds: the ratio of the largest to the average need (products in
// the symbolic pass, C's row lengths in the numeric pass) and the row count, the *_large pair
// when the longest row needs one of the two largest configurations (symbolic) or one of the three
// largest (numeric) or none. (The paper's text and its Table 2 caption disagree on two versus three
// for each pass; this follows the text, whose numeric rule matches the three smallest
// configurations sorting in shared memory.)
//   uniform: one launch over fixed blocks of consecutive rows with the smallest configuration
//     whose hash map takes the longest row, up to 32 rows per block (as many as the longest row
//     fits in the map), or with a forced dense / global accumulator one row per block. When no
//     hash configuration takes the longest row (and nothing is forced), uniform is impossible:
//     the pass bins instead and the reason says so.
//   binned: spgemm_bin_kernel counts the rows of each bin (accumulator x configuration, global
//     hash, direct), the launcher reads the counts back and sizes the row lists, then the kernel
//     appends each block of 1024 rows to the bins in row order with one atomic per bin and block,
//     and merges neighbouring rows of the smallest hash configuration into blocks of up to 32
//     rows (Algorithm 2); then one launch per bin that has rows. The numeric bins are kept by the
//     plan for its numeric re-runs.
//
// Accumulators per block (spgemm_row_bin says which; SpgemmOptions::accumulator forces one for
// every row with products, direct rows staying direct when direct_rows is on):
//   hash in shared memory, linear probing, multiplicative hash; several rows of a block key their
//     columns as (local row << 27 | column), which needs num_cols < 2^27 (otherwise one row per
//     block). Symbolic rows beyond the largest map but within twice its keys are hashed there
//     speculatively (compaction usually makes them fit); a map that overflows sends its row to the
//     global redo (hash maps in global memory sized from the row's need), which the launcher runs
//     after reading back how many overflowed.
//   dense over [min column, max column] of the row in chunks of the configuration's columns;
//     symbolic: a bitmask (atomicOr, popc); numeric: values and flags, compacted per chunk by a
//     block prefix sum, so the row comes out sorted; B's rows sorted: every referenced row is
//     entered per chunk by a binary search instead of rescanned.
//   direct: a row of A with one entry when B's rows are sorted without duplicates: its length is
//     B's row length (no kernel), its values B's row scaled.
//   global hash: tables in global memory, one per resident block (a pool of min(rows, blocks
//     resident on the device, grid) tables of the largest such row's size; fewer when memory is
//     short), for rows beyond every shared configuration.
// Local load balancing: per block, groups of g threads per referenced row of B
// (spgemm_group_size: the paper's rule from the average and longest referenced row; forced by
// SpgemmOptions::threads_per_b_row).
// Sorted output: in the three smallest configurations the table sorted in place in shared memory
// (a bitonic network); dense and direct rows come out sorted; the rest (larger hash
// configurations, global hash) through spgemm_sort_kernel, in shared memory when the row fits half
// of the default shared memory, else in global memory with a buffer per resident block.
//
// Where this departs from the paper: a symbolic row that overflows its shared map is redone from
// scratch in global memory (the paper moves the local entries over and continues); the global
// pool is one table per grid block (the grid is clamped to the pool) instead of a free list; the
// sort of long rows is a merge sort of our own (the paper uses a radix sort); dense chunks enter
// each referenced row of B by binary search (the paper stores cursors); rows whose range would
// take more than 32 dense chunks are hashed in global memory instead.
//
// Memory: every temporary is counted in SpgemmMemory and checked with spgemm_require_memory
// before it is allocated: symbolic temporaries (bins, descriptors, overflow list, global tables)
// in symbolic_bytes, the numeric bins kept by the plan in analysis_bytes, the numeric pass's
// global tables and sort buffers in numeric_bytes (allocated by every numeric call).
//
// Waiting for the device: every allocation (Kokkos 3.4: cudaMalloc, then a blocking copy of its
// header), every free and every read-back makes the host wait, which on regular matrices costs
// more than the kernels. So the counters and the bin states live in the analysis's result words
// (no allocation of their own), the reductions leave their results there, and the host reads them
// back together: a uniform plan allocates the analysis's storage and C's row map and reads back
// twice (after the analysis, at the end of the symbolic pass); the numeric schedule and a numeric
// pass neither allocate nor read, unless binned or with global tables.
#include <Kokkos_Core.hpp>

#include "Sprocket_Error.hpp"
#include "Sprocket_Spgemm.hpp"  // first: the public header includes the analysis in order
#include "impl/common/cuda/cuda_launch.hpp"
#include "impl/spgemm/spgemm_analysis.hpp"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "impl/spgemm/cuda/spgemm_cuda_kernels.cuh"

namespace Sprocket {
namespace Impl {
namespace cuda {

// The backend's result words (SpgemmAnalysis::results from spgemm_results_backend on, zero after
// the analysis): the symbolic pass's counters, C's row counts (their reduction) and the symbolic
// bin state next to each other, read back by one copy at the end of the symbolic pass; then the
// numeric pass's bin state (kept for the numeric passes) and counters.
inline constexpr int64_t spgemm_results_symbolic_counters = spgemm_results_backend;
inline constexpr int64_t spgemm_results_row_counts = spgemm_results_symbolic_counters + spgemm_num_counters;
inline constexpr int64_t spgemm_results_symbolic_state = spgemm_results_row_counts + 3;
inline constexpr int64_t spgemm_results_numeric_state = spgemm_results_symbolic_state + spgemm_state_size;
inline constexpr int64_t spgemm_results_numeric_counters = spgemm_results_numeric_state + spgemm_state_size;
static_assert(spgemm_results_numeric_counters + spgemm_num_counters <= spgemm_result_words,
              "the CUDA backend's result words fit SpgemmAnalysis::results");

/// `count` result words from `first` as the kernels' counters (unsigned long long, the type of
/// their atomics): a view into the analysis's allocation, which owns them.
template <class Analysis>
auto spgemm_cuda_result_words(const Analysis& an, int64_t first, int64_t count) {
  using Device = typename decltype(an.results)::device_type;
  return Kokkos::View<unsigned long long*, Device>(reinterpret_cast<unsigned long long*>(an.results.data() + first),
                                                   count);
}

/// Free device memory (cudaMemGetInfo; the emulated device's free_bytes).
template <class Space>
int64_t spgemm_device_free_bytes(const Space& space) {
  return device_free_bytes(space);
}

/// The Kokkos execution space that runs the launcher's host-side Kokkos work (prefix sums,
/// reductions, fills) for `space`: Kokkos::Cuda itself; the emulated device's host space.
template <class Space>
auto spgemm_kokkos_space(const Space& space) {
  if constexpr (std::is_same_v<typename Space::execution_space, Space>)
    return space;
  else
    return typename Space::execution_space();
}

/// What the configurations are sized from.
struct SpgemmCudaDevice {
  int64_t shared_default = 0, shared_optin = 0;
  int max_threads = 0, threads_per_multiprocessor = 0, multiprocessors = 0;
};

template <class Space>
SpgemmCudaDevice spgemm_cuda_device(const Space& space) {
  SpgemmCudaDevice d;
  d.shared_default = shared_bytes_per_block(space);
  d.shared_optin = std::max(shared_bytes_optin(space), d.shared_default);
  d.max_threads = max_threads_per_block(space);
  d.threads_per_multiprocessor = max_threads_per_multiprocessor(space);
  d.multiprocessors = multiprocessor_count(space);
  return d;
}

/// A configuration's table must hold at least this much (32 numeric dense columns of double).
inline constexpr int64_t spgemm_cuda_min_table_bytes = 512;

/// The configurations, largest first (see the top of this file). Throws InvalidArgument when the
/// device has too little shared memory or too few threads per block for any.
template <class Ordinal>
std::vector<SpgemmCudaConfig> spgemm_cuda_configs(const SpgemmCudaDevice& d, int scalar_bytes) {
  const int64_t reserve = spgemm_static_shared_reserve<Ordinal>();
  int threads = 64;
  while (threads * 2 <= std::min(d.max_threads, spgemm_cuda_max_threads)) threads *= 2;
  std::vector<SpgemmCudaConfig> out;
  const auto add = [&](int64_t shared, int block, bool optin) {
    const int64_t table = shared - reserve;
    if (table < spgemm_cuda_min_table_bytes || static_cast<int>(out.size()) >= spgemm_cuda_max_configs) return false;
    SpgemmCudaConfig c;
    c.threads = block;
    c.shared_bytes = shared;
    c.table_bytes = table;
    c.optin = optin;
    c.symbolic_slots = table / 4;
    int64_t slots = table / (4 + scalar_bytes);
    while (slots > 0 && (slots + 1) / 2 * 2 * 4 + slots * scalar_bytes > table) --slots;
    c.numeric_slots = slots;
    c.numeric_keys = slots * 2 / 3;
    c.symbolic_dense_columns = table / 4 * 32;
    c.numeric_dense_columns = table * 8 / (8 * scalar_bytes + 1) / 32 * 32;
    out.push_back(c);
    return true;
  };
  if (d.max_threads >= 64) {
    if (d.shared_optin > d.shared_default) add(d.shared_optin, threads, true);
    int64_t shared = d.shared_default;
    for (int block = threads; block >= 64; block /= 2, shared /= 2)
      if (!add(shared, block, false)) break;
  }
  SPROCKET_REQUIRE(!out.empty(), "SpgemmPlan (CUDA): the device offers ", d.shared_default, " bytes of shared memory (",
                   d.shared_optin, " opted in) and ", d.max_threads, " threads per block; the kernels need at least ",
                   reserve + spgemm_cuda_min_table_bytes, " bytes and 64 threads");
  return out;
}

/// The bin rule of a pass (spgemm_row_bin) from the configurations and the options.
template <class Schedule>
SpgemmBinRule spgemm_cuda_rule(const Schedule& s, const SpgemmOptions& o, bool direct, bool symbolic) {
  SpgemmBinRule r;
  r.num_configs = static_cast<int>(s.configs.size());
  for (int c = 0; c < r.num_configs; ++c) {
    r.hash_keys[c] = symbolic ? s.configs[c].symbolic_slots : s.configs[c].numeric_keys;
    r.dense_columns[c] = symbolic ? s.configs[c].symbolic_dense_columns : s.configs[c].numeric_dense_columns;
  }
  r.forced = static_cast<int>(o.accumulator);
  r.symbolic = symbolic;
  r.direct = direct;
  return r;
}

/// Blocks resident on the device at `threads` threads per block (the global pools' size).
template <class Schedule>
int64_t spgemm_cuda_resident_blocks(const Schedule& s, int threads) {
  return std::max<int64_t>(1, s.multiprocessors) * std::max<int64_t>(1, s.threads_per_multiprocessor / threads);
}

/// The configuration that runs the global hash maps and the segmented sort: the default shared
/// memory with the most threads.
template <class Schedule>
int spgemm_cuda_default_config(const Schedule& s) {
  return !s.configs.empty() && s.configs[0].optin && s.configs.size() > 1 ? 1 : 0;
}

/// The plan's one-line schedule summary.
template <class Schedule>
std::string spgemm_cuda_summary(const Schedule& s) {
  std::ostringstream os;
  os << "cuda: " << s.configs.size() << " configurations (" << s.configs.front().threads << " threads / "
     << spgemm_cuda_kib(s.configs.front().shared_bytes) << " .. " << s.configs.back().threads << " threads / "
     << spgemm_cuda_kib(s.configs.back().shared_bytes) << ")"
     << (s.compound_keys ? "" : ", one row per hash block (num_cols >= 2^27)");
  if (s.symbolic.planned) os << "; symbolic " << spgemm_cuda_pass_summary(s.symbolic);
  if (s.numeric.planned) os << "; numeric " << spgemm_cuda_pass_summary(s.numeric);
  if (s.reuse_group > 0)
    os << "; re-runs by position in C's rows, " << s.reuse_group << " lanes per row, " << s.reuse_threads
       << " threads per block, positions " << (s.reuse_positions_bytes > 0 ? "kept" : "searched");
  return os.str();
}

/// Reads the device's resources and builds the configurations (once per plan).
template <class Ordinal, class Space, class Schedule>
void spgemm_cuda_prepare(const Space& space, Schedule& s, int scalar_bytes, int64_t num_cols) {
  const SpgemmCudaDevice d = spgemm_cuda_device(space);
  s.shared_default = d.shared_default;
  s.shared_optin = d.shared_optin;
  s.max_threads = d.max_threads;
  s.threads_per_multiprocessor = d.threads_per_multiprocessor;
  s.multiprocessors = d.multiprocessors;
  s.grid_limit = grid_limit(space);
  s.scalar_bytes = scalar_bytes;
  s.configs = spgemm_cuda_configs<Ordinal>(d, scalar_bytes);
  s.compound_keys = num_cols < spgemm_compound_max_columns;
  s.ready = true;
}

/// Largest need and column range of a row that is accumulated (has products, not direct).
struct SpgemmCudaNeed {
  int64_t max_need = 0, max_range = 0;
};

/// Whether row i is accumulated: it has products and is not a direct row (a single entry of A
/// whose row of B is C's row, when direct rows are on).
template <class Offset>
KOKKOS_INLINE_FUNCTION bool spgemm_cuda_accumulated(int64_t i, const Offset* a_row_map, const int64_t* products,
                                                    bool direct) {
  return products[i] != 0 && !(direct && a_row_map[i + 1] - a_row_map[i] == 1);
}

/// The global load-balancing decision of a pass and, when uniform, its accumulator,
/// configuration and rows per block. `ratio_max` / `ratio_average`: the needs compared by the
/// thresholds; `large_configs`: how many of the largest configurations count as large.
template <class Schedule>
void spgemm_cuda_decide(const Schedule& s, SpgemmCudaPass& pass, const SpgemmBinRule& rule, const SpgemmCudaNeed& need,
                        SpgemmBalance requested, const SpgemmBalanceThresholds& thresholds, double ratio_max,
                        double ratio_average, int64_t rows, int large_configs, std::string* why) {
  const int nc = static_cast<int>(s.configs.size());
  const int fit = need.max_need > 0 ? spgemm_hash_config(rule, need.max_need) : nc - 1;
  const bool large = fit < 0 || fit < large_configs;
  pass.planned = true;
  pass.max_need = need.max_need;
  pass.max_range = need.max_range;
  pass.balance = spgemm_decide_balance(requested, thresholds, ratio_max, ratio_average, rows, large, why);
  if (pass.balance != SpgemmBalance::uniform) return;
  pass.rows_per_block = 1;
  if (rule.forced == static_cast<int>(SpgemmAccumulator::dense)) {
    pass.uniform_kind = SpgemmCudaKind::dense;
    pass.uniform_config = spgemm_dense_config(rule, std::max<int64_t>(1, need.max_range));
    return;
  }
  if (rule.forced == static_cast<int>(SpgemmAccumulator::global_hash)) {
    pass.uniform_kind = SpgemmCudaKind::global_hash;
    pass.uniform_config = spgemm_cuda_default_config(s);
    return;
  }
  if (fit < 0) {
    pass.balance = SpgemmBalance::binned;
    if (why) {
      std::ostringstream os;
      os << "; uniform impossible: the longest row needs " << need.max_need << " keys, more than the largest "
         << "configuration's hash map takes (" << rule.hash_keys[0] << "): binned";
      *why += os.str();
    }
    return;
  }
  pass.uniform_kind = SpgemmCudaKind::hash;
  pass.uniform_config = fit;
  if (s.compound_keys)
    pass.rows_per_block = static_cast<int>(
        std::clamp<int64_t>(rule.hash_keys[fit] / std::max<int64_t>(1, need.max_need), 1, spgemm_max_block_rows));
}

/// Shared memory above the default needs the kernel's opt-in.
template <class Kernel>
void spgemm_cuda_allow_shared(Kernel* kernel, int64_t dynamic_bytes, int64_t static_bytes, int64_t default_bytes,
                              const char* name) {
  if (dynamic_bytes + static_bytes <= default_bytes) return;
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_bytes));
  if (err != cudaSuccess)
    throw Error(std::string("Sprocket::spgemm (CUDA): allowing ") + std::to_string(dynamic_bytes) +
                " bytes of dynamic shared memory for " + name + " failed: " + cudaGetErrorName(err) + ": " +
                cudaGetErrorString(err));
}

/// Launch shape of an accumulator kernel in configuration `config` over `blocks` blocks (at most
/// `max_grid` blocks when the blocks share a pool of tables).
template <class Schedule>
KernelLaunch spgemm_cuda_launch(const Schedule& s, int config, int64_t blocks, size_t dynamic_bytes,
                                int64_t max_grid = 0) {
  KernelLaunch l;
  l.block = static_cast<unsigned>(s.configs[config].threads);
  l.grid = grid_blocks(std::max<int64_t>(1, blocks), 1, s.grid_limit);
  if (max_grid > 0) l.grid = static_cast<unsigned>(std::min<int64_t>(l.grid, max_grid));
  l.shared_bytes = dynamic_bytes;
  l.launch_bound = spgemm_cuda_max_threads;
  return l;
}

/// Blocks over consecutive rows, `per_block` a block.
template <class Ordinal>
SpgemmBlocks<Ordinal> spgemm_cuda_uniform_blocks(int64_t rows, int per_block) {
  SpgemmBlocks<Ordinal> b{};
  b.rows_per_block = per_block;
  b.num_positions = rows;
  b.num_blocks = (rows + per_block - 1) / per_block;
  return b;
}

/// One row per block from a list.
template <class Ordinal>
SpgemmBlocks<Ordinal> spgemm_cuda_list_blocks(const Ordinal* list, int64_t rows) {
  SpgemmBlocks<Ordinal> b{};
  b.list = list;
  b.rows_per_block = 1;
  b.num_positions = rows;
  b.num_blocks = rows;
  return b;
}

/// Global hash tables: how many fit next to `held` bytes (at most `wanted`, at least one; the
/// memory check itself is the caller's).
inline int64_t spgemm_cuda_pool_tables(const SpgemmMemory& m, int64_t held, int64_t wanted, int64_t table_bytes) {
  int64_t tables = std::max<int64_t>(1, wanted);
  const int64_t room = m.limit_bytes - held;
  if (table_bytes > 0 && tables * table_bytes > room) tables = std::max<int64_t>(1, room / table_bytes);
  return tables;
}

/// Rows per accumulator from a pass's bins (binned) or from the analysis (uniform).
template <class Analysis>
SpgemmRowCounts spgemm_cuda_row_counts(const Analysis& an, const SpgemmCudaPass& p, bool direct) {
  SpgemmRowCounts r;
  r.empty = an.num_rows - an.stats.rows_with_products;
  if (p.balance == SpgemmBalance::uniform) {
    r.direct = direct ? an.stats.single_entry_rows : 0;
    const int64_t rest = an.stats.rows_with_products - r.direct;
    if (p.uniform_kind == SpgemmCudaKind::dense)
      r.dense = rest;
    else if (p.uniform_kind == SpgemmCudaKind::global_hash)
      r.global_hash = rest;
    else
      r.hash = rest;
    return r;
  }
  for (int c = 0; c < spgemm_cuda_max_configs; ++c) {
    r.hash += p.bin_rows[spgemm_cuda_hash_bin(c)];
    r.dense += p.bin_rows[spgemm_cuda_dense_bin(c)];
  }
  r.global_hash = p.bin_rows[spgemm_cuda_global_bin] + p.overflow_rows;
  r.hash -= p.overflow_rows;
  r.direct = p.bin_rows[spgemm_cuda_direct_bin];
  return r;
}

/// The bins of a pass: the count pass, the read-back, the lists (checked with `require` before
/// they are allocated), the write pass. `counts`: symbolic (lengths of empty and direct rows);
/// `c_row_map`: numeric (C's row lengths are the needs).
template <class Ordinal, class Device>
struct SpgemmCudaBins {
  Kokkos::View<Ordinal*, Device> list;
  Kokkos::View<unsigned long long*, Device> descriptors;
  Kokkos::View<unsigned long long*, Device> state;  ///< in the analysis's result words
};

template <class Space, class CrsType, class Analysis, class Require>
SpgemmCudaBins<typename CrsType::non_const_ordinal_type, typename CrsType::device_type> spgemm_cuda_bin(
    const Space& space, const CrsType& A, const Analysis& an, SpgemmCudaPass& pass, const SpgemmBinRule& rule,
    typename CrsType::non_const_size_type* counts, const typename CrsType::non_const_size_type* c_row_map,
    int64_t state_first, Require&& require, const char* what) {
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  const auto& s = an.cuda;
  const auto kspace = spgemm_kokkos_space(space);
  const int64_t M = an.num_rows;
  const int nc = static_cast<int>(s.configs.size());
  SpgemmCudaBins<Ordinal, Device> bins;
  // (Zero: the analysis zeroed the result words, and each pass bins once per plan.)
  bins.state = spgemm_cuda_result_words(an, state_first, spgemm_state_size);

  SpgemmBinArgs<Ordinal, Offset> a{};
  a.a_row_map = A.graph.row_map.data();
  a.row_products = an.row_products.data();
  a.row_col_min = an.row_col_min.data();
  a.row_col_max = an.row_col_max.data();
  a.c_row_map = c_row_map;
  a.counts = counts;
  a.num_rows = M;
  a.rule = rule;
  a.state = bins.state.data();
  a.write = false;
  a.merge_bin = -1;
  for (int b = 0; b < spgemm_cuda_num_bins; ++b) a.bin_offset[b] = -1;
  KernelLaunch launch;
  launch.block = static_cast<unsigned>(s.configs[0].threads);
  launch.grid = grid_blocks(M, launch.block, s.grid_limit);
  launch.shared_bytes = 0;
  launch.launch_bound = spgemm_cuda_max_threads;
  const cudaStream_t stream = stream_of(space);
  SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_bin_kernel<Ordinal, Offset>)(a);
  check_launch("Sprocket::spgemm", "spgemm_bin_kernel (count)");
  std::array<int64_t, spgemm_state_size> state{};
  spgemm_read_back(kspace, an.results, state_first, spgemm_state_size, state.data(), an.host_reads);
  const bool list_direct = counts == nullptr;  // the symbolic pass counts direct rows without a list
  pass.listed_rows = 0;
  for (int b = 0; b < spgemm_cuda_num_bins; ++b) {
    pass.bin_rows[b] = state[spgemm_state_counts + b];
    pass.bin_max_need[b] = state[spgemm_state_max_need + b];
    pass.bin_max_range[b] = state[spgemm_state_max_range + b];
    const bool listed = pass.bin_rows[b] > 0 && (b != spgemm_cuda_direct_bin || list_direct);
    pass.bin_offset[b] = listed ? pass.listed_rows : -1;
    if (listed) pass.listed_rows += pass.bin_rows[b];
  }
  pass.merge_bin = spgemm_cuda_hash_bin(nc - 1);
  if (pass.bin_rows[pass.merge_bin] == 0) pass.merge_bin = -1;
  const int64_t merge_rows = pass.merge_bin >= 0 ? pass.bin_rows[pass.merge_bin] : 0;
  require(spgemm_bytes<Ordinal>(pass.listed_rows) + spgemm_bytes<unsigned long long>(merge_rows),
          std::string("the row lists of the ") + what + "'s bins");
  bins.list = Kokkos::View<Ordinal*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::bin_rows"),
                                             pass.listed_rows);
  bins.descriptors = Kokkos::View<unsigned long long*, Device>(
      Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::merged_blocks"), merge_rows);
  if (pass.listed_rows == 0) return bins;
  a.write = true;
  a.counts = nullptr;
  a.list = bins.list.data();
  for (int b = 0; b < spgemm_cuda_num_bins; ++b) a.bin_offset[b] = pass.bin_offset[b];
  a.merge_bin = pass.merge_bin;
  a.merge_keys = s.compound_keys ? rule.hash_keys[nc - 1] : 0;
  a.descriptors = bins.descriptors.data();
  SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_bin_kernel<Ordinal, Offset>)(a);
  check_launch("Sprocket::spgemm", "spgemm_bin_kernel (write)");
  return bins;
}

/// Reads back the merged-block count and the overflow count of a binned pass (bin state at
/// `state_first` of the result words).
template <class Space, class Analysis>
std::array<int64_t, 2> spgemm_cuda_read_state(const Space& kspace, const Analysis& an, int64_t state_first) {
  static_assert(spgemm_state_overflow == spgemm_state_merged + 1, "one copy reads both");
  std::array<int64_t, 2> out{};
  spgemm_read_back(kspace, an.results, state_first + spgemm_state_merged, 2, out.data(), an.host_reads);
  return out;
}

/// C's row counts (row_map(1..M) before the prefix sum) in one reduction (one read-back): their
/// sum (nnz(C)), the longest row, and the longest accumulated row (the numeric pass's need, so
/// that its schedule reads nothing back for it).
template <class Offset>
struct SpgemmCudaCountsReduce {
  struct value_type {
    int64_t nnz, longest, longest_accumulated;
  };
  const Offset* counts;  // row i's count at counts[i + 1]
  const Offset* a_row_map;
  const int64_t* products;
  bool direct;

  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, value_type& v) const {
    const int64_t n = static_cast<int64_t>(counts[i + 1]);
    v.nnz += n;
    v.longest = n > v.longest ? n : v.longest;
    if (n > v.longest_accumulated && spgemm_cuda_accumulated(i, a_row_map, products, direct))
      v.longest_accumulated = n;
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v.nnz = v.longest = v.longest_accumulated = 0; }
  KOKKOS_INLINE_FUNCTION void join(value_type& d, const value_type& s) const {
    d.nnz += s.nnz;
    d.longest = s.longest > d.longest ? s.longest : d.longest;
    d.longest_accumulated = s.longest_accumulated > d.longest_accumulated ? s.longest_accumulated : d.longest_accumulated;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& d, const volatile value_type& s) const {
    d.nnz += s.nnz;
    d.longest = s.longest > d.longest ? s.longest : d.longest;
    d.longest_accumulated = s.longest_accumulated > d.longest_accumulated ? s.longest_accumulated : d.longest_accumulated;
  }
};

/// The end of the symbolic pass: C's row counts (in row_map(1..M)) reduced into the result words
/// and the row map by an inclusive prefix sum over them (row_map(0) = 0), both queued; then one
/// read-back of the pass's counters, that reduction and the bin state (adjacent words), and
/// nnz(C), its longest row and longest accumulated row (the numeric pass's need) checked against
/// Offset. No fence after it: every later reader runs on the same stream, and the plan fences
/// before it returns.
template <class KSpace, class Analysis, class Offset>
void spgemm_cuda_finish_symbolic(const KSpace& kspace, Analysis& an, const Offset* a_row_map, bool direct,
                                 SpgemmCudaPass& pass) {
  using RowMap = decltype(an.row_map_c);
  using Device = typename RowMap::device_type;
  using Counts = SpgemmCudaCountsReduce<Offset>;
  using Value = typename Counts::value_type;
  static_assert(std::is_same_v<typename RowMap::non_const_value_type, Offset>, "C's row map is of A's Offset type");
  static_assert(sizeof(Value) == 3 * sizeof(int64_t), "the row counts' reduction fits its result words");
  const int64_t M = an.num_rows;
  an.nnz_c = an.max_row_nnz = an.cuda.numeric_max_need = 0;
  pass.counters.fill(0);
  if (M == 0) return;
  Offset* rm = an.row_map_c.data();
  const Kokkos::View<Value, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>> counts(
      reinterpret_cast<Value*>(an.results.data() + spgemm_results_row_counts));
  Kokkos::parallel_reduce("Sprocket::spgemm::cuda::row_counts", Kokkos::RangePolicy<KSpace>(kspace, 0, M),
                          Counts{rm, a_row_map, an.row_products.data(), direct}, counts);
  Kokkos::parallel_scan(
      "Sprocket::spgemm::cuda::row_map", Kokkos::RangePolicy<KSpace>(kspace, 0, M),
      KOKKOS_LAMBDA(const int64_t i, int64_t& update, const bool final) {
        update += static_cast<int64_t>(rm[i + 1]);
        if (final) rm[i + 1] = static_cast<Offset>(update);
      });
  constexpr int64_t first = spgemm_results_symbolic_counters;
  constexpr int64_t count = spgemm_results_symbolic_state + spgemm_state_size - first;
  std::array<int64_t, count> words{};
  spgemm_read_back(kspace, an.results, first, count, words.data(), an.host_reads);
  for (int i = 0; i < spgemm_num_counters; ++i) pass.counters[i] = words[i];
  Value v;
  std::memcpy(&v, words.data() + (spgemm_results_row_counts - first), sizeof v);
  if (pass.balance == SpgemmBalance::binned)
    pass.merged_blocks = words[spgemm_results_symbolic_state - first + spgemm_state_merged];
  spgemm_check_offset<Offset>(v.longest, "the longest row of C");
  spgemm_check_offset<Offset>(v.nnz, "nnz(C)");
  an.nnz_c = v.nnz;
  an.max_row_nnz = v.longest;
  an.cuda.numeric_max_need = v.longest_accumulated;
}

// ------------------------------------------------------------------------------------------------
// Symbolic pass

/// The symbolic pass (see the top of this file): C's row map and nnz in the analysis (row_map_c
/// allocated here), the symbolic schedule and its decision, the memory of its temporaries.
/// What every symbolic and numeric kernel reads of A, B and the row analysis.
template <class Ordinal, class Offset, class CrsType, class Analysis>
SpgemmPattern<Ordinal, Offset> spgemm_cuda_pattern(const CrsType& A, const CrsType& B, const Analysis& an, bool direct,
                                                   unsigned long long* counters) {
  SpgemmPattern<Ordinal, Offset> p{};
  p.a_row_map = A.graph.row_map.data();
  p.a_entries = A.graph.entries.data();
  p.b_row_map = B.graph.row_map.data();
  p.b_entries = B.graph.entries.data();
  p.row_products = an.row_products.data();
  p.row_col_min = an.row_col_min.data();
  p.row_col_max = an.row_col_max.data();
  p.row_longest_b = an.row_longest_b.data();
  p.num_rows = an.num_rows;
  p.direct = direct;
  p.b_sorted = an.stats.b_rows_sorted;
  p.forced_group = an.options.threads_per_b_row;
  p.counters = counters;
  return p;
}

template <class Space, class CrsType, class Analysis>
void spgemm_symbolic(const Space& space, const CrsType& A, const CrsType& B, Analysis& an) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "Sprocket::spgemm (CUDA): the kernels take float and double");
  ProfilingRegion region("Sprocket::spgemm::cuda::symbolic");
  auto& s = an.cuda;
  spgemm_cuda_prepare<Ordinal>(space, s, static_cast<int>(sizeof(Scalar)), an.num_cols);
  const auto kspace = spgemm_kokkos_space(space);
  const cudaStream_t stream = stream_of(space);
  const int64_t M = an.num_rows;
  const int nc = static_cast<int>(s.configs.size());
  const int64_t reserve = spgemm_static_shared_reserve<Ordinal>();
  int64_t temporaries = 0;
  const auto require = [&](int64_t bytes, const std::string& what) {
    spgemm_require_memory(an.memory, an.memory.analysis_bytes + temporaries, bytes, what);
    temporaries += bytes;
  };

  an.row_map_c =
      Kokkos::View<Offset*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::row_map_c"), M + 1);
  Kokkos::deep_copy(kspace, an.row_map_c, Offset(0));
  // The kernels count into the result words (zero after the analysis).
  const auto counters = spgemm_cuda_result_words(an, spgemm_results_symbolic_counters, spgemm_num_counters);

  const bool direct = an.options.direct_rows && an.stats.b_rows_sorted;
  const SpgemmBinRule rule = spgemm_cuda_rule(s, an.options, direct, true);
  // The accumulated rows' largest need and range: the analysis's, over every row with products or
  // (direct rows on) over those of more than one entry of A.
  SpgemmCudaNeed need;
  need.max_need = direct ? an.stats.max_row_need_multi : an.stats.max_row_need;
  need.max_range = direct ? an.stats.max_row_range_multi : an.stats.max_row_range;
  SpgemmCudaPass& pass = s.symbolic;
  pass = SpgemmCudaPass{};
  spgemm_cuda_decide(s, pass, rule, need, an.options.symbolic_balance, an.options.symbolic_thresholds,
                     static_cast<double>(an.stats.max_row_products),
                     M > 0 ? static_cast<double>(an.stats.products) / static_cast<double>(M) : 0.0, M, 2,
                     &an.symbolic_balance_reason);
  an.symbolic_balance = pass.balance;

  const auto p = spgemm_cuda_pattern<Ordinal, Offset>(A, B, an, direct, counters.data());
  Offset* counts = an.row_map_c.data() + 1;
  const int global_config = spgemm_cuda_default_config(s);
  const int global_threads = s.configs[global_config].threads;

  const auto launch_hash = [&](int config, const SpgemmBlocks<Ordinal>& blocks, const SpgemmTable& table,
                               int64_t max_grid) {
    const bool global = table.global_keys != nullptr;
    const size_t dynamic = global ? 0 : static_cast<size_t>(s.configs[config].table_bytes);
    spgemm_cuda_allow_shared(spgemm_symbolic_hash_kernel<Ordinal, Offset>, static_cast<int64_t>(dynamic), reserve,
                             s.shared_default, "spgemm_symbolic_hash_kernel");
    const KernelLaunch launch = spgemm_cuda_launch(s, config, blocks.num_blocks, dynamic, max_grid);
    SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_symbolic_hash_kernel<Ordinal, Offset>)(p, blocks, table, counts);
    check_launch("Sprocket::spgemm", "spgemm_symbolic_hash_kernel");
  };
  const auto launch_dense = [&](int config, const SpgemmBlocks<Ordinal>& blocks) {
    const size_t dynamic = static_cast<size_t>(s.configs[config].table_bytes);
    spgemm_cuda_allow_shared(spgemm_symbolic_dense_kernel<Ordinal, Offset>, static_cast<int64_t>(dynamic), reserve,
                             s.shared_default, "spgemm_symbolic_dense_kernel");
    const KernelLaunch launch = spgemm_cuda_launch(s, config, blocks.num_blocks, dynamic);
    SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_symbolic_dense_kernel<Ordinal, Offset>)
    (p, blocks, s.configs[config].symbolic_dense_columns, counts);
    check_launch("Sprocket::spgemm", "spgemm_symbolic_dense_kernel");
  };
  // Global hash tables for `rows` rows of at most `max_need` keys: a pool of one table per
  // resident block, fewer when memory is short.
  Kokkos::View<unsigned*, Device> pool;
  const auto global_table = [&](int64_t rows, int64_t max_need, const char* what) {
    SpgemmTable t{};
    t.global_slots = std::max<int64_t>(16, 2 * max_need);
    const int64_t table_bytes = spgemm_bytes<unsigned>(t.global_slots);
    const int64_t tables = spgemm_cuda_pool_tables(
        an.memory, an.memory.analysis_bytes + temporaries,
        std::min({rows, spgemm_cuda_resident_blocks(s, global_threads), s.grid_limit}), table_bytes);
    require(tables * table_bytes, what);
    pool = Kokkos::View<unsigned*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::global_keys"),
                                           tables * t.global_slots);
    pass.global_tables = std::max(pass.global_tables, tables);
    pass.global_slots = std::max(pass.global_slots, t.global_slots);
    t.global_keys = pool.data();
    return std::make_pair(t, tables);
  };

  if (M > 0 && an.stats.products > 0) {
    if (pass.balance == SpgemmBalance::uniform) {
      const auto blocks = spgemm_cuda_uniform_blocks<Ordinal>(M, pass.rows_per_block);
      if (pass.uniform_kind == SpgemmCudaKind::dense) {
        launch_dense(pass.uniform_config, blocks);
      } else if (pass.uniform_kind == SpgemmCudaKind::global_hash) {
        const auto [table, tables] = global_table(M, need.max_need, "the symbolic pass's global hash tables");
        launch_hash(pass.uniform_config, blocks, table, tables);
      } else {
        SpgemmTable table{};
        table.slots = s.configs[pass.uniform_config].symbolic_slots;
        launch_hash(pass.uniform_config, blocks, table, 0);
      }
    } else {
      auto bins = spgemm_cuda_bin(space, A, an, pass, rule, counts, static_cast<const Offset*>(nullptr),
                                  spgemm_results_symbolic_state, require, "symbolic pass");
      // Rows hashed speculatively in the largest configuration may overflow it.
      const int speculative = spgemm_cuda_hash_bin(0);
      const bool may_overflow =
          pass.bin_rows[speculative] > 0 && pass.bin_max_need[speculative] > s.configs[0].symbolic_slots;
      Kokkos::View<Ordinal*, Device> overflow_list;
      if (may_overflow) {
        require(spgemm_bytes<Ordinal>(pass.bin_rows[speculative]), "the symbolic pass's overflow list");
        overflow_list = Kokkos::View<Ordinal*, Device>(
            Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::overflow_rows"), pass.bin_rows[speculative]);
      }
      for (int c = 0; c < nc; ++c) {
        const int b = spgemm_cuda_hash_bin(c);
        if (pass.bin_rows[b] == 0) continue;
        SpgemmBlocks<Ordinal> blocks = spgemm_cuda_list_blocks(bins.list.data() + pass.bin_offset[b], pass.bin_rows[b]);
        if (b == pass.merge_bin) {
          blocks.descriptors = bins.descriptors.data();
          blocks.device_count = bins.state.data() + spgemm_state_merged;
        }
        SpgemmTable table{};
        table.slots = s.configs[c].symbolic_slots;
        if (c == 0 && may_overflow) {
          table.overflow_count = bins.state.data() + spgemm_state_overflow;
          table.overflow_list = overflow_list.data();
        }
        launch_hash(c, blocks, table, 0);
      }
      for (int c = 0; c < nc; ++c) {
        const int b = spgemm_cuda_dense_bin(c);
        if (pass.bin_rows[b] > 0)
          launch_dense(c, spgemm_cuda_list_blocks(bins.list.data() + pass.bin_offset[b], pass.bin_rows[b]));
      }
      const int g = spgemm_cuda_global_bin;
      if (pass.bin_rows[g] > 0) {
        const auto [table, tables] =
            global_table(pass.bin_rows[g], pass.bin_max_need[g], "the symbolic pass's global hash tables");
        launch_hash(global_config, spgemm_cuda_list_blocks(bins.list.data() + pass.bin_offset[g], pass.bin_rows[g]),
                    table, tables);
      }
      // (The merged-block count is read with the counters at the end; the overflow count is
      // needed now, when there may be one.)
      if (may_overflow) pass.overflow_rows = spgemm_cuda_read_state(kspace, an, spgemm_results_symbolic_state)[1];
      if (pass.overflow_rows > 0) {
        // The global redo: rows whose shared map ran full, in global memory sized from their need.
        const auto [table, tables] = global_table(pass.overflow_rows, pass.bin_max_need[speculative],
                                                  "the global hash tables of the rows that overflowed shared memory");
        launch_hash(global_config, spgemm_cuda_list_blocks(overflow_list.data(), pass.overflow_rows), table, tables);
      }
    }
  }
  spgemm_cuda_finish_symbolic(kspace, an, A.graph.row_map.data(), direct, pass);
  an.symbolic_rows = spgemm_cuda_row_counts(an, pass, direct);
  pass.temporary_bytes = temporaries;
  an.memory.symbolic_bytes = std::max(an.memory.symbolic_bytes, temporaries);
  an.schedule_summary = spgemm_cuda_summary(s);
}

// ------------------------------------------------------------------------------------------------
// Numeric pass

/// Lanes of a row in a numeric re-run by position: the power of two that covers the average
/// referenced row of B (every lane about one entry of it per entry of A), 4 to 32; a forced
/// threads_per_b_row of at most 32 is taken as it is.
inline int spgemm_reuse_group(double average_b_row, int forced) {
  if (forced > 0) return forced;
  int g = 4;
  while (g < spgemm_warp_size && g < average_b_row) g *= 2;
  return g;
}

/// Whether numeric re-runs go by position (spgemm_numeric_reuse_kernel), and its launch shape.
/// Re-runs know C's columns: where every row of C is sorted (SpgemmOptions::sorted) and every
/// row of B strictly increasing, a row's products land at distinct positions of C's row for each
/// entry of A, so a group of lanes per row accumulates without hashing, atomics or sorting, in
/// shared memory at the row's positions (C's longest row per group, within the default shared
/// memory: the largest block up to 256 threads that fits, down to one group). A forced
/// accumulator or a forced group above a warp keeps the numeric pass's accumulators for the
/// re-runs too.
///
/// The first re-run records every product's position (2 bytes; each row's first product at an
/// offset of 8 bytes per row) and later re-runs read them instead of searching C's row: a search
/// is several dependent loads that the lanes make at scattered addresses, a position one streamed
/// load, and B's columns are not read at all. Kept when those bytes are at most 4 times C's columns
/// and values (about 20 products per entry of C or fewer, for double values and int columns) and
/// within the memory limit beside what the plan holds (`held`); else every re-run searches.
template <class Ordinal, class Schedule, class Analysis>
void spgemm_cuda_decide_reuse(Schedule& s, const Analysis& an, int64_t held) {
  s.reuse_group = s.reuse_threads = 0;
  s.reuse_capacity = 0;
  s.reuse_positions_bytes = 0;
  s.reuse_positions = {};
  s.reuse_product_offsets = {};
  s.reuse_recorded = false;
  const int forced = an.options.threads_per_b_row;
  if (!an.options.sorted || !an.stats.b_rows_sorted || an.options.accumulator != SpgemmAccumulator::automatic ||
      forced > spgemm_warp_size || an.nnz_c == 0)
    return;
  const int g = spgemm_reuse_group(an.stats.average_b_row(), forced);
  const int64_t capacity = std::max<int64_t>(1, an.max_row_nnz);
  for (int threads = std::min(256, s.max_threads); threads >= g; threads /= 2) {
    if ((threads / g) * capacity * s.scalar_bytes <= s.shared_default) {
      s.reuse_group = g;
      s.reuse_threads = threads;
      s.reuse_capacity = capacity;
      const int64_t bytes = spgemm_bytes<unsigned short>(an.stats.products) + spgemm_bytes<int64_t>(an.num_rows + 1);
      const int64_t c_bytes = an.nnz_c * (static_cast<int64_t>(sizeof(Ordinal)) + s.scalar_bytes);
      if (capacity < 0xffff && bytes <= 4 * c_bytes &&
          (an.memory.limit_bytes <= 0 || held + bytes <= an.memory.limit_bytes))
        s.reuse_positions_bytes = bytes;
      return;
    }
  }
}

/// The numeric pass's schedule (after the symbolic pass): balance, bins (kept by the plan),
/// global tables and sort buffers (checked against `held` = the analysis and C's bytes).
template <class Space, class CrsType, class Analysis>
void spgemm_numeric_schedule(const Space& space, const CrsType& A, Analysis& an, int64_t held) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  ProfilingRegion region("Sprocket::spgemm::cuda::numeric_schedule");
  auto& s = an.cuda;
  const auto kspace = spgemm_kokkos_space(space);
  const int64_t M = an.num_rows;
  const int nc = static_cast<int>(s.configs.size());
  int64_t kept = 0;
  const auto require = [&](int64_t bytes, const std::string& what) {
    spgemm_require_memory(an.memory, held + kept, bytes, what);
    kept += bytes;
  };
  // The counters are result words (zero after the analysis; every numeric pass zeroes them).
  s.numeric_counters.view = spgemm_cuda_result_words(an, spgemm_results_numeric_counters, spgemm_num_counters);
  s.numeric_counters.pending = false;

  const bool direct = an.options.direct_rows && an.stats.b_rows_sorted;
  const SpgemmBinRule rule = spgemm_cuda_rule(s, an.options, direct, false);
  // The accumulated rows' need is now C's row length (known from the symbolic pass's counts) and
  // their column range the symbolic pass's: nothing to read back here.
  const SpgemmCudaNeed need{s.numeric_max_need, s.symbolic.max_range};
  SpgemmCudaPass& pass = s.numeric;
  pass = SpgemmCudaPass{};
  spgemm_cuda_decide(s, pass, rule, need, an.options.numeric_balance, an.options.numeric_thresholds,
                     static_cast<double>(an.max_row_nnz),
                     M > 0 ? static_cast<double>(an.nnz_c) / static_cast<double>(M) : 0.0, M, 3,
                     &an.numeric_balance_reason);
  an.numeric_balance = pass.balance;
  const bool sorted = an.options.sorted;
  int64_t global_rows = 0, global_need = 0, sort_rows = 0, sort_longest = 0;
  if (pass.balance == SpgemmBalance::uniform) {
    if (pass.uniform_kind == SpgemmCudaKind::global_hash) {
      global_rows = an.stats.rows_with_products;
      global_need = need.max_need;
    }
    pass.uniform_sorted_after =
        sorted && (pass.uniform_kind == SpgemmCudaKind::global_hash ||
                   (pass.uniform_kind == SpgemmCudaKind::hash && !spgemm_sorts_in_table(rule, pass.uniform_config)));
    if (pass.uniform_sorted_after) {
      sort_rows = M;
      sort_longest = need.max_need;
    }
  } else if (M > 0 && an.nnz_c > 0) {
    auto bins = spgemm_cuda_bin(space, A, an, pass, rule, static_cast<Offset*>(nullptr), an.row_map_c.data(),
                                spgemm_results_numeric_state, require, "numeric pass");
    s.numeric_list = bins.list;
    s.numeric_blocks = bins.descriptors;
    s.numeric_state = bins.state;
    pass.merged_blocks = spgemm_cuda_read_state(kspace, an, spgemm_results_numeric_state)[0];
    global_rows = pass.bin_rows[spgemm_cuda_global_bin];
    global_need = pass.bin_max_need[spgemm_cuda_global_bin];
    for (int b = 0; b < spgemm_cuda_num_bins; ++b) {
      const bool hash_large = b < nc && !spgemm_sorts_in_table(rule, b);
      pass.bin_sorted_after[b] = sorted && pass.bin_rows[b] > 0 && (hash_large || b == spgemm_cuda_global_bin);
      if (pass.bin_sorted_after[b]) {
        sort_rows += pass.bin_rows[b];
        sort_longest = std::max(sort_longest, pass.bin_max_need[b]);
      }
    }
  }
  // Temporaries of every numeric call: global hash tables (keys and values) and sort buffers.
  int64_t temporaries = 0;
  const int global_config = spgemm_cuda_default_config(s);
  const int threads = s.configs[global_config].threads;
  if (global_rows > 0) {
    pass.global_slots = std::max<int64_t>(16, 2 * global_need);
    const int64_t table_bytes = spgemm_bytes<unsigned>(pass.global_slots) + spgemm_bytes<Scalar>(pass.global_slots);
    pass.global_tables = spgemm_cuda_pool_tables(
        an.memory, held + kept, std::min({global_rows, spgemm_cuda_resident_blocks(s, threads), s.grid_limit}),
        table_bytes);
    temporaries += pass.global_tables * table_bytes;
  }
  pass.sort_config = global_config;
  pass.sort_shared_pairs =
      s.configs[global_config].table_bytes / (2 * static_cast<int64_t>(sizeof(Ordinal) + sizeof(Scalar)));
  if (sort_rows > 0 && sort_longest > pass.sort_shared_pairs) {
    pass.sort_pairs = sort_longest;
    const int64_t buffer_bytes = spgemm_bytes<Ordinal>(sort_longest) + spgemm_bytes<Scalar>(sort_longest);
    pass.sort_tables = spgemm_cuda_pool_tables(
        an.memory, held + kept + temporaries,
        std::min({sort_rows, spgemm_cuda_resident_blocks(s, threads), s.grid_limit}), buffer_bytes);
    temporaries += pass.sort_tables * buffer_bytes;
  }
  spgemm_require_memory(an.memory, held + kept, temporaries, "the numeric pass's global hash tables and sort buffers");
  pass.kept_bytes = kept;
  pass.temporary_bytes = temporaries;
  an.memory.analysis_bytes += kept;
  an.memory.numeric_bytes = std::max(an.memory.numeric_bytes, temporaries);
  an.numeric_rows = spgemm_cuda_row_counts(an, pass, direct);
  spgemm_cuda_decide_reuse<Ordinal>(s, an, held + kept + temporaries);
  an.memory.analysis_bytes += s.reuse_positions_bytes;
  an.schedule_summary = spgemm_cuda_summary(s);
}

/// The numeric pass into C (first: its columns too; else its values, C's columns being those the
/// first pass wrote). C's row map is the analysis's.
template <bool first, class Space, class CrsType, class Analysis>
void spgemm_numeric(const Space& space, const CrsType& A, const CrsType& B, const Analysis& an, const CrsType& C) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "Sprocket::spgemm (CUDA): the kernels take float and double");
  ProfilingRegion region("Sprocket::spgemm::cuda::numeric");
  const auto& s = an.cuda;
  const SpgemmCudaPass& pass = s.numeric;
  SPROCKET_REQUIRE(s.ready && pass.planned, "Sprocket::spgemm (CUDA): the numeric pass needs the plan's schedule");
  const auto kspace = spgemm_kokkos_space(space);
  const cudaStream_t stream = stream_of(space);
  const int64_t M = an.num_rows;
  const int nc = static_cast<int>(s.configs.size());
  const int64_t reserve = spgemm_static_shared_reserve<Ordinal>();
  if (M == 0 || an.nnz_c == 0) return;
  const bool direct = an.options.direct_rows && an.stats.b_rows_sorted;
  const auto p = spgemm_cuda_pattern<Ordinal, Offset>(A, B, an, direct, s.numeric_counters.view.data());
  const SpgemmValues<Scalar> v{A.values.data(), B.values.data()};
  const SpgemmOutput<Scalar, Ordinal, Offset> c{an.row_map_c.data(), const_cast<Ordinal*>(C.graph.entries.data()),
                                                C.values.data()};
  const bool sorted = an.options.sorted;

  if (!first && s.reuse_group > 0) {
    // The first re-run records the products' positions where the schedule reserved them.
    const bool keep = s.reuse_positions_bytes > 0;
    const bool record = keep && !s.reuse_recorded;
    if (record) {
      const auto row_products = an.row_products;
      Kokkos::View<int64_t*, Device> offsets(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::reuse_offsets"),
                                             M + 1);
      Kokkos::parallel_scan(
          "Sprocket::spgemm::cuda::reuse_offsets", Kokkos::RangePolicy<std::decay_t<decltype(kspace)>>(kspace, 0, M + 1),
          KOKKOS_LAMBDA(const int64_t i, int64_t& update, const bool final) {
            if (final) offsets(i) = update;
            if (i < M) update += row_products(i);
          });
      s.reuse_product_offsets = offsets;
      s.reuse_positions = Kokkos::View<unsigned short*, Device>(
          Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::reuse_positions"), an.stats.products);
    }
    KernelLaunch launch;
    launch.block = static_cast<unsigned>(s.reuse_threads);
    launch.grid = grid_blocks(M, s.reuse_threads / s.reuse_group, s.grid_limit);
    launch.shared_bytes = static_cast<size_t>((s.reuse_threads / s.reuse_group) * s.reuse_capacity) * sizeof(Scalar);
    launch.launch_bound = spgemm_cuda_max_threads;
    const SpgemmPositions positions{keep ? s.reuse_positions.data() : nullptr,
                                    keep ? s.reuse_product_offsets.data() : nullptr, record};
    SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_numeric_reuse_kernel<Scalar, Ordinal, Offset>)
    (p, v, c, s.reuse_group, s.reuse_capacity, positions);
    check_launch("Sprocket::spgemm", "spgemm_numeric_reuse_kernel");
    s.reuse_recorded = s.reuse_recorded || record;
    // No counters: the kernel keeps none (and the plan fences after the call).
    pass.counters.fill(0);
    s.numeric_counters.pending = false;
    return;
  }

  Kokkos::deep_copy(kspace, s.numeric_counters.view, 0ull);
  const SpgemmBinRule rule = spgemm_cuda_rule(s, an.options, direct, false);

  // The call's temporaries (sized and checked by spgemm_numeric_schedule).
  Kokkos::View<unsigned*, Device> global_keys;
  Kokkos::View<Scalar*, Device> global_values;
  if (pass.global_tables > 0) {
    global_keys =
        Kokkos::View<unsigned*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::global_keys"),
                                        pass.global_tables * pass.global_slots);
    global_values =
        Kokkos::View<Scalar*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::global_values"),
                                      pass.global_tables * pass.global_slots);
  }
  Kokkos::View<Ordinal*, Device> sort_keys;
  Kokkos::View<Scalar*, Device> sort_values;
  if (first && pass.sort_tables > 0) {
    sort_keys = Kokkos::View<Ordinal*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::sort_keys"),
                                               pass.sort_tables * pass.sort_pairs);
    sort_values = Kokkos::View<Scalar*, Device>(
        Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::sort_values"), pass.sort_tables * pass.sort_pairs);
  }
  const int global_config = spgemm_cuda_default_config(s);

  const auto launch_hash = [&](int config, const SpgemmBlocks<Ordinal>& blocks, bool global) {
    SpgemmTable table{};
    int64_t max_grid = 0;
    size_t dynamic = 0;
    if (global) {
      table.global_keys = global_keys.data();
      table.global_values = global_values.data();
      table.global_slots = pass.global_slots;
      max_grid = pass.global_tables;
    } else {
      table.slots = s.configs[config].numeric_slots;
      table.sort_table = first && sorted && spgemm_sorts_in_table(rule, config);
      dynamic = static_cast<size_t>(s.configs[config].table_bytes);
    }
    spgemm_cuda_allow_shared(spgemm_numeric_hash_kernel<first, Scalar, Ordinal, Offset>, static_cast<int64_t>(dynamic),
                             reserve, s.shared_default, "spgemm_numeric_hash_kernel");
    const KernelLaunch launch = spgemm_cuda_launch(s, config, blocks.num_blocks, dynamic, max_grid);
    SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_numeric_hash_kernel<first, Scalar, Ordinal, Offset>)
    (p, v, blocks, table, c);
    check_launch("Sprocket::spgemm", "spgemm_numeric_hash_kernel");
  };
  const auto launch_dense = [&](int config, const SpgemmBlocks<Ordinal>& blocks) {
    const size_t dynamic = static_cast<size_t>(s.configs[config].table_bytes);
    spgemm_cuda_allow_shared(spgemm_numeric_dense_kernel<first, Scalar, Ordinal, Offset>, static_cast<int64_t>(dynamic),
                             reserve, s.shared_default, "spgemm_numeric_dense_kernel");
    const KernelLaunch launch = spgemm_cuda_launch(s, config, blocks.num_blocks, dynamic);
    SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_numeric_dense_kernel<first, Scalar, Ordinal, Offset>)
    (p, v, blocks, s.configs[config].numeric_dense_columns, c);
    check_launch("Sprocket::spgemm", "spgemm_numeric_dense_kernel");
  };
  const auto launch_sort = [&](const SpgemmBlocks<Ordinal>& blocks) {
    const int config = pass.sort_config;
    const size_t dynamic = static_cast<size_t>(s.configs[config].table_bytes);
    spgemm_cuda_allow_shared(spgemm_sort_kernel<Scalar, Ordinal, Offset>, static_cast<int64_t>(dynamic), reserve,
                             s.shared_default, "spgemm_sort_kernel");
    const KernelLaunch launch =
        spgemm_cuda_launch(s, config, blocks.num_blocks, dynamic, pass.sort_tables > 0 ? pass.sort_tables : 0);
    SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_sort_kernel<Scalar, Ordinal, Offset>)
    (blocks, c, pass.sort_shared_pairs, sort_keys.data(), sort_values.data(), pass.sort_pairs, p.counters);
    check_launch("Sprocket::spgemm", "spgemm_sort_kernel");
  };

  if (pass.balance == SpgemmBalance::uniform) {
    const auto blocks = spgemm_cuda_uniform_blocks<Ordinal>(M, pass.rows_per_block);
    if (pass.uniform_kind == SpgemmCudaKind::dense)
      launch_dense(pass.uniform_config, blocks);
    else
      launch_hash(pass.uniform_kind == SpgemmCudaKind::global_hash ? global_config : pass.uniform_config, blocks,
                  pass.uniform_kind == SpgemmCudaKind::global_hash);
    if (first && pass.uniform_sorted_after) launch_sort(spgemm_cuda_uniform_blocks<Ordinal>(M, 1));
  } else {
    const Ordinal* list = s.numeric_list.data();
    const int d = spgemm_cuda_direct_bin;
    if (pass.bin_rows[d] > 0) {
      KernelLaunch launch;
      launch.block = static_cast<unsigned>(std::min(256, s.configs[0].threads));
      launch.grid = grid_blocks(pass.bin_rows[d], launch.block / spgemm_warp_size, s.grid_limit);
      launch.shared_bytes = 0;
      launch.launch_bound = spgemm_cuda_max_threads;
      SPROCKET_CUDA_LAUNCH(launch, stream, spgemm_direct_kernel<first, Scalar, Ordinal, Offset>)
      (p, v, list + pass.bin_offset[d], pass.bin_rows[d], c);
      check_launch("Sprocket::spgemm", "spgemm_direct_kernel");
    }
    for (int k = 0; k < nc; ++k) {
      const int b = spgemm_cuda_hash_bin(k);
      if (pass.bin_rows[b] == 0) continue;
      SpgemmBlocks<Ordinal> blocks = spgemm_cuda_list_blocks(list + pass.bin_offset[b], pass.bin_rows[b]);
      if (b == pass.merge_bin) {
        blocks.descriptors = s.numeric_blocks.data();
        blocks.device_count = s.numeric_state.data() + spgemm_state_merged;
      }
      launch_hash(k, blocks, false);
    }
    for (int k = 0; k < nc; ++k) {
      const int b = spgemm_cuda_dense_bin(k);
      if (pass.bin_rows[b] > 0) launch_dense(k, spgemm_cuda_list_blocks(list + pass.bin_offset[b], pass.bin_rows[b]));
    }
    const int g = spgemm_cuda_global_bin;
    if (pass.bin_rows[g] > 0)
      launch_hash(global_config, spgemm_cuda_list_blocks(list + pass.bin_offset[g], pass.bin_rows[g]), true);
    if (first)
      for (int b = 0; b < spgemm_cuda_num_bins; ++b)
        if (pass.bin_sorted_after[b]) launch_sort(spgemm_cuda_list_blocks(list + pass.bin_offset[b], pass.bin_rows[b]));
  }
  // The kernels' counters stay on the device until spgemm_cuda_numeric_counters asks for them (the
  // tests do; describe() prints the schedule's): a read-back here would cost every numeric call a
  // synchronization, a host allocation and a copy. The plan fences after the call.
  s.numeric_counters.pending = true;
}

/// The counters of the last numeric pass (read back from the device on the first request after it).
template <class Analysis>
const std::array<int64_t, spgemm_num_counters>& spgemm_cuda_numeric_counters(const Analysis& an) {
  const auto& s = an.cuda;
  if (s.numeric_counters.pending) {
    std::array<unsigned long long, spgemm_num_counters> words{};
    const auto& view = s.numeric_counters.view;
    spgemm_read_back(typename std::decay_t<decltype(view)>::execution_space(), view, 0, spgemm_num_counters,
                     words.data(), an.host_reads);
    for (int i = 0; i < spgemm_num_counters; ++i) s.numeric.counters[i] = static_cast<int64_t>(words[i]);
    s.numeric_counters.pending = false;
  }
  return s.numeric.counters;
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
