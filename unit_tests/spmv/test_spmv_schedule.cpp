// SpMV analysis on the host (impl/spmv/spmv_analysis.cpp): features, virtual rows, bins and
// describe(), checked for their invariants on many row maps x options x targets, plus hand-made
// cases with known answers and the option checks. No kernels run here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "Sprocket_Generators.hpp"
#include "Sprocket_MatrixStats.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

constexpr SpmvTarget all_targets[] = {SpmvTarget::host, SpmvTarget::cuda, SpmvTarget::portable_cpu,
                                      SpmvTarget::portable_gpu};

/// Row map with the given row lengths.
std::vector<int64_t> row_map_of(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> rm(lengths.size() + 1, 0);
  for (size_t i = 0; i < lengths.size(); ++i) rm[i + 1] = rm[i] + lengths[i];
  return rm;
}

/// Bin class of a virtual row's average length: 0 below 1, c in [2^(c-1), 2^c).
int length_class(double avg) {
  if (avg < 1) return 0;
  int c = 1;
  while (c < num_spmv_classes - 1 && avg >= std::ldexp(1.0, c)) ++c;
  return c;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// A row-block schedule (SpmvBinning::row_blocks, or the CUDA target's choice for irregular
/// rows): blocks partition the rows greedily, a block of several rows holds at most
/// row_block_entries entries and row_block_rows rows and ends only where the next row would not
/// fit or is long; a row longer than the entries or the split threshold is a block alone; the
/// only bin is split_row, holding exactly the blocks of rows over the threshold.
::testing::AssertionResult row_blocks_ok(const std::vector<int64_t>& rm, const SpmvOptions& o, SpmvTarget target,
                                         const SpmvSchedule& s) {
  using ::testing::AssertionFailure;
  const int64_t rows = static_cast<int64_t>(rm.size()) - 1;
  const int64_t E = SpmvSchedule::row_block_entries, R = SpmvSchedule::row_block_rows;
  auto len = [&](int64_t r) { return rm[r + 1] - rm[r]; };
  if (target != SpmvTarget::cuda) return AssertionFailure() << "row blocks on target " << to_string(target);
  if (o.kernel != SpmvKernel::automatic) return AssertionFailure() << "row blocks with a forced kernel";
  if (o.binning != SpmvBinning::row_blocks && (o.binning != SpmvBinning::automatic || s.single_bin))
    return AssertionFailure() << "row blocks not asked for and not the choice for irregular rows";
  const int64_t T = s.split_row_threshold;
  if (T != (o.split_row_threshold > 0 ? o.split_row_threshold : 2 * E) ||
      s.split_chunk != (o.split_chunk > 0 ? o.split_chunk : E))
    return AssertionFailure() << "split threshold " << T << ", chunk " << s.split_chunk;
  auto alone = [&](int64_t r) { return len(r) > E || len(r) > T; };
  const auto& vb = s.vrow_bounds;
  if (vb.empty() || vb.front() != 0 || vb.back() != rows) return AssertionFailure() << "vrow_bounds ends";
  std::vector<int64_t> split_vrows;
  int64_t split_nnz = 0;
  for (int64_t v = 0; v < s.num_vrows(); ++v) {
    const int64_t r0 = vb[v], r1 = vb[v + 1], n = rm[r1] - rm[r0];
    if (r1 <= r0) return AssertionFailure() << "block " << v << " empty";
    if (r1 - r0 == 1 && alone(r0)) {
      if (len(r0) > T) {
        split_vrows.push_back(v);
        split_nnz += len(r0);
      }
      continue;
    }
    if (n > E || r1 - r0 > R) return AssertionFailure() << "block " << v << ": " << r1 - r0 << " rows, " << n;
    for (int64_t r = r0; r < r1; ++r)
      if (alone(r)) return AssertionFailure() << "long row " << r << " shares block " << v;
    if (r1 < rows && !alone(r1) && r1 - r0 < R && n + len(r1) <= E)
      return AssertionFailure() << "block " << v << " ends before row " << r1 << ", which fits";
  }
  if (split_vrows.empty() != s.bins.empty()) return AssertionFailure() << s.bins.size() << " bins";
  if (!s.bins.empty() && (s.bins.size() != 1 || s.bins[0].kernel != SpmvKernel::split_row ||
                          s.bins[0].vrows != split_vrows || s.bins[0].nnz != split_nnz))
    return AssertionFailure() << "the split bin is not the long rows' blocks";
  return ::testing::AssertionSuccess();
}

/// Every invariant of a schedule built from (row_map, options, target).
::testing::AssertionResult schedule_ok(const std::vector<int64_t>& rm, int64_t cols, const SpmvOptions& o,
                                       SpmvTarget target, const SpmvSchedule& s) {
  using ::testing::AssertionFailure;
  const int64_t rows = static_cast<int64_t>(rm.size()) - 1;
  auto len = [&](int64_t r) { return rm[r + 1] - rm[r]; };
  const bool forced = o.kernel != SpmvKernel::automatic;
  if (s.row_blocks) return row_blocks_ok(rm, o, target, s);

  // Features.
  if (s.target != target) return AssertionFailure() << "target " << to_string(s.target);
  if (s.features.rows != rows || s.features.cols != cols || s.features.nnz != rm.back())
    return AssertionFailure() << "features " << s.features.rows << " x " << s.features.cols << " nnz " << s.features.nnz;
  int64_t max_row = 0;
  for (int64_t r = 0; r < rows; ++r) max_row = std::max(max_row, len(r));
  if (s.features.max_row != max_row) return AssertionFailure() << "max_row " << s.features.max_row;

  // Options honoured.
  const int64_t U = s.virtual_row_size;
  if (U < 1) return AssertionFailure() << "U = " << U;
  if (o.kernel == SpmvKernel::split_row && U != 1) return AssertionFailure() << "forced split_row with U = " << U;
  if (o.virtual_row_size > 0 && o.kernel != SpmvKernel::split_row && U != o.virtual_row_size)
    return AssertionFailure() << "U = " << U << ", asked " << o.virtual_row_size;
  if (forced && !s.single_bin) return AssertionFailure() << "forced kernel but binned";
  if (!forced && o.binning != SpmvBinning::automatic && s.single_bin != (o.binning == SpmvBinning::single_bin))
    return AssertionFailure() << "binning not as asked";
  if (s.split_row_threshold <= 0 || (o.split_row_threshold > 0 && s.split_row_threshold != o.split_row_threshold))
    return AssertionFailure() << "split threshold " << s.split_row_threshold;
  if (s.split_chunk <= 0 || (o.split_chunk > 0 && s.split_chunk != o.split_chunk))
    return AssertionFailure() << "split chunk " << s.split_chunk;
  if (s.single_bin && s.bins.size() > 1) return AssertionFailure() << "single bin with " << s.bins.size() << " bins";

  // Virtual rows: a partition of the rows into non-empty ranges of at most U rows; binned, a row
  // longer than the threshold is alone. A virtual row shorter than U ends at the matrix's end or
  // right before such a long row, or is such a row.
  const auto& vb = s.vrow_bounds;
  if (vb.empty() || vb.front() != 0 || vb.back() != rows) return AssertionFailure() << "vrow_bounds ends";
  const int64_t nv = s.num_vrows();
  auto is_long = [&](int64_t r) { return !s.single_bin && len(r) > s.split_row_threshold; };
  for (int64_t v = 0; v < nv; ++v) {
    const int64_t r0 = vb[v], r1 = vb[v + 1];
    if (r1 <= r0) return AssertionFailure() << "virtual row " << v << " empty or reversed";
    if (r1 - r0 > U) return AssertionFailure() << "virtual row " << v << " has " << r1 - r0 << " > U rows";
    for (int64_t r = r0; r < r1; ++r)
      if (is_long(r) && r1 - r0 != 1)
        return AssertionFailure() << "long row " << r << " (" << len(r) << ") shares virtual row " << v;
    if (r1 - r0 < U && r1 != rows && !is_long(r1) && !is_long(r0))
      return AssertionFailure() << "virtual row " << v << " short (" << r1 - r0 << " < U) for no reason";
  }

  // Bins: every virtual row in exactly one bin, distinct kernels, sums and classes consistent.
  std::vector<int> seen(nv, 0);
  std::vector<int> kernel_seen(num_spmv_kernels, 0);
  int64_t rows_sum = 0, nnz_sum = 0;
  const SpmvDecision model = spmv_model_decide(s.features, target);
  for (size_t b = 0; b < s.bins.size(); ++b) {
    const auto& bin = s.bins[b];
    const int k = static_cast<int>(bin.kernel);
    if (k < 0 || k >= num_spmv_kernels) return AssertionFailure() << "bin " << b << " kernel " << k;
    if (kernel_seen[k]++) return AssertionFailure() << "two bins with kernel " << to_string(bin.kernel);
    if (bin.vrows.empty()) return AssertionFailure() << "bin " << b << " empty";
    if (b > 0 && s.bins[b - 1].class_lo > bin.class_lo) return AssertionFailure() << "bins not sorted by class";
    if (forced && bin.kernel != o.kernel) return AssertionFailure() << "bin kernel " << to_string(bin.kernel);
    int64_t brows = 0, bnnz = 0, bmax = 0;
    for (size_t i = 0; i < bin.vrows.size(); ++i) {
      const int64_t v = bin.vrows[i];
      if (v < 0 || v >= nv) return AssertionFailure() << "bin " << b << " has virtual row " << v;
      if (i > 0 && bin.vrows[i - 1] >= v) return AssertionFailure() << "bin " << b << " vrows not increasing";
      ++seen[v];
      const int64_t r0 = vb[v], r1 = vb[v + 1];
      const int64_t nnz = rm[r1] - rm[r0];
      const int cls = length_class(static_cast<double>(nnz) / static_cast<double>(r1 - r0));
      if (cls < bin.class_lo || cls > bin.class_hi)
        return AssertionFailure() << "virtual row " << v << " class " << cls << " outside bin [" << bin.class_lo
                                  << ", " << bin.class_hi << "]";
      const bool long_row = r1 - r0 == 1 && is_long(r0);
      if (long_row != (bin.kernel == SpmvKernel::split_row) && !forced)
        return AssertionFailure() << "virtual row " << v << (long_row ? " is long but in bin " : " in bin ")
                                  << to_string(bin.kernel);
      // The model's kernel for the class, unless forced or split; a model single bin uses its
      // single-bin kernel.
      if (!forced && !long_row) {
        const SpmvKernel expected = s.single_bin ? model.single_bin_kernel : model.kernel_for_class[cls];
        if (bin.kernel != expected)
          return AssertionFailure() << "virtual row " << v << " class " << cls << " in bin " << to_string(bin.kernel)
                                    << ", model says " << to_string(expected);
      }
      brows += r1 - r0;
      bnnz += nnz;
      for (int64_t r = r0; r < r1; ++r) bmax = std::max(bmax, len(r));
    }
    if (brows != bin.rows || bnnz != bin.nnz || bmax != bin.max_row)
      return AssertionFailure() << "bin " << b << " rows/nnz/max " << bin.rows << "/" << bin.nnz << "/" << bin.max_row
                                << ", counted " << brows << "/" << bnnz << "/" << bmax;
    rows_sum += brows;
    nnz_sum += bnnz;
  }
  for (int64_t v = 0; v < nv; ++v)
    if (seen[v] != 1) return AssertionFailure() << "virtual row " << v << " in " << seen[v] << " bins";
  if (rows_sum != rows || nnz_sum != rm.back())
    return AssertionFailure() << "bins hold " << rows_sum << " rows, " << nnz_sum << " nnz";

  // describe(): every bin's kernel, the binning and U.
  const std::string d = s.describe();
  for (const auto& bin : s.bins)
    if (!contains(d, std::string("bin ") + to_string(bin.kernel)))
      return AssertionFailure() << "describe() lacks bin " << to_string(bin.kernel) << ":\n" << d;
  if (!contains(d, s.single_bin ? "single bin" : "binned") || !contains(d, "U = " + std::to_string(U)) ||
      !contains(d, to_string(target)))
    return AssertionFailure() << "describe() lacks binning, U or target:\n" << d;
  return ::testing::AssertionSuccess();
}

struct NamedRowMap {
  std::string name;
  std::vector<int64_t> row_map;
  int64_t cols;
};

std::vector<NamedRowMap> row_maps() {
  std::vector<NamedRowMap> out;
  const HostCsr r = gen::rmat(12, 16, test::seed_for(1));
  out.push_back({"rmat 12", r.row_map, r.num_cols});
  const HostCsr u = gen::uniform_random(2000, 1500, 6.0, test::seed_for(2));
  std::vector<int64_t> lengths(u.num_rows);
  for (int64_t i = 0; i < u.num_rows; ++i) lengths[i] = (i % 5 == 0 || (i >= 700 && i < 800)) ? 0 : u.row_length(i);
  out.push_back({"uniform with empty rows", row_map_of(lengths), 1500});
  std::vector<int64_t> mixed(1200);
  for (size_t i = 0; i < mixed.size(); ++i) mixed[i] = std::vector<int64_t>{0, 1, 5, 20, 60, 300, 5000}[(i / 37) % 7];
  out.push_back({"mixed lengths", row_map_of(mixed), 6000});
  out.push_back({"one row of 10^6", {0, 1000000}, 1000000});
  std::vector<int64_t> among(1000, 5);
  among[517] = 1000000;
  out.push_back({"10^6 row among short rows", row_map_of(among), 1000000});
  out.push_back({"0 x 0", {0}, 0});
  out.push_back({"0 x 5", {0}, 5});
  out.push_back({"5 x 0", {0, 0, 0, 0, 0, 0}, 0});
  out.push_back({"long rows at both ends", row_map_of({20000, 3, 3, 0, 3, 20000}), 30000});
  return out;
}

}  // namespace

TEST(SpmvSchedule, InvariantsOverOptionsAndTargets) {
  int checked = 0;
  for (const NamedRowMap& m : row_maps())
    for (SpmvTarget target : all_targets) {
      std::vector<SpmvOptions> options;
      for (SpmvBinning binning :
           {SpmvBinning::automatic, SpmvBinning::binned, SpmvBinning::single_bin, SpmvBinning::row_blocks})
        for (int U : {0, 1, 3, 64, 1000})
          for (int64_t threshold : {0, 50}) {
            SpmvOptions o;
            o.binning = binning;
            o.virtual_row_size = U;
            o.split_row_threshold = threshold;
            o.split_chunk = threshold > 0 ? 7 : 0;
            options.push_back(o);
          }
      for (int k = 0; k < num_spmv_kernels; ++k)
        for (int U : {0, 3}) {
          SpmvOptions o;
          o.kernel = static_cast<SpmvKernel>(k);
          o.virtual_row_size = U;
          o.split_row_threshold = 50;  // ignored: a forced kernel means a single bin
          options.push_back(o);
        }
      for (const SpmvOptions& o : options) {
        if (o.binning == SpmvBinning::row_blocks && o.kernel == SpmvKernel::automatic && target != SpmvTarget::cuda) {
          EXPECT_THROW(build_spmv_schedule(m.row_map, m.cols, o, target), InvalidArgument) << to_string(target);
          continue;
        }
        const SpmvSchedule s = build_spmv_schedule(m.row_map, m.cols, o, target);
        ASSERT_TRUE(schedule_ok(m.row_map, m.cols, o, target, s))
            << m.name << ", target " << to_string(target) << ", kernel " << to_string(o.kernel) << ", binning "
            << int(o.binning) << ", U " << o.virtual_row_size << ", threshold " << o.split_row_threshold << "\n"
            << s.describe();
        ++checked;
      }
    }
  EXPECT_GT(checked, 1000);
}

TEST(SpmvSchedule, LongRowsAreSplitWhenBinned) {
  const std::vector<int64_t> rm = row_map_of({3, 100, 3, 3, 51, 50, 0, 200});
  SpmvOptions o;
  o.binning = SpmvBinning::binned;
  o.virtual_row_size = 4;
  o.split_row_threshold = 50;
  o.split_chunk = 7;
  const SpmvSchedule s = build_spmv_schedule(rm, 300, o, SpmvTarget::host);
  // Rows 1, 4 and 7 (> 50) alone; the rest grouped by at most 4 between them.
  EXPECT_EQ(s.vrow_bounds, (std::vector<int64_t>{0, 1, 2, 4, 5, 7, 8}));
  const SpmvSchedule::Bin* split = nullptr;
  for (const auto& bin : s.bins)
    if (bin.kernel == SpmvKernel::split_row) split = &bin;
  ASSERT_NE(split, nullptr) << s.describe();
  EXPECT_EQ(split->vrows, (std::vector<int64_t>{1, 3, 5}));
  EXPECT_EQ(split->rows, 3);
  EXPECT_EQ(split->nnz, 351);
  EXPECT_EQ(split->max_row, 200);
  EXPECT_TRUE(schedule_ok(rm, 300, o, SpmvTarget::host, s)) << s.describe();
  // Single bin: nothing is split, U rows per virtual row regardless of length.
  o.binning = SpmvBinning::single_bin;
  const SpmvSchedule single = build_spmv_schedule(rm, 300, o, SpmvTarget::host);
  EXPECT_EQ(single.vrow_bounds, (std::vector<int64_t>{0, 4, 8}));
  ASSERT_EQ(single.bins.size(), 1u);
  EXPECT_NE(single.bins[0].kernel, SpmvKernel::split_row);
  // A forced split_row kernel: every row is its own virtual row.
  o = SpmvOptions();
  o.kernel = SpmvKernel::split_row;
  o.virtual_row_size = 4;
  const SpmvSchedule forced = build_spmv_schedule(rm, 300, o, SpmvTarget::cuda);
  EXPECT_EQ(forced.virtual_row_size, 1);
  EXPECT_EQ(forced.num_vrows(), 8);
}

TEST(SpmvSchedule, DefaultSplitThresholdsPerTarget) {
  const std::vector<int64_t> rm = row_map_of(std::vector<int64_t>(100, 10));
  const SpmvSchedule cpu = build_spmv_schedule(rm, 100, {}, SpmvTarget::host);
  const SpmvSchedule gpu = build_spmv_schedule(rm, 100, {}, SpmvTarget::cuda);
  EXPECT_GT(cpu.split_row_threshold, 0);
  EXPECT_GT(cpu.split_chunk, 0);
  EXPECT_GT(gpu.split_row_threshold, 0);
  EXPECT_GT(gpu.split_chunk, 0);
  // Rows of 10^6 entries are split by default on every target.
  std::vector<int64_t> among(1000, 5);
  among[517] = 1000000;
  for (SpmvTarget target : all_targets) {
    const SpmvSchedule s = build_spmv_schedule(row_map_of(among), 1000000, {}, target);
    bool split = false;
    for (const auto& bin : s.bins) split |= bin.kernel == SpmvKernel::split_row && bin.max_row == 1000000;
    EXPECT_TRUE(split) << to_string(target) << "\n" << s.describe();
  }
}

TEST(SpmvSchedule, FeaturesAndHistogram) {
  // Lengths 0, 1, 2, 0, 7: buckets empty / [1,2) / [2,4) / [4,8).
  const SpmvFeatures f = spmv_features({0, 0, 1, 3, 3, 10}, 12);
  EXPECT_EQ(f.rows, 5);
  EXPECT_EQ(f.cols, 12);
  EXPECT_EQ(f.nnz, 10);
  EXPECT_EQ(f.min_row, 0);
  EXPECT_EQ(f.max_row, 7);
  EXPECT_DOUBLE_EQ(f.avg_row, 2.0);
  EXPECT_DOUBLE_EQ(f.var_row, (4.0 + 1.0 + 0.0 + 4.0 + 25.0) / 5.0);
  EXPECT_EQ(f.histogram, (std::vector<int64_t>{2, 1, 1, 1}));
  const SpmvFeatures empty = spmv_features({0}, 3);
  EXPECT_EQ(empty.rows, 0);
  EXPECT_EQ(empty.nnz, 0);
}

// spmv_features folds the row lengths over runs of rows on the host threads: on row maps long
// enough for many runs, with the shortest and longest rows (near 2^32, whose squares overflow 64
// bits) anywhere, the same statistics as one pass (row_length_stats), to the last bit; and a
// decrease named at its first row wherever the runs fall.
TEST(SpmvSchedule, FeaturesOverManyRunsAsOnePass) {
  std::mt19937_64 rng(test::seed_for(599));
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t rows = 200000 + static_cast<int64_t>(rng() % 400000);
    std::vector<int64_t> row_map{trial % 2 == 0 ? 0 : static_cast<int64_t>(rng() % 1000)};
    for (int64_t i = 0; i < rows; ++i) {
      const uint64_t kind = rng() % 100000;
      const int64_t len = kind < 3 ? (int64_t{1} << 32) - static_cast<int64_t>(rng() % 1000)
                                   : static_cast<int64_t>(1 + rng() % 9) + (kind % 7 == 0 ? 30 : 0);
      row_map.push_back(row_map.back() + len);
    }
    // An empty row and the longest row at random places, maybe inside one run's last rows.
    const int64_t empty_at = static_cast<int64_t>(rng() % rows), long_at = static_cast<int64_t>(rng() % rows);
    const int64_t emptied = row_map[empty_at + 1] - row_map[empty_at];
    for (int64_t i = empty_at + 1; i <= rows; ++i) row_map[i] -= emptied;
    const int64_t extra = int64_t{1} << 33;
    for (int64_t i = long_at + 1; i <= rows; ++i) row_map[i] += extra;
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + std::to_string(rows) + " rows, empty row " +
                 std::to_string(empty_at) + ", longest row " + std::to_string(long_at));
    const SpmvFeatures f = spmv_features(row_map, 77);
    const RowLengthStats one = row_length_stats(row_map);
    EXPECT_EQ(f.rows, one.rows);
    EXPECT_EQ(f.cols, 77);
    EXPECT_EQ(f.nnz, one.nnz);
    EXPECT_EQ(f.min_row, one.min_row);
    EXPECT_EQ(f.max_row, one.max_row);
    EXPECT_EQ(f.avg_row, one.avg_row);
    EXPECT_EQ(f.var_row, one.var_row);
    EXPECT_EQ(f.histogram, one.histogram);
    EXPECT_EQ(f.min_row, 0);
    EXPECT_GE(f.max_row, extra);

    // Two decreases; the message names the first.
    const int64_t first = 1 + static_cast<int64_t>(rng() % (rows / 2));
    const int64_t second = first + 1 + static_cast<int64_t>(rng() % (rows / 2 - 1));
    std::vector<int64_t> bad = row_map;
    bad[first + 1] = bad[first] - 1;
    bad[second + 1] = bad[second] - 5;
    const std::string m = test::message_of<InvalidArgument>([&] { spmv_features(bad, 77); });
    EXPECT_NE(m.find("decreases at row " + std::to_string(first) + " (" + std::to_string(bad[first]) + " > " +
                     std::to_string(bad[first] - 1) + ")"),
              std::string::npos)
        << m;
  }
}

TEST(SpmvSchedule, ModelAnswersAreValid) {
  for (const NamedRowMap& m : row_maps())
    for (SpmvTarget target : all_targets) {
      const SpmvDecision d = spmv_model_decide(spmv_features(m.row_map, m.cols), target);
      EXPECT_GE(d.virtual_row_size, 1) << m.name;
      EXPECT_LE(d.virtual_row_size, 1 << 20) << m.name;
      EXPECT_GE(static_cast<int>(d.single_bin_kernel), 0) << m.name;
      for (int c = 0; c < num_spmv_classes; ++c) {
        EXPECT_GE(static_cast<int>(d.kernel_for_class[c]), 0) << m.name << " class " << c;
        EXPECT_LT(static_cast<int>(d.kernel_for_class[c]), num_spmv_kernels) << m.name << " class " << c;
      }
    }
}

TEST(SpmvSchedule, BadOptionsThrow) {
  const std::vector<int64_t> rm = row_map_of({1, 2, 3});
  auto message = [&](const SpmvOptions& o) -> std::string {
    try {
      build_spmv_schedule(rm, 5, o, SpmvTarget::host);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  SpmvOptions o;
  o.virtual_row_size = -1;
  EXPECT_TRUE(contains(message(o), "virtual_row_size = -1")) << message(o);
  o.virtual_row_size = (1 << 20) + 1;
  EXPECT_TRUE(contains(message(o), "virtual_row_size = 1048577")) << message(o);
  o = SpmvOptions();
  o.split_chunk = -5;
  EXPECT_TRUE(contains(message(o), "split_chunk = -5")) << message(o);
  o = SpmvOptions();
  o.split_row_threshold = -1;
  EXPECT_TRUE(contains(message(o), "split_row_threshold = -1")) << message(o);
  o = SpmvOptions();
  o.autotune = true;
  o.autotune_repeats = 0;
  EXPECT_TRUE(contains(message(o), "autotune_repeats = 0")) << message(o);
  EXPECT_THROW(build_spmv_schedule({}, 5, SpmvOptions(), SpmvTarget::host), InvalidArgument);
  SpmvDecision bad;
  bad.virtual_row_size = 0;
  EXPECT_THROW(build_spmv_schedule(rm, 5, SpmvOptions(), SpmvTarget::host, bad, "test"), InvalidArgument);
  // Valid extremes are accepted.
  o = SpmvOptions();
  o.virtual_row_size = 1 << 20;
  EXPECT_NO_THROW(build_spmv_schedule(rm, 5, o, SpmvTarget::host));
}

TEST(SpmvSchedule, ExplicitDecisionIsFollowed) {
  std::vector<int64_t> lengths;
  for (int i = 0; i < 64; ++i) lengths.push_back(i % 2 ? 3 : 40);  // classes 2 and 6, U = 1
  const std::vector<int64_t> rm = row_map_of(lengths);
  SpmvDecision d;
  d.virtual_row_size = 1;
  for (int c = 0; c < num_spmv_classes; ++c) d.kernel_for_class[c] = c < 4 ? SpmvKernel::subvector2 : SpmvKernel::subvector16;
  const SpmvSchedule s = build_spmv_schedule(rm, 100, SpmvOptions(), SpmvTarget::cuda, d, "test decision");
  EXPECT_EQ(s.decided_by, SpmvDecidedBy::options);
  EXPECT_EQ(s.decision_detail, "test decision");
  EXPECT_EQ(s.decided_by_text(), "options: test decision");
  EXPECT_TRUE(contains(s.describe(), "decided by options: test decision")) << s.describe();
  ASSERT_EQ(s.bins.size(), 2u) << s.describe();
  EXPECT_EQ(s.bins[0].kernel, SpmvKernel::subvector2);
  EXPECT_EQ(s.bins[0].rows, 32);
  EXPECT_EQ(s.bins[0].nnz, 96);
  EXPECT_EQ(s.bins[1].kernel, SpmvKernel::subvector16);
  EXPECT_EQ(s.bins[1].nnz, 32 * 40);
  EXPECT_EQ(s.bins[1].class_lo, 6);
  d.single_bin = true;
  d.single_bin_kernel = SpmvKernel::subvector8;
  const SpmvSchedule single = build_spmv_schedule(rm, 100, SpmvOptions(), SpmvTarget::cuda, d, "single");
  ASSERT_EQ(single.bins.size(), 1u);
  EXPECT_EQ(single.bins[0].kernel, SpmvKernel::subvector8);
  EXPECT_EQ(single.bins[0].rows, 64);
}
