#pragma once
// __global__ kernels of the CUDA SpGEMM after spECK (paper speck-spgemm, sections 4.2 and 4.3);
// the launcher, the schedule and the reasons for it are in impl/spgemm/cuda/spgemm_cuda.hpp.
//
//   spgemm_bin_kernel              global load balancing: each row's bin (accumulator and
//                                  configuration), counted per block (count pass) or appended to
//                                  its bin's row list in row order with one reservation per bin and
//                                  block (write pass), neighbouring rows of the smallest hash bin
//                                  merged into blocks of up to 32 rows (Algorithm 2)
//   spgemm_symbolic_hash_kernel    exact row lengths through a hash map of keys, in shared memory
//                                  (several rows per block with compound keys) or in global memory
//   spgemm_symbolic_dense_kernel   exact row lengths through a bitmask over the row's column range,
//                                  in chunks of what shared memory holds
//   spgemm_numeric_hash_kernel     columns and values through a hash map of keys and values
//   spgemm_numeric_dense_kernel    columns and values through a dense array with flags, compacted
//                                  by a block prefix sum (sorted output)
//   spgemm_numeric_reuse_kernel    re-runs of a sorted C: values at their positions in C's rows,
//                                  a group of lanes per row, no hashing, atomics or sort
//   spgemm_direct_kernel           rows of A with one entry: B's row scaled
//   spgemm_sort_kernel             rows of C sorted by column (bottom-up merge), in shared memory
//                                  when the row fits, else in global memory with a buffer
//
// Every accumulator kernel walks its blocks grid-stride (a block of rows is the unit of work; the
// grid is clamped), with the rows given by SpgemmBlocks: consecutive rows (uniform blocks), one
// row of a bin's list, or a merged block's descriptor. Local load balancing: the block's threads
// form groups of g (a power of two, spgemm_group_size), a group per referenced row of B.
//
// The same source runs on the CPU in the test-only emulation (SPROCKET_CUDA_EMULATION,
// unit_tests/spgemm/test_spgemm_cuda_emulated.cpp).
#include <Kokkos_Core.hpp>

#include "Sprocket_Spgemm.hpp"  // first: it brings the schedule (spgemm_cuda_schedule.hpp) in order
#include "impl/common/cuda/cuda_device.cuh"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <cstdint>

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Every kernel's __launch_bounds__: the configurations go up to the device's maximum block, at
/// least one block of it resident (64 registers a thread). With the block size alone ptxas (CUDA
/// 13) held every kernel to 32 registers, as for two such blocks per SM, and spilled; with the
/// explicit minimum of one block none spills (ptxas -v, sm_80 and sm_90).
inline constexpr int spgemm_cuda_max_threads = 1024;
inline constexpr int spgemm_cuda_min_blocks = 1;
inline constexpr int spgemm_warp_size = 32;
inline constexpr unsigned spgemm_full_mask = 0xffffffffu;
/// Rows of a block (hash only): compound keys carry the local row in their top 5 bits.
inline constexpr int spgemm_max_block_rows = 32;
inline constexpr int spgemm_compound_shift = 27;
inline constexpr unsigned spgemm_column_mask = (1u << spgemm_compound_shift) - 1;
/// Blocks of several rows only when every column fits the 27 bits (num_cols < 2^27, so a column is
/// at most 2^27 - 2 and no compound key equals the empty key).
inline constexpr int64_t spgemm_compound_max_columns = int64_t(1) << spgemm_compound_shift;
/// The empty slot: no column (columns < num_cols <= INT_MAX) and no compound key. Not the
/// emulation's poison (all ones), so a table used before it is cleared is caught.
inline constexpr unsigned spgemm_empty_key = 0x7fffffffu;
/// A merged block's descriptor: (first position in the bin's list << 6) | rows.
inline constexpr int spgemm_descriptor_shift = 6;
/// Knuth's multiplicative hash constant (a prime near 2^32 / golden ratio).
inline constexpr unsigned spgemm_hash_multiplier = 2654435761u;

// The bin state of a binned pass (unsigned long long, zeroed before the count pass).
inline constexpr int spgemm_state_counts = 0;
inline constexpr int spgemm_state_max_need = spgemm_cuda_num_bins;
inline constexpr int spgemm_state_max_range = 2 * spgemm_cuda_num_bins;
inline constexpr int spgemm_state_cursors = 3 * spgemm_cuda_num_bins;
inline constexpr int spgemm_state_merged = 4 * spgemm_cuda_num_bins;
inline constexpr int spgemm_state_overflow = 4 * spgemm_cuda_num_bins + 1;
inline constexpr int spgemm_state_size = 4 * spgemm_cuda_num_bins + 2;

// ------------------------------------------------------------------------------------------------
// Decisions shared by the host (launcher, tests) and the kernels

/// How a row's accumulator is chosen (spgemm_row_bin), per pass.
struct SpgemmBinRule {
  int num_configs = 0;
  int64_t hash_keys[spgemm_cuda_max_configs] = {};      ///< keys a configuration's hash map takes
  int64_t dense_columns[spgemm_cuda_max_configs] = {};  ///< columns of a dense chunk
  int forced = -1;                                      ///< SpgemmAccumulator (hash, dense, global_hash), -1 automatic
  bool symbolic = true;
  bool direct = false;            ///< single-entry rows referenced directly
  int shared_sort_configs = 3;    ///< numeric: the smallest configurations sort in shared memory
  int64_t dense_max_chunks = 32;  ///< dense only while the range takes at most this many chunks
};

/// Whether a numeric row hashed in configuration c sorts in its shared table (the smallest
/// shared_sort_configs configurations); rows of the larger ones are sorted afterwards.
__host__ __device__ inline bool spgemm_sorts_in_table(const SpgemmBinRule& r, int c) {
  return c >= r.num_configs - r.shared_sort_configs;
}

/// The smallest configuration whose dense chunk covers `range` columns, else the largest (chunks).
__host__ __device__ inline int spgemm_dense_config(const SpgemmBinRule& r, int64_t range) {
  for (int c = r.num_configs - 1; c >= 0; --c)
    if (range <= r.dense_columns[c]) return c;
  return 0;
}

/// The smallest configuration whose hash map takes `keys` keys, -1 if none.
__host__ __device__ inline int spgemm_hash_config(const SpgemmBinRule& r, int64_t keys) {
  for (int c = r.num_configs - 1; c >= 0; --c)
    if (keys <= r.hash_keys[c]) return c;
  return -1;
}

/// The bin of a row (-1: no products) and its accumulator need (keys: symbolic min(products,
/// range), numeric nnz of C's row):
///   direct       one entry in A (when allowed);
///   forced       global hash; dense in the configuration that covers the range; hash in the
///                smallest configuration that fits (symbolic: the largest for up to twice its
///                keys, hoping for compaction, with the global fallback on overflow; else global);
///   symbolic     hash in the smallest fitting configuration; up to twice the largest one's keys
///                speculatively in the largest; beyond, dense (the row's range in at most
///                dense_max_chunks chunks) or global hash (paper: dense accumulation only for rows
///                more than twice as large as the largest kernel can store);
///   numeric      hash when one of the smallest shared_sort_configs configurations fits (sorted
///                there in the table); else dense when the range takes at most three chunks of some
///                configuration (density above ~1/3 of a chunk: no sort needed); else hash in a
///                configuration below the largest (sorted afterwards); rows that need the largest
///                configuration dense when the range allows, else hash in the largest or global.
__host__ __device__ inline int spgemm_row_bin(const SpgemmBinRule& r, int64_t len_a, int64_t products, int64_t range,
                                              int64_t nnz, int64_t& need) {
  need = 0;
  if (products <= 0) return -1;
  if (r.direct && len_a == 1) {
    need = products;
    return spgemm_cuda_direct_bin;
  }
  need = r.symbolic ? (products < range ? products : range) : nnz;
  if (need <= 0) return -1;
  const int64_t largest = r.hash_keys[0];
  const int c = spgemm_hash_config(r, need);
  const bool dense_fits = range <= r.dense_max_chunks * r.dense_columns[0];
  if (r.forced == static_cast<int>(SpgemmAccumulator::global_hash)) return spgemm_cuda_global_bin;
  if (r.forced == static_cast<int>(SpgemmAccumulator::dense))
    return spgemm_cuda_dense_bin(spgemm_dense_config(r, range));
  if (r.forced == static_cast<int>(SpgemmAccumulator::hash)) {
    if (c >= 0) return spgemm_cuda_hash_bin(c);
    if (r.symbolic && need <= 2 * largest) return spgemm_cuda_hash_bin(0);
    return spgemm_cuda_global_bin;
  }
  if (r.symbolic) {
    if (c >= 0) return spgemm_cuda_hash_bin(c);
    if (need <= 2 * largest) return spgemm_cuda_hash_bin(0);
    return dense_fits ? spgemm_cuda_dense_bin(spgemm_dense_config(r, range)) : spgemm_cuda_global_bin;
  }
  if (c >= 0 && spgemm_sorts_in_table(r, c)) return spgemm_cuda_hash_bin(c);
  for (int d = r.num_configs - 1; d >= 0; --d)
    if (range <= 3 * r.dense_columns[d]) return spgemm_cuda_dense_bin(d);
  if (c >= 1) return spgemm_cuda_hash_bin(c);
  if (dense_fits) return spgemm_cuda_dense_bin(spgemm_dense_config(r, range));
  return c == 0 ? spgemm_cuda_hash_bin(0) : spgemm_cuda_global_bin;
}

/// The power of two closest to x (at least 1).
__host__ __device__ inline int64_t spgemm_round_pow2(double x) {
  int64_t p = 1;
  while (static_cast<double>(2 * p) <= x) p *= 2;
  return x >= 1.5 * static_cast<double>(p) ? 2 * p : p;
}

/// Local load balancing (paper section 4.3): threads per referenced row of B for a block of
/// `threads` threads whose rows have `entries` entries in A referencing `products` entries of B,
/// the longest referenced row `longest` long. Starts from the average referenced row; when the
/// longest row takes more than twice as many iterations (iter_max = longest / g) as a group has
/// rows of B to work through (n_rows = entries / k, k = threads / g groups), g grows by
/// iter_max / (2 n_rows); when n_rows is more than twice iter_max, g shrinks by iter_max /
/// n_rows; rounded to the closest power of two, and finally at least threads / entries so no
/// group is without an entry. `forced` (SpgemmOptions::threads_per_b_row, > 0) wins.
__host__ __device__ inline int spgemm_group_size(int threads, int64_t entries, int64_t products, int64_t longest,
                                                 int forced) {
  if (forced > 0) return forced < threads ? forced : threads;
  if (entries <= 0 || products <= 0) return threads < spgemm_warp_size ? threads : spgemm_warp_size;
  const auto clamp = [threads](int64_t g) { return static_cast<int>(g < 1 ? 1 : g > threads ? threads : g); };
  int g = clamp(spgemm_round_pow2(static_cast<double>(products) / static_cast<double>(entries)));
  const double groups = static_cast<double>(threads / g);
  const double n_rows = static_cast<double>(entries) / groups;
  const double iter_max = static_cast<double>(longest) / static_cast<double>(g);
  if (iter_max > 2.0 * n_rows)
    g = clamp(spgemm_round_pow2(g * iter_max / (2.0 * n_rows)));
  else if (n_rows > 2.0 * iter_max)
    g = clamp(spgemm_round_pow2(g * iter_max / n_rows));
  if (threads / g > entries) {
    int64_t fewer = 1;
    while (fewer * entries < threads) fewer *= 2;  // the smallest power of two with threads / g <= entries
    g = clamp(fewer);
  }
  return g;
}

// ------------------------------------------------------------------------------------------------
// Kernel arguments

/// Patterns of A and B and the row analysis (impl/spgemm/spgemm_analysis.hpp).
template <class Ordinal, class Offset>
struct SpgemmPattern {
  const Offset* a_row_map;
  const Ordinal* a_entries;
  const Offset* b_row_map;
  const Ordinal* b_entries;
  const int64_t* row_products;
  const Ordinal* row_col_min;
  const Ordinal* row_col_max;
  const Ordinal* row_longest_b;
  int64_t num_rows;
  bool direct;                   // single-entry rows of A reference their row of B directly
  bool b_sorted;                 // every row of B strictly increasing: dense chunks search B's rows
  int forced_group;              // SpgemmOptions::threads_per_b_row, 0: chosen per block
  unsigned long long* counters;  // SpgemmCudaCounter
};

template <class Scalar>
struct SpgemmValues {
  const Scalar* a;
  const Scalar* b;
};

/// C: its row map (offsets) and the columns and values the numeric pass writes.
template <class Scalar, class Ordinal, class Offset>
struct SpgemmOutput {
  const Offset* row_map;
  Ordinal* entries;
  Scalar* values;
};

/// The blocks of a launch. Block b covers positions [first, first + count) of `list` (the rows by
/// position; nullptr: the position is the row): from descriptors[b] when given (merged blocks),
/// else first = b * rows_per_block. The number of blocks is *device_count when only the device
/// knows it (merged blocks, overflowed rows), else num_blocks.
template <class Ordinal>
struct SpgemmBlocks {
  const Ordinal* list;
  const unsigned long long* descriptors;
  const unsigned long long* device_count;
  int64_t num_blocks;
  int64_t num_positions;
  int rows_per_block;
};

/// Where a hash block's map lives: shared memory of `slots` slots (dynamic), or block b's table
/// of global_slots slots at global_keys (+ values) + b * global_slots, sized per row.
struct SpgemmTable {
  int64_t slots;
  unsigned* global_keys;
  void* global_values;
  int64_t global_slots;
  bool sort_table;                     // numeric first pass, sorted, shared table: rows in column order
  unsigned long long* overflow_count;  // symbolic: rows whose map overflowed (for the global redo)
  void* overflow_list;                 // Ordinal[]
};

/// Re-runs by position: every product's position in C's row (products in A's order, then B's),
/// each row's first product; none (nullptr): the positions are searched. record: searched and
/// written here (the first re-run), else read.
struct SpgemmPositions {
  unsigned short* at;
  const int64_t* row_first;
  bool record;
};

/// The bin kernel's arguments (one count pass, one write pass).
template <class Ordinal, class Offset>
struct SpgemmBinArgs {
  const Offset* a_row_map;
  const int64_t* row_products;
  const Ordinal* row_col_min;
  const Ordinal* row_col_max;
  const Offset* c_row_map;  // numeric: C's row map (the need is the row's nnz); symbolic: nullptr
  Offset* counts;           // symbolic count pass: lengths of empty and direct rows (row_map_c + 1)
  int64_t num_rows;
  SpgemmBinRule rule;
  unsigned long long* state;  // spgemm_state_*
  bool write;
  Ordinal* list;
  int64_t bin_offset[spgemm_cuda_num_bins];  // position of each bin's rows in list, -1: not listed
  int merge_bin;                             // bin whose neighbouring rows are merged, -1: none
  int64_t merge_keys;                        // a merged block's capacity (0: no merging)
  unsigned long long* descriptors;
};

// ------------------------------------------------------------------------------------------------
// Device helpers

template <class T>
__device__ __forceinline__ T spgemm_volatile_load(const T* p) {
  return *const_cast<const volatile T*>(p);
}

/// Slot of a key in a table of `slots` slots: multiplicative hash, mapped to [0, slots) by the
/// high half of a 32 x 32-bit product.
__device__ __forceinline__ unsigned spgemm_hash_slot(unsigned key, unsigned slots) {
  return __umulhi(key * spgemm_hash_multiplier, slots);
}

/// Inserts key (linear probing): 1 inserted, 0 already there, -1 no free slot left.
__device__ __forceinline__ int spgemm_insert_key(unsigned* keys, unsigned slots, unsigned key) {
  unsigned s = spgemm_hash_slot(key, slots);
  for (unsigned probe = 0; probe < slots; ++probe) {
    unsigned current = spgemm_volatile_load(keys + s);
    if (current == key) return 0;
    if (current == spgemm_empty_key) {
      current = atomicCAS(keys + s, spgemm_empty_key, key);
      if (current == spgemm_empty_key) return 1;
      if (current == key) return 0;
    }
    s = s + 1 == slots ? 0 : s + 1;
  }
  return -1;
}

/// The slot holding key, inserting it when `insert` (numeric first pass); -1 when absent / full.
__device__ __forceinline__ int64_t spgemm_find_slot(unsigned* keys, unsigned slots, unsigned key, bool insert) {
  unsigned s = spgemm_hash_slot(key, slots);
  for (unsigned probe = 0; probe < slots; ++probe) {
    unsigned current = spgemm_volatile_load(keys + s);
    if (current == key) return s;
    if (current == spgemm_empty_key) {
      if (!insert) return -1;
      current = atomicCAS(keys + s, spgemm_empty_key, key);
      if (current == spgemm_empty_key || current == key) return s;
    }
    s = s + 1 == slots ? 0 : s + 1;
  }
  return -1;
}

template <class Ordinal>
__device__ __forceinline__ int64_t spgemm_lower_bound(const Ordinal* x, int64_t begin, int64_t end, int64_t value) {
  while (begin < end) {
    const int64_t mid = begin + (end - begin) / 2;
    if (static_cast<int64_t>(x[mid]) < value)
      begin = mid + 1;
    else
      end = mid;
  }
  return begin;
}

template <class Ordinal>
__device__ __forceinline__ int64_t spgemm_num_blocks(const SpgemmBlocks<Ordinal>& b) {
  return b.device_count ? static_cast<int64_t>(*b.device_count) : b.num_blocks;
}

template <class Ordinal>
__device__ __forceinline__ void spgemm_block_positions(const SpgemmBlocks<Ordinal>& b, int64_t block, int64_t& first,
                                                       int& count) {
  if (b.descriptors) {
    const unsigned long long d = b.descriptors[block];
    first = static_cast<int64_t>(d >> spgemm_descriptor_shift);
    count = static_cast<int>(d & ((1u << spgemm_descriptor_shift) - 1));
    return;
  }
  first = block * b.rows_per_block;
  const int64_t left = b.num_positions - first;
  count = b.rows_per_block == 1 ? 1 : static_cast<int>(left < b.rows_per_block ? left : b.rows_per_block);
}

template <class Ordinal>
__device__ __forceinline__ Ordinal spgemm_row_at(const SpgemmBlocks<Ordinal>& b, int64_t position) {
  return b.list ? b.list[position] : static_cast<Ordinal>(position);
}

__device__ __forceinline__ int spgemm_log2(int g) {
  int l = 0;
  while ((1 << l) < g) ++l;
  return l;
}

__device__ __forceinline__ void spgemm_count(unsigned long long* counters, int which, unsigned long long n) {
  if (counters && n) atomicAdd(counters + which, n);
}

/// Exclusive prefix sum over the block (blockDim.x a multiple of 32; every thread calls it);
/// *total gets the block's sum. scratch: 32 values of shared memory. Three barriers.
__device__ __forceinline__ int64_t spgemm_block_exclusive_scan(int64_t value, int64_t* scratch, int64_t* total) {
  const int lane = static_cast<int>(threadIdx.x % spgemm_warp_size);
  const int warp = static_cast<int>(threadIdx.x / spgemm_warp_size);
  const int warps = static_cast<int>(blockDim.x / spgemm_warp_size);
  int64_t x = value;
  for (int o = 1; o < spgemm_warp_size; o *= 2) {
    const int64_t y = __shfl_up_sync(spgemm_full_mask, x, o);
    if (lane >= o) x += y;
  }
  if (lane == spgemm_warp_size - 1) scratch[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int64_t w = lane < warps ? scratch[lane] : 0;
    for (int o = 1; o < spgemm_warp_size; o *= 2) {
      const int64_t y = __shfl_up_sync(spgemm_full_mask, w, o);
      if (lane >= o) w += y;
    }
    if (lane < warps) scratch[lane] = w;
  }
  __syncthreads();
  *total = scratch[warps - 1];
  const int64_t before = warp > 0 ? scratch[warp - 1] : 0;
  __syncthreads();
  return before + x - value;
}

/// A single-entry row of A: C's row is B's row scaled (B's rows sorted: so is C's); threads
/// `start`, `start + stride`, ... of the caller copy.
template <bool first, class Scalar, class Ordinal, class Offset>
__device__ __forceinline__ void spgemm_direct_copy(const SpgemmPattern<Ordinal, Offset>& p,
                                                   const SpgemmValues<Scalar>& v,
                                                   const SpgemmOutput<Scalar, Ordinal, Offset>& c, Ordinal row,
                                                   int start, int stride) {
  const int64_t k = static_cast<int64_t>(p.a_row_map[row]);
  const Ordinal j = p.a_entries[k];
  const Scalar a = v.a[k];
  const int64_t b0 = static_cast<int64_t>(p.b_row_map[j]);
  const int64_t n = static_cast<int64_t>(p.b_row_map[j + 1]) - b0;
  const int64_t c0 = static_cast<int64_t>(c.row_map[row]);
  for (int64_t q = start; q < n; q += stride) {
    if (first) c.entries[c0 + q] = p.b_entries[b0 + q];
    c.values[c0 + q] = a * v.b[b0 + q];
  }
}

// ------------------------------------------------------------------------------------------------
// Hash blocks: the block header (static shared memory) and its loading

/// A hash block's header in static shared memory (at most spgemm_static_shared_reserve bytes).
template <class Ordinal>
struct SpgemmHeader {
  int64_t* prefix;  // [33] A entries before local row r (accumulated rows only; direct / empty: none)
  Ordinal* rows;    // [32]
  int* counts;      // [32] symbolic: new keys per row; numeric: entries written per row
  int* misc;        // [8]  see spgemm_misc_*
  int64_t* wide;    // [2]  table slots of this block
};
inline constexpr int spgemm_misc_rows = 0, spgemm_misc_group = 1, spgemm_misc_overflow = 2, spgemm_misc_direct = 3,
                     spgemm_misc_accumulated = 4;

template <class Ordinal>
constexpr int64_t spgemm_header_bytes() {
  return 33 * 8 + spgemm_max_block_rows * static_cast<int64_t>(sizeof(Ordinal)) + spgemm_max_block_rows * 4 + 8 * 4 +
         2 * 8;
}
/// Static shared memory an accumulator kernel keeps besides its table (the hash block header, the
/// dense kernels' scan scratch; with room for alignment), rounded up to 128 bytes: a
/// configuration's table is its shared memory minus this (640 bytes for int ordinals).
template <class Ordinal>
constexpr int64_t spgemm_static_shared_reserve() {
  return (spgemm_header_bytes<Ordinal>() + 64 + 127) / 128 * 128;
}
static_assert(spgemm_static_shared_reserve<int>() == 640, "the documented reserve");
static_assert(spgemm_warp_size * 8 + 2 * 8 + 64 <= spgemm_static_shared_reserve<int>(),
              "the dense kernels' static shared memory must fit the reserve");

/// Warp 0 reads block `block`'s rows into the header: ids, A-entry prefix of the rows to
/// accumulate (not direct, with products), the group size g, which rows are direct, and the table
/// slots (shared: `shared_slots`; global: from the one row's need, at most global_slots). Ends
/// with a barrier.
template <class Ordinal, class Offset>
__device__ __forceinline__ void spgemm_load_block(const SpgemmPattern<Ordinal, Offset>& p,
                                                  const SpgemmBlocks<Ordinal>& blocks, int64_t block,
                                                  const Offset* c_row_map, bool global, int64_t shared_slots,
                                                  int64_t global_slots, const SpgemmHeader<Ordinal>& h) {
  if (threadIdx.x < spgemm_warp_size) {
    const int lane = static_cast<int>(threadIdx.x);
    int64_t first = 0;
    int count = 0;
    spgemm_block_positions(blocks, block, first, count);
    int64_t entries = 0, products = 0, longest = 0, need = 0;
    bool direct = false, accumulate = false;
    if (lane < count) {
      const Ordinal row = spgemm_row_at(blocks, first + lane);
      h.rows[lane] = row;
      h.counts[lane] = 0;
      const int64_t a0 = static_cast<int64_t>(p.a_row_map[row]), a1 = static_cast<int64_t>(p.a_row_map[row + 1]);
      const int64_t row_products = p.row_products[row];
      direct = row_products > 0 && p.direct && a1 - a0 == 1;
      accumulate = row_products > 0 && !direct;
      if (accumulate) {
        entries = a1 - a0;
        products = row_products;
        longest = static_cast<int64_t>(p.row_longest_b[row]);
        if (c_row_map) {
          need = static_cast<int64_t>(c_row_map[row + 1]) - static_cast<int64_t>(c_row_map[row]);
        } else {
          const int64_t range = static_cast<int64_t>(p.row_col_max[row]) - static_cast<int64_t>(p.row_col_min[row]) + 1;
          need = products < range ? products : range;
        }
      }
    }
    int64_t prefix = entries;
    for (int o = 1; o < spgemm_warp_size; o *= 2) {
      const int64_t y = __shfl_up_sync(spgemm_full_mask, prefix, o);
      if (lane >= o) prefix += y;
    }
    h.prefix[lane + 1] = prefix;
    int64_t total_products = products, max_longest = longest, max_need = need;
    for (int o = spgemm_warp_size / 2; o > 0; o /= 2) {
      total_products += __shfl_xor_sync(spgemm_full_mask, total_products, o);
      const int64_t l = __shfl_xor_sync(spgemm_full_mask, max_longest, o);
      const int64_t n = __shfl_xor_sync(spgemm_full_mask, max_need, o);
      max_longest = l > max_longest ? l : max_longest;
      max_need = n > max_need ? n : max_need;
    }
    const int64_t total_entries = __shfl_sync(spgemm_full_mask, prefix, spgemm_warp_size - 1);
    const unsigned direct_rows = __ballot_sync(spgemm_full_mask, direct);
    const unsigned accumulated_rows = __ballot_sync(spgemm_full_mask, accumulate);
    if (lane == 0) {
      h.prefix[0] = 0;
      const int g =
          spgemm_group_size(static_cast<int>(blockDim.x), total_entries, total_products, max_longest, p.forced_group);
      h.misc[spgemm_misc_rows] = count;
      h.misc[spgemm_misc_group] = g;
      h.misc[spgemm_misc_overflow] = 0;
      h.misc[spgemm_misc_direct] = static_cast<int>(direct_rows);
      h.misc[spgemm_misc_accumulated] = static_cast<int>(accumulated_rows);
      int64_t slots = shared_slots;
      if (global) {
        slots = 2 * max_need < 16 ? 16 : 2 * max_need;
        slots = slots < global_slots ? slots : global_slots;
      }
      h.wide[0] = slots;
      const int accumulated = __popc(accumulated_rows);
      if (accumulated > 0) {
        spgemm_count(p.counters, spgemm_counter_group_sizes + spgemm_log2(g), 1);
        spgemm_count(p.counters, spgemm_counter_hash_blocks, 1);
        spgemm_count(p.counters, spgemm_counter_multi_row_blocks, count > 1 ? 1 : 0);
        if (global) spgemm_count(p.counters, spgemm_counter_global_rows, static_cast<unsigned long long>(accumulated));
      }
      spgemm_count(p.counters, spgemm_counter_direct_rows, static_cast<unsigned long long>(__popc(direct_rows)));
    }
  }
  __syncthreads();
}

/// The compound key of column `col` in local row r (several rows per block), else the column.
__device__ __forceinline__ unsigned spgemm_key(int r, int count, unsigned col) {
  return count > 1 ? (static_cast<unsigned>(r) << spgemm_compound_shift) | col : col;
}

/// The local row whose accumulated A entries include flattened entry e (prefix ascending).
__device__ __forceinline__ int spgemm_local_row(const int64_t* prefix, int64_t e) {
  int r = 0;
  while (prefix[r + 1] <= e) ++r;
  return r;
}

// ------------------------------------------------------------------------------------------------
// Global load balancing: bins

/// One block of rows per turn (grid-stride over tiles of blockDim.x rows; a multiple of 32). Count
/// pass: per bin its rows, largest need and range (one atomic per bin and block); symbolic: also
/// the lengths of empty and direct rows. Write pass: every listed row at bin_offset[bin] + its
/// rank among the bin's rows (the block's position reserved with one atomic per bin, then the
/// rows of the block in row order: per warp by ballots, across warps by an exclusive sum), and
/// for merge_bin the block merging of Algorithm 2 on the block's rows of that bin: at steps 1, 2,
/// 4, 8, 16 two neighbouring groups that are complete merge while their needs fit merge_keys,
/// which gives blocks of at most 32 consecutive rows of the bin; their descriptors are appended
/// with one atomic per block.
template <class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_bin_kernel(const SpgemmBinArgs<Ordinal, Offset> a) {
  constexpr int NB = spgemm_cuda_num_bins;
  SPROCKET_CUDA_SHARED(unsigned, s_warp, [NB][spgemm_warp_size]);
  SPROCKET_CUDA_SHARED(unsigned long long, s_block, [3][NB]);
  SPROCKET_CUDA_SHARED(int, s_need, [spgemm_cuda_max_threads]);
  SPROCKET_CUDA_SHARED(int, s_group, [spgemm_cuda_max_threads]);
  SPROCKET_CUDA_SHARED(unsigned, s_leaders, [spgemm_warp_size]);
  SPROCKET_CUDA_SHARED(unsigned long long, s_descriptor_base, [1]);
  const int T = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int lane = t % spgemm_warp_size, warp = t / spgemm_warp_size, warps = T / spgemm_warp_size;
  const unsigned lanes_below = (1u << lane) - 1u;
  for (int64_t tile = blockIdx.x; tile * T < a.num_rows; tile += gridDim.x) {
    const int64_t i = tile * T + t;
    int bin = -1;
    int64_t need = 0, range = 0;
    if (i < a.num_rows) {
      const int64_t products = a.row_products[i];
      range = products > 0 ? static_cast<int64_t>(a.row_col_max[i]) - static_cast<int64_t>(a.row_col_min[i]) + 1 : 0;
      const int64_t len_a = static_cast<int64_t>(a.a_row_map[i + 1]) - static_cast<int64_t>(a.a_row_map[i]);
      const int64_t nnz =
          a.c_row_map ? static_cast<int64_t>(a.c_row_map[i + 1]) - static_cast<int64_t>(a.c_row_map[i]) : 0;
      bin = spgemm_row_bin(a.rule, len_a, products, range, nnz, need);
      if (a.counts && (bin < 0 || bin == spgemm_cuda_direct_bin))
        a.counts[i] = static_cast<Offset>(bin < 0 ? 0 : products);
    }
    if (t < NB) {
      s_block[0][t] = 0;
      s_block[1][t] = 0;
      s_block[2][t] = 0;
    }
    unsigned rank = 0;
    for (int b = 0; b < NB; ++b) {
      const unsigned m = __ballot_sync(spgemm_full_mask, bin == b);
      if (bin == b) rank = static_cast<unsigned>(__popc(m & lanes_below));
      if (lane == 0) s_warp[b][warp] = static_cast<unsigned>(__popc(m));
    }
    __syncthreads();
    if (!a.write) {
      if (bin >= 0) {
        atomicMax(&s_block[1][bin], static_cast<unsigned long long>(need));
        atomicMax(&s_block[2][bin], static_cast<unsigned long long>(range));
      }
      __syncthreads();
      if (t < NB) {
        unsigned long long rows = 0;
        for (int w = 0; w < warps; ++w) rows += s_warp[t][w];
        if (rows > 0) {
          atomicAdd(a.state + spgemm_state_counts + t, rows);
          atomicMax(a.state + spgemm_state_max_need + t, s_block[1][t]);
          atomicMax(a.state + spgemm_state_max_range + t, s_block[2][t]);
        }
      }
      __syncthreads();
      continue;
    }
    if (t < NB) {
      unsigned run = 0;
      for (int w = 0; w < warps; ++w) {
        const unsigned c = s_warp[t][w];
        s_warp[t][w] = run;
        run += c;
      }
      s_block[0][t] = run;
      s_block[1][t] = run > 0 && a.bin_offset[t] >= 0
                          ? atomicAdd(a.state + spgemm_state_cursors + t, static_cast<unsigned long long>(run))
                          : 0;
    }
    __syncthreads();
    const bool listed = bin >= 0 && a.bin_offset[bin] >= 0;
    const int64_t local = listed ? static_cast<int64_t>(s_warp[bin][warp]) + rank : 0;
    if (listed) a.list[a.bin_offset[bin] + static_cast<int64_t>(s_block[1][bin]) + local] = static_cast<Ordinal>(i);
    if (a.merge_bin >= 0) {
      const int count = static_cast<int>(s_block[0][a.merge_bin]);
      if (bin == a.merge_bin) {
        s_need[local] = static_cast<int>(need < 0x7fffffff ? need : 0x7fffffff);
        s_group[local] = 1;
      }
      __syncthreads();
      for (int step = 1; step < spgemm_max_block_rows; step *= 2) {
        const int k = 2 * step * t;
        if (k + step < count) {
          const int left = s_group[k], right = s_group[k + step];
          const int complete_right = count - k - step < step ? count - k - step : step;
          if (left == step && right == complete_right &&
              static_cast<int64_t>(s_need[k]) + s_need[k + step] <= a.merge_keys) {
            s_need[k] += s_need[k + step];
            s_group[k] = step + right;
            s_group[k + step] = 0;
          }
        }
        __syncthreads();
      }
      const bool leader = t < count && s_group[t] > 0;
      const unsigned m = __ballot_sync(spgemm_full_mask, leader);
      if (lane == 0) s_leaders[warp] = static_cast<unsigned>(__popc(m));
      __syncthreads();
      if (t == 0) {
        unsigned run = 0;
        for (int w = 0; w < warps; ++w) {
          const unsigned c = s_leaders[w];
          s_leaders[w] = run;
          run += c;
        }
        s_descriptor_base[0] =
            run > 0 ? atomicAdd(a.state + spgemm_state_merged, static_cast<unsigned long long>(run)) : 0;
      }
      __syncthreads();
      if (leader) {
        const unsigned long long d =
            s_descriptor_base[0] + s_leaders[warp] + static_cast<unsigned>(__popc(m & lanes_below));
        const unsigned long long position = s_block[1][a.merge_bin] + static_cast<unsigned long long>(t);
        a.descriptors[d] = position << spgemm_descriptor_shift | static_cast<unsigned long long>(s_group[t]);
      }
    }
    __syncthreads();
  }
}

// ------------------------------------------------------------------------------------------------
// Symbolic pass

/// Row lengths of C through a hash map of keys: in shared memory (table.slots slots; a block of
/// several rows keys its columns by local row) or, with table.global_keys, in block b's global
/// table sized from the row's need. Empty rows get 0, direct rows B's row length. A shared map
/// that runs full (only rows hashed speculatively in the largest configuration) sends the
/// block's rows to table.overflow_list for the global redo, without writing their lengths.
template <class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_symbolic_hash_kernel(const SpgemmPattern<Ordinal, Offset> p, const SpgemmBlocks<Ordinal> blocks,
                                const SpgemmTable table, Offset* counts) {
  SPROCKET_CUDA_SHARED(int64_t, s_prefix, [spgemm_max_block_rows + 1]);
  SPROCKET_CUDA_SHARED(Ordinal, s_rows, [spgemm_max_block_rows]);
  SPROCKET_CUDA_SHARED(int, s_counts, [spgemm_max_block_rows]);
  SPROCKET_CUDA_SHARED(int, s_misc, [8]);
  SPROCKET_CUDA_SHARED(int64_t, s_wide, [2]);
  const SpgemmHeader<Ordinal> h{s_prefix, s_rows, s_counts, s_misc, s_wide};
  const bool global = table.global_keys != nullptr;
  unsigned* keys = global ? table.global_keys + static_cast<int64_t>(blockIdx.x) * table.global_slots
                          : SPROCKET_CUDA_DYNAMIC_SHARED(unsigned);
  const int T = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int64_t num_blocks = spgemm_num_blocks(blocks);
  for (int64_t block = blockIdx.x; block < num_blocks; block += gridDim.x) {
    spgemm_load_block(p, blocks, block, static_cast<const Offset*>(nullptr), global, table.slots, table.global_slots,
                      h);
    const int count = s_misc[spgemm_misc_rows], g = s_misc[spgemm_misc_group];
    const unsigned slots = static_cast<unsigned>(s_wide[0]);
    const int64_t entries = s_prefix[count];
    if (entries > 0) {
      for (unsigned s = t; s < slots; s += T) keys[s] = spgemm_empty_key;
      __syncthreads();
      const int groups = T / g, group = t / g, lane = t % g;
      for (int64_t e = group; e < entries; e += groups) {
        if (spgemm_volatile_load(s_misc + spgemm_misc_overflow)) break;
        const int r = spgemm_local_row(s_prefix, e);
        const Ordinal row = s_rows[r];
        const Ordinal j = p.a_entries[static_cast<int64_t>(p.a_row_map[row]) + (e - s_prefix[r])];
        const int64_t q1 = static_cast<int64_t>(p.b_row_map[j + 1]);
        for (int64_t q = static_cast<int64_t>(p.b_row_map[j]) + lane; q < q1; q += g) {
          const int inserted =
              spgemm_insert_key(keys, slots, spgemm_key(r, count, static_cast<unsigned>(p.b_entries[q])));
          if (inserted > 0) {
            atomicAdd(s_counts + r, 1);
          } else if (inserted < 0) {
            s_misc[spgemm_misc_overflow] = 1;
            break;
          }
        }
      }
      __syncthreads();
    }
    if (t < count) {
      const Ordinal row = s_rows[t];
      const bool accumulated = (s_misc[spgemm_misc_accumulated] >> t) & 1;
      if (!accumulated) {
        counts[row] = static_cast<Offset>((s_misc[spgemm_misc_direct] >> t) & 1 ? p.row_products[row] : 0);
      } else if (s_misc[spgemm_misc_overflow]) {
        // Only rows hashed speculatively can overflow, and their launch has the list; a map that
        // runs full elsewhere would be a sizing bug: it is counted, and the row keeps no length.
        if (table.overflow_list) {
          const unsigned long long at = atomicAdd(table.overflow_count, 1ull);
          static_cast<Ordinal*>(table.overflow_list)[at] = row;
        }
        spgemm_count(p.counters, spgemm_counter_overflow_rows, 1);
      } else {
        counts[row] = static_cast<Offset>(s_counts[t]);
      }
    }
    __syncthreads();
  }
}

/// Row lengths of C through a bitmask over the row's column range [min, max], in chunks of
/// `columns` bits (dynamic shared memory); one row per block. The groups set the bits of their
/// rows of B in the chunk with atomicOr (B's rows sorted: from a binary search for the chunk's
/// first column, stopping at its end; otherwise every entry is tested), the block counts them
/// with popc. Empty and direct rows as in the hash kernel.
template <class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_symbolic_dense_kernel(const SpgemmPattern<Ordinal, Offset> p, const SpgemmBlocks<Ordinal> blocks,
                                 const int64_t columns, Offset* counts) {
  SPROCKET_CUDA_SHARED(unsigned long long, s_count, [2]);
  unsigned* mask = SPROCKET_CUDA_DYNAMIC_SHARED(unsigned);
  const int T = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int64_t num_blocks = spgemm_num_blocks(blocks);
  for (int64_t block = blockIdx.x; block < num_blocks; block += gridDim.x) {
    const Ordinal row = spgemm_row_at(blocks, block);
    const int64_t a0 = static_cast<int64_t>(p.a_row_map[row]), a1 = static_cast<int64_t>(p.a_row_map[row + 1]);
    const int64_t products = p.row_products[row];
    if (products == 0 || (p.direct && a1 - a0 == 1)) {  // the same for every thread of the block
      if (t == 0) {
        counts[row] = static_cast<Offset>(products);
        spgemm_count(p.counters, spgemm_counter_direct_rows, products > 0 ? 1 : 0);
      }
      continue;
    }
    const int64_t lo = static_cast<int64_t>(p.row_col_min[row]), hi = static_cast<int64_t>(p.row_col_max[row]);
    const int g = spgemm_group_size(T, a1 - a0, products, static_cast<int64_t>(p.row_longest_b[row]), p.forced_group);
    const int groups = T / g, group = t / g, lane = t % g;
    int64_t total = 0, chunk = 0;
    for (int64_t c0 = lo; c0 <= hi; c0 += columns, ++chunk) {
      const int64_t c1 = hi + 1 < c0 + columns ? hi + 1 : c0 + columns;
      const int64_t words = (c1 - c0 + 31) / 32;
      for (int64_t w = t; w < words; w += T) mask[w] = 0u;
      if (t == 0) s_count[chunk & 1] = 0;
      __syncthreads();
      for (int64_t k = a0 + group; k < a1; k += groups) {
        const Ordinal j = p.a_entries[k];
        int64_t q = static_cast<int64_t>(p.b_row_map[j]);
        const int64_t q1 = static_cast<int64_t>(p.b_row_map[j + 1]);
        if (p.b_sorted) {
          q = spgemm_lower_bound(p.b_entries, q, q1, c0) + lane;
          for (; q < q1; q += g) {
            const int64_t col = static_cast<int64_t>(p.b_entries[q]);
            if (col >= c1) break;
            atomicOr(mask + (col - c0) / 32, 1u << ((col - c0) % 32));
          }
        } else {
          for (q += lane; q < q1; q += g) {
            const int64_t col = static_cast<int64_t>(p.b_entries[q]);
            if (col >= c0 && col < c1) atomicOr(mask + (col - c0) / 32, 1u << ((col - c0) % 32));
          }
        }
      }
      __syncthreads();
      unsigned long long bits = 0;
      for (int64_t w = t; w < words; w += T) bits += static_cast<unsigned long long>(__popc(mask[w]));
      if (bits > 0) atomicAdd(s_count + (chunk & 1), bits);
      __syncthreads();
      total += static_cast<int64_t>(s_count[chunk & 1]);
    }
    if (t == 0) {
      counts[row] = static_cast<Offset>(total);
      spgemm_count(p.counters, spgemm_counter_group_sizes + spgemm_log2(g), 1);
      spgemm_count(p.counters, spgemm_counter_dense_chunks, static_cast<unsigned long long>(chunk));
      spgemm_count(p.counters, spgemm_counter_dense_rows, 1);
    }
    __syncthreads();
  }
}

// ------------------------------------------------------------------------------------------------
// Numeric pass

/// The empty slot of a table about to be sorted: larger than every key (a compound key's column
/// is below 2^27 - 1, a plain one below 2^31 - 1), where spgemm_empty_key is not.
inline constexpr unsigned spgemm_sorted_empty_key = 0xffffffffu;

/// One comparator of a bitonic step held in registers: this lane's element against the one of
/// lane `lane ^ distance` (the same register), this lane the lower index when `lower`. The lower
/// keeps the smaller key, the upper the larger; the value follows its key.
template <class Scalar>
__device__ __forceinline__ void spgemm_bitonic_exchange(unsigned& key, Scalar& value, int distance, bool lower) {
  const unsigned other = __shfl_xor_sync(spgemm_full_mask, key, distance);
  const Scalar other_value = __shfl_xor_sync(spgemm_full_mask, value, distance);
  if (lower ? other < key : other > key) {
    key = other;
    value = other_value;
  }
}

/// The steps of span 64 and below of merging blocks of k (k <= 64: every step of the sort up to
/// blocks of 64), in registers: warp w takes the 64-element chunks w, w + T / 32, ..., its lane l
/// holding elements 64 c + l (x0) and 64 c + 32 + l (x1). A span of 64 pairs x0 with x1 in one lane,
/// a shorter one lanes l and l ^ (span - 1) (the block's mirror) or l ^ (span / 2). Elements from n
/// on read as the largest key and are not written back; the hash table's empty key is read as the
/// largest too (written back so by the first call, which reads every element).
template <class Scalar>
__device__ __forceinline__ void spgemm_bitonic_warp_steps(unsigned* keys, Scalar* values, unsigned n, unsigned P,
                                                          unsigned k, int t, int T) {
  const int lane = t % spgemm_warp_size;
  for (unsigned chunk = static_cast<unsigned>(t / spgemm_warp_size); chunk < (P + 63) / 64;
       chunk += static_cast<unsigned>(T / spgemm_warp_size)) {
    const unsigned e0 = chunk * 64 + static_cast<unsigned>(lane), e1 = e0 + 32;
    unsigned x0 = spgemm_sorted_empty_key, x1 = spgemm_sorted_empty_key;
    Scalar v0 = Scalar(0), v1 = Scalar(0);
    if (e0 < n) {
      x0 = keys[e0];
      v0 = values[e0];
      if (x0 == spgemm_empty_key) x0 = spgemm_sorted_empty_key;
    }
    if (e1 < n) {
      x1 = keys[e1];
      v1 = values[e1];
      if (x1 == spgemm_empty_key) x1 = spgemm_sorted_empty_key;
    }
    for (unsigned kk = k <= 64 ? 2 : k; kk <= k; kk *= 2) {
      for (unsigned j = kk < 64 ? kk : 64; j >= 2; j /= 2) {
        if (j == 64) {
          // x0 against x1: the mirror of a block of 64 (x0 at l, its mirror x1 of lane 31 - l),
          // else the half-cleaner's x1 at l + 32.
          if (j == kk) {
            const unsigned m1 = __shfl_xor_sync(spgemm_full_mask, x1, 31);
            const Scalar w1 = __shfl_xor_sync(spgemm_full_mask, v1, 31);
            const unsigned m0 = __shfl_xor_sync(spgemm_full_mask, x0, 31);
            const Scalar w0 = __shfl_xor_sync(spgemm_full_mask, v0, 31);
            if (m1 < x0) {
              x0 = m1;
              v0 = w1;
            }
            if (m0 > x1) {
              x1 = m0;
              v1 = w0;
            }
          } else if (x0 > x1) {
            const unsigned x = x0;
            x0 = x1;
            x1 = x;
            const Scalar v = v0;
            v0 = v1;
            v1 = v;
          }
          continue;
        }
        const int distance = j == kk ? static_cast<int>(j) - 1 : static_cast<int>(j) / 2;
        const bool lower = (lane & static_cast<int>(j / 2)) == 0;
        spgemm_bitonic_exchange(x0, v0, distance, lower);
        spgemm_bitonic_exchange(x1, v1, distance, lower);
      }
    }
    if (e0 < n) {
      keys[e0] = x0;
      values[e0] = v0;
    }
    if (e1 < n) {
      keys[e1] = x1;
      values[e1] = v1;
    }
  }
}

/// Sorts a hash table's keys[0, n) ascending, values moving with their keys, its empty slots
/// (spgemm_empty_key) last as spgemm_sorted_empty_key: a bitonic network in its
/// ascending-only form (each merge of blocks of k first compares i with its mirror in the block,
/// then the half-cleaners of k / 2, k / 4, ..., 2), so that a comparison never moves a key to a
/// larger index than its partner's: indices from n up to the next power of two P stand for keys
/// larger than all, are never touched, and n need not be a power of two. log2(P) (log2(P) + 1) / 2
/// steps of P / 2 comparisons, where ranking each key by counting its row's smaller keys read the
/// whole table once per key (n^2 / 32 shared loads per block, most of a first pass). The steps
/// of span 64 and below run in registers, a warp per 64-element chunk (spgemm_bitonic_warp_steps:
/// one read and one write of shared memory per element for all of a merge's short steps); the
/// longer ones in shared memory between barriers of the block. Called by every thread of the
/// block after a barrier; ends with one.
template <class Scalar>
__device__ void spgemm_bitonic_sort(unsigned* keys, Scalar* values, unsigned n, int t, int T) {
  unsigned P = 1;
  while (P < n) P *= 2;
  spgemm_bitonic_warp_steps(keys, values, n, P, P < 64 ? P : 64, t, T);
  for (unsigned k = 128; k <= P; k *= 2) {
    for (unsigned j = k; j > 64; j /= 2) {
      __syncthreads();
      // Comparison q pairs lo (q's offset in its half-block, in block q / (j / 2) of j elements)
      // with its mirror in the block (j == k) or with lo + j / 2 (j and k powers of two).
      const unsigned half = j / 2;
      for (unsigned q = static_cast<unsigned>(t); q < P / 2; q += static_cast<unsigned>(T)) {
        const unsigned base = (q & ~(half - 1)) * 2, offset = q & (half - 1);
        const unsigned lo = base + offset, hi = j == k ? base + j - 1 - offset : lo + half;
        if (hi >= n) continue;
        const unsigned a = keys[lo], b = keys[hi];
        if (a > b) {
          keys[lo] = b;
          keys[hi] = a;
          const Scalar x = values[lo];
          values[lo] = values[hi];
          values[hi] = x;
        }
      }
    }
    __syncthreads();
    spgemm_bitonic_warp_steps(keys, values, n, P, k, t, T);
  }
  __syncthreads();
}

/// Columns and values through a hash map of keys and values (shared memory: keys then values,
/// table.slots each; or block b's global table). first: the keys found are C's columns, written
/// in order of their columns when table.sort_table (the smallest configurations, shared tables: the
/// table sorted in place by spgemm_bitonic_sort), else in the order the map gives (atomic
/// positions; sorted afterwards by spgemm_sort_kernel if asked). Re-runs (!first): C's columns are
/// inserted first, the products accumulate into them, each entry of C reads its value back, in C's
/// order. Direct rows copy B's row scaled.
template <bool first, class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_numeric_hash_kernel(const SpgemmPattern<Ordinal, Offset> p, const SpgemmValues<Scalar> v,
                               const SpgemmBlocks<Ordinal> blocks, const SpgemmTable table,
                               const SpgemmOutput<Scalar, Ordinal, Offset> c) {
  SPROCKET_CUDA_SHARED(int64_t, s_prefix, [spgemm_max_block_rows + 1]);
  SPROCKET_CUDA_SHARED(Ordinal, s_rows, [spgemm_max_block_rows]);
  SPROCKET_CUDA_SHARED(int, s_counts, [spgemm_max_block_rows]);
  SPROCKET_CUDA_SHARED(int, s_misc, [8]);
  SPROCKET_CUDA_SHARED(int64_t, s_wide, [2]);
  const SpgemmHeader<Ordinal> h{s_prefix, s_rows, s_counts, s_misc, s_wide};
  const bool global = table.global_keys != nullptr;
  unsigned* keys;
  Scalar* values;
  if (global) {
    keys = table.global_keys + static_cast<int64_t>(blockIdx.x) * table.global_slots;
    values = static_cast<Scalar*>(table.global_values) + static_cast<int64_t>(blockIdx.x) * table.global_slots;
  } else {
    keys = SPROCKET_CUDA_DYNAMIC_SHARED(unsigned);
    // values after the keys, 8-byte aligned
    values = reinterpret_cast<Scalar*>(keys + (table.slots + 1) / 2 * 2);
  }
  const int T = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int64_t num_blocks = spgemm_num_blocks(blocks);
  for (int64_t block = blockIdx.x; block < num_blocks; block += gridDim.x) {
    spgemm_load_block(p, blocks, block, c.row_map, global, table.slots, table.global_slots, h);
    const int count = s_misc[spgemm_misc_rows], g = s_misc[spgemm_misc_group];
    const unsigned accumulated = static_cast<unsigned>(s_misc[spgemm_misc_accumulated]);
    const unsigned direct = static_cast<unsigned>(s_misc[spgemm_misc_direct]);
    const unsigned slots = static_cast<unsigned>(s_wide[0]);
    const int64_t entries = s_prefix[count];
    if (accumulated != 0) {
      for (unsigned s = t; s < slots; s += T) {
        keys[s] = spgemm_empty_key;
        values[s] = Scalar(0);
      }
      __syncthreads();
      if (!first) {
        for (int r = 0; r < count; ++r) {
          if (!((accumulated >> r) & 1)) continue;
          const int64_t c0 = static_cast<int64_t>(c.row_map[s_rows[r]]);
          const int64_t n = static_cast<int64_t>(c.row_map[s_rows[r] + 1]) - c0;
          for (int64_t q = t; q < n; q += T)
            spgemm_insert_key(keys, slots, spgemm_key(r, count, static_cast<unsigned>(c.entries[c0 + q])));
        }
        __syncthreads();
      }
      const int groups = T / g, group = t / g, lane = t % g;
      for (int64_t e = group; e < entries; e += groups) {
        const int r = spgemm_local_row(s_prefix, e);
        const int64_t k = static_cast<int64_t>(p.a_row_map[s_rows[r]]) + (e - s_prefix[r]);
        const Ordinal j = p.a_entries[k];
        const Scalar a = v.a[k];
        const int64_t q1 = static_cast<int64_t>(p.b_row_map[j + 1]);
        for (int64_t q = static_cast<int64_t>(p.b_row_map[j]) + lane; q < q1; q += g) {
          const int64_t s =
              spgemm_find_slot(keys, slots, spgemm_key(r, count, static_cast<unsigned>(p.b_entries[q])), first);
          if (s >= 0) atomicAdd(values + s, a * v.b[q]);
        }
      }
      __syncthreads();
      // Keys and values are read back volatile: in a global table the atomics happened in L2, and
      // the block's earlier rows may have left the table's lines in L1.
      if (first && table.sort_table) {
        // The table sorted in place: compound keys order by row, then column, and the empty slots
        // go last, so row r's columns end up in order at s_counts[r] (the rows accumulated before
        // r) onwards. (The sort's barriers publish s_counts.)
        if (t == 0) {
          int before = 0;
          for (int r = 0; r < count; ++r) {
            s_counts[r] = before;
            if ((accumulated >> r) & 1)
              before += static_cast<int>(c.row_map[s_rows[r] + 1] - c.row_map[s_rows[r]]);
          }
        }
        spgemm_bitonic_sort(keys, values, slots, t, T);
        for (unsigned s = t; s < slots; s += T) {
          const unsigned key = keys[s];
          if (key == spgemm_sorted_empty_key) continue;
          const int r = count > 1 ? static_cast<int>(key >> spgemm_compound_shift) : 0;
          const int64_t position = static_cast<int64_t>(c.row_map[s_rows[r]]) + (static_cast<int64_t>(s) - s_counts[r]);
          c.entries[position] = static_cast<Ordinal>(count > 1 ? key & spgemm_column_mask : key);
          c.values[position] = values[s];
        }
      } else if (first) {
        for (unsigned s = t; s < slots; s += T) {
          const unsigned key = spgemm_volatile_load(keys + s);
          if (key == spgemm_empty_key) continue;
          const int r = count > 1 ? static_cast<int>(key >> spgemm_compound_shift) : 0;
          const int64_t position = static_cast<int64_t>(c.row_map[s_rows[r]]) + atomicAdd(s_counts + r, 1);
          c.entries[position] = static_cast<Ordinal>(count > 1 ? key & spgemm_column_mask : key);
          c.values[position] = spgemm_volatile_load(values + s);
        }
      } else {
        for (int r = 0; r < count; ++r) {
          if (!((accumulated >> r) & 1)) continue;
          const int64_t c0 = static_cast<int64_t>(c.row_map[s_rows[r]]);
          const int64_t n = static_cast<int64_t>(c.row_map[s_rows[r] + 1]) - c0;
          for (int64_t q = t; q < n; q += T) {
            const int64_t s =
                spgemm_find_slot(keys, slots, spgemm_key(r, count, static_cast<unsigned>(c.entries[c0 + q])), false);
            c.values[c0 + q] = s >= 0 ? spgemm_volatile_load(values + s) : Scalar(0);
          }
        }
      }
      if (t == 0 && table.sort_table)
        spgemm_count(p.counters, spgemm_counter_table_sorted_rows, static_cast<unsigned long long>(__popc(accumulated)));
    }
    for (int r = 0; r < count; ++r)
      if ((direct >> r) & 1) spgemm_direct_copy<first>(p, v, c, s_rows[r], t, T);
    __syncthreads();
  }
}

/// Numeric re-runs by position (spgemm_cuda_decide_reuse: C's rows sorted, B's rows strictly
/// increasing): a group of `group` lanes per row of C, rows grid-stride. The group zeroes its
/// row's slots in shared memory (`capacity` slots per group, C's longest row), then walks A's row
/// in order, `group` entries at a time: each lane loads one entry and its row of B's bounds, and the
/// group takes them one by one (broadcast by shuffles), its lanes over the entry's row of B. A
/// product's slot is its column's position in C's row (binary search; B's row is a subset of C's),
/// so the lanes of one entry of A write distinct slots and the group only synchronizes between
/// entries: no hashing, atomics or sort, and every value summed in A's order. The slots are
/// written to C in its order, coalesced. With kept positions the first re-run writes each
/// product's slot and later ones read it (one streamed load instead of a search, B's columns
/// unread); a position outside the row (a pattern changed against the plan's contract) is skipped
/// rather than written out of bounds.
template <class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_numeric_reuse_kernel(const SpgemmPattern<Ordinal, Offset> p, const SpgemmValues<Scalar> v,
                                const SpgemmOutput<Scalar, Ordinal, Offset> c, const int group,
                                const int64_t capacity, const SpgemmPositions positions) {
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t & (group - 1);
  const int groups = static_cast<int>(blockDim.x) / group;
  Scalar* const slots = SPROCKET_CUDA_DYNAMIC_SHARED(Scalar) + static_cast<int64_t>(t / group) * capacity;
  // The group's lanes within the warp (groups never straddle warps: group divides 32).
  const unsigned mask =
      group == spgemm_warp_size ? spgemm_full_mask : ((1u << group) - 1u) << ((t % spgemm_warp_size) & ~(group - 1));
  const int64_t stride = static_cast<int64_t>(gridDim.x) * groups;
  const bool read = positions.at != nullptr && !positions.record;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * groups + t / group; row < p.num_rows; row += stride) {
    const int64_t c0 = static_cast<int64_t>(c.row_map[row]);
    const int64_t n = static_cast<int64_t>(c.row_map[row + 1]) - c0;
    const Ordinal* const columns = c.entries + c0;
    for (int64_t q = lane; q < n; q += group) slots[q] = Scalar(0);
    __syncwarp(mask);
    int64_t product = positions.at != nullptr ? positions.row_first[row] : 0;
    const int64_t a1 = static_cast<int64_t>(p.a_row_map[row + 1]);
    for (int64_t base = static_cast<int64_t>(p.a_row_map[row]); base < a1; base += group) {
      Scalar a = Scalar(0);
      long long b0 = 0, b1 = 0;
      if (base + lane < a1) {
        const Ordinal j = p.a_entries[base + lane];
        a = v.a[base + lane];
        b0 = static_cast<long long>(p.b_row_map[j]);
        b1 = static_cast<long long>(p.b_row_map[j + 1]);
      }
      const int entries = static_cast<int>(a1 - base < group ? a1 - base : group);
      for (int e = 0; e < entries; ++e) {
        const Scalar ae = __shfl_sync(mask, a, e, group);
        const long long q0 = __shfl_sync(mask, b0, e, group), q1 = __shfl_sync(mask, b1, e, group);
        for (long long q = q0 + lane; q < q1; q += group) {
          int64_t at;
          if (read) {
            at = positions.at[product + (q - q0)];
          } else {
            const Ordinal column = p.b_entries[q];
            at = spgemm_lower_bound(columns, 0, n, static_cast<int64_t>(column));
            if (at < n && columns[at] != column) at = n;
            if (positions.record) positions.at[product + (q - q0)] = static_cast<unsigned short>(at < n ? at : 0xffff);
          }
          if (at < n) slots[at] += ae * v.b[q];
        }
        product += q1 - q0;
        __syncwarp(mask);
      }
    }
    for (int64_t q = lane; q < n; q += group) c.values[c0 + q] = slots[q];
    __syncwarp(mask);
  }
}

/// Columns and values through a dense array over the row's column range, in chunks of `columns`
/// (values, then flag bits: dynamic shared memory); one row per block. first: per chunk the
/// flagged columns are compacted in order by a block prefix sum over the flag words (each thread
/// a run of words) and appended to C's row: sorted output. Re-runs: C's row is sorted (this
/// kernel wrote it), so a chunk's entries are found by a binary search and read their values.
template <bool first, class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_numeric_dense_kernel(const SpgemmPattern<Ordinal, Offset> p, const SpgemmValues<Scalar> v,
                                const SpgemmBlocks<Ordinal> blocks, const int64_t columns,
                                const SpgemmOutput<Scalar, Ordinal, Offset> c) {
  SPROCKET_CUDA_SHARED(int64_t, s_scan, [spgemm_warp_size]);
  Scalar* accumulator = SPROCKET_CUDA_DYNAMIC_SHARED(Scalar);
  unsigned* flags = reinterpret_cast<unsigned*>(accumulator + columns);
  const int T = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int64_t num_blocks = spgemm_num_blocks(blocks);
  for (int64_t block = blockIdx.x; block < num_blocks; block += gridDim.x) {
    const Ordinal row = spgemm_row_at(blocks, block);
    const int64_t a0 = static_cast<int64_t>(p.a_row_map[row]), a1 = static_cast<int64_t>(p.a_row_map[row + 1]);
    const int64_t products = p.row_products[row];
    if (products == 0) continue;  // the same for every thread of the block
    if (p.direct && a1 - a0 == 1) {
      spgemm_direct_copy<first>(p, v, c, row, t, T);
      if (t == 0) spgemm_count(p.counters, spgemm_counter_direct_rows, 1);
      continue;
    }
    const int64_t lo = static_cast<int64_t>(p.row_col_min[row]), hi = static_cast<int64_t>(p.row_col_max[row]);
    const int64_t c_begin = static_cast<int64_t>(c.row_map[row]), c_end = static_cast<int64_t>(c.row_map[row + 1]);
    const int g = spgemm_group_size(T, a1 - a0, products, static_cast<int64_t>(p.row_longest_b[row]), p.forced_group);
    const int groups = T / g, group = t / g, lane = t % g;
    int64_t done = 0, chunk = 0;
    for (int64_t c0 = lo; c0 <= hi; c0 += columns, ++chunk) {
      const int64_t c1 = hi + 1 < c0 + columns ? hi + 1 : c0 + columns;
      const int64_t width = c1 - c0, words = (width + 31) / 32;
      for (int64_t x = t; x < width; x += T) accumulator[x] = Scalar(0);
      if (first)
        for (int64_t w = t; w < words; w += T) flags[w] = 0u;
      __syncthreads();
      for (int64_t k = a0 + group; k < a1; k += groups) {
        const Ordinal j = p.a_entries[k];
        const Scalar a = v.a[k];
        int64_t q = static_cast<int64_t>(p.b_row_map[j]);
        const int64_t q1 = static_cast<int64_t>(p.b_row_map[j + 1]);
        if (p.b_sorted) q = spgemm_lower_bound(p.b_entries, q, q1, c0);
        for (q += lane; q < q1; q += g) {
          const int64_t col = static_cast<int64_t>(p.b_entries[q]);
          if (col >= c1) {
            if (p.b_sorted) break;
            continue;
          }
          if (col < c0) continue;
          atomicAdd(accumulator + (col - c0), a * v.b[q]);
          if (first) atomicOr(flags + (col - c0) / 32, 1u << ((col - c0) % 32));
        }
      }
      __syncthreads();
      if (first) {
        const int64_t per = (words + T - 1) / T, w0 = t * per, w1 = w0 + per < words ? w0 + per : words;
        int64_t mine = 0;
        for (int64_t w = w0; w < w1; ++w) mine += __popc(flags[w]);
        int64_t total = 0;
        int64_t position = c_begin + done + spgemm_block_exclusive_scan(mine, s_scan, &total);
        for (int64_t w = w0; w < w1; ++w) {
          unsigned bits = flags[w];
          while (bits) {
            const int bit = __ffs(static_cast<int>(bits)) - 1;
            bits &= bits - 1u;
            const int64_t x = w * 32 + bit;
            c.entries[position] = static_cast<Ordinal>(c0 + x);
            c.values[position] = accumulator[x];
            ++position;
          }
        }
        done += total;
      } else {
        const int64_t end = spgemm_lower_bound(c.entries, c_begin + done, c_end, c1);
        for (int64_t q = c_begin + done + t; q < end; q += T)
          c.values[q] = accumulator[static_cast<int64_t>(c.entries[q]) - c0];
        done = end - c_begin;
      }
      __syncthreads();
    }
    if (t == 0) {
      spgemm_count(p.counters, spgemm_counter_group_sizes + spgemm_log2(g), 1);
      spgemm_count(p.counters, spgemm_counter_dense_chunks, static_cast<unsigned long long>(chunk));
      spgemm_count(p.counters, spgemm_counter_dense_rows, 1);
    }
  }
}

/// Direct rows of a binned numeric pass: a warp per row of the list (B's row scaled).
template <bool first, class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_direct_kernel(const SpgemmPattern<Ordinal, Offset> p, const SpgemmValues<Scalar> v, const Ordinal* list,
                         const int64_t count, const SpgemmOutput<Scalar, Ordinal, Offset> c) {
  const int warps = static_cast<int>(blockDim.x / spgemm_warp_size);
  const int lane = static_cast<int>(threadIdx.x % spgemm_warp_size);
  for (int64_t position = static_cast<int64_t>(blockIdx.x) * warps + threadIdx.x / spgemm_warp_size; position < count;
       position += static_cast<int64_t>(gridDim.x) * warps) {
    spgemm_direct_copy<first>(p, v, c, list[position], lane, spgemm_warp_size);
    if (lane == 0) spgemm_count(p.counters, spgemm_counter_direct_rows, 1);
  }
}

/// Sorts rows of C by column (keys unique within a row): bottom-up merge sort, runs of width 1,
/// 2, 4, ...; in each pass every entry finds its place in the merged run as its index in its own
/// run plus the number of smaller keys in the neighbouring run (binary search). Rows of at most
/// shared_pairs entries ping-pong between two halves of dynamic shared memory; longer rows between
/// C's row and the block's buffer at temp_* + blockIdx.x * temp_pairs, ending in C's row.
template <class Scalar, class Ordinal, class Offset>
__global__ void __launch_bounds__(spgemm_cuda_max_threads, spgemm_cuda_min_blocks)
    spgemm_sort_kernel(const SpgemmBlocks<Ordinal> blocks, const SpgemmOutput<Scalar, Ordinal, Offset> c,
                       const int64_t shared_pairs, Ordinal* temp_keys, Scalar* temp_values, const int64_t temp_pairs,
                       unsigned long long* counters) {
  Ordinal* shared_keys = SPROCKET_CUDA_DYNAMIC_SHARED(Ordinal);
  Scalar* shared_values = reinterpret_cast<Scalar*>(shared_keys + (2 * shared_pairs + 1) / 2 * 2);
  const int T = static_cast<int>(blockDim.x), t = static_cast<int>(threadIdx.x);
  const int64_t num_blocks = spgemm_num_blocks(blocks);
  for (int64_t block = blockIdx.x; block < num_blocks; block += gridDim.x) {
    const Ordinal row = spgemm_row_at(blocks, block);
    const int64_t c0 = static_cast<int64_t>(c.row_map[row]);
    const int64_t n = static_cast<int64_t>(c.row_map[row + 1]) - c0;
    if (n <= 1) continue;
    const bool in_shared = n <= shared_pairs;
    Ordinal* from_keys = c.entries + c0;
    Scalar* from_values = c.values + c0;
    Ordinal* to_keys = shared_keys + shared_pairs;
    Scalar* to_values = shared_values + shared_pairs;
    if (!in_shared) {
      to_keys = temp_keys + static_cast<int64_t>(blockIdx.x) * temp_pairs;
      to_values = temp_values + static_cast<int64_t>(blockIdx.x) * temp_pairs;
    } else {
      for (int64_t q = t; q < n; q += T) {
        shared_keys[q] = from_keys[q];
        shared_values[q] = from_values[q];
      }
      from_keys = shared_keys;
      from_values = shared_values;
      __syncthreads();
    }
    for (int64_t width = 1; width < n; width *= 2) {
      for (int64_t q = t; q < n; q += T) {
        const Ordinal key = from_keys[q];
        const int64_t run = q / width, start = run * width;
        const int64_t other = (run ^ 1) * width;
        int64_t before = 0;
        if (other < n) {
          const int64_t other_end = other + width < n ? other + width : n;
          before = spgemm_lower_bound(from_keys, other, other_end, static_cast<int64_t>(key)) - other;
        }
        const int64_t to = (start < other ? start : other) + (q - start) + before;
        to_keys[to] = key;
        to_values[to] = from_values[q];
      }
      __syncthreads();
      Ordinal* k = from_keys;
      from_keys = to_keys;
      to_keys = k;
      Scalar* x = from_values;
      from_values = to_values;
      to_values = x;
    }
    if (from_keys != c.entries + c0) {
      for (int64_t q = t; q < n; q += T) {
        c.entries[c0 + q] = from_keys[q];
        c.values[c0 + q] = from_values[q];
      }
    }
    if (t == 0)
      spgemm_count(counters, in_shared ? spgemm_counter_merge_sorted_shared : spgemm_counter_merge_sorted_global, 1);
    __syncthreads();
  }
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
