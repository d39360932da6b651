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

  // Row analysis (Algorithm 1), per row i of A: four arrays in one allocation, row_storage (an
  // allocation on a GPU is a synchronizing call, and the plan keeps the four together anyway).
  Kokkos::View<int64_t*, Device> row_storage;   ///< owns the four arrays below
  Kokkos::View<int64_t*, Device> row_products;  ///< products of row i
  Kokkos::View<Ordinal*, Device> row_col_min;   ///< smallest column of C's row i (num_cols if none)
  Kokkos::View<Ordinal*, Device> row_col_max;   ///< largest column of C's row i (-1 if none)
  Kokkos::View<Ordinal*, Device> row_longest_b; ///< longest row of B that row i references
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
      v.products += products;
      v.max_products = products > v.max_products ? products : v.max_products;
      v.max_range = hi - lo + 1 > v.max_range ? hi - lo + 1 : v.max_range;
      v.max_longest = longest > v.max_longest ? longest : v.max_longest;
      v.referencing += referencing;
      ++v.rows_with_products;
      if (end - begin == 1) ++v.single_entry_rows;
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v = {0, 0, 0, 0, 0, 0, 0, -1, -1}; }
  KOKKOS_INLINE_FUNCTION static void combine(value_type& d, const value_type& s) {
    d.products += s.products;
    d.max_products = s.max_products > d.max_products ? s.max_products : d.max_products;
    d.max_range = s.max_range > d.max_range ? s.max_range : d.max_range;
    d.max_longest = s.max_longest > d.max_longest ? s.max_longest : d.max_longest;
    d.referencing += s.referencing;
    d.rows_with_products += s.rows_with_products;
    d.single_entry_rows += s.single_entry_rows;
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

/// parallel_reduce of f over [0, n) into v, or a plain loop on the calling thread when `serial`
/// (a small problem on a host space: a parallel region would cost more than the rows).
template <class ExecSpace, class Functor, class Value>
void spgemm_reduce(const char* label, const ExecSpace& space, int64_t n, const Functor& f, Value& v, bool serial) {
  if (serial) {
    f.init(v);
    for (int64_t i = 0; i < n; ++i) f(i, v);
    return;
  }
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, 0, n), f, v);
}

/// Checks the shapes and runs the row analysis on `space`: fills the per-row Views and stats of
/// `an` (its dimensions are set here) and throws InvalidArgument for mismatched shapes or an
/// invalid pattern of A or B. Temporaries: B's per-row column range (2 * rows(B) ordinals).
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_analyse_rows(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an) {
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
  // products (8-byte words) first, then the three Ordinal arrays; views into row_storage, which
  // owns the memory (the analysis holds it as long as the views).
  const int64_t ordinal_words = (3 * spgemm_bytes<Ordinal>(M) + 7) / 8;
  an.row_storage = Kokkos::View<int64_t*, Device>(
      Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::row_analysis"), M + ordinal_words);
  Ordinal* const ordinals = reinterpret_cast<Ordinal*>(an.row_storage.data() + M);
  an.row_products = Kokkos::View<int64_t*, Device>(an.row_storage.data(), M);
  an.row_col_min = Kokkos::View<Ordinal*, Device>(ordinals, M);
  an.row_col_max = Kokkos::View<Ordinal*, Device>(ordinals + M, M);
  an.row_longest_b = Kokkos::View<Ordinal*, Device>(ordinals + 2 * M, M);
  if (M == 0) return;
  // B's per-row column range, both halves in one temporary allocation.
  const Kokkos::View<Ordinal*, Device> b_range(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::b_range"),
                                               2 * K);
  const Kokkos::View<Ordinal*, Device> b_min(b_range.data(), K), b_max(b_range.data() + K, K);
  using RowMap = decltype(B.graph.row_map);
  using Entries = decltype(B.graph.entries);
  typename SpgemmAnalyseB<RowMap, Entries, decltype(b_min)>::value_type vb{-1, -1, 0, 0, 0};
  const bool serial = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible &&
                      M + K + an.nnz_a + an.nnz_b < spgemm_host_serial_work;
  if (K > 0) {
    SpgemmAnalyseB<RowMap, Entries, decltype(b_min)> fb{B.graph.row_map, B.graph.entries, b_min, b_max, an.nnz_b,
                                                        static_cast<int64_t>(B.numCols())};
    spgemm_reduce("Sprocket::spgemm::analyse_b", space, K, fb, vb, serial);
  }
  if (vb.bad_row_map >= 0) spgemm_report_bad_row("B", B, vb.bad_row_map, true);
  if (vb.bad_column >= 0) spgemm_report_bad_row("B", B, vb.bad_column, false);
  // (A's entries are checked against [0, K) before B's row map is read.)
  SpgemmAnalyseA<RowMap, Entries, RowMap, decltype(b_min), decltype(an.row_products)> fa{
      A.graph.row_map, A.graph.entries, B.graph.row_map, b_min,    b_max, an.row_products,
      an.row_col_min,  an.row_col_max,  an.row_longest_b, an.nnz_a, K,     an.num_cols};
  typename decltype(fa)::value_type va{0, 0, 0, 0, 0, 0, 0, -1, -1};
  spgemm_reduce("Sprocket::spgemm::analyse_a", space, M, fa, va, serial);
  if (va.bad_row_map >= 0) spgemm_report_bad_row("A", A, va.bad_row_map, true);
  if (va.bad_column >= 0) spgemm_report_bad_row("A", A, va.bad_column, false);
  an.stats.products = va.products;
  an.stats.max_row_products = va.max_products;
  an.stats.max_row_range = va.max_range;
  an.stats.max_longest_b = va.max_longest;
  an.stats.referencing_entries = va.referencing;
  an.stats.rows_with_products = va.rows_with_products;
  an.stats.single_entry_rows = va.single_entry_rows;
  an.stats.b_rows_sorted = vb.unsorted_rows == 0;
  an.stats.b_column_words = vb.words;
  an.stats.b_column_runs = vb.runs;
}

/// Bytes of the row analysis's arrays kept by the plan (and the temporary B ranges).
template <class Ordinal, class Offset>
int64_t spgemm_analysis_bytes(int64_t num_rows) {
  return spgemm_bytes<int64_t>(num_rows) + 3 * spgemm_bytes<Ordinal>(num_rows) + spgemm_bytes<Offset>(num_rows + 1);
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
