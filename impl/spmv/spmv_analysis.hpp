#pragma once
// SpMV analysis: what SpmvPlan computes once per sparsity pattern, on the host.
//
//  1. The schedule (impl/spmv/spmv_analysis.cpp, SpmvSchedule): features, virtual rows, bins and
//     their kernels (model, forced, autotune or an explicit decision), and on the host target
//     where the kernels read column indices from and whether they prefetch x. Every decision is
//     taken here; what it needs from A's column indices (row patterns, bandwidth) it asks for
//     through SpmvIndexFacts, computed on demand and at most once per plan (SpmvColumnIndexCopies).
//  2. The device-side analysis every backend reads, SpmvAnalysis: A's Views plus the schedule in
//     the plan's memory space (SpmvDeviceSchedule). make_spmv_analysis only copies decisions
//     already taken; the layouts it derives (split-row chunks, the host threads' nnz-balanced
//     parts) follow from the schedule by fixed rules.
//
// The device schedule:
//  - vrow_bounds: row boundaries of the virtual rows;
//  - bins: one entry per non-split bin, with the list of its virtual rows (GPU and portable
//    executors launch one kernel per bin);
//  - split rows: rows cut into chunks of `split_chunk` entries, each chunk reduced by one team and
//    added into y atomically after y(row) was scaled by beta;
//  - host executor: the kernel of each virtual row and an nnz-balanced cut of the virtual rows
//    into contiguous parts, several per host thread taken dynamically (host_dynamic_parts), so
//    each thread streams through its rows in order and a slow thread hands its last parts on;
//    team_per_row virtual rows join the split rows there (a row split across threads).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/common/host_folds.hpp"

namespace Sprocket {
namespace Impl {

/// Throws InvalidArgument naming the first bad option (impl/spmv/spmv_options.cpp).
void check_spmv_options(const SpmvOptions& options);

/// What the host target's column-index decision reads from A's column indices.
struct SpmvRowPatternCount {
  int64_t count = -1, offsets = -1;  ///< distinct patterns and their offsets (where counting stopped)
  bool fits = false;                 ///< within SpmvSchedule::max_row_patterns / max_row_pattern_offsets
  bool offsets_fit_16_bits = false;  ///< fits, and every offset of the dictionary within int16
};
struct SpmvOffsets16Fit {
  int64_t bandwidth = -1;  ///< max |col - row|
  bool fits = false;       ///< every |col - row| <= 32767 (and A has entries)
};
/// The facts, each computed on demand (a decision that does not need one never pays for it).
struct SpmvIndexFacts {
  int64_t scalar_bytes = 8;  ///< sizeof the plan's scalar: x takes scalar_bytes * cols
  std::function<SpmvRowPatternCount()> row_patterns;
  std::function<SpmvOffsets16Fit()> offsets16;
};

/// The whole schedule: bins from `decision` (nullptr: the model's, adjusted by the options), then
/// with `facts` (nullptr: A's indices unknown, nothing decided) the column indices and x prefetch.
SpmvSchedule spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols, const SpmvOptions& options,
                           SpmvTarget target, const SpmvDecision* decision, SpmvDecidedBy decided_by,
                           const std::string& decision_detail, const SpmvIndexFacts* facts);

template <class Ordinal, class Device>
struct SpmvBinDevice {
  SpmvKernel kernel = SpmvKernel::thread_per_row;
  int64_t num_vrows = 0;
  int64_t rows_per_vrow = 1;  ///< upper bound: U (1 for split rows)
  int64_t max_row = 0;
  Kokkos::View<Ordinal*, Device> vrows;
};

template <class Ordinal, class Device>
struct SpmvDeviceSchedule {
  using ordinal_view = Kokkos::View<Ordinal*, Device>;
  ordinal_view vrow_bounds;
  std::vector<SpmvBinDevice<Ordinal, Device>> bins;
  /// SpmvSchedule::row_blocks: the virtual rows are row blocks, run by one kernel with the split
  /// rows' chunks (bins empty); a block of one row longer than split_row_threshold is a split row.
  bool row_blocks = false;
  bool row_block_merge = false;  ///< SpmvSchedule::row_block_merge
  int64_t split_row_threshold = 0;

  int64_t num_split_rows = 0;
  int64_t num_split_chunks = 0;
  int64_t split_chunk = 1;
  ordinal_view split_rows;                        ///< the rows handled by chunks
  Kokkos::View<int64_t*, Device> split_chunk_begin;  ///< first chunk of each split row (n + 1)
  ordinal_view chunk_split_index;                 ///< which split row each chunk belongs to

  /// CUDA target: the schedule is one bin holding every virtual row in order (single bin), so
  /// the thread_per_row and subvectorX kernels take the row straight from their slot.
  bool direct_rows = false;

  /// Host executor and the CUDA thread_per_row / subvectorX kernels: col - row of every entry
  /// when SpmvSchedule::compressed_indices, else empty.
  Kokkos::View<int16_t*, Device> col_offsets;
  /// Host executor and the CUDA thread_per_row / subvectorX kernels, SpmvSchedule::row_patterns:
  /// pattern of each row, and pattern p's offsets col - row at
  /// pattern_offsets[pattern_begin(p), pattern_begin(p + 1)); else empty.
  Kokkos::View<uint16_t*, Device> row_pattern;
  Kokkos::View<int32_t*, Device> pattern_begin;
  Kokkos::View<int32_t*, Device> pattern_offsets;  ///< host executor
  /// CUDA kernels: the dictionary's offsets as int16 (half the bytes of each entry's column read;
  /// the CUDA target uses row patterns only when they fit), pattern_offsets left empty.
  Kokkos::View<int16_t*, Device> pattern_offsets16;
  /// Host executor: SpmvSchedule::x_prefetch_distance (0: no x prefetch).
  int64_t x_prefetch_distance = 0;

  // Host executor only.
  Kokkos::View<uint8_t*, Device> vrow_kernel;     ///< SpmvKernel of each virtual row
  int64_t num_parts = 0;                          ///< host threads' parts (0: not built)
  Kokkos::View<int64_t*, Device> part_begin;      ///< part p: virtual rows [part_begin(p), part_begin(p+1))
};

/// What every backend's spmv_apply reads: the target the schedule was built for, A's Views (the
/// plan keeps A's Views, not a copy, so value updates are seen) and the device schedule.
template <class CrsType>
struct SpmvAnalysis {
  using ordinal_type = typename CrsType::non_const_ordinal_type;
  using device_type = typename CrsType::device_type;
  SpmvTarget target = SpmvTarget::host;
  CrsType A;
  SpmvDeviceSchedule<ordinal_type, device_type> schedule;
};

/// Mode T with SpmvTranspose::cached: A^T's analysis, and for each entry of A^T the index of its
/// entry in A (A^T's values are refreshed from A's before every transposed apply).
template <class CrsType>
struct SpmvTransposeAnalysis {
  SpmvAnalysis<CrsType> analysis;
  Kokkos::View<typename CrsType::non_const_size_type*, typename CrsType::device_type> source;
};

/// A^T with the same CrsMatrix type, and for every entry of A^T the index of its entry in A.
template <class CrsType>
std::pair<CrsType, Kokkos::View<typename CrsType::non_const_size_type*, typename CrsType::device_type>>
transpose_with_source(const CrsType& A) {
  // Transposing a copy whose values are the entry indices (exact in double up to 2^53) yields
  // the permutation for free.
  HostCsr host = to_host_csr(A);
  for (size_t k = 0; k < host.values.size(); ++k) host.values[k] = static_cast<double>(k);
  const HostCsr t = transpose(host);
  using Offset = typename CrsType::non_const_size_type;
  const auto source =
      to_device_view<Offset, typename CrsType::device_type>(t.values, "Sprocket::spmv::transpose_source");
  CrsType At = to_crs<CrsType>(t, "Sprocket::spmv::transpose");
  return {At, source};
}

/// Runs of consecutive rows for the host threads: host_chunk_count(nnz + n) of them, each about
/// equal in entries plus rows; run c is rows [runs[c], runs[c + 1]).
inline std::vector<int64_t> host_row_runs(const std::vector<int64_t>& row_map) {
  const int64_t n = static_cast<int64_t>(row_map.size()) - 1;
  const int64_t nnz = n > 0 ? row_map[n] : 0;
  const int64_t num_runs = host_chunk_count(nnz + std::max<int64_t>(n, 0));
  std::vector<int64_t> runs(num_runs + 1, std::max<int64_t>(n, 0));
  runs[0] = 0;
  for (int64_t c = 1; c < num_runs; ++c) {
    const int64_t target = (nnz + n) * c / num_runs;
    // First row r with row_map[r] + r >= target (row_map[r] + r is increasing in r).
    int64_t lo = runs[c - 1], hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (row_map[mid] + mid < target) lo = mid + 1; else hi = mid;
    }
    runs[c] = lo;
  }
  return runs;
}

/// col - row for every entry of A (`entries`: A's column indices in host memory) as int16 in
/// Device's memory, or an empty View when some |col - row| > 32767. Also returns the bandwidth
/// max |col - row|. Runs of rows (host_row_runs) on the host threads, each writing its offsets
/// without a branch (truncated past 32767: the copy is then dropped) while it measures its
/// bandwidth, so the loop vectorizes.
template <class Device, class HostEntries>
std::pair<Kokkos::View<int16_t*, Device>, int64_t> compress_columns(const HostEntries& entries,
                                                                   const std::vector<int64_t>& row_map) {
  Kokkos::View<int16_t*, Device> out(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmv::col_offsets"),
                                     entries.extent(0));
  const auto h = Kokkos::create_mirror_view(out);
  advise_huge_pages(h);
  const std::vector<int64_t> runs = host_row_runs(row_map);
  const int64_t num_runs = static_cast<int64_t>(runs.size()) - 1;
  std::vector<int64_t> run_bandwidth(num_runs, 0);  // host_row_runs gives at least one run
  const auto* __restrict columns = entries.data();
  int16_t* __restrict offsets = h.data();
  host_for_each("Sprocket::spmv::compress_columns", num_runs, [&](int64_t c) {
    int64_t widest = 0;
    for (int64_t r = runs[c]; r < runs[c + 1]; ++r)
      for (int64_t k = row_map[r], e = row_map[r + 1]; k < e; ++k) {
        const int64_t d = static_cast<int64_t>(columns[k]) - r;
        widest = std::max<int64_t>(widest, d < 0 ? -d : d);
        offsets[k] = static_cast<int16_t>(d);
      }
    run_bandwidth[c] = widest;
  });
  const int64_t bandwidth = *std::max_element(run_bandwidth.begin(), run_bandwidth.end());
  if (bandwidth > 32767) return {{}, bandwidth};
  Kokkos::deep_copy(out, h);
  return {out, bandwidth};
}

/// The row-pattern dictionary of A (SpmvOptions::IndexCompression::row_patterns): the pattern of
/// every row, and for pattern p its offsets col - row, in stored order, at
/// offsets[begin(p), begin(p + 1)). `usable` is false (and the Views empty) when A has more
/// patterns or offsets than the limits; counting then stops where the first limit was passed.
template <class Device>
struct RowPatterns {
  static constexpr int64_t max_patterns = SpmvSchedule::max_row_patterns;
  static constexpr int64_t max_offsets = SpmvSchedule::max_row_pattern_offsets;
  Kokkos::View<uint16_t*, Device> row_pattern;
  Kokkos::View<int32_t*, Device> begin;
  Kokkos::View<int32_t*, Device> offsets;
  Kokkos::View<int16_t*, Device> offsets16;  ///< the offsets as int16 when they all fit, else empty
  int64_t count = 0, total_offsets = 0;
  bool usable = false;
  bool offsets_fit_16_bits = false;
};

/// One contiguous run of rows' own dictionary (find_row_patterns counts runs on the host threads,
/// then merges their dictionaries in order).
struct RowPatternRun {
  std::vector<int32_t> begin{0}, offsets;  ///< pattern p's offsets at offsets[begin[p], begin[p + 1])
  std::vector<uint64_t> hash;              ///< of each pattern's length and offsets
  /// Where this run passed a limit of its own (its counts there); 0 when it did not, also when it
  /// stopped early because another run had.
  int64_t stop_count = 0, stop_offsets = 0;
  int64_t count() const { return static_cast<int64_t>(begin.size()) - 1; }
};

/// The hash of a row's pattern: its length and its offsets col - row.
template <class OffsetAt>
uint64_t row_pattern_hash(int64_t len, const OffsetAt& offset) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(len);
  for (int64_t j = 0; j < len; ++j) h = (h ^ static_cast<uint64_t>(offset(j))) * 0x100000001B3ull;
  return h;
}

/// Rows [r0, r1): the id of each row's pattern in `run`'s dictionary written to row_pattern(r).
/// Stops when the dictionary passes a limit of RowPatterns, setting `any_overflow`; reads it every
/// row, so that every run stops soon after the first one does (the whole dictionary is then
/// unusable; on R-MAT every run passed the limits within its first rows, then each counted on to
/// its own limit).
template <class HostEntries, class HostPatternIds>
void count_row_patterns(const HostEntries& entries, const std::vector<int64_t>& row_map, int64_t r0, int64_t r1,
                        const HostPatternIds& row_pattern, RowPatternRun& run, std::atomic<bool>& any_overflow) {
  constexpr int64_t max_patterns = SpmvSchedule::max_row_patterns, max_offsets = SpmvSchedule::max_row_pattern_offsets;
  std::unordered_multimap<uint64_t, int32_t> by_hash;  // hash of the offsets -> pattern ids
  constexpr int max_recent = 4;
  int32_t recent[max_recent] = {};  // the most recently used distinct patterns, most recent first
  int recent_count = 0;
  auto& begin = run.begin;
  auto& offsets = run.offsets;
  for (int64_t r = r0; r < r1; ++r) {
    if (any_overflow.load(std::memory_order_relaxed)) return;
    const int64_t k0 = row_map[r], len = row_map[r + 1] - k0;
    // Neighbouring rows of stencil and FEM matrices mostly repeat a recent pattern (a 7-point
    // stencil the previous row's; a block of d degrees of freedom per node cycles through d):
    // compare with the last `recent` distinct ones first, which skips the hash and the table
    // (most of the analysis's time on Poisson and elasticity matrices went to hashing every row).
    int32_t hit = -1;
    for (int i = 0; i < recent_count && hit < 0; ++i) {
      const int32_t p = recent[i];
      if (begin[p + 1] - begin[p] != len) continue;
      const int32_t* o = offsets.data() + begin[p];
      if (len < 16) {
        bool same = true;
        for (int64_t j = 0; j < len && same; ++j) same = o[j] == static_cast<int64_t>(entries(k0 + j)) - r;
        if (same) hit = i;
        continue;
      }
      // A long row: the first offset rejects most other patterns, the rest is compared without
      // a branch in the column type (vectorized; on 81-entry elasticity rows 1.6x faster than
      // stopping at the first difference, on 7-entry stencil rows slower).
      if (o[0] != static_cast<int64_t>(entries(k0)) - r) continue;
      using Entry = std::remove_cv_t<std::remove_reference_t<decltype(entries(k0))>>;
      const Entry row = static_cast<Entry>(r);
      Entry differ = 0;
      for (int64_t j = 1; j < len; ++j) differ |= static_cast<Entry>(entries(k0 + j) - row) ^ static_cast<Entry>(o[j]);
      if (differ == 0) hit = i;
    }
    if (hit >= 0) {
      const int32_t p = recent[hit];
      for (int i = hit; i > 0; --i) recent[i] = recent[i - 1];  // most recent first
      recent[0] = p;
      row_pattern(r) = static_cast<uint16_t>(p);
      continue;
    }
    const uint64_t h =
        row_pattern_hash(len, [&](int64_t j) { return static_cast<int64_t>(entries(k0 + j)) - r; });
    int32_t id = -1;
    for (auto [it, end] = by_hash.equal_range(h); it != end && id < 0; ++it) {
      const int32_t p = it->second;
      if (begin[p + 1] - begin[p] != len) continue;
      bool same = true;
      for (int64_t j = 0; j < len && same; ++j)
        same = offsets[begin[p] + j] == static_cast<int64_t>(entries(k0 + j)) - r;
      if (same) id = p;
    }
    if (id < 0) {
      id = static_cast<int32_t>(begin.size()) - 1;
      if (id + 1 > max_patterns || static_cast<int64_t>(offsets.size()) + len > max_offsets) {
        run.stop_count = id + 1;
        run.stop_offsets = static_cast<int64_t>(offsets.size()) + len;
        any_overflow.store(true, std::memory_order_relaxed);
        return;
      }
      for (int64_t j = 0; j < len; ++j) offsets.push_back(static_cast<int32_t>(static_cast<int64_t>(entries(k0 + j)) - r));
      begin.push_back(static_cast<int32_t>(offsets.size()));
      run.hash.push_back(h);
      by_hash.emplace(h, id);
    }
    row_pattern(r) = static_cast<uint16_t>(id);
    recent_count = std::min(recent_count + 1, max_recent);
    for (int i = recent_count - 1; i > 0; --i) recent[i] = recent[i - 1];
    recent[0] = id;
  }
}

/// `entries`: A's column indices in host memory; the Views are made in Device's memory.
///
/// Runs of rows of about equal entries are counted on the host threads, each with its own
/// dictionary (count_row_patterns); the dictionaries are then merged in row order, so a pattern's
/// id is the order of its first row, as one serial pass would number it, and the later runs' ids
/// are renumbered on the threads. Any run passing a limit makes the whole dictionary pass it.
template <class Device, class HostEntries>
RowPatterns<Device> find_row_patterns(const HostEntries& entries, const std::vector<int64_t>& row_map) {
  using Result = RowPatterns<Device>;
  const int64_t n = static_cast<int64_t>(row_map.size()) - 1;
  // Each row's pattern goes straight into the View the plan keeps (its host mirror), not through
  // a vector and a copy: one fresh array, not two.
  Kokkos::View<uint16_t*, Device> row_pattern_view(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmv::row_pattern"),
                                                   std::max<int64_t>(n, 0));
  const auto row_pattern = Kokkos::create_mirror_view(row_pattern_view);
  advise_huge_pages(row_pattern);

  // Runs cut by entries (plus a little per row), as many as host_chunked's, taken dynamically.
  const std::vector<int64_t> run_begin = host_row_runs(row_map);
  const int64_t num_runs = static_cast<int64_t>(run_begin.size()) - 1;
  std::vector<RowPatternRun> runs(num_runs);
  std::atomic<bool> any_overflow{false};
  host_for_each("Sprocket::spmv::row_patterns", num_runs, [&](int64_t c) {
    count_row_patterns(entries, row_map, run_begin[c], run_begin[c + 1], row_pattern, runs[c], any_overflow);
  });

  // Merge in row order: run 0's dictionary is the start; each later pattern found again or added.
  Result result;
  auto stop = [&](int64_t count, int64_t offsets) {
    result.count = count;
    result.total_offsets = offsets;
    return result;
  };
  if (any_overflow) {
    // Some run passed a limit on its own (the others may have stopped early for it): so does A.
    int64_t count = 0, offsets = 0;
    for (const RowPatternRun& run : runs) {
      count = std::max(count, run.stop_count);
      offsets = std::max(offsets, run.stop_offsets);
    }
    return stop(count, offsets);
  }
  RowPatternRun all = std::move(runs[0]);
  std::unordered_multimap<uint64_t, int32_t> by_hash;
  for (int32_t p = 0; p < all.count(); ++p) by_hash.emplace(all.hash[p], p);
  std::vector<std::vector<uint16_t>> renumber(num_runs);
  for (int64_t c = 1; c < num_runs; ++c) {
    const RowPatternRun& run = runs[c];
    bool identity = true;
    for (int32_t q = 0; q < run.count(); ++q) {
      const int32_t* o = run.offsets.data() + run.begin[q];
      const int32_t len = run.begin[q + 1] - run.begin[q];
      int32_t id = -1;
      for (auto [it, end] = by_hash.equal_range(run.hash[q]); it != end && id < 0; ++it) {
        const int32_t p = it->second;
        if (all.begin[p + 1] - all.begin[p] == len && std::equal(o, o + len, all.offsets.data() + all.begin[p])) id = p;
      }
      if (id < 0) {
        id = static_cast<int32_t>(all.count());
        if (id + 1 > Result::max_patterns || static_cast<int64_t>(all.offsets.size()) + len > Result::max_offsets)
          return stop(id + 1, static_cast<int64_t>(all.offsets.size()) + len);
        all.offsets.insert(all.offsets.end(), o, o + len);
        all.begin.push_back(static_cast<int32_t>(all.offsets.size()));
        all.hash.push_back(run.hash[q]);
        by_hash.emplace(run.hash[q], id);
      }
      renumber[c].push_back(static_cast<uint16_t>(id));
      identity &= id == q;
    }
    if (identity) renumber[c].clear();
  }
  host_for_each("Sprocket::spmv::row_patterns_renumber", num_runs, [&](int64_t c) {
    if (renumber[c].empty()) return;  // run 0, and runs whose ids are already the merged ones
    const uint16_t* to = renumber[c].data();
    for (int64_t r = run_begin[c]; r < run_begin[c + 1]; ++r) row_pattern(r) = to[row_pattern(r)];
  });

  const std::vector<int32_t>& offsets = all.offsets;
  result.count = all.count();
  result.total_offsets = static_cast<int64_t>(offsets.size());
  result.usable = true;
  Kokkos::deep_copy(row_pattern_view, row_pattern);
  result.row_pattern = row_pattern_view;
  result.begin = to_device_view<int32_t, Device>(all.begin, "Sprocket::spmv::pattern_begin");
  result.offsets = to_device_view<int32_t, Device>(offsets, "Sprocket::spmv::pattern_offsets");
  result.offsets_fit_16_bits =
      std::all_of(offsets.begin(), offsets.end(), [](int32_t o) { return o >= -32768 && o <= 32767; });
  if (result.offsets_fit_16_bits) {
    const std::vector<int16_t> narrow(offsets.begin(), offsets.end());
    result.offsets16 = to_device_view<int16_t, Device>(narrow, "Sprocket::spmv::pattern_offsets16");
  }
  return result;
}

/// The column-index copies a plan may read instead of A's indices, each computed at most once
/// (the autotune candidates share them): the row-pattern dictionary and the 16-bit offsets.
template <class Device>
struct SpmvColumnIndexCopies {
  bool patterns_counted = false;
  RowPatterns<Device> patterns;
  bool offsets_computed = false;
  Kokkos::View<int16_t*, Device> col_offsets;
  int64_t bandwidth = -1;
  double patterns_seconds = 0, offsets_seconds = 0;  ///< what computing each took
};

/// The host-side analysis of A: the schedule with every decision (see spmv_schedule), asking
/// `copies` for the facts of A's column indices. `decision` nullptr: the model's.
template <class CrsType>
SpmvSchedule analyze_spmv(const CrsType& A, const std::vector<int64_t>& row_map, const SpmvOptions& options,
                          SpmvTarget target, SpmvColumnIndexCopies<typename CrsType::device_type>& copies,
                          const SpmvDecision* decision = nullptr, SpmvDecidedBy decided_by = SpmvDecidedBy::model,
                          const std::string& decision_detail = "") {
  using Device = typename CrsType::device_type;
  // A's column indices on the host, copied at most once per call whichever facts ask for them (on
  // a host space the mirror is A's own View).
  std::optional<decltype(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries))> host_entries;
  auto entries = [&]() -> const auto& {
    if (!host_entries) host_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
    return *host_entries;
  };
  SpmvIndexFacts facts;
  facts.scalar_bytes = static_cast<int64_t>(sizeof(typename CrsType::non_const_value_type));
  facts.row_patterns = [&]() {
    if (!copies.patterns_counted) {
      const auto t0 = std::chrono::steady_clock::now();
      copies.patterns = find_row_patterns<Device>(entries(), row_map);
      copies.patterns_counted = true;
      copies.patterns_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return SpmvRowPatternCount{copies.patterns.count, copies.patterns.total_offsets, copies.patterns.usable,
                               copies.patterns.offsets_fit_16_bits};
  };
  facts.offsets16 = [&]() {
    if (!copies.offsets_computed) {
      const auto t0 = std::chrono::steady_clock::now();
      std::tie(copies.col_offsets, copies.bandwidth) = compress_columns<Device>(entries(), row_map);
      copies.offsets_computed = true;
      copies.offsets_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return SpmvOffsets16Fit{copies.bandwidth, copies.col_offsets.extent(0) > 0};
  };
  return spmv_schedule(row_map, A.numCols(), options, target, decision, decided_by, decision_detail, &facts);
}

/// The schedule in the plan's memory space. `host_parts` > 0 (the host threads) also builds the
/// host executor's partition, into host_dynamic_parts(host_parts, nnz-cost) parts.
template <class Ordinal, class Device>
SpmvDeviceSchedule<Ordinal, Device> make_device_schedule(const SpmvSchedule& s,
                                                        const std::vector<int64_t>& row_map,
                                                        int host_parts) {
  SpmvDeviceSchedule<Ordinal, Device> d;
  const bool host_target = s.target == SpmvTarget::host;
  d.vrow_bounds = to_device_view<Ordinal, Device>(s.vrow_bounds, "Sprocket::spmv::vrow_bounds");
  d.row_blocks = s.row_blocks;
  d.row_block_merge = s.row_block_merge;
  d.split_row_threshold = s.split_row_threshold;

  std::vector<int64_t> split_rows;
  std::vector<uint8_t> vrow_kernel(s.num_vrows(), 0);
  for (const auto& bin : s.bins) {
    const bool to_split = bin.kernel == SpmvKernel::split_row ||
                          (host_target && bin.kernel == SpmvKernel::team_per_row);
    for (int64_t v : bin.vrows) vrow_kernel[v] = static_cast<uint8_t>(to_split ? SpmvKernel::split_row : bin.kernel);
    if (to_split) {
      for (int64_t v : bin.vrows)
        for (int64_t r = s.vrow_bounds[v]; r < s.vrow_bounds[v + 1]; ++r) split_rows.push_back(r);
      continue;
    }
    SpmvBinDevice<Ordinal, Device> b;
    b.kernel = bin.kernel;
    b.num_vrows = static_cast<int64_t>(bin.vrows.size());
    b.rows_per_vrow = s.virtual_row_size;
    b.max_row = bin.max_row;
    b.vrows = to_device_view<Ordinal, Device>(bin.vrows, "Sprocket::spmv::bin_vrows");
    d.bins.push_back(b);
  }
  std::sort(split_rows.begin(), split_rows.end());

  d.split_chunk = s.split_chunk > 0 ? s.split_chunk : 4096;
  d.num_split_rows = static_cast<int64_t>(split_rows.size());
  std::vector<int64_t> chunk_begin(split_rows.size() + 1, 0), chunk_index;
  for (size_t i = 0; i < split_rows.size(); ++i) {
    const int64_t len = row_map[split_rows[i] + 1] - row_map[split_rows[i]];
    const int64_t chunks = std::max<int64_t>(1, (len + d.split_chunk - 1) / d.split_chunk);
    chunk_begin[i + 1] = chunk_begin[i] + chunks;
    for (int64_t c = 0; c < chunks; ++c) chunk_index.push_back(static_cast<int64_t>(i));
  }
  d.num_split_chunks = chunk_begin.back();
  d.direct_rows = s.target == SpmvTarget::cuda && s.single_bin && !s.row_blocks && d.bins.size() == 1 &&
                  split_rows.empty();
  d.split_rows = to_device_view<Ordinal, Device>(split_rows, "Sprocket::spmv::split_rows");
  d.chunk_split_index = to_device_view<Ordinal, Device>(chunk_index, "Sprocket::spmv::chunk_split_index");
  d.split_chunk_begin = to_device_view<int64_t, Device>(chunk_begin, "Sprocket::spmv::split_chunk_begin");

  if (host_parts > 0) {
    // nnz-balanced contiguous parts; a row also costs a little (row_map read, y write), counted
    // as 2 entries. Split rows cost nothing here: their chunks are shared by all threads.
    const int64_t nv = s.num_vrows();
    std::vector<int64_t> cost(nv + 1, 0);
    for (int64_t v = 0; v < nv; ++v) {
      const int64_t r0 = s.vrow_bounds[v], r1 = s.vrow_bounds[v + 1];
      const int64_t c = vrow_kernel[v] == static_cast<uint8_t>(SpmvKernel::split_row)
                            ? 0
                            : (row_map[r1] - row_map[r0]) + 2 * (r1 - r0);
      cost[v + 1] = cost[v] + c;
    }
    d.num_parts = host_dynamic_parts(host_parts, cost[nv]);
    d.part_begin = to_device_view<int64_t, Device>(balanced_parts(cost, d.num_parts), "Sprocket::spmv::part_begin");
    d.vrow_kernel = to_device_view<uint8_t, Device>(vrow_kernel, "Sprocket::spmv::vrow_kernel");
  }
  return d;
}

/// The device-side analysis: a copy of the schedule's decisions, with the column-index copies
/// the schedule chose (computed by analyze_spmv, which took the decision).
template <class CrsType>
SpmvAnalysis<CrsType> make_spmv_analysis(const CrsType& A, const SpmvSchedule& s, const std::vector<int64_t>& row_map,
                                         const SpmvColumnIndexCopies<typename CrsType::device_type>& copies) {
  using execution_space = typename CrsType::execution_space;
  SpmvAnalysis<CrsType> a;
  a.target = s.target;
  a.A = A;
  const int parts = s.target == SpmvTarget::host ? std::max(1, execution_space().concurrency()) : 0;
  a.schedule = make_device_schedule<typename SpmvAnalysis<CrsType>::ordinal_type,
                                    typename CrsType::device_type>(s, row_map, parts);
  if (s.row_patterns) {
    a.schedule.row_pattern = copies.patterns.row_pattern;
    a.schedule.pattern_begin = copies.patterns.begin;
    if (s.target == SpmvTarget::cuda)
      a.schedule.pattern_offsets16 = copies.patterns.offsets16;
    else
      a.schedule.pattern_offsets = copies.patterns.offsets;
  }
  if (s.compressed_indices) a.schedule.col_offsets = copies.col_offsets;
  a.schedule.x_prefetch_distance = s.x_prefetch_distance;
  return a;
}

}  // namespace Impl
}  // namespace Sprocket
