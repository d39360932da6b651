// SpMV analysis on the host: features, virtual rows, bins (paper: autotuned-spmv, Algorithm 2),
// and on the host target where the kernels read column indices from and whether they prefetch x.
// Every decision of a plan is taken here; impl/spmv/spmv_analysis.hpp copies the result to the
// device.
//
// Virtual rows: U adjacent rows form one virtual row, except that a row longer than the split
// threshold always forms a virtual row of its own and goes to the split-row kernel; the paper
// puts over-long rows in its last bin, but one thread block per 10^5-entry row leaves the rest of
// a GPU idle. Binning: the paper's bin id is workload / U; we bin by log2 of the virtual row's
// average row length (class 0: < 1, class c: [2^(c-1), 2^c)), i.e. the paper's bins merged
// geometrically, so that 32 classes cover every length. Classes that map to the same kernel are
// merged into one bin, so a GPU launches one kernel per distinct kernel, not per class.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "Sprocket_MatrixStats.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/spmv/spmv_analysis.hpp"
#include "impl/utils/row_length_partial.hpp"

namespace Sprocket {

namespace {
int length_class(double avg) {
  if (avg < 1) return 0;
  int c = 1;
  while (c < num_spmv_classes - 1 && avg >= std::ldexp(1.0, c)) ++c;
  return c;
}

std::string class_range(int lo, int hi) {
  std::ostringstream os;
  auto low = [](int c) { return c == 0 ? 0.0 : std::ldexp(1.0, c - 1); };
  os << "[" << low(lo) << ", " << std::ldexp(1.0, hi) << ")";
  return os.str();
}
}  // namespace

SpmvFeatures spmv_features(const std::vector<int64_t>& row_map, int64_t num_cols) {
  // row_length_stats's sums, folded over runs of rows on the host threads.
  const int64_t rows = static_cast<int64_t>(row_map.size()) - 1;
  std::vector<Impl::RowLengthPartial> partials(Impl::host_chunk_count(rows));
  const int64_t runs = Impl::host_chunked(rows, [&](int64_t begin, int64_t end, int64_t c) {
    partials[c] = Impl::row_length_partial(row_map, begin, end);
  });
  for (int64_t c = 1; c < runs; ++c) Impl::merge_row_length_partial(partials[0], partials[c]);
  const RowLengthStats r = Impl::finish_row_length_stats(row_map, partials[0]);
  SpmvFeatures f;
  f.rows = r.rows;
  f.cols = num_cols;
  f.nnz = r.nnz;
  f.min_row = r.min_row;
  f.max_row = r.max_row;
  f.avg_row = r.avg_row;
  f.var_row = r.var_row;
  f.histogram = r.histogram;
  return f;
}

// The schedule proper, from features computed once by the caller.
namespace {

SpmvSchedule build_schedule(const std::vector<int64_t>& row_map, const SpmvFeatures& features,
                            const SpmvOptions& options, SpmvTarget target, const SpmvDecision& decision,
                            SpmvDecidedBy decided_by, const std::string& decision_detail) {
  SPROCKET_REQUIRE(decision.virtual_row_size >= 1, "SpMV decision with U = ", decision.virtual_row_size);

  SpmvSchedule s;
  s.target = target;
  s.features = features;
  s.decided_by = decided_by;
  s.decision_detail = decision_detail;
  s.single_bin = decision.single_bin;
  const bool cpu = target == SpmvTarget::host || target == SpmvTarget::portable_cpu;
  // Defaults, see the file comment of impl/spmv/host/spmv_host.hpp and spmv_kokkos.hpp: on a CPU
  // a row is worth splitting when it is a noticeable share of one thread's work; on a GPU when a
  // 256-thread block would loop over it more than 64 times.
  s.split_row_threshold = options.split_row_threshold > 0
                              ? options.split_row_threshold
                              : (cpu ? std::max<int64_t>(8192, s.features.nnz / 32) : (int64_t{1} << 14));
  s.split_chunk = options.split_chunk > 0 ? options.split_chunk : (cpu ? 8192 : 4096);
  const int64_t rows = s.features.rows;
  const SpmvKernel single_kernel = decision.single_bin_kernel;
  // A forced split_row kernel splits every row: one row per virtual row.
  s.virtual_row_size = (decision.single_bin && single_kernel == SpmvKernel::split_row) ? 1 : decision.virtual_row_size;
  const int64_t U = s.virtual_row_size;

  // Virtual rows; in binned mode over-long rows are isolated. Without such rows they are the
  // multiples of U (no pass over the row map: on 10^6 rows of a stencil the per-row loop was a
  // tenth of the plan's analysis).
  s.vrow_bounds.assign(1, 0);
  std::vector<uint8_t> is_split;
  const bool isolates_rows = !decision.single_bin && s.features.max_row > s.split_row_threshold;
  if (!isolates_rows) {
    s.vrow_bounds.reserve(static_cast<size_t>((rows + U - 1) / U + 1));
    for (int64_t r = U; r < rows; r += U) s.vrow_bounds.push_back(r);
    if (rows > 0) s.vrow_bounds.push_back(rows);
    is_split.assign(s.vrow_bounds.size() - 1, 0);
  }
  int64_t start = 0;
  for (int64_t r = 0; r < rows && isolates_rows; ++r) {
    const int64_t len = row_map[r + 1] - row_map[r];
    if (!decision.single_bin && len > s.split_row_threshold) {
      if (r > start) {
        s.vrow_bounds.push_back(r);
        is_split.push_back(0);
      }
      s.vrow_bounds.push_back(r + 1);
      is_split.push_back(1);
      start = r + 1;
    } else if (r + 1 - start == U) {
      s.vrow_bounds.push_back(r + 1);
      is_split.push_back(0);
      start = r + 1;
    }
  }
  if (isolates_rows && rows > start) {
    s.vrow_bounds.push_back(rows);
    is_split.push_back(0);
  }

  // Bins: one per distinct kernel, in order of first class.
  std::vector<int> bin_of_kernel(num_spmv_kernels, -1);
  for (int64_t v = 0; v < s.num_vrows(); ++v) {
    const int64_t r0 = s.vrow_bounds[v], r1 = s.vrow_bounds[v + 1];
    const int64_t nnz = row_map[r1] - row_map[r0];
    const int cls = length_class(static_cast<double>(nnz) / static_cast<double>(r1 - r0));
    SpmvKernel kernel = decision.single_bin ? single_kernel
                        : is_split[v]      ? SpmvKernel::split_row
                                           : decision.kernel_for_class[cls];
    SPROCKET_REQUIRE(static_cast<int>(kernel) >= 0 && static_cast<int>(kernel) < num_spmv_kernels,
                     "SpMV decision has no kernel for class ", cls);
    int& b = bin_of_kernel[static_cast<int>(kernel)];
    if (b < 0) {
      b = static_cast<int>(s.bins.size());
      s.bins.emplace_back();
      s.bins.back().kernel = kernel;
      s.bins.back().class_lo = s.bins.back().class_hi = cls;
    }
    SpmvSchedule::Bin& bin = s.bins[b];
    bin.class_lo = std::min(bin.class_lo, cls);
    bin.class_hi = std::max(bin.class_hi, cls);
    bin.vrows.push_back(v);
    bin.rows += r1 - r0;
    bin.nnz += nnz;
  }
  // Each bin's longest row: with one bin A's longest row, else a pass over the rows.
  if (s.bins.size() == 1) {
    s.bins[0].max_row = s.features.max_row;
  } else {
    for (SpmvSchedule::Bin& bin : s.bins)
      for (int64_t v : bin.vrows)
        for (int64_t r = s.vrow_bounds[v]; r < s.vrow_bounds[v + 1]; ++r)
          bin.max_row = std::max(bin.max_row, row_map[r + 1] - row_map[r]);
  }
  std::sort(s.bins.begin(), s.bins.end(),
            [](const SpmvSchedule::Bin& a, const SpmvSchedule::Bin& b) { return a.class_lo < b.class_lo; });
  return s;
}

/// SpmvBinning::row_blocks: rows packed greedily, in order, into blocks of at most
/// row_block_entries entries and row_block_rows rows, so that every block of the one launch stages
/// about the same number of products whatever the row lengths; a longer row is a block alone (the
/// whole block reduces it), a row longer than the split threshold goes to the split_row bin, whose
/// chunks the same launch runs.
SpmvSchedule build_row_block_schedule(const std::vector<int64_t>& row_map, const SpmvFeatures& features,
                                      const SpmvOptions& options, SpmvTarget target, SpmvDecidedBy decided_by,
                                      const std::string& decision_detail) {
  SpmvSchedule s;
  s.target = target;
  s.features = features;
  s.decided_by = decided_by;
  s.decision_detail = decision_detail;
  s.row_blocks = true;
  s.row_block_merge = options.binning == SpmvBinning::row_blocks_merge;
  constexpr int64_t E = SpmvSchedule::row_block_entries, R = SpmvSchedule::row_block_rows;
  s.virtual_row_size = static_cast<int>(R);
  s.split_row_threshold = options.split_row_threshold > 0 ? options.split_row_threshold : 2 * E;
  s.split_chunk = options.split_chunk > 0 ? options.split_chunk : E;
  SpmvSchedule::Bin split;
  split.kernel = SpmvKernel::split_row;
  split.class_lo = num_spmv_classes;
  s.vrow_bounds.assign(1, 0);
  const int64_t rows = features.rows;
  int64_t start = 0, entries = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = row_map[r + 1] - row_map[r];
    if (len > E || len > s.split_row_threshold) {
      if (r > start) s.vrow_bounds.push_back(r);
      s.vrow_bounds.push_back(r + 1);
      if (len > s.split_row_threshold) {
        const int cls = length_class(static_cast<double>(len));
        split.class_lo = std::min(split.class_lo, cls);
        split.class_hi = std::max(split.class_hi, cls);
        split.vrows.push_back(s.num_vrows() - 1);
        split.rows += 1;
        split.nnz += len;
        split.max_row = std::max(split.max_row, len);
      }
      start = r + 1;
      entries = 0;
      continue;
    }
    if (r - start == R || entries + len > E) {
      s.vrow_bounds.push_back(r);
      start = r;
      entries = 0;
    }
    entries += len;
  }
  if (rows > start) s.vrow_bounds.push_back(rows);
  if (!split.vrows.empty()) s.bins.push_back(std::move(split));
  return s;
}

std::string format_mib(int64_t bytes) {
  std::ostringstream os;
  os << std::setprecision(3) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return os.str();
}

/// Whether the CUDA kernels of schedule `s` can read a compressed copy of the column indices:
/// only thread_per_row and subvectorX know each entry's row (the row blocks stage a block's
/// entries without it; team_per_row and the split rows' chunks are left on A's own indices).
bool cuda_kernels_read_compressed(const SpmvSchedule& s) {
  if (s.row_blocks || s.bins.empty()) return false;
  for (const SpmvSchedule::Bin& b : s.bins)
    if (b.kernel == SpmvKernel::team_per_row || b.kernel == SpmvKernel::split_row) return false;
  return true;
}

/// Where the host kernels, or the CUDA target's thread_per_row and subvectorX kernels, read
/// column indices from (SpmvOptions::IndexCompression).
void decide_column_indices(SpmvSchedule& s, const SpmvOptions& options, const Impl::SpmvIndexFacts& facts) {
  using Compression = SpmvOptions::IndexCompression;
  const Compression option = options.compress_indices;
  const bool cuda = s.target == SpmvTarget::cuda;
  if (s.target != SpmvTarget::host && !cuda) return;
  if (option == Compression::off) {
    s.column_indices_why = "SpmvOptions::compress_indices = off";
    return;
  }
  if (cuda && !cuda_kernels_read_compressed(s)) {
    s.column_indices_why = std::string(option == Compression::automatic ? "automatic"
                                       : option == Compression::offsets16
                                           ? "SpmvOptions::compress_indices = offsets16"
                                           : "SpmvOptions::compress_indices = row_patterns") +
                           ": only the CUDA thread_per_row and subvectorX kernels read a compressed copy, and " +
                           (s.row_blocks ? "this schedule runs row blocks" : "this schedule has other bins");
    return;
  }
  // Row patterns first: no column index read at all, and runs of rows with one pattern read x as
  // contiguous vectors.
  if (option == Compression::automatic || option == Compression::row_patterns) {
    const Impl::SpmvRowPatternCount patterns = facts.row_patterns();
    s.num_row_patterns = patterns.count;
    s.row_pattern_offsets = patterns.offsets;
    // automatic: only when the dictionary is small next to the indices it replaces (a small
    // matrix whose rows are all different would only add an indirection).
    const bool pays = option == Compression::row_patterns || patterns.offsets * 4 <= s.features.nnz;
    // The CUDA kernels read the dictionary as int16: an entry's column costs them no more bytes
    // than with 16-bit offsets, and far fewer where a warp's rows share patterns.
    if (patterns.fits && pays && (!cuda || patterns.offsets_fit_16_bits)) {
      s.row_patterns = true;
      s.column_indices_why = option == Compression::row_patterns
                                 ? "SpmvOptions::compress_indices = row_patterns"
                                 : "automatic: the dictionary is at most a quarter of the column indices it replaces";
      return;
    }
  }
  // 16-bit offsets: on the host automatic only for rows long enough to be bandwidth-bound; on
  // shorter rows the extra add per entry costs more than the 2 bytes it saves (measurements:
  // perf_tests/results/spmv-host-2026-11-21.md, "Column-index decisions"). The CUDA kernels run
  // near the bandwidth even on rows of 7 entries (gpu-h200-2026-11-28.md: 84% of the triad on
  // Poisson), so the CUDA target takes the bytes whenever they fit.
  std::ostringstream avg;
  avg << std::setprecision(4) << s.features.avg_row;
  const bool want = option == Compression::offsets16 ||
                    (option == Compression::automatic && (cuda || s.features.avg_row >= 16));
  if (!want) {
    s.column_indices_why = option == Compression::row_patterns
                               ? std::string("SpmvOptions::compress_indices = row_patterns, which this matrix does not fit") +
                                     (cuda ? " (on the CUDA target every offset within 16 bits)" : "")
                               : "automatic: rows average " + avg.str() +
                                     " < 16 entries, latency-bound, 16-bit offsets would not pay";
    return;
  }
  const Impl::SpmvOffsets16Fit fit = facts.offsets16();
  s.bandwidth = fit.bandwidth;
  s.compressed_indices = fit.fits;
  const std::string asked = option == Compression::offsets16 ? std::string("SpmvOptions::compress_indices = offsets16")
                            : cuda ? std::string("automatic: 2 bytes an entry instead of 4 on the CUDA target")
                                   : "automatic: rows average " + avg.str() + " >= 16 entries, bandwidth-bound";
  s.column_indices_why = fit.fits ? asked : asked + ", but the bandwidth is too wide for 16-bit offsets";
}

/// Whether the host kernels prefetch x through the column indices (SpmvOptions::XPrefetch).
void decide_x_prefetch(SpmvSchedule& s, const SpmvOptions& options, int64_t scalar_bytes) {
  using XPrefetch = SpmvOptions::XPrefetch;
  if (s.target != SpmvTarget::host) return;
  // Only where the kernels read the matrix's own indices: row patterns and 16-bit offsets
  // (|col - row| <= 32767) mean x is read near the diagonal, which the hardware prefetcher
  // already follows.
  if (s.row_patterns || s.compressed_indices) {
    s.x_prefetch_why = "column indices near the diagonal: the hardware prefetcher follows x";
    return;
  }
  const int64_t x_bytes = scalar_bytes * s.features.cols;
  const bool large_x = x_bytes > SpmvSchedule::x_prefetch_min_bytes;
  const std::string size = "x of " + std::to_string(s.features.cols) + " entries, " + format_mib(x_bytes);
  switch (options.prefetch_x) {
    case XPrefetch::on: s.x_prefetch_why = "SpmvOptions::prefetch_x = on"; break;
    case XPrefetch::off: s.x_prefetch_why = "SpmvOptions::prefetch_x = off"; break;
    case XPrefetch::automatic:
      s.x_prefetch_why = "automatic: " + size + (large_x ? " > " : " <= ") +
                         format_mib(SpmvSchedule::x_prefetch_min_bytes) + (large_x ? "" : ", served by the caches");
      break;
  }
  if (options.prefetch_x == XPrefetch::on || (options.prefetch_x == XPrefetch::automatic && large_x))
    s.x_prefetch_distance = SpmvSchedule::x_prefetch_default_distance;
}

}  // namespace

namespace Impl {

SpmvSchedule spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols, const SpmvOptions& options,
                           SpmvTarget target, const SpmvDecision* decision, SpmvDecidedBy decided_by,
                           const std::string& decision_detail, const SpmvIndexFacts* facts) {
  SPROCKET_REQUIRE(!row_map.empty(), "build_spmv_schedule: empty row map");
  check_spmv_options(options);
  const SpmvFeatures features = spmv_features(row_map, num_cols);
  SpmvSchedule s;
  if (decision) {
    s = build_schedule(row_map, features, options, target, *decision, decided_by, decision_detail);
  } else {
    // The model, for whatever the options leave open.
    SpmvDecision d = spmv_model_decide(features, target);
    SpmvDecidedBy by = SpmvDecidedBy::model;
    std::string detail;
    auto add = [&](const std::string& what) { detail += (detail.empty() ? "" : ", ") + what; };
    if (options.kernel != SpmvKernel::automatic) {
      d.single_bin = true;
      d.single_bin_kernel = options.kernel;
      by = SpmvDecidedBy::forced;
      add(std::string("kernel ") + to_string(options.kernel));
    } else if (options.binning == SpmvBinning::row_blocks || options.binning == SpmvBinning::row_blocks_merge) {
      const bool merge = options.binning == SpmvBinning::row_blocks_merge;
      if (target != SpmvTarget::cuda)
        throw InvalidArgument(std::string("SpmvOptions::binning = ") + (merge ? "row_blocks_merge" : "row_blocks") +
                              " is the CUDA kernels' schedule; this plan's target is " + to_string(target) +
                              " (use binned, single_bin or automatic there)");
      s = build_row_block_schedule(row_map, features, options, target, by,
                                   merge ? "row blocks summed along the merge path from options"
                                         : "row blocks from options");
    } else if (options.binning != SpmvBinning::automatic) {
      d.single_bin = options.binning == SpmvBinning::single_bin;
      add("binning from options");
    }
    if (options.virtual_row_size > 0) {
      d.virtual_row_size = options.virtual_row_size;
      add("U from options");
    }
    // The CUDA target runs matrices the model would bin (row lengths beyond a factor 4 apart) as
    // row blocks: one launch, the same work per block whatever the lengths, where the bins cost a
    // launch each and leave the warps of the long rows' bin far behind the rest (emulated profile,
    // gen:rmat:scale=16,ef=16: busiest warp 34x the mean binned, 1.3x as row blocks).
    if (s.row_blocks) {
      // SpmvBinning::row_blocks or ::row_blocks_merge from the options: built above.
    } else if (target == SpmvTarget::cuda && options.kernel == SpmvKernel::automatic &&
               options.binning == SpmvBinning::automatic && !d.single_bin) {
      s = build_row_block_schedule(row_map, features, options, target, by, "irregular rows: row blocks");
    } else {
      s = build_schedule(row_map, features, options, target, d, by, detail);
    }
  }
  if (facts) {
    decide_column_indices(s, options, *facts);
    decide_x_prefetch(s, options, facts->scalar_bytes);
  }
  return s;
}

}  // namespace Impl

SpmvSchedule build_spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols,
                                 const SpmvOptions& options, SpmvTarget target) {
  return Impl::spmv_schedule(row_map, num_cols, options, target, nullptr, SpmvDecidedBy::model, "", nullptr);
}

SpmvSchedule build_spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols,
                                 const SpmvOptions& options, SpmvTarget target,
                                 const SpmvDecision& decision, const std::string& label) {
  return Impl::spmv_schedule(row_map, num_cols, options, target, &decision, SpmvDecidedBy::options, label, nullptr);
}

std::string SpmvSchedule::decided_by_text() const {
  std::string text = to_string(decided_by);
  if (decision_detail.empty()) return text;
  const bool names_a_choice = decided_by == SpmvDecidedBy::autotune || decided_by == SpmvDecidedBy::options;
  return text + (names_a_choice ? ": " : ", ") + decision_detail;
}

std::string SpmvSchedule::describe() const {
  std::ostringstream os;
  os << "  target " << to_string(target) << ", decided by " << decided_by_text() << "\n"
     << "  features: " << features.rows << " x " << features.cols << ", nnz " << features.nnz
     << ", row length min " << features.min_row << " avg " << std::setprecision(4) << features.avg_row
     << " max " << features.max_row << " variance " << features.var_row << "\n"
     << "  ";
  if (row_blocks)
    os << "row blocks: " << num_vrows() << " blocks of at most " << row_block_entries << " entries and "
       << row_block_rows << " rows (or one longer row), one launch (two with split rows), "
       << (row_block_merge ? "rows summed along the merge path" : "lanes per row") << "; rows longer than "
       << split_row_threshold
       << " split in chunks of " << split_chunk << "\n";
  else if (single_bin)
    os << "single bin, U = " << virtual_row_size << " rows per virtual row, " << num_vrows()
       << " virtual rows; one kernel for every row"
       << (target == SpmvTarget::cuda && cuda_kernels_read_compressed(*this)
               ? ", its row taken straight from the thread index"
               : "")
       << "\n";
  else
    os << "binned, U = " << virtual_row_size << " rows per virtual row, " << num_vrows()
       << " virtual rows; rows longer than " << split_row_threshold << " split in chunks of " << split_chunk << "\n";
  const std::string why_indices = column_indices_why.empty() ? "" : " (" + column_indices_why + ")";
  if (row_patterns)
    os << "  column indices: row patterns, " << num_row_patterns << " distinct (" << row_pattern_offsets
       << " offsets), one 16-bit pattern id per row" << why_indices << "\n";
  else if (compressed_indices)
    os << "  column indices: 16-bit offsets from the row (bandwidth " << bandwidth << ")" << why_indices << "\n";
  else if (bandwidth >= 0)
    os << "  column indices: the matrix's own (bandwidth " << bandwidth << " > 32767)" << why_indices << "\n";
  else if (target == SpmvTarget::host || !column_indices_why.empty())
    os << "  column indices: the matrix's own" << why_indices << "\n";
  const std::string why_prefetch = x_prefetch_why.empty() ? "" : " (" + x_prefetch_why + ")";
  if (x_prefetch_distance > 0)
    os << "  x prefetched " << x_prefetch_distance << " entries ahead" << why_prefetch << "\n";
  else if (!x_prefetch_why.empty())
    os << "  x not prefetched" << why_prefetch << "\n";
  if (!row_patterns && num_row_patterns >= 0) {
    if (num_row_patterns > max_row_patterns || row_pattern_offsets > max_row_pattern_offsets)
      os << "  row patterns not used: " << num_row_patterns << " distinct with " << row_pattern_offsets
         << " offsets when counting stopped (limits " << max_row_patterns << " and " << max_row_pattern_offsets
         << ")\n";
    else
      os << "  row patterns not used: " << num_row_patterns << " distinct with " << row_pattern_offsets
         << " offsets, more than a quarter of the " << features.nnz << " column indices they would replace\n";
  }
  for (const Bin& b : bins) {
    os << "  bin " << std::left << std::setw(14) << to_string(b.kernel) << std::right
       << " avg row length " << std::setw(16) << std::left << class_range(b.class_lo, b.class_hi) << std::right
       << std::setw(9) << b.vrows.size() << " vrows" << std::setw(10) << b.rows << " rows" << std::setw(12)
       << b.nnz << " nnz (" << std::fixed << std::setprecision(1)
       << (features.nnz > 0 ? 100.0 * b.nnz / features.nnz : 0.0) << "%)" << std::defaultfloat
       << "  max row " << b.max_row << "\n";
  }
  return os.str();
}

}  // namespace Sprocket
