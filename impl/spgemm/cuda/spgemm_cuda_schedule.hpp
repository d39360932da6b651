#pragma once
// What the CUDA SpGEMM backend (impl/spgemm/cuda/spgemm_cuda.hpp) decides and keeps per plan:
// the device's shared-memory configurations, each pass's global load balancing (uniform blocks or
// bins), the bins the numeric passes reuse, the sizes of the global hash tables and sort
// buffers, and what the kernels counted (local load balancing, chunks, overflows, sorts). Data
// only: it compiles in host builds too (Impl::SpgemmAnalysis holds one for every backend), and
// describe() prints it. Included by impl/spgemm/spgemm_analysis.hpp (include Sprocket_Spgemm.hpp
// first, as for the analysis).
#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Spgemm.hpp"

namespace Sprocket {
namespace Impl {

/// Accumulators of a CUDA block of rows.
enum class SpgemmCudaKind : int { hash = 0, dense = 1, global_hash = 2, direct = 3 };

inline const char* to_string(SpgemmCudaKind k) {
  switch (k) {
    case SpgemmCudaKind::hash: return "hash";
    case SpgemmCudaKind::dense: return "dense";
    case SpgemmCudaKind::global_hash: return "global hash";
    case SpgemmCudaKind::direct: return "direct";
  }
  return "?";
}

/// At most six configurations (paper section 4.2): the opt-in shared memory with the most
/// threads, then the default shared memory with the most threads, then halves of both.
inline constexpr int spgemm_cuda_max_configs = 6;
/// Bins of a binned pass: hash in configuration c (c), dense in configuration c
/// (spgemm_cuda_max_configs + c), global hash, direct.
inline constexpr int spgemm_cuda_num_bins = 2 * spgemm_cuda_max_configs + 2;
inline constexpr int spgemm_cuda_global_bin = 2 * spgemm_cuda_max_configs;
inline constexpr int spgemm_cuda_direct_bin = 2 * spgemm_cuda_max_configs + 1;
constexpr int spgemm_cuda_hash_bin(int config) { return config; }
constexpr int spgemm_cuda_dense_bin(int config) { return spgemm_cuda_max_configs + config; }

/// One kernel configuration: threads, shared memory, and what its accumulators hold.
struct SpgemmCudaConfig {
  int threads = 0;
  int64_t shared_bytes = 0;            ///< the block's shared memory in all (static header + table)
  int64_t table_bytes = 0;             ///< dynamic shared memory: the accumulator
  bool optin = false;                  ///< above the default per-block shared memory
  int64_t symbolic_slots = 0;          ///< hash keys (4 bytes each) of the symbolic pass
  int64_t numeric_slots = 0;           ///< hash keys + values of the numeric pass
  int64_t numeric_keys = 0;            ///< keys the numeric table takes (at most 2/3 full)
  int64_t symbolic_dense_columns = 0;  ///< bits of the symbolic dense bitmask (one chunk)
  int64_t numeric_dense_columns = 0;   ///< values + flag bits of a numeric dense chunk
};

/// What the kernels of a pass counted (one atomic per block), read back for describe() and the
/// tests. Indices 0..10: blocks whose local load balancing chose 2^i threads per row of B.
enum SpgemmCudaCounter : int {
  spgemm_counter_group_sizes = 0,           // 11 entries: g = 1, 2, 4, ..., 1024
  spgemm_counter_hash_blocks = 11,          // blocks run with a hash map (shared or global)
  spgemm_counter_multi_row_blocks = 12,     // hash blocks holding more than one row (compound keys)
  spgemm_counter_dense_chunks = 13,         // dense chunks processed (column ranges), all rows
  spgemm_counter_dense_rows = 14,           // rows accumulated densely
  spgemm_counter_overflow_rows = 15,        // symbolic: rows whose shared map overflowed
  spgemm_counter_global_rows = 16,          // rows hashed in global memory
  spgemm_counter_table_sorted_rows = 17,    // numeric: rows sorted in their shared table (smallest configurations)
  spgemm_counter_merge_sorted_shared = 18,  // numeric: rows sorted by the segmented sort in shared memory
  spgemm_counter_merge_sorted_global = 19,  // numeric: ... in global memory
  spgemm_counter_direct_rows = 20,          // rows referenced directly (one entry in A)
  spgemm_num_counters = 21
};

/// One pass's schedule (host side).
struct SpgemmCudaPass {
  bool planned = false;
  SpgemmBalance balance = SpgemmBalance::uniform;
  // Uniform: one launch of `uniform_kind` in configuration `uniform_config` over fixed blocks of
  // rows_per_block consecutive rows.
  SpgemmCudaKind uniform_kind = SpgemmCudaKind::hash;
  int uniform_config = -1;
  int rows_per_block = 1;
  int64_t max_need = 0;   ///< largest accumulator need of a row (keys; symbolic min(products, range), numeric nnz)
  int64_t max_range = 0;  ///< largest column range of a row that is not direct
  // Binned: per bin its rows, position in the row list, largest need and column range.
  std::array<int64_t, spgemm_cuda_num_bins> bin_rows{}, bin_offset{}, bin_max_need{}, bin_max_range{};
  int64_t listed_rows = 0;
  int merge_bin = -1;         ///< the bin whose neighbouring rows are merged into blocks (Algorithm 2)
  int64_t merged_blocks = 0;  ///< blocks of merge_bin after merging (read back)
  // Global hash tables (one per resident block) and segmented-sort buffers in global memory.
  int64_t global_tables = 0, global_slots = 0;
  int sort_config = -1;  ///< the configuration whose block runs the segmented sort
  int64_t sort_tables = 0, sort_pairs = 0;
  int64_t sort_shared_pairs = 0;                              ///< row length the sort kernel sorts in shared memory
  std::array<bool, spgemm_cuda_num_bins> bin_sorted_after{};  ///< numeric bins sorted by the sort kernel
  bool uniform_sorted_after = false;
  int64_t overflow_rows = 0;    ///< symbolic: rows redone in global memory
  int64_t temporary_bytes = 0;  ///< the pass's temporaries (global tables, sort buffers, bins when not kept)
  int64_t kept_bytes = 0;       ///< what the plan keeps for later passes (numeric bins)
  /// Read back after the pass (the numeric pass updates it on every call, through a const plan).
  mutable std::array<int64_t, spgemm_num_counters> counters{};
};

/// The numeric pass's counters (reset and written by every numeric pass): a copy of a plan gets
/// its own View of the same length, holding the same counts, so that copies run numeric passes
/// independently (Sprocket_Operator.hpp, "Copies"); a move keeps the View. `pending`: the last
/// numeric pass left its counts here, not yet read into the pass's host copy
/// (spgemm_cuda_numeric_counters reads them on request).
template <class Device>
struct SpgemmCudaCounters {
  using view_type = Kokkos::View<unsigned long long*, Device>;
  view_type view;
  bool pending = false;

  SpgemmCudaCounters() = default;
  SpgemmCudaCounters(const SpgemmCudaCounters& other) : view(fresh(other.view)), pending(other.pending) {}
  SpgemmCudaCounters(SpgemmCudaCounters&&) = default;
  SpgemmCudaCounters& operator=(const SpgemmCudaCounters& other) {
    if (this != &other) {
      view = fresh(other.view);
      pending = other.pending;
    }
    return *this;
  }
  SpgemmCudaCounters& operator=(SpgemmCudaCounters&&) = default;
  ~SpgemmCudaCounters() = default;

 private:
  static view_type fresh(const view_type& v) {
    if (v.extent(0) == 0) return view_type();
    view_type copy(Kokkos::ViewAllocateWithoutInitializing(v.label()), v.extent(0));
    Kokkos::deep_copy(copy, v);
    return copy;
  }
};

/// The CUDA backend's schedule of a plan.
template <class Ordinal, class Offset, class Device>
struct SpgemmCudaSchedule {
  bool ready = false;
  // The device (queried: cudaDeviceProp on CUDA, the emulated Device's fields in the tests).
  int64_t shared_default = 0, shared_optin = 0;
  int max_threads = 0, threads_per_multiprocessor = 0, multiprocessors = 0;
  int64_t grid_limit = 0;
  int scalar_bytes = 0;
  std::vector<SpgemmCudaConfig> configs;  ///< largest first
  bool compound_keys = false;             ///< num_cols < 2^27: a block may hold up to 32 rows
  SpgemmCudaPass symbolic, numeric;
  /// The longest accumulated row of C (the symbolic pass's counts): the numeric pass's need.
  int64_t numeric_max_need = 0;
  /// Numeric re-runs by position (spgemm_numeric_reuse_kernel): lanes per row of C (0: re-runs
  /// take the numeric pass's accumulators), threads per block, and the shared slots of a row.
  int reuse_group = 0, reuse_threads = 0;
  int64_t reuse_capacity = 0;
  /// Bytes reserved for every product's position in C's row (0: each re-run searches C's row),
  /// and the positions with each row's first product, recorded by the first re-run (the plan is
  /// const there, as for the counters).
  int64_t reuse_positions_bytes = 0;
  mutable Kokkos::View<unsigned short*, Device> reuse_positions;
  mutable Kokkos::View<int64_t*, Device> reuse_product_offsets;
  mutable bool reuse_recorded = false;
  // Kept for the numeric passes: the rows of every numeric bin, the merged blocks'
  // descriptors, the bin state (the merged-block count lives there), and the kernels' counters.
  Kokkos::View<Ordinal*, Device> numeric_list;
  Kokkos::View<unsigned long long*, Device> numeric_blocks;
  Kokkos::View<unsigned long long*, Device> numeric_state;
  mutable SpgemmCudaCounters<Device> numeric_counters;
};

/// "96.0 KiB" for the configuration lines.
inline std::string spgemm_cuda_kib(int64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(bytes % 1024 == 0 ? 0 : 1);
  os << static_cast<double>(bytes) / 1024 << " KiB";
  return os.str();
}

/// One pass in a few words: "binned in 5 bins" / "uniform hash in configuration 3, 6 rows per block".
inline std::string spgemm_cuda_pass_summary(const SpgemmCudaPass& p) {
  std::ostringstream os;
  if (p.balance == SpgemmBalance::uniform) {
    os << "uniform " << to_string(p.uniform_kind);
    if (p.uniform_kind != SpgemmCudaKind::global_hash) os << " in configuration " << p.uniform_config;
    os << ", " << p.rows_per_block << " row(s) per block";
  } else {
    int bins = 0;
    for (int b = 0; b < spgemm_cuda_num_bins; ++b) bins += p.bin_rows[b] > 0;
    os << "binned in " << bins << " bin(s)";
  }
  return os.str();
}

/// The configurations and each pass's blocks and bins, for SpgemmPlan::describe().
template <class Schedule>
std::string spgemm_cuda_describe(const Schedule& s) {
  std::ostringstream os;
  os << "cuda configurations (threads / shared memory / symbolic hash keys / numeric keys / dense columns "
        "symbolic, numeric):";
  for (size_t c = 0; c < s.configs.size(); ++c) {
    const SpgemmCudaConfig& k = s.configs[c];
    os << "\n    [" << c << "] " << k.threads << " / " << spgemm_cuda_kib(k.shared_bytes)
       << (k.optin ? " (opt-in)" : "") << " / " << k.symbolic_slots << " / " << k.numeric_keys << " / "
       << k.symbolic_dense_columns << ", " << k.numeric_dense_columns;
  }
  const auto pass = [&](const char* name, const SpgemmCudaPass& p) {
    if (!p.planned) return;
    os << "\n  cuda " << name << ": ";
    if (p.balance == SpgemmBalance::uniform) {
      os << "uniform, " << to_string(p.uniform_kind);
      if (p.uniform_config >= 0) os << " in configuration " << p.uniform_config;
      os << ", " << p.rows_per_block << " row(s) per block";
      if (p.uniform_sorted_after) os << ", then the segmented sort";
    } else {
      os << "binned";
      for (int b = 0; b < spgemm_cuda_num_bins; ++b) {
        if (p.bin_rows[b] == 0) continue;
        os << "; ";
        if (b < spgemm_cuda_max_configs)
          os << "hash[" << b << "]";
        else if (b < spgemm_cuda_global_bin)
          os << "dense[" << b - spgemm_cuda_max_configs << "]";
        else if (b == spgemm_cuda_global_bin)
          os << "global hash";
        else
          os << "direct";
        os << " " << p.bin_rows[b] << " rows";
        if (b == p.merge_bin) os << " in " << p.merged_blocks << " merged blocks";
        if (p.bin_sorted_after[b]) os << " (sorted after)";
      }
    }
    if (p.global_tables > 0)
      os << "; global hash: " << p.global_tables << " table(s) of " << p.global_slots << " slots";
    if (p.sort_tables > 0) os << "; sort buffers: " << p.sort_tables << " of " << p.sort_pairs << " entries";
    if (p.overflow_rows > 0)
      os << "; " << p.overflow_rows << " row(s) overflowed shared memory, redone in global memory";
    os << "\n    local load balancing, blocks per threads per row of B:";
    bool any = false;
    for (int i = 0; i <= 10; ++i)
      if (p.counters[spgemm_counter_group_sizes + i] > 0) {
        os << " g=" << (1 << i) << ": " << p.counters[spgemm_counter_group_sizes + i];
        any = true;
      }
    if (!any) os << " (none counted yet)";
    os << "; multi-row blocks " << p.counters[spgemm_counter_multi_row_blocks] << ", dense chunks "
       << p.counters[spgemm_counter_dense_chunks];
  };
  pass("symbolic", s.symbolic);
  pass("numeric", s.numeric);
  return os.str();
}

}  // namespace Impl
}  // namespace Sprocket
