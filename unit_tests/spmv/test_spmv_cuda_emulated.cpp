// The CUDA SpMV kernels (impl/spmv/cuda/spmv_cuda_kernels.cuh) and their launcher
// (impl/spmv/cuda/spmv_cuda.hpp, cuda::spmv_apply) run on the CPU in the test-only emulation of
// CUDA (unit_tests/cuda_emulation/): every thread a fiber, __syncthreads and the shuffles as CUDA
// defines them, shared memory poisoned per block, the blocks' threads run under each of the
// schedules of standard_schedules(seed) (in order, reverse, random, laggard warp), and grids forced
// down to 1..3 blocks so that every grid-stride loop takes several turns.
//
// The analysis is the one the CUDA target builds (SpmvPlan on Kokkos::Cuda: analyze_spmv and
// make_spmv_analysis with SpmvTarget::cuda), made here in host memory; mode T is what the CUDA
// dispatch does for SpmvTranspose::cached (A^T's analysis with the same options, its values
// gathered from A's, then mode N on it). Rank-2 operands go column by column as LinearOperator
// hands them over (LayoutRight columns are strided).
//
// Cases: every kernel (thread_per_row, subvector2..32, team_per_row) forced alone, on empty rows,
// a power-law graph and unsorted rows with duplicate columns; every kernel binned next to split
// rows (a row longer than a small split threshold, cut into several chunks: split_scale +
// split_chunk); split_row forced for every row; all kernels in one plan; the CUDA model's own
// choice; beta 0 with y poisoned (NaN) and beta != 0; modes N and T; rank 2 in both layouts.
// Results are compared with the serial double reference under test::spmv_matches' bound, and
// every configuration is checked to hold what it claims (bins, split rows, launches).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/spmv/cuda/spmv_cuda.hpp"
#include "sprocket_cuda_emulation.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;
namespace emu = Sprocket::cuda_emulation;

namespace {

using test::empty_rows_unless;
using test::longest_row;
using test::rounded;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;
template <class Scalar, class Offset>
using HostCrs = KokkosSparse::CrsMatrix<Scalar, int, HostDevice, void, Offset>;

/// The kernels a bin can run (split_row bins become split rows: split_scale + split_chunk).
const SpmvKernel bin_kernels[] = {SpmvKernel::thread_per_row, SpmvKernel::subvector2,  SpmvKernel::subvector4,
                                  SpmvKernel::subvector8,     SpmvKernel::subvector16, SpmvKernel::subvector32,
                                  SpmvKernel::team_per_row};

// ------------------------------------------------------------------------------------------------
// Matrices (small: every emulated thread is a fiber)

/// Uniform random rows, empty: row 0, every 5th row, a run of min(20, rows / 4) rows in the
/// middle (whole virtual rows of empties) and the last 3 rows.
HostCsr random_with_empty_rows(int64_t rows, int64_t cols, double avg, uint64_t salt) {
  const int64_t run = std::min<int64_t>(20, rows / 4);
  return empty_rows_unless(test::random_csr(rows, cols, avg, salt), [rows, run](int64_t i) {
    return i % 5 != 0 && !(i >= rows / 3 && i < rows / 3 + run) && i < rows - 3;
  });
}

/// Rows for the tests of kernel k: every emulated thread is a fiber and every barrier or shuffle
/// a switch, so a block-wide kernel costs about 256 * 7 switches per row; the lighter kernels get
/// enough rows that their grid-stride loops turn at least twice on a 1-block grid (thread_per_row:
/// more than 256 slots, subvectorX: more than 256 / X).
int64_t rows_for(SpmvKernel k) {
  switch (k) {
    case SpmvKernel::thread_per_row: return 320;
    case SpmvKernel::subvector2: return 300;
    case SpmvKernel::subvector4: return 160;
    case SpmvKernel::subvector8: return 96;
    case SpmvKernel::subvector16: return 64;
    case SpmvKernel::subvector32: return 40;
    default: return 24;
  }
}

/// Groups of `group` rows cycling through lengths 0, 1, 5, 20, 60, 150, 300, 1100 (capped at
/// cols; distinct columns in random order): log2 classes for every kernel of a binned plan.
HostCsr mixed_lengths(int64_t rows, int64_t cols, int64_t group, uint64_t salt) {
  static const int64_t lengths[8] = {0, 1, 5, 20, 60, 150, 300, 1100};
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  std::vector<int> perm(cols);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = std::min(cols, lengths[(i / group) % 8]);
    for (int j = 0; j < cols; ++j) perm[j] = j;
    for (int64_t k = 0; k < len; ++k) {
      std::swap(perm[k], perm[k + rng() % (cols - k)]);
      A.entries.push_back(perm[k]);
      A.values.push_back(2.0 * ((rng() >> 11) * 0x1.0p-53) - 1.0);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

/// `rows` x `cols`, row `dense_row` full (columns reversed: unsorted), every other row 5 random
/// entries (duplicates possible), every 7th row empty.
HostCsr dense_row_among_short(int64_t rows, int64_t cols, int64_t dense_row, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = i == dense_row ? cols : i % 7 == 6 ? 0 : 5;
    for (int64_t k = 0; k < len; ++k) {
      A.entries.push_back(static_cast<int>(i == dense_row ? cols - 1 - k : rng() % cols));
      A.values.push_back(2.0 * ((rng() >> 11) * 0x1.0p-53) - 1.0);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

int64_t empty_rows(const HostCsr& A) {
  int64_t n = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) n += A.row_length(i) == 0;
  return n;
}

// ------------------------------------------------------------------------------------------------
// Configurations

struct Config {
  std::string name;
  SpmvOptions options;
  std::optional<SpmvDecision> decision = {};  ///< explicit decision (SpmvTuningOptions)
  /// What mode N's schedule must hold: the only bin kernel (forced), or split rows.
  std::optional<SpmvKernel> only_kernel = {};
  bool expect_split = false;
  /// Every bin's launch needs at least 2 blocks (so the runs on a 1-block grid loop grid-stride).
  bool expect_grid_stride = false;
  /// A row-block schedule (SpmvBinning::row_blocks) of at least this many blocks (0: not one).
  int64_t expect_row_blocks = 0;
  /// Row blocks summed along the merge path (SpmvBinning::row_blocks_merge).
  bool expect_merge = false;
  /// Where the thread_per_row and subvectorX kernels must read the columns from (any: not checked).
  enum class Columns { any, stored, offsets16, patterns } expect_columns = Columns::any;
};

/// `c` with SpmvOptions::compress_indices = `compression`, its kernels expected to read `columns`.
Config reading(Config c, SpmvOptions::IndexCompression compression, Config::Columns columns) {
  c.options.compress_indices = compression;
  c.expect_columns = columns;
  c.name += columns == Config::Columns::offsets16  ? ", 16-bit column offsets"
            : columns == Config::Columns::patterns ? ", row patterns"
                                                   : ", the matrix's own columns";
  return c;
}

/// SpmvBinning::row_blocks, at least `min_blocks` row blocks; rows longer than `threshold` split in
/// chunks of `chunk` entries (0: the defaults, 2048 and 1024).
Config row_blocks(int64_t min_blocks, int64_t threshold = 0, int64_t chunk = 0) {
  Config c;
  c.name = "row blocks, split threshold " + std::to_string(threshold) + ", chunks of " + std::to_string(chunk);
  c.options.binning = SpmvBinning::row_blocks;
  c.options.split_row_threshold = threshold;
  c.options.split_chunk = chunk;
  c.expect_row_blocks = min_blocks;
  c.expect_split = threshold > 0;
  return c;
}

/// SpmvBinning::row_blocks_merge, otherwise as row_blocks().
Config row_blocks_merge(int64_t min_blocks, int64_t threshold = 0, int64_t chunk = 0) {
  Config c = row_blocks(min_blocks, threshold, chunk);
  c.name = "row blocks summed along the merge path, split threshold " + std::to_string(threshold) +
           ", chunks of " + std::to_string(chunk);
  c.options.binning = SpmvBinning::row_blocks_merge;
  c.expect_merge = true;
  return c;
}

/// Kernel k forced alone (single bin); U from the CUDA model, or `U` when > 0.
Config forced(SpmvKernel k, int U = 0) {
  Config c;
  c.name = std::string("forced ") + to_string(k) + (U > 0 ? ", U = " + std::to_string(U) : ", model's U");
  c.options.kernel = k;
  c.options.virtual_row_size = U;
  c.only_kernel = k;
  c.expect_grid_stride = U > 0;  // the tests size their matrices for it (rows_for)
  return c;
}

/// Binned, every class to kernel k with U rows per virtual row; rows longer than `threshold`
/// split in chunks of `chunk` entries.
Config binned_with_split(SpmvKernel k, int U, int64_t threshold, int64_t chunk) {
  Config c;
  c.name = std::string("binned ") + to_string(k) + ", U = " + std::to_string(U) + ", rows > " +
           std::to_string(threshold) + " split in chunks of " + std::to_string(chunk);
  SpmvDecision d;
  d.virtual_row_size = U;
  d.single_bin = false;
  d.kernel_for_class.fill(k);
  c.decision = d;
  c.options.split_row_threshold = threshold;
  c.options.split_chunk = chunk;
  c.expect_split = true;
  c.expect_grid_stride = true;
  return c;
}

/// split_row forced: every row split (empty rows included), chunks of `chunk` entries.
Config forced_split(int64_t chunk) {
  Config c;
  c.name = "forced split_row, chunks of " + std::to_string(chunk);
  c.options.kernel = SpmvKernel::split_row;
  c.options.split_chunk = chunk;
  c.expect_split = true;
  return c;
}

/// The CUDA model's own choice (U, kernels; binning too unless `binned`), with a small split
/// threshold.
Config automatic(int64_t threshold, int64_t chunk, bool binned = false) {
  Config c;
  c.name = std::string("automatic (CUDA model") + (binned ? ", binned" : "") + "), split threshold " +
           std::to_string(threshold) + ", chunks of " + std::to_string(chunk);
  c.options.split_row_threshold = threshold;
  c.options.split_chunk = chunk;
  if (binned) c.options.binning = SpmvBinning::binned;
  c.expect_split = binned;
  return c;
}

/// Every kernel in one plan on mixed_lengths(): U = 1, classes 0 / 1 / 2-3 / 4-5 / 6-7 / 8 / 9+
/// to thread_per_row / subvector2 / 4 / 8 / 16 / 32 / team_per_row, rows longer than 350 split
/// in chunks of 128.
Config every_kernel_in_one_plan() {
  Config c;
  c.name = "every kernel binned in one plan";
  SpmvDecision d;
  d.virtual_row_size = 1;
  d.single_bin = false;
  for (int cls = 0; cls < num_spmv_classes; ++cls)
    d.kernel_for_class[cls] = cls == 0   ? SpmvKernel::thread_per_row
                              : cls == 1 ? SpmvKernel::subvector2
                              : cls <= 3 ? SpmvKernel::subvector4
                              : cls <= 5 ? SpmvKernel::subvector8
                              : cls <= 7 ? SpmvKernel::subvector16
                              : cls == 8 ? SpmvKernel::subvector32
                                         : SpmvKernel::team_per_row;
  c.decision = d;
  c.options.split_row_threshold = 350;
  c.options.split_chunk = 128;
  c.expect_split = true;
  return c;
}

/// (mode, alpha, beta, grid limit): beta 0 with y poisoned and beta != 0, in both modes, on
/// grids of 1, 2 and 3 blocks.
struct Run {
  const char* mode;
  double alpha, beta;
  int64_t grid;
};
const Run standard_runs[] = {{"N", 1.5, 0.0, 1}, {"N", -0.5, 0.75, 3}, {"T", 1.5, 0.0, 2}, {"T", -0.5, 0.75, 1}};

// ------------------------------------------------------------------------------------------------
// The CUDA target's analysis in host memory, and applying it on the emulated device

template <class Crs>
struct Kit {
  using Scalar = typename Crs::non_const_value_type;
  using Vec = Kokkos::View<Scalar*, HostDevice>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, HostDevice>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, HostDevice>;
  using Analysis = Impl::SpmvAnalysis<Crs>;

  struct Prepared {
    SpmvSchedule schedule;
    Analysis analysis;
  };

  /// What SpmvPlan builds on Kokkos::Cuda (target cuda, no autotune), with host memory.
  static Prepared prepare(const Crs& a, const SpmvOptions& options, const std::optional<SpmvDecision>& decision) {
    Prepared p;
    const std::vector<int64_t> row_map = Impl::host_row_map(a);
    Impl::SpmvColumnIndexCopies<HostDevice> copies;
    p.schedule = decision ? Impl::analyze_spmv(a, row_map, options, SpmvTarget::cuda, copies, &*decision,
                                               SpmvDecidedBy::options)
                          : Impl::analyze_spmv(a, row_map, options, SpmvTarget::cuda, copies);
    p.analysis = Impl::make_spmv_analysis(a, p.schedule, row_map, copies);
    return p;
  }

  /// A's analysis and, for mode T, A^T's as SpmvPlan::cached_transpose builds it (the plan's
  /// options without the explicit decision, which is not part of SpmvOptions).
  struct Operator {
    Crs a;
    Prepared n, t;
    Kokkos::View<typename Crs::non_const_size_type*, HostDevice> source;
  };

  static Operator make_operator(const HostCsr& A, const Config& c) {
    Operator op;
    op.a = to_crs<Crs>(A);
    op.n = prepare(op.a, c.options, c.decision);
    auto [At, source] = Impl::transpose_with_source(op.a);
    op.t = prepare(At, c.options, std::nullopt);
    op.source = source;
    return op;
  }

  /// The configuration holds what it claims, on the CUDA target.
  static ::testing::AssertionResult holds(const Operator& op, const Config& c) {
    const SpmvSchedule& s = op.n.schedule;
    const auto& d = op.n.analysis.schedule;
    if (op.n.analysis.target != SpmvTarget::cuda || op.t.analysis.target != SpmvTarget::cuda)
      return ::testing::AssertionFailure() << "not the CUDA target";
    if (d.num_parts != 0) return ::testing::AssertionFailure() << "host parts built for the CUDA target";
    if (c.only_kernel && s.features.rows > 0 &&
        (d.bins.size() != 1 || d.bins[0].kernel != *c.only_kernel || d.num_split_rows != 0))
      return ::testing::AssertionFailure() << "forced " << to_string(*c.only_kernel) << " not the only bin";
    if (c.expect_split && (d.num_split_rows == 0 || d.num_split_chunks <= d.num_split_rows))
      return ::testing::AssertionFailure() << d.num_split_rows << " split rows in " << d.num_split_chunks
                                           << " chunks: not several chunks per split row";
    if (c.decision && !c.decision->single_bin)
      for (const auto& bin : d.bins)
        if (std::find(c.decision->kernel_for_class.begin(), c.decision->kernel_for_class.end(), bin.kernel) ==
            c.decision->kernel_for_class.end())
          return ::testing::AssertionFailure() << "bin " << to_string(bin.kernel) << " not in the decision";
    if (c.expect_row_blocks > 0) {
      if (!s.row_blocks || !d.row_blocks || s.num_vrows() < c.expect_row_blocks)
        return ::testing::AssertionFailure() << "not a row-block schedule of at least " << c.expect_row_blocks
                                             << " blocks";
      if (s.row_block_merge != c.expect_merge || d.row_block_merge != c.expect_merge)
        return ::testing::AssertionFailure() << "merge-path sums " << (c.expect_merge ? "expected" : "not expected")
                                             << ", schedule " << s.row_block_merge << ", device " << d.row_block_merge;
      const auto& rm = op.n.schedule.vrow_bounds;
      const std::vector<int64_t> row_map = Impl::host_row_map(op.a);
      int64_t split_rows = 0;
      for (int64_t v = 0; v < s.num_vrows(); ++v) {
        const int64_t r0 = rm[v], r1 = rm[v + 1], n = row_map[r1] - row_map[r0];
        if (r1 <= r0) return ::testing::AssertionFailure() << "row block " << v << " is empty";
        if (r1 - r0 > 1 && (n > SpmvSchedule::row_block_entries || r1 - r0 > SpmvSchedule::row_block_rows))
          return ::testing::AssertionFailure() << "row block " << v << ": " << r1 - r0 << " rows, " << n << " entries";
        split_rows += r1 - r0 == 1 && n > s.split_row_threshold;
      }
      if (split_rows != d.num_split_rows)
        return ::testing::AssertionFailure() << split_rows << " rows over the threshold, " << d.num_split_rows
                                             << " split rows";
      if (!d.bins.empty()) return ::testing::AssertionFailure() << "bins in a row-block schedule";
    }
    // Direct rows exactly where the one bin holds every virtual row in order, virtual row v
    // starting at row v * U: the kernels then take the row straight from the slot.
    const bool single_ordered_bin = s.single_bin && !s.row_blocks && d.bins.size() == 1 && d.num_split_rows == 0;
    if (d.direct_rows != single_ordered_bin)
      return ::testing::AssertionFailure() << "direct rows " << d.direct_rows << " on a schedule of " << d.bins.size()
                                           << " bins, single bin " << s.single_bin;
    if (d.direct_rows) {
      const auto& vrows = s.bins[0].vrows;
      for (int64_t v = 0; v < s.num_vrows(); ++v)
        if (vrows[v] != v || s.vrow_bounds[v] != v * s.virtual_row_size)
          return ::testing::AssertionFailure() << "direct rows, but virtual row " << v << " is not rows from "
                                               << v * s.virtual_row_size;
    }
    if (c.only_kernel && *c.only_kernel != SpmvKernel::team_per_row && s.features.rows > 0 && !d.direct_rows)
      return ::testing::AssertionFailure() << "forced " << to_string(*c.only_kernel) << " without direct rows";
    using Columns = Config::Columns;
    if (c.expect_columns != Columns::any) {
      const Columns got = s.row_patterns ? Columns::patterns : s.compressed_indices ? Columns::offsets16 : Columns::stored;
      if (got != c.expect_columns)
        return ::testing::AssertionFailure() << "columns read from the wrong place:\n" << s.describe();
      const size_t nnz = op.a.graph.entries.extent(0);
      if ((got == Columns::offsets16) != (d.col_offsets.extent(0) == nnz && nnz > 0))
        return ::testing::AssertionFailure() << d.col_offsets.extent(0) << " 16-bit offsets for " << nnz << " entries";
      // The CUDA kernels read the dictionary as int16 only.
      if ((got == Columns::patterns) != (d.row_pattern.extent(0) == size_t(s.features.rows)) ||
          d.pattern_offsets.extent(0) != 0 ||
          (got == Columns::patterns && d.pattern_offsets16.extent(0) != size_t(s.row_pattern_offsets)))
        return ::testing::AssertionFailure() << "row patterns: " << d.row_pattern.extent(0) << " ids for "
                                             << s.features.rows << " rows, dictionary " << d.pattern_offsets16.extent(0)
                                             << " int16 and " << d.pattern_offsets.extent(0) << " int32 offsets";
    }
    if (c.expect_grid_stride)
      for (const auto& bin : d.bins)
        if (Impl::cuda::spmv_bin_launch(bin.kernel, bin.num_vrows, bin.rows_per_vrow, Impl::cuda::max_grid_blocks)
                .grid < 2)
          return ::testing::AssertionFailure() << "bin " << to_string(bin.kernel) << " fits one block";
    return ::testing::AssertionSuccess();
  }

  using Offset = typename Crs::non_const_size_type;

  /// The kernel instance a bin of kernel k runs with x of XValue, its columns read through Columns.
  template <class XValue, class Columns>
  static std::string bin_instance(SpmvKernel k) {
    using namespace Impl::cuda;
    switch (k) {
      case SpmvKernel::thread_per_row:
        return emu::kernel_instance<spmv_thread_per_row_kernel<Offset, Columns, int, XValue, Scalar>>();
      case SpmvKernel::subvector2:
        return emu::kernel_instance<spmv_subvector_kernel<2, Offset, Columns, int, XValue, Scalar>>();
      case SpmvKernel::subvector4:
        return emu::kernel_instance<spmv_subvector_kernel<4, Offset, Columns, int, XValue, Scalar>>();
      case SpmvKernel::subvector8:
        return emu::kernel_instance<spmv_subvector_kernel<8, Offset, Columns, int, XValue, Scalar>>();
      case SpmvKernel::subvector16:
        return emu::kernel_instance<spmv_subvector_kernel<16, Offset, Columns, int, XValue, Scalar>>();
      case SpmvKernel::subvector32:
        return emu::kernel_instance<spmv_subvector_kernel<32, Offset, Columns, int, XValue, Scalar>>();
      case SpmvKernel::team_per_row:
        return emu::kernel_instance<spmv_team_per_row_kernel<Offset, int, XValue, Scalar>>();
      default: return std::string("no kernel for a bin of ") + to_string(k);
    }
  }

  /// The launches cuda::spmv_apply must make for one rank-1 apply on `p` (x of XValue) with grids
  /// clamped to `limit`: (kernel instance, grid), every bin in order, then the split rows. The
  /// instances follow what the schedule says: each bin's kernel and the columns it reads
  /// (SpmvSchedule::row_patterns, compressed_indices), row blocks summed along the merge path or not.
  template <class XValue>
  static std::vector<std::pair<std::string, unsigned>> expected_launches(const Prepared& p, int64_t limit) {
    using namespace Impl::cuda;
    const auto& d = p.analysis.schedule;
    const std::string split_scale = emu::kernel_instance<spmv_split_scale_kernel<int, Scalar>>();
    std::vector<std::pair<std::string, unsigned>> out;
    if (d.row_blocks) {
      if (d.num_split_rows > 0) out.emplace_back(split_scale, spmv_split_scale_launch(d.num_split_rows, limit).grid);
      const int64_t blocks = p.schedule.num_vrows() + d.num_split_chunks;
      if (blocks > 0)
        out.emplace_back(p.schedule.row_block_merge
                             ? emu::kernel_instance<spmv_row_blocks_kernel<true, Offset, int, XValue, Scalar>>()
                             : emu::kernel_instance<spmv_row_blocks_kernel<false, Offset, int, XValue, Scalar>>(),
                         spmv_row_blocks_launch(p.schedule.num_vrows(), d.num_split_chunks, limit).grid);
      return out;
    }
    for (const auto& bin : d.bins) {
      const std::string instance =
          p.schedule.row_patterns         ? bin_instance<XValue, SpmvPatternColumns>(bin.kernel)
          : p.schedule.compressed_indices ? bin_instance<XValue, SpmvOffsetColumns>(bin.kernel)
                                          : bin_instance<XValue, SpmvStoredColumns<int>>(bin.kernel);
      out.emplace_back(instance, spmv_bin_launch(bin.kernel, bin.num_vrows, bin.rows_per_vrow, limit).grid);
    }
    if (d.num_split_rows > 0) out.emplace_back(split_scale, spmv_split_scale_launch(d.num_split_rows, limit).grid);
    if (d.num_split_chunks > 0)
      out.emplace_back(emu::kernel_instance<spmv_split_chunk_kernel<Offset, int, XValue, Scalar>>(),
                       spmv_split_chunk_launch(d.num_split_chunks, limit).grid);
    return out;
  }

  /// The stream ran exactly the expected launches (kernel instance, grid), 256 threads each.
  static ::testing::AssertionResult ran(const emu::Stream& stream,
                                        const std::vector<std::pair<std::string, unsigned>>& expected) {
    if (stream.history.size() != expected.size())
      return ::testing::AssertionFailure() << stream.history.size() << " launches, expected " << expected.size();
    for (size_t i = 0; i < expected.size(); ++i) {
      const emu::LaunchRecord& r = stream.history[i];
      if (r.instance != expected[i].first || r.grid != expected[i].second || r.block != 256u || r.shared_bytes != 0)
        return ::testing::AssertionFailure() << "launch " << i << ": " << r.instance << " <<<" << r.grid << ", "
                                             << r.block << ", " << r.shared_bytes << ">>>, expected "
                                             << expected[i].first << " <<<" << expected[i].second << ", 256, 0>>>";
    }
    return ::testing::AssertionSuccess();
  }

  /// y = alpha op(A) x + beta y for rank-1 x and y on the emulated device, as the CUDA dispatch
  /// does it (mode T: A^T's values gathered from A's, then mode N on A^T's analysis).
  template <class X, class Y>
  static void apply(const emu::Device& device, const Operator& op, const std::string& mode, Scalar alpha,
                    const X& x, Scalar beta, const Y& y) {
    if (mode == "N") return Impl::cuda::spmv_apply(device, op.n.analysis, alpha, x, beta, y);
    Impl::kokkos::spmv_gather_values(Kokkos::DefaultHostExecutionSpace(), op.t.analysis.A.values, op.a.values,
                                     op.source);
    Kokkos::fence();
    Impl::cuda::spmv_apply(device, op.t.analysis, alpha, x, beta, y);
  }

  /// One rank-1 run, against the reference; an EmulationError becomes the failure's message. x is
  /// a View of XValue (the kernels' one value type apart from Scalar), its values exact in both.
  template <class XValue = Scalar>
  static ::testing::AssertionResult check(const Operator& op, const HostCsr& A, const emu::Schedule& schedule,
                                          const Run& run, uint64_t salt) {
    const int64_t in = run.mode[0] == 'N' ? A.num_cols : A.num_rows;
    const int64_t out = run.mode[0] == 'N' ? A.num_rows : A.num_cols;
    const std::vector<double> x = rounded<XValue>(rounded<Scalar>(test::random_vector(in, salt)));
    const std::vector<double> y0 =
        run.beta == 0 ? std::vector<double>(out, kNaN) : rounded<Scalar>(test::random_vector(out, salt + 1));
    const auto xv = test::to_view<Kokkos::View<XValue*, HostDevice>>(x, "x");
    const Vec yv = test::to_view<Vec>(y0, "y");
    emu::Device device(schedule, 2, run.grid);
    try {
      apply(device, op, run.mode, static_cast<Scalar>(run.alpha), xv, static_cast<Scalar>(run.beta), yv);
    } catch (const emu::EmulationError& e) {
      return ::testing::AssertionFailure() << "emulation: " << e.what();
    }
    const auto launched =
        ran(device.stream, expected_launches<XValue>(run.mode[0] == 'N' ? op.n : op.t, run.grid));
    if (!launched) return launched;
    return test::spmv_matches<Scalar>(run.mode, run.alpha, A, x, run.beta, y0, test::to_host_vector(yv));
  }

  /// The same with k columns in a rank-2 View of type Mat, column by column.
  template <class Mat>
  static ::testing::AssertionResult check_multi(const Operator& op, const HostCsr& A, const emu::Schedule& schedule,
                                                const Run& run, int64_t k, uint64_t salt) {
    const int64_t in = run.mode[0] == 'N' ? A.num_cols : A.num_rows;
    const int64_t out = run.mode[0] == 'N' ? A.num_rows : A.num_cols;
    const HostDense X = rounded<Scalar>(test::random_dense(in, k, salt));
    const HostDense Y0 =
        run.beta == 0 ? HostDense(out, k, kNaN) : rounded<Scalar>(test::random_dense(out, k, salt + 1));
    const Mat xv = test::to_view<Mat>(X, "X"), yv = test::to_view<Mat>(Y0, "Y");
    emu::Device device(schedule, 2, run.grid);
    try {
      for (int64_t j = 0; j < k; ++j)
        apply(device, op, run.mode, static_cast<Scalar>(run.alpha), Kokkos::subview(xv, Kokkos::ALL(), j),
              static_cast<Scalar>(run.beta), Kokkos::subview(yv, Kokkos::ALL(), j));
    } catch (const emu::EmulationError& e) {
      return ::testing::AssertionFailure() << "emulation: " << e.what();
    }
    return test::spmm_matches<Scalar>(run.mode, run.alpha, A, X, run.beta, Y0, test::to_host_dense(yv));
  }

  /// The kernels read the plan's copy of the column indices, not A's: with A's indices zeroed
  /// after the analysis (every entry then in column 0), mode N still matches the original matrix.
  static ::testing::AssertionResult reads_the_copy(const HostCsr& A0, const Config& c, uint64_t salt) {
    const HostCsr A = rounded<Scalar>(A0);
    const Operator op = make_operator(A, c);
    Kokkos::deep_copy(op.n.analysis.A.graph.entries, 0);  // the same memory as op.a's
    const emu::Schedule schedule = emu::standard_schedules(test::seed_for(salt)).front();
    return check(op, A, schedule, Run{"N", 1.5, 0.0, 2}, salt);
  }

  /// Every configuration under every schedule, each run of `runs` (x a View of XValue).
  template <class XValue = Scalar>
  static void run_configs(const HostCsr& A0, const std::vector<Config>& configs, uint64_t salt,
                          const std::vector<Run>& runs = {std::begin(standard_runs), std::end(standard_runs)}) {
    const HostCsr A = rounded<Scalar>(A0);
    for (const Config& c : configs) {
      const Operator op = make_operator(A, c);
      const std::string what = c.name + ", " + std::to_string(A.num_rows) + " x " + std::to_string(A.num_cols) +
                               ", nnz " + std::to_string(A.nnz()) + "\n" + op.n.schedule.describe();
      EXPECT_TRUE(holds(op, c)) << what;
      for (const emu::Schedule& schedule : emu::standard_schedules(test::seed_for(salt))) {
        SCOPED_TRACE("schedule " + schedule.name());
        for (const Run& run : runs)
          EXPECT_TRUE(check<XValue>(op, A, schedule, run, salt += 2))
              << what << "mode " << run.mode << ", alpha " << run.alpha << ", beta " << run.beta << ", grid limit "
              << run.grid;
      }
    }
  }
};

}  // namespace

// ================================================================================================
// Launch decisions (no kernel runs)

TEST(SpmvCudaLaunch, GridsBlocksAndLaunchBounds) {
  using namespace Impl::cuda;
  const int64_t big = max_grid_blocks;
  for (SpmvKernel k : bin_kernels) {
    SCOPED_TRACE(to_string(k));
    const KernelLaunch l = spmv_bin_launch(k, 1000, 4, big);
    EXPECT_EQ(l.block, unsigned(spmv_block_size));
    EXPECT_EQ(l.launch_bound, unsigned(spmv_block_size));  // the kernels' __launch_bounds__
    EXPECT_EQ(l.shared_bytes, 0u);
    const int64_t lanes = spmv_kernel_lanes(k);
    // one thread per slot, X lanes per slot, one block per virtual row
    EXPECT_EQ(l.grid, k == SpmvKernel::team_per_row ? 1000u : unsigned((4000 * lanes + 255) / 256));
    EXPECT_EQ(spmv_bin_launch(k, 1000, 4, 3).grid, 3u);  // clamped: the kernels loop grid-stride
    EXPECT_EQ(spmv_bin_launch(k, 1, 1, big).grid, 1u);
  }
  EXPECT_EQ(spmv_bin_launch(SpmvKernel::subvector32, int64_t(1) << 30, 64, big).grid, unsigned(big));
  EXPECT_EQ(spmv_split_scale_launch(513, big).grid, 3u);
  EXPECT_EQ(spmv_split_scale_launch(513, 2).grid, 2u);
  EXPECT_EQ(spmv_split_chunk_launch(513, big).grid, 513u);
  EXPECT_EQ(spmv_split_chunk_launch(513, 3).grid, 3u);
  for (const KernelLaunch& l : {spmv_split_scale_launch(5, big), spmv_split_chunk_launch(5, big)}) {
    EXPECT_EQ(l.block, unsigned(spmv_block_size));
    EXPECT_EQ(l.launch_bound, unsigned(spmv_block_size));
    EXPECT_EQ(l.shared_bytes, 0u);
  }
}

// ================================================================================================
// Typed tests: float and double, int and size_t offsets (the CUDA path's types), host memory

template <class CrsType>
class SpmvCudaEmulated : public ::testing::Test {};
using EmulatedCrsTypes = ::testing::Types<HostCrs<float, int>, HostCrs<double, int>, HostCrs<double, size_t>>;
TYPED_TEST_SUITE(SpmvCudaEmulated, EmulatedCrsTypes);

TYPED_TEST(SpmvCudaEmulated, EveryKernelForcedOnEmptyRows) {
  using K = Kit<TypeParam>;
  uint64_t salt = 100;
  for (SpmvKernel k : bin_kernels) {
    const int64_t rows = rows_for(k);
    const HostCsr A = random_with_empty_rows(rows, rows * 4 / 5, 6.0, salt);
    ASSERT_EQ(A.row_length(0), 0);
    ASSERT_EQ(A.row_length(A.num_rows - 1), 0);
    K::run_configs(A, {forced(k)}, salt += 100);
  }
}

TYPED_TEST(SpmvCudaEmulated, EveryKernelForcedOnPowerLaw) {
  using K = Kit<TypeParam>;
  uint64_t salt = 1000;
  for (SpmvKernel k : bin_kernels) {
    int scale = 5;
    while ((int64_t(1) << scale) < rows_for(k)) ++scale;
    const HostCsr A = gen::rmat(scale, 6, test::seed_for(salt));
    ASSERT_GT(longest_row(A), 3 * A.nnz() / A.num_rows);  // heavy rows, far above the average
    K::run_configs(A, {forced(k, 3)}, salt += 100);        // U = 3: a short last virtual row
  }
}

TYPED_TEST(SpmvCudaEmulated, EveryKernelForcedOnUnsortedColumnsAndDuplicates) {
  using K = Kit<TypeParam>;
  uint64_t salt = 2000;
  for (SpmvKernel k : bin_kernels) {
    const HostCsr A = test::unsorted_with_duplicates(rows_for(k), 40, 40, salt);
    ASSERT_FALSE(A.is_sorted_and_unique());
    K::run_configs(A, {forced(k, k == SpmvKernel::thread_per_row ? 8 : 2)}, salt += 100);
  }
}

// A row longer than the split threshold next to short rows, with every kernel for the others:
// split_scale then split_chunk (several chunks of one row add atomically), the bin's kernel for
// the rest; the model's own kernels too.
TYPED_TEST(SpmvCudaEmulated, EveryKernelNextToSplitRows) {
  using K = Kit<TypeParam>;
  uint64_t salt = 3000;
  for (SpmvKernel k : bin_kernels) {
    const HostCsr A = dense_row_among_short(rows_for(k), 300, 17, salt);
    ASSERT_EQ(longest_row(A), 300);
    K::run_configs(A, {binned_with_split(k, 2, 50, 64)}, salt += 100);
  }
  // Chunks of 280 entries: the block's threads stride over a chunk twice.
  K::run_configs(dense_row_among_short(60, 300, 17, salt), {automatic(50, 280, true)}, salt + 100);
}

// split_row forced: every row its own virtual row, split in chunks (empty rows: one empty chunk).
TYPED_TEST(SpmvCudaEmulated, SplitRowForcedForEveryRow) {
  using K = Kit<TypeParam>;
  K::run_configs(random_with_empty_rows(24, 20, 10.0, 4000), {forced_split(6)}, 4100);
}

// All eight kernels in one plan, and the CUDA model's choice, on rows of every length class.
TYPED_TEST(SpmvCudaEmulated, EveryKernelInOnePlan) {
  using K = Kit<TypeParam>;
  const HostCsr A = mixed_lengths(48, 400, 3, 5000);
  const Config all = every_kernel_in_one_plan();
  const auto op = K::make_operator(rounded<typename K::Scalar>(A), all);
  EXPECT_EQ(op.n.schedule.bins.size(), size_t(num_spmv_kernels)) << op.n.schedule.describe();
  K::run_configs(A, {all, automatic(200, 128)}, 5100);
}

// Row blocks: blocks of many short rows (a thread per row), of few rows (lanes per row up to a
// warp), the 256-row cap (rows of about 3 entries), runs of empty rows, one-row blocks of rows
// longer than 1024 entries (the block reduces them), split rows next to them (threshold above and
// below 1024), unsorted rows with duplicates, one row alone.
TYPED_TEST(SpmvCudaEmulated, RowBlocksOnEveryRowShape) {
  using K = Kit<TypeParam>;
  uint64_t salt = 7000;
  const HostCsr mixed = mixed_lengths(48, 1200, 3, salt);
  ASSERT_EQ(longest_row(mixed), 1100);
  K::run_configs(mixed, {row_blocks(8), row_blocks(8, 600, 200), row_blocks(8, 1050, 512)}, salt += 100);
  const HostCsr sparse = random_with_empty_rows(600, 500, 3.0, salt);
  K::run_configs(sparse, {row_blocks(3)}, salt += 100);
  const HostCsr power = gen::rmat(8, 6, test::seed_for(salt));
  ASSERT_GT(longest_row(power), 40);
  K::run_configs(power, {row_blocks(2), row_blocks(2, 40, 16)}, salt += 100);
  K::run_configs(test::unsorted_with_duplicates(300, 40, 40, salt), {row_blocks(2)}, salt += 100);
  K::run_configs(dense_row_among_short(1, 50, 0, salt), {row_blocks(1)}, salt += 100);
}

// Row blocks summed along the merge path: the row shapes above, then the cases of the merge itself.
// A row of 900 entries among rows of 5 (every 7th empty) in one block: it crosses about 225
// threads of a 4-item share, so its carries cross every warp of the block. Blocks of up to 256
// short and empty rows (shares of 2 items, row ends at thread boundaries, runs of empty rows at
// the start of a share); a block of exactly row_block_entries entries in one row; shares whose
// thread ends no row.
TYPED_TEST(SpmvCudaEmulated, RowBlocksMergeOnEveryRowShape) {
  using K = Kit<TypeParam>;
  uint64_t salt = 7600;
  const HostCsr mixed = mixed_lengths(48, 1200, 3, salt);
  K::run_configs(mixed, {row_blocks_merge(8), row_blocks_merge(8, 600, 200)}, salt += 100);
  const HostCsr power = gen::rmat(8, 6, test::seed_for(salt));
  K::run_configs(power, {row_blocks_merge(2), row_blocks_merge(2, 40, 16)}, salt += 100);
  K::run_configs(test::unsorted_with_duplicates(300, 40, 40, salt), {row_blocks_merge(2)}, salt += 100);
  const HostCsr long_among_short = dense_row_among_short(200, 900, 100, salt);
  ASSERT_EQ(longest_row(long_among_short), 900);
  K::run_configs(long_among_short, {row_blocks_merge(2)}, salt += 100);
  const HostCsr sparse = random_with_empty_rows(600, 500, 1.5, salt);
  ASSERT_GT(empty_rows(sparse), 150);
  K::run_configs(sparse, {row_blocks_merge(3)}, salt += 100);
  const HostCsr full_block = dense_row_among_short(3, static_cast<int>(SpmvSchedule::row_block_entries), 1, salt);
  K::run_configs(full_block, {row_blocks_merge(2)}, salt += 100);
  K::run_configs(dense_row_among_short(1, 50, 0, salt), {row_blocks_merge(1)}, salt += 100);
}

// 16-bit column offsets and row patterns on the CUDA target, for each kernel that reads them
// (thread_per_row, subvectorX): single bin (direct rows) with the model's U and with U = 3 (a
// short last virtual row), on unsorted rows with duplicates, negative offsets and empty rows, on a
// stencil whose rows share patterns (and a row pattern of length 0), and binned through virtual
// rows; float x under a double matrix too. With A's own indices zeroed after the analysis the
// results still match: the copies are what the kernels read.
TYPED_TEST(SpmvCudaEmulated, ColumnCopiesOnEveryKernelThatReadsThem) {
  using K = Kit<TypeParam>;
  using Compression = SpmvOptions::IndexCompression;
  using Columns = Config::Columns;
  const SpmvKernel copy_kernels[] = {SpmvKernel::thread_per_row, SpmvKernel::subvector2, SpmvKernel::subvector4,
                                     SpmvKernel::subvector8,     SpmvKernel::subvector16, SpmvKernel::subvector32};
  uint64_t salt = 9000;
  for (SpmvKernel k : copy_kernels) {
    const int64_t rows = rows_for(k);
    const HostCsr A = empty_rows_unless(test::unsorted_with_duplicates(rows, rows / 2 + 7, 12, salt),
                                        [](int64_t i) { return i % 9 != 4; });
    ASSERT_FALSE(A.is_sorted_and_unique());
    const std::vector<Config> configs = {reading(forced(k), Compression::offsets16, Columns::offsets16),
                                         reading(forced(k, 3), Compression::row_patterns, Columns::patterns),
                                         reading(forced(k, 3), Compression::off, Columns::stored)};
    K::run_configs(A, configs, salt += 100);
    for (size_t i = 0; i + 1 < configs.size(); ++i)
      EXPECT_TRUE(K::reads_the_copy(A, configs[i], salt += 2)) << configs[i].name;
    const HostCsr P = empty_rows_unless(gen::poisson3d(7), [](int64_t i) { return i != 40; });
    const Config stencil = reading(forced(k), Compression::automatic, Columns::patterns);
    K::run_configs(P, {stencil}, salt += 100);
    EXPECT_TRUE(K::reads_the_copy(P, stencil, salt += 2)) << stencil.name;
  }
  // Binned: every class to thread_per_row or a subvector kernel, no split rows; the kernels find
  // their rows through the bins' virtual rows.
  SpmvDecision d;
  d.virtual_row_size = 2;
  d.single_bin = false;
  for (int cls = 0; cls < num_spmv_classes; ++cls)
    d.kernel_for_class[cls] = cls == 0 ? SpmvKernel::thread_per_row : cls <= 2 ? SpmvKernel::subvector4
                                                                                 : SpmvKernel::subvector32;
  Config binned;
  binned.name = "binned, thread_per_row / subvector4 / subvector32, U = 2";
  binned.decision = d;
  binned.options.split_row_threshold = 100000;
  const HostCsr M = mixed_lengths(48, 400, 3, salt);
  for (const auto& [compression, columns] :
       {std::pair{Compression::offsets16, Columns::offsets16}, std::pair{Compression::row_patterns, Columns::patterns}}) {
    const Config c = reading(binned, compression, columns);
    K::run_configs(M, {c}, salt += 100);
    EXPECT_TRUE(K::reads_the_copy(M, c, salt += 2)) << c.name;
  }
  if constexpr (std::is_same_v<typename K::Scalar, double>)
    K::template run_configs<float>(gen::poisson3d(5), {reading(forced(SpmvKernel::subvector4), Compression::automatic,
                                                               Columns::patterns)},
                                   salt += 100);
}

// Where the CUDA target reads column indices from, and why describe() says it does.
TEST(SpmvCudaLaunch, ColumnCopiesChosenOnTheCudaTarget) {
  using Compression = SpmvOptions::IndexCompression;
  auto schedule = [](const HostCsr& A, const SpmvOptions& o) {
    using Crs = HostCrs<double, int>;
    const Crs a = to_crs<Crs>(A);
    Impl::SpmvColumnIndexCopies<HostDevice> copies;
    return Impl::analyze_spmv(a, Impl::host_row_map(a), o, SpmvTarget::cuda, copies);
  };
  auto says = [](const SpmvSchedule& s, const std::string& what) {
    return s.describe().find(what) != std::string::npos ? ::testing::AssertionSuccess()
                                                        : ::testing::AssertionFailure() << s.describe();
  };
  SpmvOptions automatic;
  // A stencil: its 27 patterns, each offset within 16 bits; rows straight from the thread index.
  const SpmvSchedule stencil = schedule(gen::poisson3d(8), automatic);
  ASSERT_TRUE(stencil.single_bin) << stencil.describe();
  EXPECT_TRUE(stencil.row_patterns);
  EXPECT_EQ(stencil.num_row_patterns, 27);
  EXPECT_TRUE(says(stencil, "one 16-bit pattern id per row (automatic: the dictionary is at most a quarter"));
  EXPECT_TRUE(says(stencil, "its row taken straight from the thread index"));
  // Rows that all differ, short: 16-bit offsets (the host would keep the matrix's own indices).
  SpmvOptions single = automatic;
  single.binning = SpmvBinning::single_bin;
  const SpmvSchedule random = schedule(test::random_csr(500, 400, 5.0, 9500), single);
  EXPECT_FALSE(random.row_patterns);
  EXPECT_TRUE(random.compressed_indices);
  EXPECT_TRUE(says(random, "16-bit offsets from the row (bandwidth"));
  EXPECT_TRUE(says(random, "(automatic: 2 bytes an entry instead of 4 on the CUDA target)"));
  // Row blocks (the automatic schedule of irregular rows) and team_per_row: A's own indices.
  const SpmvSchedule power = schedule(gen::rmat(10, 8, test::seed_for(9501)), automatic);
  ASSERT_TRUE(power.row_blocks) << power.describe();
  EXPECT_FALSE(power.compressed_indices || power.row_patterns);
  EXPECT_TRUE(says(power, "column indices: the matrix's own (automatic: only the CUDA thread_per_row and "
                          "subvectorX kernels read a compressed copy, and this schedule runs row blocks)"));
  SpmvOptions team = automatic;
  team.kernel = SpmvKernel::team_per_row;
  team.compress_indices = Compression::offsets16;
  const SpmvSchedule teams = schedule(gen::poisson3d(4), team);
  EXPECT_FALSE(teams.compressed_indices || teams.row_patterns);
  EXPECT_TRUE(says(teams, "(SpmvOptions::compress_indices = offsets16: only the CUDA thread_per_row"));
  // One pattern whose offset 40000 does not fit 16 bits: the host takes the pattern, the CUDA
  // target neither the pattern nor 16-bit offsets.
  std::vector<Triplet> triplets;
  for (int64_t r = 0; r < 20; ++r) {
    triplets.push_back({r, r, 1.0});
    triplets.push_back({r, r + 40000, 2.0});
  }
  const HostCsr far = HostCsr::from_triplets(20, 40020, triplets);
  SpmvOptions patterns = automatic;
  patterns.compress_indices = Compression::row_patterns;
  const SpmvSchedule far_cuda = schedule(far, patterns);
  EXPECT_FALSE(far_cuda.row_patterns || far_cuda.compressed_indices);
  EXPECT_TRUE(says(far_cuda, "which this matrix does not fit (on the CUDA target every offset within 16 bits)"));
  EXPECT_FALSE(schedule(far, automatic).compressed_indices);
  EXPECT_EQ(schedule(far, automatic).bandwidth, 40000);
  {
    using Crs = HostCrs<double, int>;
    const Crs a = to_crs<Crs>(far);
    Impl::SpmvColumnIndexCopies<HostDevice> copies;
    EXPECT_TRUE(Impl::analyze_spmv(a, Impl::host_row_map(a), patterns, SpmvTarget::host, copies).row_patterns);
  }
  // Off: A's own indices, said so.
  SpmvOptions off = automatic;
  off.compress_indices = Compression::off;
  const SpmvSchedule plain = schedule(gen::poisson3d(8), off);
  EXPECT_FALSE(plain.row_patterns || plain.compressed_indices);
  EXPECT_TRUE(says(plain, "column indices: the matrix's own (SpmvOptions::compress_indices = off)"));
}

// x of another value type than the matrix (float x under a double matrix): the one value type the
// kernels keep apart from Scalar, converted as x is read, through every kernel next to split rows
// and through the row blocks.
TEST(SpmvCudaEmulatedMixedTypes, FloatXUnderADoubleMatrix) {
  using K = Kit<HostCrs<double, int>>;
  uint64_t salt = 8000;
  for (SpmvKernel k : bin_kernels)
    K::run_configs<float>(dense_row_among_short(rows_for(k), 300, 17, salt), {binned_with_split(k, 2, 50, 64)},
                          salt += 100);
  K::run_configs<float>(mixed_lengths(48, 1200, 3, salt),
                        {row_blocks(8), row_blocks(8, 600, 200), row_blocks_merge(8, 600, 200)}, salt + 100);
}

// Row blocks are the CUDA target's: other targets refuse them, naming the option.
TEST(SpmvCudaLaunch, RowBlocksOnlyOnTheCudaTarget) {
  const HostCsr A = test::random_csr(50, 50, 4.0, 7500);
  SpmvOptions o;
  for (SpmvBinning binning : {SpmvBinning::row_blocks, SpmvBinning::row_blocks_merge}) {
    const bool merge = binning == SpmvBinning::row_blocks_merge;
    const std::string name = merge ? "row_blocks_merge" : "row_blocks";
    SCOPED_TRACE(name);
    o.binning = binning;
    for (SpmvTarget t : {SpmvTarget::host, SpmvTarget::portable_cpu, SpmvTarget::portable_gpu}) {
      SCOPED_TRACE(to_string(t));
      try {
        build_spmv_schedule(A.row_map, A.num_cols, o, t);
        ADD_FAILURE() << "no exception";
      } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("binning = " + name + " "), std::string::npos) << e.what();
      }
    }
    const SpmvSchedule s = build_spmv_schedule(A.row_map, A.num_cols, o, SpmvTarget::cuda);
    EXPECT_TRUE(s.row_blocks);
    EXPECT_EQ(s.row_block_merge, merge);
    EXPECT_NE(s.describe().find(merge ? "merge path" : "lanes per row"), std::string::npos) << s.describe();
  }
}

// Rank-2 x and y, LayoutLeft and LayoutRight (strided columns), column by column.
TYPED_TEST(SpmvCudaEmulated, Rank2BothLayouts) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(dense_row_among_short(24, 80, 5, 6000));
  uint64_t salt = 6100;
  std::vector<Config> configs = {forced(SpmvKernel::thread_per_row, 4),
                                 binned_with_split(SpmvKernel::subvector32, 1, 50, 32),
                                 binned_with_split(SpmvKernel::team_per_row, 3, 40, 32), row_blocks(1, 40, 16),
                                 row_blocks_merge(1, 40, 16)};
  for (Config& c : configs) c.expect_grid_stride = false;  // 24 rows: a bin may fit one block
  for (const Config& c : configs) {
    const auto op = K::make_operator(A, c);
    EXPECT_TRUE(K::holds(op, c)) << c.name;
    for (const emu::Schedule& schedule : emu::standard_schedules(test::seed_for(salt))) {
      SCOPED_TRACE("schedule " + schedule.name());
      for (const Run& run : standard_runs) {
        EXPECT_TRUE(K::template check_multi<typename K::MatL>(op, A, schedule, run, 2, salt += 2))
            << c.name << ", LayoutLeft, mode " << run.mode << ", beta " << run.beta << ", grid " << run.grid;
        EXPECT_TRUE(K::template check_multi<typename K::MatR>(op, A, schedule, run, 2, salt += 2))
            << c.name << ", LayoutRight, mode " << run.mode << ", beta " << run.beta << ", grid " << run.grid;
      }
    }
  }
}
