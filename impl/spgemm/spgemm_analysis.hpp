#pragma once
// What an SpgemmPlan computes once (declared in Sprocket_Spgemm.hpp; include that header first),
// gathered in Impl::SpgemmAnalysis, the one struct every backend's symbolic and numeric pass
// reads (host/spgemm_host.hpp, cuda/spgemm_cuda.hpp, spgemm_kokkos.hpp):
//  - the row analysis of paper Algorithm 1, run by every backend alike (a Kokkos kernel over the
//    rows of B, then over the rows of A): per row of A its products, longest referenced row of B
//    and the column range it reaches; their sums and maxima; and the validation of both patterns
//    (done in the same passes: a row map that decreases or leaves [0, nnz], a column outside
//    [0, cols)). A row of B is "sorted" when its columns strictly increase (direct referencing
//    needs every row of B sorted);
//  - C's row map and nnz after the symbolic pass;
//  - the memory accounting (SpgemmMemory) and the check of each phase against the limit before
//    it allocates (spgemm_require_memory), the Offset overflow check;
//  - the global load-balancing decision of a pass (spgemm_decide_balance, paper section 5);
//  - each backend's own schedule (host chunks and workspaces, CUDA configurations and bins,
//    portable batches), filled by that backend.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>


#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_Operator.hpp"
#include "Sprocket_Spgemm.hpp"
#include "impl/common/plan_copies.hpp"
#include "impl/spgemm/cuda/spgemm_cuda_schedule.hpp"
#include "impl/spgemm/spgemm_defaults.hpp"

namespace Sprocket {
namespace Impl {

/// Global results of the row analysis (host copies).
struct SpgemmRowStats {
  int64_t products = 0;            ///< sum over rows of A of the products (nnz(A_i:) * row lengths of B)
  int64_t max_row_products = 0;
  int64_t max_row_range = 0;       ///< largest max column - min column + 1 of a row with products
  /// Largest need of a row with products: the smaller of its products and its column range (an
  /// accumulator never holds more keys); and both maxima over the rows of more than one entry of
  /// A only (the rows left to accumulate when single-entry rows are referenced directly).
  int64_t max_row_need = 0;
  int64_t max_row_need_multi = 0, max_row_range_multi = 0;
  int64_t max_longest_b = 0;       ///< longest row of B referenced by any row
  int64_t referencing_entries = 0; ///< entries of A whose row of B is not empty
  int64_t rows_with_products = 0;
  int64_t single_entry_rows = 0;   ///< rows of A with exactly one entry (and products)
  bool b_rows_sorted = true;       ///< every row of B strictly increasing (sorted, no duplicates)
  /// Runs of consecutive entries of a row of B within one 64-column word, summed over B's rows:
  /// nnz(B) / b_column_words is how many entries a 64-bit mask per word would fold into one.
  int64_t b_column_words = 0;
  /// Runs of consecutive columns (c, c + 1, ...) in B's rows, summed: nnz(B) / b_column_runs is
  /// the average run.
  int64_t b_column_runs = 0;
  /// Average length of the referenced rows of B (products / referencing entries).
  double average_b_row() const {
    return referencing_entries > 0 ? static_cast<double>(products) / static_cast<double>(referencing_entries) : 0.0;
  }
  /// Average products of a row with products.
  double average_row_products() const {
    return rows_with_products > 0 ? static_cast<double>(products) / static_cast<double>(rows_with_products) : 0.0;
  }
};

/// Host worker state (Backend::native on OpenMP / Serial; filled by host/spgemm_host.hpp).
struct SpgemmHostWorkspace;  // per worker accumulators, defined by the host backend
/// B's rows as 64-column words: row j's words are [word_map[j], word_map[j + 1]), each a word
/// index (column / 64) and the mask of the row's columns in it (runs of a row's entries that
/// share a word fold into one).
struct SpgemmHostColumnWords {
  std::vector<int64_t> word_map;
  std::unique_ptr<int32_t[]> words;
  std::unique_ptr<uint64_t[]> masks;
  int64_t count = 0;
};
/// B's rows as runs of consecutive columns: row j's runs are [run_map[j], run_map[j + 1]), each a
/// first column and a length, in the row's entry order (run r of row j starts at entry
/// row_map(j) + the lengths of the row's earlier runs).
struct SpgemmHostColumnRuns {
  std::vector<int64_t> run_map;
  std::unique_ptr<int32_t[]> first;
  std::unique_ptr<int32_t[]> length;
  int64_t count = 0;
};
struct SpgemmHostSchedule {
  int workers = 1;                       ///< parallel workers (1: the calling thread alone)
  bool serial = false;                   ///< the whole product on the calling thread
  std::vector<int64_t> symbolic_chunks;  ///< row boundaries of the symbolic pass's chunks
  std::vector<int64_t> numeric_chunks;   ///< row boundaries of the numeric pass's chunks
  int64_t hash_slots = 0;                ///< slots of a worker's hash table (power of two)
  int64_t dense_columns = 0;             ///< columns of a worker's dense accumulator
  int64_t global_slots = 0;              ///< slots of a worker's global hash table
  /// Kept for numeric re-runs; a copy of a plan starts without one (grown by its next pass).
  EmptyOnCopy<std::shared_ptr<SpgemmHostWorkspace>> workspace;
  std::shared_ptr<SpgemmHostColumnWords> b_words;  ///< B's column words, when they fold enough
  std::shared_ptr<SpgemmHostColumnRuns> b_runs;    ///< B's column runs, when they are long enough
};

/// Everything the passes read, on the plan's device.
template <class Scalar, class Ordinal, class Offset, class Device>
struct SpgemmAnalysis {
  Backend backend = Backend::portable;  ///< native or portable, never automatic
  SpgemmOptions options;                ///< as given, thresholds resolved for the backend
  int64_t num_rows = 0, inner = 0, num_cols = 0;  ///< C is num_rows x num_cols, A num_rows x inner
  int64_t nnz_a = 0, nnz_b = 0;

  // Row analysis (Algorithm 1), per row i of A: four arrays and the result words in one
  // allocation, row_storage. On a GPU an allocation is a synchronizing call (Kokkos 3.4:
  // cudaMalloc, then a blocking copy of the allocation's header) and a free one too, so there B's
  // per-row column ranges, which only the analysis reads, are kept in it as well (8 bytes per row
  // of B) rather than allocated and freed apart (spgemm_analyse: keep_b_ranges).
  Kokkos::View<int64_t*, Device> row_storage;   ///< owns every view below
  Kokkos::View<int64_t*, Device> row_products;  ///< products of row i
  Kokkos::View<Ordinal*, Device> row_col_min;   ///< smallest column of C's row i (num_cols if none)
  Kokkos::View<Ordinal*, Device> row_col_max;   ///< largest column of C's row i (-1 if none)
  Kokkos::View<Ordinal*, Device> row_longest_b; ///< longest row of B that row i references
  /// spgemm_result_words words, zero after the analysis: where the passes' reductions and
  /// kernels leave what the host reads back, next to each other, so that one copy (one wait for
  /// the device) reads several (spgemm_read_back). Words [spgemm_results_backend, ...) are the
  /// backend's (the CUDA counters and bin states, cuda/spgemm_cuda.hpp).
  Kokkos::View<int64_t*, Device> results;
  /// Blocking read-backs of device results so far (spgemm_read_back): each one waits for the
  /// device, so the plan keeps them few (the tests bound them).
  mutable int64_t host_reads = 0;
  SpgemmRowStats stats;

  // Symbolic result.
  Kokkos::View<Offset*, Device> row_map_c;  ///< num_rows + 1
  int64_t nnz_c = 0;
  int64_t max_row_nnz = 0;
  bool symbolic_done = false;

  // Decisions, per pass (for describe(), the tests and the bench).
  SpgemmBalance symbolic_balance = SpgemmBalance::uniform, numeric_balance = SpgemmBalance::uniform;
  std::string symbolic_balance_reason, numeric_balance_reason;
  SpgemmRowCounts symbolic_rows, numeric_rows;
  std::string schedule_summary;  ///< what the backend's schedule looks like, one line

  SpgemmMemory memory;
  SpgemmHostSchedule host;
  SpgemmCudaSchedule<Ordinal, Offset, Device> cuda;  ///< filled by cuda/spgemm_cuda.hpp
};

/// Bytes of `count` objects of T (int64 arithmetic).
template <class T>
constexpr int64_t spgemm_bytes(int64_t count) {
  return count * static_cast<int64_t>(sizeof(T));
}

/// The result words kept with the row analysis (SpgemmAnalysis::results): the row analysis's two
/// reductions first, the backend's words from spgemm_results_backend on.
inline constexpr int64_t spgemm_result_words = 192;
inline constexpr int64_t spgemm_results_analyse_b = 0;
inline constexpr int64_t spgemm_results_analyse_a = 5;
inline constexpr int64_t spgemm_results_backend = 24;

/// Copies words [first, first + count) of `words` (on the plan's device) into `out` on the host
/// and waits for them: the one way the passes read device results back, counted in `reads`. One
/// copy of adjacent words, however many results they hold: on a GPU each copy waits for
/// everything queued before it.
template <class ExecSpace, class T, class Device>
void spgemm_read_back(const ExecSpace& space, const Kokkos::View<T*, Device>& words, int64_t first, int64_t count,
                      T* out, int64_t& reads) {
  ++reads;
  if (count <= 0) return;
  const Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(out, count);
  Kokkos::deep_copy(space, host, Kokkos::subview(words, Kokkos::make_pair(first, first + count)));
  space.fence();
}

// ------------------------------------------------------------------------------------------------
// Memory

/// The limit every phase is checked against: the smaller of what the device can hold
/// (device_bytes) and the user's limit (0: none).
inline int64_t spgemm_memory_limit(int64_t user_limit, int64_t device_bytes) {
  return user_limit > 0 ? std::min(user_limit, device_bytes) : device_bytes;
}

/// Throws ResourceError before a phase allocates when the plan would then hold more than the
/// limit: `held` bytes already allocated (and kept), `needed` more for `what`.
inline void spgemm_require_memory(const SpgemmMemory& memory, int64_t held, int64_t needed, const std::string& what) {
  const int64_t total = held + needed;
  if (total <= memory.limit_bytes) return;
  std::ostringstream os;
  os << "SpgemmPlan: " << what << " needs " << needed << " bytes (" << std::fixed << std::setprecision(1)
     << static_cast<double>(needed) / (1 << 20) << " MiB) on top of the " << held << " bytes the plan already holds: "
     << total << " bytes in all, more than the limit of " << memory.limit_bytes << " bytes ("
     << static_cast<double>(memory.limit_bytes) / (1 << 20)
     << " MiB: the smaller of the device's available memory and SpgemmOptions::memory_limit_bytes); nothing was "
        "allocated for it";
  throw ResourceError(os.str(), total, memory.limit_bytes);
}

/// Updates peak_bytes from the phases' totals.
inline void spgemm_update_peak(SpgemmMemory& m) {
  m.peak_bytes = std::max(m.analysis_bytes + m.symbolic_bytes,
                          m.analysis_bytes + m.workspace_bytes + m.output_bytes + m.numeric_bytes);
}

/// Throws InvalidArgument when `count` entries (or a row offset of that size) do not fit Offset.
template <class Offset>
void spgemm_check_offset(int64_t count, const char* what) {
  const bool fits = count >= 0 && static_cast<uint64_t>(count) <= static_cast<uint64_t>(std::numeric_limits<Offset>::max());
  SPROCKET_REQUIRE(fits, "SpgemmPlan: ", what, " is ", count, ", more than the matrix's Offset type holds (",
                   static_cast<uint64_t>(std::numeric_limits<Offset>::max()),
                   "): use a CrsMatrix with size_t offsets");
}

// ------------------------------------------------------------------------------------------------
// Global load balancing (paper section 5)

/// Whether a pass bins its rows: forced, or automatic when max_need / average_need reaches the
/// thresholds' ratio and C has at least min_rows rows (the *_large pair when `large`: the longest
/// row needs one of the largest accumulator configurations). *why says what decided.
inline SpgemmBalance spgemm_decide_balance(SpgemmBalance requested, const SpgemmBalanceThresholds& t, double max_need,
                                           double average_need, int64_t rows, bool large, std::string* why) {
  // (snprintf rather than a stream: this runs for every plan, and a stream's set-up costs as much
  // as a small product.)
  if (requested != SpgemmBalance::automatic) {
    if (why) *why = "forced";
    return requested;
  }
  const double ratio = average_need > 0 ? max_need / average_need : 0.0;
  const double need_ratio = large ? t.ratio_large : t.ratio;
  const int64_t need_rows = large ? t.min_rows_large : t.min_rows;
  const bool bin = ratio >= need_ratio && rows >= need_rows;
  if (why) {
    char text[200];
    std::snprintf(text, sizeof text, "automatic: largest / average row %.1f %s %.1f, %lld rows %s %lld%s", ratio,
                  bin ? ">=" : "vs", need_ratio, static_cast<long long>(rows), rows >= need_rows ? ">=" : "<",
                  static_cast<long long>(need_rows), large ? " (thresholds for the largest configurations)" : "");
    *why = text;
  }
  return bin ? SpgemmBalance::binned : SpgemmBalance::uniform;
}

/// Thresholds with zero fields replaced by the defaults.
inline SpgemmBalanceThresholds spgemm_resolve_thresholds(const SpgemmBalanceThresholds& given,
                                                         const SpgemmBalanceThresholds& defaults) {
  SpgemmBalanceThresholds t = given;
  if (!(t.ratio > 0)) t.ratio = defaults.ratio;
  if (t.min_rows <= 0) t.min_rows = defaults.min_rows;
  if (!(t.ratio_large > 0)) t.ratio_large = defaults.ratio_large;
  if (t.min_rows_large <= 0) t.min_rows_large = defaults.min_rows_large;
  return t;
}

// ------------------------------------------------------------------------------------------------
// Row analysis (Algorithm 1) and validation

/// Problems the analysis passes find: the first bad row (or -1) of each kind.
struct SpgemmPatternErrors {
  int64_t bad_row_map = -1;  ///< a row whose offsets decrease or leave [0, nnz]
  int64_t bad_column = -1;   ///< a row holding a column outside [0, cols)
};

/// Pass over the rows of B: per row its smallest and largest column (the row's min > max when
/// empty), whether it strictly increases; the first row with a bad offset or column.
template <class RowMap, class Entries, class ColumnView>
struct SpgemmAnalyseB {
  struct value_type {
    int64_t bad_row_map, bad_column, unsorted_rows, words, runs;
  };
  RowMap row_map;
  Entries entries;
  ColumnView b_min, b_max;
  int64_t nnz, num_cols;

  KOKKOS_INLINE_FUNCTION void operator()(const int64_t r, value_type& v) const {
    const int64_t begin = static_cast<int64_t>(row_map(r)), end = static_cast<int64_t>(row_map(r + 1));
    using Ordinal = typename ColumnView::non_const_value_type;
    if (begin < 0 || end < begin || end > nnz) {
      if (v.bad_row_map < 0 || r < v.bad_row_map) v.bad_row_map = r;
      b_min(r) = static_cast<Ordinal>(num_cols);
      b_max(r) = -1;
      return;
    }
    int64_t lo = num_cols, hi = -1, previous = -1, words = 0, runs = 0;
    bool sorted = true, bad = false;
    for (int64_t k = begin; k < end; ++k) {
      const int64_t c = static_cast<int64_t>(entries(k));
      bad |= c < 0 || c >= num_cols;
      sorted &= c > previous;
      words += previous < 0 || (c >> 6) != (previous >> 6);
      runs += previous < 0 || c != previous + 1;
      previous = c;
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    }
    if (bad) {
      if (v.bad_column < 0 || r < v.bad_column) v.bad_column = r;
      lo = num_cols;
      hi = -1;
    }
    if (!sorted) ++v.unsorted_rows;
    v.words += words;
    v.runs += runs;
    b_min(r) = static_cast<Ordinal>(lo);
    b_max(r) = static_cast<Ordinal>(hi);
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {-1, -1, 0, 0, 0}; }
  KOKKOS_INLINE_FUNCTION static void combine(value_type& d, const value_type& s) {
    if (s.bad_row_map >= 0 && (d.bad_row_map < 0 || s.bad_row_map < d.bad_row_map)) d.bad_row_map = s.bad_row_map;
    if (s.bad_column >= 0 && (d.bad_column < 0 || s.bad_column < d.bad_column)) d.bad_column = s.bad_column;
    d.unsorted_rows += s.unsorted_rows;
    d.words += s.words;
    d.runs += s.runs;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& d, const value_type& s) const { combine(d, s); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& d, const volatile value_type& s) const {
    value_type a{d.bad_row_map, d.bad_column, d.unsorted_rows, d.words, d.runs},
        b{s.bad_row_map, s.bad_column, s.unsorted_rows, s.words, s.runs};
    combine(a, b);
    d.bad_row_map = a.bad_row_map;
    d.bad_column = a.bad_column;
    d.unsorted_rows = a.unsorted_rows;
    d.words = a.words;
    d.runs = a.runs;
  }
};

/// Pass over the rows of A (Algorithm 1): per row its products, longest referenced row of B and
/// column range (from B's per-row ranges); sums and maxima; the first bad row.
template <class RowMapA, class EntriesA, class RowMapB, class ColumnView, class ProductView>
struct SpgemmAnalyseA {
  struct value_type {
    int64_t products, max_products, max_range, max_longest, referencing, rows_with_products, single_entry_rows;
    int64_t max_need, max_need_multi, max_range_multi;
    int64_t bad_row_map, bad_column;
  };
  RowMapA row_map_a;
  EntriesA entries_a;
  RowMapB row_map_b;
  ColumnView b_min, b_max;
  ProductView row_products;
  ColumnView row_min, row_max, row_longest;
  int64_t nnz_a, inner, num_cols;

  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, value_type& v) const {
    using Ordinal = typename ColumnView::non_const_value_type;
    const int64_t begin = static_cast<int64_t>(row_map_a(i)), end = static_cast<int64_t>(row_map_a(i + 1));
    int64_t products = 0, longest = 0, referencing = 0, lo = num_cols, hi = -1;
    if (begin < 0 || end < begin || end > nnz_a) {
      if (v.bad_row_map < 0 || i < v.bad_row_map) v.bad_row_map = i;
    } else {
      bool bad = false;
      for (int64_t k = begin; k < end; ++k) {
        const int64_t j = static_cast<int64_t>(entries_a(k));
        if (j < 0 || j >= inner) {
          bad = true;
          continue;
        }
        const int64_t len = static_cast<int64_t>(row_map_b(j + 1)) - static_cast<int64_t>(row_map_b(j));
        if (len <= 0) continue;
        products += len;
        ++referencing;
        longest = len > longest ? len : longest;
        const int64_t bl = static_cast<int64_t>(b_min(j)), bh = static_cast<int64_t>(b_max(j));
        lo = bl < lo ? bl : lo;
        hi = bh > hi ? bh : hi;
      }
      if (bad) {
        if (v.bad_column < 0 || i < v.bad_column) v.bad_column = i;
      }
    }
    row_products(i) = products;
    row_min(i) = static_cast<Ordinal>(lo);
    row_max(i) = static_cast<Ordinal>(hi);
    row_longest(i) = static_cast<Ordinal>(longest);
    if (products > 0) {
      const int64_t range = hi - lo + 1, need = products < range ? products : range;
      v.products += products;
      v.max_products = products > v.max_products ? products : v.max_products;
      v.max_range = range > v.max_range ? range : v.max_range;
      v.max_need = need > v.max_need ? need : v.max_need;
      v.max_longest = longest > v.max_longest ? longest : v.max_longest;
      v.referencing += referencing;
      ++v.rows_with_products;
      if (end - begin == 1) {
        ++v.single_entry_rows;
      } else {
        v.max_need_multi = need > v.max_need_multi ? need : v.max_need_multi;
        v.max_range_multi = range > v.max_range_multi ? range : v.max_range_multi;
      }
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1}; }
  KOKKOS_INLINE_FUNCTION static void combine(value_type& d, const value_type& s) {
    d.products += s.products;
    d.max_products = s.max_products > d.max_products ? s.max_products : d.max_products;
    d.max_range = s.max_range > d.max_range ? s.max_range : d.max_range;
    d.max_longest = s.max_longest > d.max_longest ? s.max_longest : d.max_longest;
    d.referencing += s.referencing;
    d.rows_with_products += s.rows_with_products;
    d.single_entry_rows += s.single_entry_rows;
    d.max_need = s.max_need > d.max_need ? s.max_need : d.max_need;
    d.max_need_multi = s.max_need_multi > d.max_need_multi ? s.max_need_multi : d.max_need_multi;
    d.max_range_multi = s.max_range_multi > d.max_range_multi ? s.max_range_multi : d.max_range_multi;
    if (s.bad_row_map >= 0 && (d.bad_row_map < 0 || s.bad_row_map < d.bad_row_map)) d.bad_row_map = s.bad_row_map;
    if (s.bad_column >= 0 && (d.bad_column < 0 || s.bad_column < d.bad_column)) d.bad_column = s.bad_column;
  }
  KOKKOS_INLINE_FUNCTION void join(value_type& d, const value_type& s) const { combine(d, s); }
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& d, const volatile value_type& s) const {
    value_type a, b;
    copy(a, d);
    copy(b, s);
    combine(a, b);
    d.products = a.products;
    d.max_products = a.max_products;
    d.max_range = a.max_range;
    d.max_longest = a.max_longest;
    d.referencing = a.referencing;
    d.rows_with_products = a.rows_with_products;
    d.single_entry_rows = a.single_entry_rows;
    d.max_need = a.max_need;
    d.max_need_multi = a.max_need_multi;
    d.max_range_multi = a.max_range_multi;
    d.bad_row_map = a.bad_row_map;
    d.bad_column = a.bad_column;
  }
  KOKKOS_INLINE_FUNCTION static void copy(value_type& d, const volatile value_type& s) {
    d.products = s.products;
    d.max_products = s.max_products;
    d.max_range = s.max_range;
    d.max_longest = s.max_longest;
    d.referencing = s.referencing;
    d.rows_with_products = s.rows_with_products;
    d.single_entry_rows = s.single_entry_rows;
    d.max_need = s.max_need;
    d.max_need_multi = s.max_need_multi;
    d.max_range_multi = s.max_range_multi;
    d.bad_row_map = s.bad_row_map;
    d.bad_column = s.bad_column;
  }
};

/// Throws InvalidArgument for a bad row found by the analysis, naming the matrix, row and what is
/// wrong (the row's offsets or its first bad column, read back from the device).
template <class CrsType>
void spgemm_report_bad_row(const char* name, const CrsType& M, int64_t row, bool row_map_problem) {
  const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), M.graph.row_map);
  const int64_t begin = static_cast<int64_t>(rm(row)), end = static_cast<int64_t>(rm(row + 1));
  if (row_map_problem)
    throw InvalidArgument(concat("SpgemmPlan: ", name, "'s row map is invalid at row ", row, ": offsets ", begin,
                                 " to ", end, " (they must not decrease and must lie in [0, nnz = ", M.nnz(), "])"));
  const auto cols = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), M.graph.entries);
  for (int64_t k = begin; k < end; ++k) {
    const int64_t c = static_cast<int64_t>(cols(k));
    if (c < 0 || c >= static_cast<int64_t>(M.numCols()))
      throw InvalidArgument(concat("SpgemmPlan: ", name, " (", M.numRows(), " x ", M.numCols(), ") has column ", c,
                                   " in row ", row, " (entry ", k, "), outside [0, ", M.numCols(), ")"));
  }
  throw InvalidArgument(concat("SpgemmPlan: ", name, " has an invalid entry in row ", row));
}

/// Words of the row analysis's one allocation (row_storage) for M rows of A and K rows of B:
/// products, then the three Ordinal arrays, then (keep_b_ranges) B's two column-range arrays
/// (each group padded to 8 bytes), then the result words.
template <class Ordinal>
struct SpgemmStorageLayout {
  int64_t ordinals = 0, b_ranges = 0, results = 0, words = 0;  // first word of each part; total
  SpgemmStorageLayout(int64_t M, int64_t K, bool keep_b_ranges) {
    ordinals = M;
    b_ranges = ordinals + (3 * spgemm_bytes<Ordinal>(M) + 7) / 8;
    results = b_ranges + (keep_b_ranges ? (2 * spgemm_bytes<Ordinal>(K) + 7) / 8 : 0);
    words = results + spgemm_result_words;
  }
};

/// Bytes the plan keeps of the row analysis (row_storage) and C's row map.
template <class Ordinal, class Offset>
int64_t spgemm_analysis_bytes(int64_t num_rows, int64_t inner, bool keep_b_ranges) {
  return spgemm_bytes<int64_t>(SpgemmStorageLayout<Ordinal>(num_rows, inner, keep_b_ranges).words) +
         spgemm_bytes<Offset>(num_rows + 1);
}

/// Whether the analysis on ExecSpace keeps B's column ranges in its allocation: on a device, where
/// allocating and freeing them apart would make the host wait twice. On a host space they are a
/// temporary (the plan keeps less, and allocating there makes nothing wait).
template <class ExecSpace>
inline constexpr bool spgemm_keeps_b_ranges_v = !is_host_space_v<ExecSpace>;

/// Zeroes `count` words at `first` of `words` (queued on `space` for a device).
template <class ExecSpace, class T, class Device>
void spgemm_zero_words(const ExecSpace& space, const Kokkos::View<T*, Device>& words, int64_t first, int64_t count) {
  if (count <= 0) return;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Device::memory_space>::accessible)
    std::fill_n(words.data() + first, count, T(0));
  else
    Kokkos::deep_copy(space, Kokkos::subview(words, Kokkos::make_pair(first, first + count)), T(0));
}

/// Checks the shapes and runs the row analysis on `space`: fills the per-row Views and stats of
/// `an` (its dimensions are set here) and throws InvalidArgument for mismatched shapes or an
/// invalid pattern of A or B. One allocation kept (row_storage; B's column ranges in it when
/// keep_b_ranges, else in a temporary) and, for a parallel run, one read-back of both reductions:
/// B's pass, then A's, queued one after the other. A's pass is safe on an
/// invalid B (it reads B's row map only at rows [0, K), whose extent was checked, and B's ranges,
/// which B's pass set for every row), so B's problems are reported first all the same.
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_analyse_rows(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an, bool keep_b_ranges) {
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Device = typename CrsType::device_type;
  SPROCKET_REQUIRE(A.numCols() == B.numRows(), "SpgemmPlan: A is ", A.numRows(), " x ", A.numCols(), " and B is ",
                   B.numRows(), " x ", B.numCols(), ": A's columns must equal B's rows");
  an.num_rows = A.numRows();
  an.inner = A.numCols();
  an.num_cols = B.numCols();
  an.nnz_a = A.nnz();
  an.nnz_b = B.nnz();
  const auto check_row_map = [](const char* name, const CrsType& M) {
    const int64_t n = static_cast<int64_t>(M.graph.row_map.extent(0));
    SPROCKET_REQUIRE(n == M.numRows() + 1 || (n == 0 && M.numRows() == 0 && M.nnz() == 0), "SpgemmPlan: ", name,
                     "'s row map has ", n, " offsets for ", M.numRows(), " rows");
    SPROCKET_REQUIRE(static_cast<int64_t>(M.graph.entries.extent(0)) >= M.nnz(), "SpgemmPlan: ", name, " has ",
                     M.graph.entries.extent(0), " column indices for nnz = ", M.nnz());
    SPROCKET_REQUIRE(M.values.extent(0) == M.graph.entries.extent(0), "SpgemmPlan: ", name, " has ",
                     M.values.extent(0), " values for ", M.graph.entries.extent(0), " column indices");
  };
  check_row_map("A", A);
  check_row_map("B", B);
  const int64_t M = an.num_rows, K = an.inner;
  const SpgemmStorageLayout<Ordinal> layout(M, K, keep_b_ranges);
  an.row_storage = Kokkos::View<int64_t*, Device>(
      Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::row_analysis"), layout.words);
  int64_t* const base = an.row_storage.data();
  Ordinal* const ordinals = reinterpret_cast<Ordinal*>(base + layout.ordinals);
  an.row_products = Kokkos::View<int64_t*, Device>(base, M);
  an.row_col_min = Kokkos::View<Ordinal*, Device>(ordinals, M);
  an.row_col_max = Kokkos::View<Ordinal*, Device>(ordinals + M, M);
  an.row_longest_b = Kokkos::View<Ordinal*, Device>(ordinals + 2 * M, M);
  an.results = Kokkos::subview(an.row_storage, Kokkos::make_pair(layout.results, layout.words));
  spgemm_zero_words(space, an.results, 0, spgemm_result_words);
  if (M == 0) return;
  Kokkos::View<Ordinal*, Device> b_range_temporary;
  if (!keep_b_ranges)
    b_range_temporary =
        Kokkos::View<Ordinal*, Device>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::b_range"), 2 * K);
  Ordinal* const b_ranges =
      keep_b_ranges ? reinterpret_cast<Ordinal*>(base + layout.b_ranges) : b_range_temporary.data();
  const Kokkos::View<Ordinal*, Device> b_min(b_ranges, K), b_max(b_ranges + K, K);
  using RowMap = decltype(B.graph.row_map);
  using Entries = decltype(B.graph.entries);
  using ColumnView = Kokkos::View<Ordinal*, Device>;
  using AnalyseB = SpgemmAnalyseB<RowMap, Entries, ColumnView>;
  using AnalyseA = SpgemmAnalyseA<RowMap, Entries, RowMap, ColumnView, decltype(an.row_products)>;
  using ValueB = typename AnalyseB::value_type;
  using ValueA = typename AnalyseA::value_type;
  static_assert(sizeof(ValueB) == 8 * (spgemm_results_analyse_a - spgemm_results_analyse_b) &&
                    sizeof(ValueA) <= 8 * (spgemm_results_backend - spgemm_results_analyse_a),
                "the analysis's reductions fit their result words");
  ValueB vb{-1, -1, 0, 0, 0};
  const AnalyseB fb{B.graph.row_map, B.graph.entries, b_min, b_max, an.nnz_b, static_cast<int64_t>(B.numCols())};
  // (A's entries are checked against [0, K) before B's row map is read.)
  const AnalyseA fa{A.graph.row_map, A.graph.entries, B.graph.row_map, b_min,    b_max, an.row_products,
                    an.row_col_min,  an.row_col_max,  an.row_longest_b, an.nnz_a, K,     an.num_cols};
  ValueA va;
  fa.init(va);
  const bool serial = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible &&
                      M + K + an.nnz_a + an.nnz_b < spgemm_host_serial_work;
  if (serial) {
    // A small problem on a host space: a parallel region would cost more than the rows.
    for (int64_t j = 0; j < K; ++j) fb(j, vb);
    for (int64_t i = 0; i < M; ++i) fa(i, va);
  } else {
    // Both reductions leave their results in the result words; one read-back takes both.
    using Results = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    const Kokkos::View<ValueB, Device, Results> rb(reinterpret_cast<ValueB*>(an.results.data() + spgemm_results_analyse_b));
    const Kokkos::View<ValueA, Device, Results> ra(reinterpret_cast<ValueA*>(an.results.data() + spgemm_results_analyse_a));
    const Kokkos::RangePolicy<ExecSpace> rows_b(space, 0, K), rows_a(space, 0, M);
    if (K > 0) Kokkos::parallel_reduce("Sprocket::spgemm::analyse_b", rows_b, fb, rb);
    Kokkos::parallel_reduce("Sprocket::spgemm::analyse_a", rows_a, fa, ra);
    int64_t words[spgemm_results_backend];
    spgemm_read_back(space, an.results, 0, spgemm_results_backend, words, an.host_reads);
    if (K > 0) std::memcpy(&vb, words + spgemm_results_analyse_b, sizeof vb);
    std::memcpy(&va, words + spgemm_results_analyse_a, sizeof va);
  }
  if (vb.bad_row_map >= 0) spgemm_report_bad_row("B", B, vb.bad_row_map, true);
  if (vb.bad_column >= 0) spgemm_report_bad_row("B", B, vb.bad_column, false);
  if (va.bad_row_map >= 0) spgemm_report_bad_row("A", A, va.bad_row_map, true);
  if (va.bad_column >= 0) spgemm_report_bad_row("A", A, va.bad_column, false);
  an.stats.products = va.products;
  an.stats.max_row_products = va.max_products;
  an.stats.max_row_range = va.max_range;
  an.stats.max_row_need = va.max_need;
  an.stats.max_row_need_multi = va.max_need_multi;
  an.stats.max_row_range_multi = va.max_range_multi;
  an.stats.max_longest_b = va.max_longest;
  an.stats.referencing_entries = va.referencing;
  an.stats.rows_with_products = va.rows_with_products;
  an.stats.single_entry_rows = va.single_entry_rows;
  an.stats.b_rows_sorted = vb.unsorted_rows == 0;
  an.stats.b_column_words = vb.words;
  an.stats.b_column_runs = vb.runs;
}

/// The row analysis as a plan begins: what it keeps (spgemm_analysis_bytes) and its temporaries
/// checked against the memory limit before anything is allocated, then spgemm_analyse_rows.
/// keep_b_ranges: spgemm_keeps_b_ranges_v of the plan's execution space (the CUDA emulation runs
/// the analysis on the host as the plan runs it on a GPU, and says so).
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_analyse(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an,
                    bool keep_b_ranges = spgemm_keeps_b_ranges_v<ExecSpace>) {
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  an.memory.analysis_bytes = spgemm_analysis_bytes<Ordinal, Offset>(A.numRows(), A.numCols(), keep_b_ranges);
  an.memory.symbolic_bytes = keep_b_ranges ? 0 : spgemm_bytes<Ordinal>(2 * A.numCols());  // the temporary ranges
  spgemm_require_memory(an.memory, 0, an.memory.analysis_bytes + an.memory.symbolic_bytes, "the row analysis");
  spgemm_analyse_rows(space, A, B, an, keep_b_ranges);
}

/// The ratio name printed by describe(): "12.5 MiB".
inline std::string spgemm_human_bytes(int64_t bytes) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(bytes >= (1 << 20) ? 1 : 0);
  if (bytes >= (int64_t(1) << 30)) os << static_cast<double>(bytes) / (int64_t(1) << 30) << " GiB";
  else if (bytes >= (1 << 20)) os << static_cast<double>(bytes) / (1 << 20) << " MiB";
  else if (bytes >= 1024) os << static_cast<double>(bytes) / 1024 << " KiB";
  else os << bytes << " B";
  return os.str();
}

}  // namespace Impl
}  // namespace Sprocket
