#pragma once
// Host (OpenMP / Serial) SpGEMM, Backend::native on a host space: the paper's structure with
// thread-private accumulators (entry points spgemm_symbolic and spgemm_numeric at the end).
//
// Work: rows of C in chunks of consecutive rows, taken dynamically by the workers (one per
// thread of the space) from a shared counter, each worker with its own accumulators (kept by the
// plan, SpgemmHostSchedule::workspace, so numeric re-runs allocate nothing). Global load
// balancing (SpgemmBalance::binned) cuts the chunks by work (products, and in the numeric pass
// C's row length) instead of by row count, so neighbouring small rows share a chunk and a heavy
// row sits alone; whether it pays is decided per pass from the ratio of the largest to the
// average row (spgemm_decide_balance, host thresholds in spgemm_defaults.hpp). A product with
// little work runs on the calling thread alone (no parallel region at all).
//
// Accumulators, per row (host_row_kind; SpgemmOptions::accumulator forces one):
//  - direct: a row of A with one entry (when every row of B is sorted without duplicates):
//    C's row is B's row scaled; counted from B's row map alone in the symbolic pass.
//  - dense: a bitmap and a value array over the row's column range [min column, max column]
//    (from the row analysis), both zero between rows. Accumulating a product sets its bit and
//    adds to its value, without a branch (a "new column?" test per product would mispredict
//    about half the time); the symbolic pass then counts the bits, the numeric pass scans the
//    bitmap word by word and emits the row sorted for free, clearing bits and values behind it.
//    Used when the scan costs at most spgemm_host_dense_words_per_key words per key, or for rows
//    too long for the hash table whose range fits spgemm_host_dense_max_columns. The bitmap is
//    aligned to whole 64-column words. When B's rows fold into few words (consecutive columns,
//    as FEM matrices have: spgemm_host_word_fold_min entries a word), the analysis keeps B as
//    words and masks (SpgemmHostColumnWords) and dense rows OR whole masks into the bitmap: the
//    symbolic pass costs a word, not a product, and the numeric pass's products only add values.
//  - hash: linear probing (multiplicative hashing) in a table of a power of two >= 2 keys slots,
//    keys = min(products, range) in the symbolic pass, nnz of C's row in the numeric pass; at
//    most 2 * spgemm_host_hash_max_keys slots, so it stays in L1/L2. The numeric pass extracts
//    the keys into C's row, sorts them and looks each value up.
//  - global_hash: the same for rows beyond the hash table's size whose range is too wide for the
//    dense array, in a larger table per worker sized to the largest such row.
// The row loops are compiled twice where the build targets baseline x86-64: as they are, and for
// AVX2 + FMA + POPCNT + BMI (impl/utils/host_isa.hpp), picked at run time; the bitmap counts and
// scans and the accumulation gain from single-instruction popcount, tzcnt and FMA.
//
// Numeric re-runs (C's columns known) need no keys discovery and no sort: dense rows accumulate
// into the (zero) values and gather C's columns, zeroing them again; hash rows insert C's columns
// first; direct rows scale.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "impl/spgemm/spgemm_analysis.hpp"
#include "impl/utils/host_isa.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define SPROCKET_SPGEMM_INLINE inline __attribute__((always_inline))
#else
#define SPROCKET_SPGEMM_INLINE inline
#endif

namespace Sprocket {
namespace Impl {

/// Per-worker accumulators of the host backend, scalar-agnostic storage (values as raw bytes).
struct SpgemmHostWorkspace {
  struct Worker {
    std::unique_ptr<int32_t[]> hash_keys;      // -1 = empty (set lazily by the worker)
    std::unique_ptr<uint64_t[]> hash_values;   // hash_slots scalars
    std::unique_ptr<uint64_t[]> dense_bits;    // bitmap words, then their summary (see dense_words)
    std::unique_ptr<uint64_t[]> dense_values;  // dense_columns scalars, zero between rows
    std::unique_ptr<int32_t[]> global_keys;
    std::unique_ptr<uint64_t[]> global_values;
    int64_t hash_slots = 0, dense_columns = 0, global_slots = 0;
    bool hash_ready = false, dense_ready = false, global_ready = false;
  };
  std::vector<Worker> workers;
};

namespace host {

enum class RowKind : uint8_t { empty, direct, hash, dense, global_hash };

/// What decides a row's accumulator: the options and what the analysis knows of B.
struct RowPolicy {
  SpgemmAccumulator forced = SpgemmAccumulator::automatic;
  bool direct = false;  // direct_rows and every row of B sorted
};

/// The accumulator of a row with `len_a` entries in A, `products` products, column range `range`
/// and `keys` distinct columns at most (symbolic: min(products, range); numeric: nnz of C's row).
inline RowKind row_kind(const RowPolicy& p, int64_t len_a, int64_t products, int64_t range, int64_t keys) {
  if (products == 0 || keys == 0) return RowKind::empty;
  if (p.direct && len_a == 1) return RowKind::direct;
  switch (p.forced) {
    case SpgemmAccumulator::hash: return keys <= spgemm_host_hash_max_keys ? RowKind::hash : RowKind::global_hash;
    case SpgemmAccumulator::dense: return RowKind::dense;
    case SpgemmAccumulator::global_hash: return RowKind::global_hash;
    case SpgemmAccumulator::automatic: break;
  }
  if (range <= spgemm_host_dense_max_columns &&
      ((range + 63) / 64 <= spgemm_host_dense_words_per_key * keys || keys > spgemm_host_hash_max_keys))
    return RowKind::dense;
  return keys <= spgemm_host_hash_max_keys ? RowKind::hash : RowKind::global_hash;
}

/// Words of a worker's dense bitmap over `columns` columns (any 64-aligned window of them: the
/// range plus a word at each end) followed by its summary (a bit per bitmap word).
inline int64_t dense_words(int64_t columns) { return (columns / 64 + 2) + (columns / 4096 + 2); }

/// Hash table slots for `keys` keys: a power of two >= 2 keys, at least 16.
inline int64_t table_slots(int64_t keys) {
  int64_t s = 16;
  while (s < 2 * keys) s *= 2;
  return s;
}

inline int log2_of(int64_t pow2) {
  int l = 0;
  while ((int64_t(1) << l) < pow2) ++l;
  return l;
}

/// Multiplicative (Fibonacci) hash of a column into a table of 2^log2 slots.
inline uint32_t hash_slot(int32_t column, int log2) {
  return (static_cast<uint32_t>(column) * 2654435769u) >> (32 - log2);
}

/// Bits set in x: the popcount instruction in the ISA copy (hw), SWAR otherwise (the x86-64
/// baseline has no popcnt, and the compiler's fallback is a library call).
template <bool hw>
SPROCKET_SPGEMM_INLINE int64_t count_bits(uint64_t x) {
  if constexpr (hw) {
    return __builtin_popcountll(x);
  } else {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<int64_t>((x * 0x0101010101010101ull) >> 56);
  }
}

/// Sorts n columns in place (insertion sort for short rows).
inline void sort_columns(int32_t* c, int64_t n) {
  if (n <= 32) {
    for (int64_t i = 1; i < n; ++i) {
      const int32_t x = c[i];
      int64_t j = i;
      for (; j > 0 && c[j - 1] > x; --j) c[j] = c[j - 1];
      c[j] = x;
    }
  } else {
    std::sort(c, c + n);
  }
}

/// Raw views of the operands.
template <class Scalar, class Ordinal, class Offset>
struct HostOperands {
  const Offset* a_row_map;
  const Ordinal* a_entries;
  const Scalar* a_values;
  const Offset* b_row_map;
  const Ordinal* b_entries;
  const Scalar* b_values;
  const int64_t* row_products;
  const Ordinal* row_col_min;
  const Ordinal* row_col_max;
  const int64_t* b_word_map;  // B as column words (nullptr: not built)
  const int32_t* b_words;
  const uint64_t* b_masks;
  const int64_t* b_run_map;  // B as column runs (nullptr: not built)
  const int32_t* b_run_first;
  const int32_t* b_run_length;
};

template <class Scalar, class Ordinal, class Offset, class CrsType, class Analysis>
HostOperands<Scalar, Ordinal, Offset> operands(const CrsType& A, const CrsType& B, const Analysis& an) {
  const SpgemmHostColumnWords* w = an.host.b_words.get();
  const SpgemmHostColumnRuns* r = an.host.b_runs.get();
  return {A.graph.row_map.data(),   A.graph.entries.data(), A.values.data(),      B.graph.row_map.data(),
          B.graph.entries.data(),   B.values.data(),        an.row_products.data(), an.row_col_min.data(),
          an.row_col_max.data(),    w ? w->word_map.data() : nullptr, w ? w->words.get() : nullptr,
          w ? w->masks.get() : nullptr, r ? r->run_map.data() : nullptr, r ? r->first.get() : nullptr,
          r ? r->length.get() : nullptr};
}

// ------------------------------------------------------------------------------------------------
// Workers and chunks

/// Runs body(worker, row_begin, row_end) over the chunks: on the calling thread when serial,
/// else one parallel region of `workers` workers taking chunks from a shared counter.
template <class ExecSpace, class Body>
void run_chunks(const ExecSpace& space, const SpgemmHostSchedule& s, const std::vector<int64_t>& chunks, Body&& body) {
  const int64_t num_chunks = static_cast<int64_t>(chunks.size()) - 1;
  if (num_chunks <= 0) return;
  if (s.serial || s.workers <= 1) {
    for (int64_t c = 0; c < num_chunks; ++c) body(0, chunks[c], chunks[c + 1]);
    return;
  }
  std::atomic<int64_t> next{0};
  Kokkos::parallel_for(
      "Sprocket::spgemm::host", Kokkos::RangePolicy<ExecSpace>(space, 0, s.workers), [&](const int64_t w) {
        for (int64_t c = next.fetch_add(1, std::memory_order_relaxed); c < num_chunks;
             c = next.fetch_add(1, std::memory_order_relaxed))
          body(static_cast<int>(w), chunks[c], chunks[c + 1]);
      });
  space.fence();
}

/// Chunk boundaries: `uniform` equal row counts, else equal cost (cost(i) per row, a row heavier
/// than a chunk's share alone in its chunk), about `target_chunks` chunks.
template <class Cost>
std::vector<int64_t> make_chunks(int64_t rows, int64_t target_chunks, bool uniform, Cost&& cost) {
  std::vector<int64_t> b{0};
  if (rows == 0) return b;
  target_chunks = std::max<int64_t>(1, std::min(target_chunks, rows));
  if (uniform) {
    for (int64_t c = 1; c <= target_chunks; ++c) b.push_back(rows * c / target_chunks);
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
  }
  int64_t total = 0;
  for (int64_t i = 0; i < rows; ++i) total += cost(i);
  const int64_t share = std::max<int64_t>(1, (total + target_chunks - 1) / target_chunks);
  int64_t acc = 0;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t c = cost(i);
    if (acc > 0 && acc + c > share) {  // close the chunk before a row that would overflow it
      b.push_back(i);
      acc = 0;
    }
    acc += c;
  }
  b.push_back(rows);
  return b;
}

/// Per-pass row census: counts per accumulator and the largest need of each.
struct Census {
  SpgemmRowCounts rows;
  int64_t hash_keys = 0, dense_range = 0, global_keys = 0;
  int64_t dense_products = 0;
};

template <class Analysis, class Offset, class KeysOf>
Census census(const Analysis& an, const RowPolicy& policy, const Offset* a_row_map, KeysOf&& keys_of) {
  Census c;
  for (int64_t i = 0; i < an.num_rows; ++i) {
    const int64_t products = an.row_products(i);
    const int64_t range = products > 0 ? int64_t(an.row_col_max(i)) - int64_t(an.row_col_min(i)) + 1 : 0;
    const int64_t keys = products > 0 ? keys_of(i, products, range) : 0;
    switch (row_kind(policy, int64_t(a_row_map[i + 1]) - int64_t(a_row_map[i]), products, range, keys)) {
      case RowKind::empty: ++c.rows.empty; break;
      case RowKind::direct: ++c.rows.direct; break;
      case RowKind::hash:
        ++c.rows.hash;
        c.hash_keys = std::max(c.hash_keys, keys);
        break;
      case RowKind::dense:
        ++c.rows.dense;
        c.dense_range = std::max(c.dense_range, range);
        c.dense_products += products;
        break;
      case RowKind::global_hash:
        ++c.rows.global_hash;
        c.global_keys = std::max(c.global_keys, keys);
        break;
    }
  }
  return c;
}

/// Grows every worker's accumulators to what a census needs (checking the limit first); returns
/// the bytes allocated in all.
template <class Scalar, class Analysis>
void reserve_workspace(Analysis& an, const Census& need, int64_t held_besides_workspace, const char* phase) {
  SpgemmHostSchedule& s = an.host;
  if (!s.workspace) s.workspace = std::make_shared<SpgemmHostWorkspace>();
  auto& ws = *s.workspace;
  const int64_t hash_slots = need.rows.hash > 0 ? std::max(s.hash_slots, table_slots(need.hash_keys)) : s.hash_slots;
  const int64_t dense_columns = need.rows.dense > 0 ? std::max(s.dense_columns, need.dense_range) : s.dense_columns;
  const int64_t global_slots =
      need.rows.global_hash > 0 ? std::max(s.global_slots, table_slots(need.global_keys)) : s.global_slots;
  const int64_t per_slot = 4 + static_cast<int64_t>(sizeof(Scalar));
  const int64_t bytes = s.workers * (per_slot * (hash_slots + global_slots) +
                                     static_cast<int64_t>(sizeof(Scalar)) * (dense_columns + 128) +
                                     8 * host::dense_words(dense_columns));
  if (bytes > an.memory.workspace_bytes)
    spgemm_require_memory(an.memory, held_besides_workspace, bytes, std::string("the host accumulators of the ") + phase);
  ws.workers.resize(s.workers);
  const auto words = [](int64_t scalars) { return (scalars * static_cast<int64_t>(sizeof(Scalar)) + 7) / 8; };
  for (auto& w : ws.workers) {
    if (w.hash_slots < hash_slots) {
      w.hash_keys.reset(new int32_t[hash_slots]);
      w.hash_values.reset(new uint64_t[words(hash_slots)]);
      w.hash_slots = hash_slots;
      w.hash_ready = false;
    }
    if (w.dense_columns < dense_columns) {
      w.dense_bits.reset(new uint64_t[host::dense_words(dense_columns)]);
      w.dense_values.reset(new uint64_t[words(dense_columns + 128)]);
      w.dense_columns = dense_columns;
      w.dense_ready = false;
    }
    if (w.global_slots < global_slots) {
      w.global_keys.reset(new int32_t[global_slots]);
      w.global_values.reset(new uint64_t[words(global_slots)]);
      w.global_slots = global_slots;
      w.global_ready = false;
    }
  }
  s.hash_slots = hash_slots;
  s.dense_columns = dense_columns;
  s.global_slots = global_slots;
  an.memory.workspace_bytes = std::max(an.memory.workspace_bytes, bytes);
}

/// A copy of a plan starts without accumulators (SpgemmHostSchedule::workspace is not shared by
/// copies): its first numeric pass allocates them again, at the sizes the schedule recorded
/// (within the bytes the plan already counted, so no new memory check).
template <class Scalar, class Analysis>
void ensure_workspace(Analysis& an) {
  if (!an.host.workspace) reserve_workspace<Scalar>(an, Census{}, an.memory.analysis_bytes, "numeric pass");
}

/// A worker's tables, initialised by the worker itself on first use (first touch on its thread).
struct Tables {
  SpgemmHostWorkspace::Worker* w;
  int32_t* hash(bool global) {
    if (global) {
      if (!w->global_ready) {
        std::fill(w->global_keys.get(), w->global_keys.get() + w->global_slots, -1);
        w->global_ready = true;
      }
      return w->global_keys.get();
    }
    if (!w->hash_ready) {
      std::fill(w->hash_keys.get(), w->hash_keys.get() + w->hash_slots, -1);
      w->hash_ready = true;
    }
    return w->hash_keys.get();
  }
  template <class Scalar>
  Scalar* hash_values(bool global) {
    return reinterpret_cast<Scalar*>(global ? w->global_values.get() : w->hash_values.get());
  }
  /// The dense bitmap and values (zeroed on first use; kept zero between rows by their users).
  template <class Scalar>
  uint64_t* dense_bits() {
    if (!w->dense_ready) {
      std::fill(w->dense_bits.get(), w->dense_bits.get() + dense_words(w->dense_columns), uint64_t(0));
      std::fill_n(reinterpret_cast<Scalar*>(w->dense_values.get()), w->dense_columns + 128, Scalar(0));
      w->dense_ready = true;
    }
    return w->dense_bits.get();
  }
  /// One bit per word of the dense bitmap: which words a row touched (zero between rows).
  uint64_t* dense_summary() { return w->dense_bits.get() + w->dense_columns / 64 + 2; }
  template <class Scalar>
  Scalar* dense_values() {
    return reinterpret_cast<Scalar*>(w->dense_values.get());
  }
};

/// Cuts every row of B into segments, a new one at each entry where new_segment(previous, c)
/// holds (previous is -1 at a row's first entry), in parallel over B's rows: segment_map gets
/// the prefix sums of the segment counts (K + 1), then add(q, c, starts) sees every entry c with q
/// its segment and starts true at the segment's first entry.
template <class ExecSpace, class CrsType, class NewSegment, class Add>
void segment_b_rows(const ExecSpace& space, const SpgemmHostSchedule& s, const CrsType& B, int64_t K,
                    int64_t* segment_map, NewSegment new_segment, Add add) {
  const auto* row_map = B.graph.row_map.data();
  const auto* entries = B.graph.entries.data();
  const std::vector<int64_t> chunks = make_chunks(K, s.serial ? 1 : s.workers * 4, true, [](int64_t) { return 1; });
  run_chunks(space, s, chunks, [&](int, int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      int64_t segments = 0, previous = -1;
      for (int64_t p = row_map[j], e = row_map[j + 1]; p < e; ++p) {
        const int64_t c = entries[p];
        segments += new_segment(previous, c);
        previous = c;
      }
      segment_map[j + 1] = segments;
    }
  });
  segment_map[0] = 0;
  for (int64_t j = 0; j < K; ++j) segment_map[j + 1] += segment_map[j];
  run_chunks(space, s, chunks, [&](int, int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      int64_t q = segment_map[j] - 1, previous = -1;
      for (int64_t p = row_map[j], e = row_map[j + 1]; p < e; ++p) {
        const int64_t c = entries[p];
        const bool starts = new_segment(previous, c);
        q += starts;
        add(q, c, starts);
        previous = c;
      }
    }
  });
}

/// B as column words (SpgemmHostColumnWords): a segment per 64-column word a row touches.
template <class ExecSpace, class CrsType, class Analysis>
void build_column_words(const ExecSpace& space, const CrsType& B, Analysis& an) {
  SpgemmHostSchedule& s = an.host;
  const int64_t K = an.inner, count = an.stats.b_column_words;
  spgemm_require_memory(an.memory, an.memory.analysis_bytes + an.memory.workspace_bytes,
                        spgemm_bytes<int64_t>(K + 1) + count * 12, "B's column words");
  auto w = std::make_shared<SpgemmHostColumnWords>();
  w->word_map.assign(K + 1, 0);
  w->words.reset(new int32_t[std::max<int64_t>(count, 1)]);
  w->masks.reset(new uint64_t[std::max<int64_t>(count, 1)]);
  w->count = count;
  int32_t* words = w->words.get();
  uint64_t* masks = w->masks.get();
  segment_b_rows(
      space, s, B, K, w->word_map.data(),
      [](int64_t previous, int64_t c) { return previous < 0 || (c >> 6) != (previous >> 6); },
      [&](int64_t q, int64_t c, bool starts) {
        if (starts) {
          words[q] = static_cast<int32_t>(c >> 6);
          masks[q] = 0;
        }
        masks[q] |= uint64_t(1) << (c & 63);
      });
  an.memory.analysis_bytes += spgemm_bytes<int64_t>(K + 1) + count * 12;
  s.b_words = std::move(w);
}

/// B as column runs (SpgemmHostColumnRuns): a segment per run of consecutive columns.
template <class ExecSpace, class CrsType, class Analysis>
void build_column_runs(const ExecSpace& space, const CrsType& B, Analysis& an, int64_t held) {
  SpgemmHostSchedule& s = an.host;
  const int64_t K = an.inner, count = an.stats.b_column_runs;
  spgemm_require_memory(an.memory, held, spgemm_bytes<int64_t>(K + 1) + count * 8, "B's column runs");
  auto r = std::make_shared<SpgemmHostColumnRuns>();
  r->run_map.assign(K + 1, 0);
  r->first.reset(new int32_t[std::max<int64_t>(count, 1)]);
  r->length.reset(new int32_t[std::max<int64_t>(count, 1)]);
  r->count = count;
  int32_t* first = r->first.get();
  int32_t* length = r->length.get();
  segment_b_rows(
      space, s, B, K, r->run_map.data(), [](int64_t previous, int64_t c) { return previous < 0 || c != previous + 1; },
      [&](int64_t q, int64_t c, bool starts) {
        if (starts) {
          first[q] = static_cast<int32_t>(c);
          length[q] = 0;
        }
        ++length[q];
      });
  an.memory.analysis_bytes += spgemm_bytes<int64_t>(K + 1) + count * 8;
  s.b_runs = std::move(r);
}

// ------------------------------------------------------------------------------------------------
// Symbolic pass

/// Distinct columns of row i.
template <bool hw, class Scalar, class Ordinal, class Offset>
SPROCKET_SPGEMM_INLINE int64_t symbolic_row(const HostOperands<Scalar, Ordinal, Offset>& g, const RowPolicy& policy,
                                            Tables& t, int64_t i) {
  const int64_t products = g.row_products[i];
  if (products == 0) return 0;
  const int64_t a0 = g.a_row_map[i], a1 = g.a_row_map[i + 1];
  const int64_t lo = g.row_col_min[i], range = int64_t(g.row_col_max[i]) - lo + 1;
  const int64_t keys = std::min(products, range);
  const RowKind kind = row_kind(policy, a1 - a0, products, range, keys);
  if (kind == RowKind::direct) return products;
  if (kind == RowKind::dense) {
    uint64_t* bits = t.template dense_bits<Scalar>();
    const int64_t base = lo >> 6, num_words = (int64_t(g.row_col_max[i]) >> 6) - base + 1;
    if (g.b_word_map) {
      // Whole masks into the bitmap, and a bit per touched word into the summary, so the count
      // (and the clearing) visits only the touched words.
      uint64_t* top = t.dense_summary();
      for (int64_t k = a0; k < a1; ++k) {
        const int64_t j = g.a_entries[k];
        for (int64_t q = g.b_word_map[j], e = g.b_word_map[j + 1]; q < e; ++q) {
          const int64_t w = g.b_words[q] - base;
          bits[w] |= g.b_masks[q];
          top[w >> 6] |= uint64_t(1) << (w & 63);
        }
      }
      int64_t count = 0;
      for (int64_t tw = 0, top_words = (num_words + 63) / 64; tw < top_words; ++tw) {
        uint64_t x = top[tw];
        top[tw] = 0;
        while (x) {
          const int64_t w = tw * 64 + __builtin_ctzll(x);
          x &= x - 1;
          count += count_bits<hw>(bits[w]);
          bits[w] = 0;
        }
      }
      return count;
    }
    int64_t count = 0;
    for (int64_t k = a0; k < a1; ++k) {
      const int64_t j = g.a_entries[k];
      for (int64_t p = g.b_row_map[j], e = g.b_row_map[j + 1]; p < e; ++p) {
        const int64_t c = g.b_entries[p];
        const int64_t w = (c >> 6) - base;
        const uint64_t word = bits[w], bit = uint64_t(1) << (c & 63);
        count += (word & bit) == 0;
        bits[w] = word | bit;
      }
    }
    std::fill(bits, bits + num_words, uint64_t(0));
    return count;
  }
  const bool global = kind == RowKind::global_hash;
  int32_t* table = t.hash(global);
  const int64_t slots = table_slots(keys);
  const int log2 = log2_of(slots);
  const uint32_t mask = static_cast<uint32_t>(slots - 1);
  int64_t count = 0;
  for (int64_t k = a0; k < a1; ++k) {
    const int64_t j = g.a_entries[k];
    for (int64_t p = g.b_row_map[j], e = g.b_row_map[j + 1]; p < e; ++p) {
      const int32_t c = static_cast<int32_t>(g.b_entries[p]);
      for (uint32_t h = hash_slot(c, log2);; h = (h + 1) & mask) {
        const int32_t key = table[h];
        if (key == c) break;
        if (key < 0) {
          table[h] = c;
          ++count;
          break;
        }
      }
    }
  }
  std::fill(table, table + slots, -1);
  return count;
}

/// Rows [begin, end): their counts into row_map[i + 1] (a count too large for Offset is caught by
/// the caller through `longest`), their sum and the longest.
template <bool hw, class Scalar, class Ordinal, class Offset>
SPROCKET_SPGEMM_INLINE void symbolic_rows(const HostOperands<Scalar, Ordinal, Offset>& g, const RowPolicy& policy,
                                          Tables& t, int64_t begin, int64_t end, Offset* row_map, int64_t& sum,
                                          int64_t& longest) {
  for (int64_t i = begin; i < end; ++i) {
    const int64_t n = symbolic_row<hw>(g, policy, t, i);
    row_map[i + 1] = static_cast<Offset>(n);
    sum += n;
    longest = std::max(longest, n);
  }
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
// The AVX2 copies start on a 64-byte boundary (aligned(64)): their inner loops' placement within
// cache lines, and with it their speed, then no longer depends on where the linker happens to put
// them (the same code measurably slower at a 32-byte boundary:
// perf_tests/results/spgemm-plan-waits-2026-11-30.md).
template <class Scalar, class Ordinal, class Offset>
__attribute__((target("avx2,fma,popcnt,bmi"), noinline, aligned(64))) void symbolic_rows_isa(
    const HostOperands<Scalar, Ordinal, Offset>& g, const RowPolicy& policy, Tables& t, int64_t begin, int64_t end,
    Offset* row_map, int64_t& sum, int64_t& longest) {
  symbolic_rows<true>(g, policy, t, begin, end, row_map, sum, longest);
}
#endif

/// Whether a product is small enough for the calling thread alone.
template <class Analysis>
bool work_is_small(const Analysis& an) {
  return an.stats.products + an.num_rows < spgemm_host_serial_work;
}

/// The symbolic pass: C's row map and nnz in the analysis (row_map_c allocated here).
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_symbolic(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  SpgemmHostSchedule& s = an.host;
  const int64_t M = an.num_rows;
  s.serial = work_is_small(an) || space.concurrency() <= 1;
  s.workers = s.serial ? 1 : space.concurrency();
  const RowPolicy policy{an.options.accumulator, an.options.direct_rows && an.stats.b_rows_sorted};
  const Offset* a_row_map = A.graph.row_map.data();

  const Census need = census(an, policy, a_row_map, [](int64_t, int64_t products, int64_t range) {
    return std::min(products, range);
  });
  an.symbolic_rows = need.rows;
  const bool large = need.rows.dense + need.rows.global_hash > 0;
  an.symbolic_balance = spgemm_decide_balance(
      an.options.symbolic_balance, an.options.symbolic_thresholds, static_cast<double>(an.stats.max_row_products),
      M > 0 ? static_cast<double>(an.stats.products) / static_cast<double>(M) : 0.0, M, large,
      &an.symbolic_balance_reason);
  if (s.serial)
    an.symbolic_balance_reason += space.concurrency() <= 1 ? "; one thread (the space has one)"
                                                           : "; the calling thread alone (little work)";
  const int64_t target = s.workers * spgemm_host_chunks_per_worker;
  const auto* products = an.row_products.data();
  s.symbolic_chunks = make_chunks(M, s.serial ? 1 : target, an.symbolic_balance == SpgemmBalance::uniform,
                                  [&](int64_t i) { return products[i] + 1; });
  const int64_t chunk_bytes = spgemm_bytes<int64_t>(2 * static_cast<int64_t>(s.symbolic_chunks.size()));
  an.memory.analysis_bytes += chunk_bytes;
  reserve_workspace<Scalar>(an, need, an.memory.analysis_bytes, "symbolic pass");
  // Column words pay when they fold enough entries and the dense rows' products they save
  // outweigh the two passes over B that build them.
  const double fold = an.stats.b_column_words > 0
                          ? static_cast<double>(an.nnz_b) / static_cast<double>(an.stats.b_column_words)
                          : 0.0;
  if (need.rows.dense > 0 && fold >= spgemm_host_word_fold_min &&
      (1.0 - 1.0 / fold) * static_cast<double>(need.dense_products) > 4.0 * static_cast<double>(an.nnz_b))
    build_column_words(space, B, an);

  // The row map: counts first (row_map_c(i + 1) = nnz of row i), then offsets chunk by chunk.
  an.row_map_c = Kokkos::View<Offset*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::row_map_c"), M + 1);
  Offset* row_map = an.row_map_c.data();
  row_map[0] = 0;
  const auto g = operands<Scalar, Ordinal, Offset>(A, B, an);
  const int64_t num_chunks = static_cast<int64_t>(s.symbolic_chunks.size()) - 1;
  std::vector<int64_t> chunk_nnz(std::max<int64_t>(num_chunks, 0), 0), chunk_max(std::max<int64_t>(num_chunks, 0), 0);
  const std::vector<int64_t>& chunks = s.symbolic_chunks;
  const auto chunk_of = [&](int64_t begin) {
    return std::lower_bound(chunks.begin(), chunks.end(), begin) - chunks.begin();
  };
  const bool isa = host_has_avx2_fma();
  run_chunks(space, s, chunks, [&](int w, int64_t begin, int64_t end) {
    Tables t{&s.workspace->workers[w]};
    int64_t sum = 0, longest = 0;
#if defined(SPROCKET_HOST_AVX2_CLONE)
    if (isa) symbolic_rows_isa(g, policy, t, begin, end, row_map, sum, longest);
    else
#endif
      symbolic_rows<false>(g, policy, t, begin, end, row_map, sum, longest);
    (void)isa;
    const int64_t c = chunk_of(begin);
    chunk_nnz[c] = sum;
    chunk_max[c] = longest;
  });
  int64_t nnz = 0, longest = 0;
  std::vector<int64_t> base(std::max<int64_t>(num_chunks, 0));
  for (int64_t c = 0; c < num_chunks; ++c) {
    base[c] = nnz;
    nnz += chunk_nnz[c];
    longest = std::max(longest, chunk_max[c]);
  }
  spgemm_check_offset<Offset>(longest, "the longest row of C");
  spgemm_check_offset<Offset>(nnz, "nnz(C)");
  run_chunks(space, s, chunks, [&](int, int64_t begin, int64_t end) {
    int64_t offset = base[chunk_of(begin)];
    for (int64_t i = begin; i < end; ++i) {
      offset += static_cast<int64_t>(row_map[i + 1]);
      row_map[i + 1] = static_cast<Offset>(offset);
    }
  });
  an.nnz_c = nnz;
  an.max_row_nnz = longest;
}

// ------------------------------------------------------------------------------------------------
// Numeric pass

/// Columns and values of row i into C's row (first: columns unknown, else C's columns given).
template <bool first, class Scalar, class Ordinal, class Offset>
SPROCKET_SPGEMM_INLINE void numeric_row(const HostOperands<Scalar, Ordinal, Offset>& g, const RowPolicy& policy,
                                        bool sorted, Tables& t, int64_t i, const Offset* c_row_map, Ordinal* c_entries,
                                        Scalar* c_values) {
  const int64_t c0 = c_row_map[i], n = int64_t(c_row_map[i + 1]) - c0;
  const int64_t products = g.row_products[i];
  if (n == 0) return;
  const int64_t a0 = g.a_row_map[i], a1 = g.a_row_map[i + 1];
  const int64_t lo = g.row_col_min[i], range = int64_t(g.row_col_max[i]) - lo + 1;
  const RowKind kind = row_kind(policy, a1 - a0, products, range, n);
  Ordinal* cols = c_entries + c0;
  Scalar* vals = c_values + c0;
  if (kind == RowKind::direct) {
    const Scalar a = g.a_values[a0];
    const int64_t j = g.a_entries[a0];
    const int64_t b0 = g.b_row_map[j];
    for (int64_t p = 0; p < n; ++p) {
      if constexpr (first) cols[p] = g.b_entries[b0 + p];
      vals[p] = a * g.b_values[b0 + p];
    }
    return;
  }
  if (kind == RowKind::dense) {
    uint64_t* bits = t.template dense_bits<Scalar>();
    const int64_t base = lo >> 6, num_words = (int64_t(g.row_col_max[i]) >> 6) - base + 1;
    Scalar* acc = t.template dense_values<Scalar>() - base * 64;  // acc[c] for c in the row's words
    uint64_t* top = t.dense_summary();
    if (first && g.b_word_map) {
      for (int64_t k = a0; k < a1; ++k) {
        const int64_t j = g.a_entries[k];
        for (int64_t q = g.b_word_map[j], e = g.b_word_map[j + 1]; q < e; ++q) {
          const int64_t w = g.b_words[q] - base;
          bits[w] |= g.b_masks[q];
          top[w >> 6] |= uint64_t(1) << (w & 63);
        }
      }
    }
    if ((!first || g.b_word_map) && g.b_run_map) {
      // Run by run: a run's products go to consecutive values, one loop the compiler vectorizes.
      for (int64_t k = a0; k < a1; ++k) {
        const Scalar a = g.a_values[k];
        const int64_t j = g.a_entries[k];
        const Scalar* __restrict b = g.b_values + g.b_row_map[j];
        for (int64_t r = g.b_run_map[j], e = g.b_run_map[j + 1]; r < e; ++r) {
          Scalar* __restrict dst = acc + g.b_run_first[r];
          const int32_t len = g.b_run_length[r];
          for (int32_t t = 0; t < len; ++t) dst[t] += a * b[t];
          b += len;
        }
      }
    } else if (!first || g.b_word_map) {
      for (int64_t k = a0; k < a1; ++k) {
        const Scalar a = g.a_values[k];
        const int64_t j = g.a_entries[k];
        for (int64_t p = g.b_row_map[j], e = g.b_row_map[j + 1]; p < e; ++p) acc[g.b_entries[p]] += a * g.b_values[p];
      }
    } else {
      for (int64_t k = a0; k < a1; ++k) {
        const Scalar a = g.a_values[k];
        const int64_t j = g.a_entries[k];
        for (int64_t p = g.b_row_map[j], e = g.b_row_map[j + 1]; p < e; ++p) {
          const int64_t c = g.b_entries[p];
          bits[(c >> 6) - base] |= uint64_t(1) << (c & 63);
          acc[c] += a * g.b_values[p];
        }
      }
    }
    if constexpr (!first) {
      for (int64_t p = 0; p < n; ++p) {
        Scalar& v = acc[cols[p]];
        vals[p] = v;
        v = Scalar(0);
      }
    } else {
      // Emit the row in column order: word by word (with column words, only the words the summary
      // marks), bit by bit, clearing bits and values behind.
      int64_t q = 0;
      const auto emit_word = [&](int64_t w) {
        uint64_t x = bits[w];
        bits[w] = 0;
        while (x) {
          const int64_t c = (base + w) * 64 + __builtin_ctzll(x);
          x &= x - 1;
          cols[q] = static_cast<Ordinal>(c);
          vals[q] = acc[c];
          acc[c] = Scalar(0);
          ++q;
        }
      };
      if (g.b_word_map) {
        for (int64_t tw = 0, top_words = (num_words + 63) / 64; tw < top_words; ++tw) {
          uint64_t x = top[tw];
          top[tw] = 0;
          while (x) {
            const int64_t w = tw * 64 + __builtin_ctzll(x);
            x &= x - 1;
            emit_word(w);
          }
        }
      } else {
        for (int64_t w = 0; w < num_words; ++w) emit_word(w);
      }
    }
    return;
  }
  // hash or global_hash
  const bool global = kind == RowKind::global_hash;
  int32_t* table = t.hash(global);
  Scalar* tv = t.template hash_values<Scalar>(global);
  const int64_t slots = table_slots(n);
  const int log2 = log2_of(slots);
  const uint32_t mask = static_cast<uint32_t>(slots - 1);
  const auto slot_of = [&](int32_t c) {
    uint32_t h = hash_slot(c, log2);
    while (table[h] != c) h = (h + 1) & mask;
    return h;
  };
  if constexpr (!first) {
    for (int64_t p = 0; p < n; ++p) {
      const int32_t c = static_cast<int32_t>(cols[p]);
      uint32_t h = hash_slot(c, log2);
      while (table[h] >= 0) h = (h + 1) & mask;
      table[h] = c;
      tv[h] = Scalar(0);
    }
    for (int64_t k = a0; k < a1; ++k) {
      const Scalar a = g.a_values[k];
      const int64_t j = g.a_entries[k];
      for (int64_t p = g.b_row_map[j], e = g.b_row_map[j + 1]; p < e; ++p)
        tv[slot_of(static_cast<int32_t>(g.b_entries[p]))] += a * g.b_values[p];
    }
    for (int64_t p = 0; p < n; ++p) vals[p] = tv[slot_of(static_cast<int32_t>(cols[p]))];
  } else {
    for (int64_t k = a0; k < a1; ++k) {
      const Scalar a = g.a_values[k];
      const int64_t j = g.a_entries[k];
      for (int64_t p = g.b_row_map[j], e = g.b_row_map[j + 1]; p < e; ++p) {
        const int32_t c = static_cast<int32_t>(g.b_entries[p]);
        const Scalar v = a * g.b_values[p];
        for (uint32_t h = hash_slot(c, log2);; h = (h + 1) & mask) {
          const int32_t key = table[h];
          if (key == c) {
            tv[h] += v;
            break;
          }
          if (key < 0) {
            table[h] = c;
            tv[h] = v;
            break;
          }
        }
      }
    }
    int64_t q = 0;
    for (int64_t h = 0; h < slots; ++h)
      if (table[h] >= 0) cols[q++] = static_cast<Ordinal>(table[h]);
    if (sorted) {
      sort_columns(cols, n);
      for (int64_t p = 0; p < n; ++p) vals[p] = tv[slot_of(static_cast<int32_t>(cols[p]))];
    } else {
      q = 0;
      for (int64_t h = 0; h < slots; ++h)
        if (table[h] >= 0) vals[q++] = tv[h];
    }
  }
  std::fill(table, table + slots, -1);
}

template <bool first, bool hw, class Scalar, class Ordinal, class Offset>
SPROCKET_SPGEMM_INLINE void numeric_rows(const HostOperands<Scalar, Ordinal, Offset>& g, const RowPolicy& policy,
                                         bool sorted, Tables& t, int64_t begin, int64_t end, const Offset* c_row_map,
                                         Ordinal* c_entries, Scalar* c_values) {
  for (int64_t i = begin; i < end; ++i) numeric_row<first>(g, policy, sorted, t, i, c_row_map, c_entries, c_values);
}

#if defined(SPROCKET_HOST_AVX2_CLONE)
template <bool first, class Scalar, class Ordinal, class Offset>
__attribute__((target("avx2,fma,popcnt,bmi"), noinline, aligned(64))) void numeric_rows_isa(
    const HostOperands<Scalar, Ordinal, Offset>& g, const RowPolicy& policy, bool sorted, Tables& t, int64_t begin,
    int64_t end, const Offset* c_row_map, Ordinal* c_entries, Scalar* c_values) {
  numeric_rows<first, true>(g, policy, sorted, t, begin, end, c_row_map, c_entries, c_values);
}
#endif

/// The numeric pass's schedule (first call): census by C's row lengths, balance decision, chunks,
/// accumulators grown. `held` = what the plan holds besides its workspace (analysis + output).
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_numeric_schedule(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an, int64_t held) {
  const int64_t output_bytes = held - an.memory.analysis_bytes;  // C's, by the caller's count
  using Scalar = typename CrsType::non_const_value_type;
  SpgemmHostSchedule& s = an.host;
  const int64_t M = an.num_rows;
  const RowPolicy policy{an.options.accumulator, an.options.direct_rows && an.stats.b_rows_sorted};
  const auto* row_map = an.row_map_c.data();
  const Census need = census(an, policy, A.graph.row_map.data(), [&](int64_t i, int64_t, int64_t) {
    return static_cast<int64_t>(row_map[i + 1]) - static_cast<int64_t>(row_map[i]);
  });
  an.numeric_rows = need.rows;
  const bool large = need.rows.dense + need.rows.global_hash > 0;
  an.numeric_balance = spgemm_decide_balance(
      an.options.numeric_balance, an.options.numeric_thresholds, static_cast<double>(an.max_row_nnz),
      M > 0 ? static_cast<double>(an.nnz_c) / static_cast<double>(M) : 0.0, M, large, &an.numeric_balance_reason);
  if (s.serial)
    an.numeric_balance_reason += s.workers <= 1 && work_is_small(an) ? "; the calling thread alone (little work)"
                                                                     : "; one thread (the space has one)";
  const auto* products = an.row_products.data();
  s.numeric_chunks = make_chunks(M, s.serial ? 1 : s.workers * spgemm_host_chunks_per_worker,
                                 an.numeric_balance == SpgemmBalance::uniform, [&](int64_t i) {
                                   return products[i] + int64_t(row_map[i + 1]) - int64_t(row_map[i]) + 1;
                                 });
  an.memory.analysis_bytes += spgemm_bytes<int64_t>(static_cast<int64_t>(s.numeric_chunks.size()));
  reserve_workspace<Scalar>(an, need, held, "numeric pass");
  // Column runs pay when they are long and the dense rows' products outweigh the two passes over B
  // that build them (the numeric pass reads them at every re-run).
  const double run = an.stats.b_column_runs > 0
                         ? static_cast<double>(an.nnz_b) / static_cast<double>(an.stats.b_column_runs)
                         : 0.0;
  if (need.rows.dense > 0 && run >= spgemm_host_run_min &&
      static_cast<double>(need.dense_products) > 4.0 * static_cast<double>(an.nnz_b))
    build_column_runs(space, B, an, an.memory.analysis_bytes + an.memory.workspace_bytes + output_bytes);
}

/// The numeric pass into C (first: C's columns are written too; else only its values, C's
/// columns being those this plan's first pass wrote).
template <bool first, class ExecSpace, class CrsType, class Analysis>
void spgemm_numeric(const ExecSpace& space, const CrsType& A, const CrsType& B, const Analysis& an,
                    const CrsType& C) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  const SpgemmHostSchedule& s = an.host;
  const RowPolicy policy{an.options.accumulator, an.options.direct_rows && an.stats.b_rows_sorted};
  const auto g = operands<Scalar, Ordinal, Offset>(A, B, an);
  const Offset* c_row_map = an.row_map_c.data();
  Ordinal* c_entries = const_cast<Ordinal*>(C.graph.entries.data());
  Scalar* c_values = C.values.data();
  const bool sorted = an.options.sorted;
  const bool isa = host_has_avx2_fma();
  run_chunks(space, s, s.numeric_chunks, [&](int w, int64_t begin, int64_t end) {
    Tables t{&s.workspace->workers[w]};
#if defined(SPROCKET_HOST_AVX2_CLONE)
    if (isa) return numeric_rows_isa<first>(g, policy, sorted, t, begin, end, c_row_map, c_entries, c_values);
#endif
    (void)isa;
    numeric_rows<first, false>(g, policy, sorted, t, begin, end, c_row_map, c_entries, c_values);
  });
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
