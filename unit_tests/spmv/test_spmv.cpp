// Adaptive SpMV operator (Sprocket_Spmv.hpp): every kernel forced alone, the automatic choice on
// the specialized and the portable backend, forced binning options, autotune, modes N and T
// (cached and scatter), rank-1 and rank-2 (both layouts), beta == 0 with y poisoned, alpha == 0,
// plan reuse and value updates, and argument errors, against reference::spmv with the scaled
// error bound of test::spmv_matches.
//
// Matrices are chosen to break kernels: empty rows (leading, trailing, runs), 0 x 0 / 5 x 0 /
// 0 x 5, one row of 10^6 entries alone and among 999 short rows, R-MAT power-law graphs,
// non-square shapes, unsorted columns with duplicate entries. Every configuration a test claims to
// exercise is checked on plan.schedule() (forced kernel, bins, split rows), so a test cannot pass
// by silently running something else.
//
// No device code here: everything goes through the plan, deep_copy and mirrors (nvcc refuses
// extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/spmv/host/spmv_host.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using test::empty_rows_unless;
using test::longest_row;
using test::rounded;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ------------------------------------------------------------------------------------------------
// Matrices

/// Uniform random matrix with empty rows: row 0 and every 5th row, a run of 40 rows in the
/// middle (a whole virtual row of empties for small U) and the last 3 rows.
HostCsr random_with_empty_rows(int64_t rows, int64_t cols, double avg, uint64_t salt) {
  return empty_rows_unless(test::random_csr(rows, cols, avg, salt), [rows](int64_t i) {
    return i % 5 != 0 && !(i >= rows / 3 && i < rows / 3 + 40) && i < rows - 3;
  });
}

/// Blocks of 10 rows cycling through lengths 0, 1, 5, 20, 60, 150, 300, 1100 (log2 classes 0, 1,
/// 3, 5, 6, 8, 9, 11; capped at cols): rows for every kernel of a binned plan.
HostCsr mixed_lengths(int64_t rows, int64_t cols, uint64_t salt) {
  static const int64_t lengths[8] = {0, 1, 5, 20, 60, 150, 300, 1100};
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  std::vector<int> perm(cols);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = std::min(cols, lengths[(i / 10) % 8]);
    for (int j = 0; j < cols; ++j) perm[j] = j;
    for (int64_t k = 0; k < len; ++k) {  // len distinct columns, in random order
      std::swap(perm[k], perm[k + rng() % (cols - k)]);
      A.entries.push_back(perm[k]);
      A.values.push_back(2.0 * ((rng() >> 11) * 0x1.0p-53) - 1.0);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

/// `rows` x `cols` with row `dense_row` full (cols entries, unsorted: reversed) and every other
/// row holding 5 random entries.
HostCsr dense_row_among_short(int64_t rows, int64_t cols, int64_t dense_row, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  A.entries.reserve(cols + 5 * rows);
  A.values.reserve(cols + 5 * rows);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t len = i == dense_row ? cols : 5;
    for (int64_t k = 0; k < len; ++k) {
      A.entries.push_back(static_cast<int>(i == dense_row ? cols - 1 - k : rng() % cols));
      A.values.push_back(2.0 * ((rng() >> 11) * 0x1.0p-53) - 1.0);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

/// n x n with row i holding its diagonal and `per_row` distinct random columns within
/// |col - i| <= half_width (clipped), in descending order (unsorted rows). Drawn in O(entries):
/// gen::banded visits every position of the band, 2e9 draws for CompressedColumnIndices' band,
/// which took most of test_spmv's time.
HostCsr wide_band(int64_t n, int64_t half_width, int64_t per_row, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(n + 1, 0);
  std::vector<int> row;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t first = std::max<int64_t>(0, i - half_width), last = std::min(n - 1, i + half_width);
    row.assign(1, static_cast<int>(i));
    while (static_cast<int64_t>(row.size()) < std::min(per_row + 1, last - first + 1)) {
      const int c = static_cast<int>(first + static_cast<int64_t>(rng() % (last - first + 1)));
      if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
    }
    std::sort(row.rbegin(), row.rend());
    for (int c : row) {
      A.entries.push_back(c);
      A.values.push_back(2.0 * ((rng() >> 11) * 0x1.0p-53) - 1.0);
    }
    A.row_map[i + 1] = A.nnz();
  }
  return A;
}

HostCsr empty_matrix(int64_t rows, int64_t cols) {
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(rows + 1, 0);
  return A;
}

// ------------------------------------------------------------------------------------------------
// Configurations

struct Config {
  std::string name;
  SpmvOptions options;
  std::optional<SpmvDecision> decision = {};  ///< explicit decision (SpmvTuningOptions)
};

/// A binned decision that gives the classes of mixed_lengths() every kernel: U = 1, classes
/// 0 / 1 / 2-3 / 4-5 / 6-7 / 8 / 9+ to thread_per_row / subvector2 / 4 / 8 / 16 / 32 /
/// team_per_row, with rows longer than 1000 split in chunks of 64.
Config every_kernel_in_one_plan(Backend backend) {
  SpmvDecision d;
  d.virtual_row_size = 1;
  d.single_bin = false;
  for (int c = 0; c < num_spmv_classes; ++c)
    d.kernel_for_class[c] = c == 0   ? SpmvKernel::thread_per_row
                            : c == 1 ? SpmvKernel::subvector2
                            : c <= 3 ? SpmvKernel::subvector4
                            : c <= 5 ? SpmvKernel::subvector8
                            : c <= 7 ? SpmvKernel::subvector16
                            : c == 8 ? SpmvKernel::subvector32
                                     : SpmvKernel::team_per_row;
  SpmvOptions o;
  o.backend = backend;
  o.split_row_threshold = 1000;
  o.split_chunk = 64;
  return {std::string(backend == Backend::portable ? "portable, " : "") + "every kernel binned in one plan", o, d};
}

/// Every kernel forced alone and the automatic choice, on the space's specialization and on the
/// portable implementation, plus the automatic choice with the scatter transpose, plus a binned
/// plan with every kernel at once (explicit decision through SpmvTuningOptions) on both.
std::vector<Config> standard_configs() {
  std::vector<Config> configs;
  for (Backend backend : {Backend::automatic, Backend::portable}) {
    const std::string prefix = backend == Backend::portable ? "portable, " : "";
    for (int k = -1; k < num_spmv_kernels; ++k) {
      SpmvOptions o;
      o.kernel = static_cast<SpmvKernel>(k);
      o.backend = backend;
      configs.push_back({prefix + to_string(o.kernel), o});
    }
  }
  SpmvOptions scatter;
  scatter.transpose = SpmvTranspose::scatter;
  configs.push_back({"automatic, scatter transpose", scatter});
  configs.push_back(every_kernel_in_one_plan(Backend::automatic));
  configs.push_back(every_kernel_in_one_plan(Backend::portable));
  return configs;
}

/// Binned rows longer than 50 split into chunks of 7 entries: many chunks per row, so the
/// atomic accumulation of partial sums really runs.
SpmvOptions small_split_options(Backend backend) {
  SpmvOptions o;
  o.binning = SpmvBinning::binned;
  o.split_row_threshold = 50;
  o.split_chunk = 7;
  o.backend = backend;
  return o;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Calls f and checks it throws InvalidArgument whose message contains every needle.
template <class F>
::testing::AssertionResult throws_invalid_argument(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    for (const std::string& n : needles)
      if (!contains(e.what(), n))
        return ::testing::AssertionFailure() << "message \"" << e.what() << "\" lacks \"" << n << "\"";
    return ::testing::AssertionSuccess() << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception type: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// ------------------------------------------------------------------------------------------------
// Applying and checking, for one CrsMatrix type

template <class Crs>
struct Kit {
  using Scalar = typename Crs::non_const_value_type;
  using Device = typename Crs::device_type;
  using ExecSpace = typename Crs::execution_space;
  using Vec = Kokkos::View<Scalar*, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using Plan = SpmvPlan<Crs>;

  static SpmvTarget expected_target(Backend backend) {
    constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Crs::memory_space>::accessible;
    if (backend == Backend::portable) return gpu ? SpmvTarget::portable_gpu : SpmvTarget::portable_cpu;
    if (Impl::is_cuda_space_v<ExecSpace>) return SpmvTarget::cuda;
    if (Impl::is_host_space_v<ExecSpace>) return SpmvTarget::host;
    return gpu ? SpmvTarget::portable_gpu : SpmvTarget::portable_cpu;
  }

  /// Whether the plan's kernels read a compressed copy of the column indices where the options
  /// and the matrix allow one: the host target's always, the CUDA target's when every bin is
  /// thread_per_row or subvectorX (no row blocks, team_per_row or split rows).
  static bool reads_index_copies(const SpmvSchedule& s) {
    if (s.target == SpmvTarget::host) return true;
    if (s.target != SpmvTarget::cuda || s.row_blocks || s.bins.empty()) return false;
    for (const SpmvSchedule::Bin& b : s.bins)
      if (b.kernel == SpmvKernel::team_per_row || b.kernel == SpmvKernel::split_row) return false;
    return true;
  }

  static Plan make_plan(const Crs& a, const Config& c) {
    if (!c.decision) return Plan(a, c.options);
    SpmvTuningOptions t;
    static_cast<SpmvOptions&>(t) = c.options;
    t.decision = c.decision;
    return Plan(a, t);
  }

  /// The plan runs what the options (and the explicit decision) ask for.
  static ::testing::AssertionResult honours(const Plan& plan, const SpmvOptions& o,
                                            const std::optional<SpmvDecision>& decision = {}) {
    const SpmvSchedule& s = plan.schedule();
    if (plan.target() != expected_target(o.backend))
      return ::testing::AssertionFailure() << "target " << to_string(plan.target());
    if (decision && (s.single_bin != decision->single_bin || s.virtual_row_size != decision->virtual_row_size))
      return ::testing::AssertionFailure() << "explicit decision not followed";
    if (o.kernel != SpmvKernel::automatic && s.features.rows > 0) {
      if (!s.single_bin || s.bins.size() != 1 || s.bins[0].kernel != o.kernel)
        return ::testing::AssertionFailure() << "forced kernel " << to_string(o.kernel) << " not the only bin";
    }
    if (o.kernel == SpmvKernel::automatic && o.binning == SpmvBinning::single_bin && s.bins.size() > 1)
      return ::testing::AssertionFailure() << "single bin asked, " << s.bins.size() << " bins";
    if (o.kernel == SpmvKernel::automatic && o.binning != SpmvBinning::automatic &&
        s.single_bin != (o.binning == SpmvBinning::single_bin))
      return ::testing::AssertionFailure() << "binning not as asked";
    if (o.virtual_row_size > 0 && o.kernel != SpmvKernel::split_row && s.virtual_row_size != o.virtual_row_size)
      return ::testing::AssertionFailure() << "U = " << s.virtual_row_size << ", asked " << o.virtual_row_size;
    if (o.split_row_threshold > 0 && s.split_row_threshold != o.split_row_threshold)
      return ::testing::AssertionFailure() << "split threshold " << s.split_row_threshold;
    if (o.split_chunk > 0 && s.split_chunk != o.split_chunk)
      return ::testing::AssertionFailure() << "split chunk " << s.split_chunk;
    return ::testing::AssertionSuccess();
  }

  /// y = alpha op(A) x + beta y through the plan, against the reference. A must hold the values
  /// the plan's matrix holds (rounded to Scalar). beta == 0 poisons y with NaN first; alpha == 0
  /// poisons x (neither may be read).
  static ::testing::AssertionResult check(const Plan& plan, const HostCsr& A, const std::string& mode,
                                          double alpha, double beta, uint64_t salt) {
    const int64_t in = mode == "N" ? A.num_cols : A.num_rows, out = mode == "N" ? A.num_rows : A.num_cols;
    const std::vector<double> x =
        alpha == 0 ? std::vector<double>(in, kNaN) : rounded<Scalar>(test::random_vector(in, salt));
    const std::vector<double> y0 =
        beta == 0 ? std::vector<double>(out, kNaN) : rounded<Scalar>(test::random_vector(out, salt + 1));
    const Vec xv = test::to_view<Vec>(x, "x"), yv = test::to_view<Vec>(y0, "y");
    plan.apply(mode.c_str(), static_cast<Scalar>(alpha), xv, static_cast<Scalar>(beta), yv);
    return test::spmv_matches<Scalar>(mode, alpha, A, x, beta, y0, test::to_host_vector(yv));
  }

  /// The same with k columns in a rank-2 View of type Mat.
  template <class Mat>
  static ::testing::AssertionResult check_multi(const Plan& plan, const HostCsr& A, const std::string& mode,
                                                int64_t k, double alpha, double beta, uint64_t salt) {
    const int64_t in = mode == "N" ? A.num_cols : A.num_rows, out = mode == "N" ? A.num_rows : A.num_cols;
    const HostDense X = alpha == 0 ? HostDense(in, k, kNaN) : rounded<Scalar>(test::random_dense(in, k, salt));
    const HostDense Y0 = beta == 0 ? HostDense(out, k, kNaN) : rounded<Scalar>(test::random_dense(out, k, salt + 1));
    const Mat xv = test::to_view<Mat>(X, "X"), yv = test::to_view<Mat>(Y0, "Y");
    plan.apply(mode.c_str(), static_cast<Scalar>(alpha), xv, static_cast<Scalar>(beta), yv);
    return test::spmm_matches<Scalar>(mode, alpha, A, X, beta, Y0, test::to_host_dense(yv));
  }

  /// Every configuration in the given modes, (alpha, beta) = (1.5, 0) with y poisoned and
  /// (-0.5, 0.75) with y random.
  static void run_configs(const HostCsr& A0, const std::vector<Config>& configs, uint64_t salt,
                          const std::vector<const char*>& modes = {"N", "T"}) {
    const HostCsr A = rounded<Scalar>(A0);
    const Crs a = to_crs<Crs>(A);
    for (const Config& c : configs) {
      const Plan plan = make_plan(a, c);
      EXPECT_TRUE(honours(plan, c.options, c.decision)) << c.name << "\n" << plan.describe();
      for (const char* mode : modes)
        for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}})
          EXPECT_TRUE(check(plan, A, mode, alpha, beta, salt += 2))
              << c.name << ", mode " << mode << ", alpha " << alpha << ", beta " << beta << ", "
              << A.num_rows << " x " << A.num_cols << ", nnz " << A.nnz() << "\n"
              << plan.describe();
    }
  }
};

}  // namespace

// ================================================================================================
// Typed tests: every (Scalar, Offset) on every enabled execution space

template <class CrsType>
class Spmv : public ::testing::Test {};
TYPED_TEST_SUITE(Spmv, test::CrsTypes);

TYPED_TEST(Spmv, EveryKernelOnRandomWithEmptyRows) {
  using K = Kit<TypeParam>;
  const HostCsr A = random_with_empty_rows(700, 650, 9.0, 1);
  ASSERT_EQ(A.row_length(0), 0);
  ASSERT_EQ(A.row_length(A.num_rows - 1), 0);
  K::run_configs(A, standard_configs(), 100);
}

TYPED_TEST(Spmv, EveryKernelOnMixedRowLengths) {
  using K = Kit<TypeParam>;
  const HostCsr A = mixed_lengths(400, 1200, 2);
  // The explicit decision really puts all 8 kernels in one plan (split: the rows of 1100).
  for (Backend backend : {Backend::automatic, Backend::portable}) {
    const typename K::Plan plan = K::make_plan(to_crs<TypeParam>(A), every_kernel_in_one_plan(backend));
    EXPECT_EQ(plan.schedule().bins.size(), size_t(num_spmv_kernels)) << plan.describe();
  }
  K::run_configs(A, standard_configs(), 200);
}

// Backend::native on a space with a specialization (every test space here: host or CUDA) runs
// that specialization, every kernel forced alone, the automatic choice and the binned plan with
// every kernel at once.
TYPED_TEST(Spmv, BackendNativeRunsEveryKernel) {
  using K = Kit<TypeParam>;
  const HostCsr A = mixed_lengths(400, 1200, 3);
  std::vector<Config> configs;
  for (int k = -1; k < num_spmv_kernels; ++k) {
    SpmvOptions o;
    o.kernel = static_cast<SpmvKernel>(k);
    o.backend = Backend::native;
    configs.push_back({std::string("native, ") + to_string(o.kernel), o});
  }
  configs.push_back(every_kernel_in_one_plan(Backend::native));
  const typename K::Plan plan = K::make_plan(to_crs<TypeParam>(A), configs.back());
  EXPECT_EQ(plan.schedule().bins.size(), size_t(num_spmv_kernels)) << plan.describe();
  EXPECT_EQ(plan.target(), K::expected_target(Backend::automatic));
  EXPECT_NE(plan.target(), SpmvTarget::portable_cpu);
  EXPECT_NE(plan.target(), SpmvTarget::portable_gpu);
  EXPECT_TRUE(contains(plan.describe(), "backend native (Backend::native: ")) << plan.describe();
  K::run_configs(A, configs, 250);
}

// describe() says what the analysis chose and why: backend, who decided the bins, where the
// host kernels read column indices from and whether they prefetch x.
TYPED_TEST(Spmv, DescribeSaysWhatAndWhy) {
  using K = Kit<TypeParam>;
  using Compression = SpmvOptions::IndexCompression;
  using XPrefetch = SpmvOptions::XPrefetch;
  const bool host_target = K::expected_target(Backend::automatic) == SpmvTarget::host;
  const bool cuda_target = K::expected_target(Backend::automatic) == SpmvTarget::cuda;
  const HostCsr S = rounded<typename K::Scalar>(test::random_csr(500, 400, 5.0, 41));  // short, all different rows
  const TypeParam s = to_crs<TypeParam>(S);
  const std::string space = TypeParam::execution_space::name();

  const typename K::Plan automatic_plan(s);
  const std::string automatic = automatic_plan.describe();
  EXPECT_TRUE(contains(automatic, "decided by model")) << automatic;
  // The resolved backend, then why (the request and what the space has).
  EXPECT_TRUE(contains(automatic, std::string("backend ") + to_string(automatic_plan.backend()) +
                                      " (Backend::automatic: " + space))
      << automatic;
  if (host_target) EXPECT_EQ(automatic_plan.backend(), Backend::native);
  if (host_target) {
    EXPECT_TRUE(contains(automatic, "has the host kernels")) << automatic;
    EXPECT_TRUE(contains(automatic, "column indices: the matrix's own (automatic: rows average")) << automatic;
    EXPECT_TRUE(contains(automatic, "< 16 entries")) << automatic;
    EXPECT_TRUE(contains(automatic, "row patterns not used")) << automatic;
    EXPECT_TRUE(contains(automatic, "x not prefetched (automatic: x of 400 entries")) << automatic;
    EXPECT_TRUE(contains(automatic, "served by the caches")) << automatic;
  } else {
    // The CUDA target says where its kernels read the indices from (a copy or, with row blocks,
    // the matrix's own); the portable targets have no copies to speak of.
    EXPECT_EQ(contains(automatic, "column indices"), cuda_target) << automatic;
    EXPECT_FALSE(contains(automatic, "prefetched")) << automatic;
  }

  SpmvOptions o;
  o.kernel = SpmvKernel::subvector4;
  o.virtual_row_size = 8;
  o.compress_indices = Compression::off;
  o.prefetch_x = XPrefetch::on;
  const typename K::Plan forced(s, o);
  const std::string f = forced.describe();
  EXPECT_EQ(forced.schedule().decided_by, SpmvDecidedBy::forced);
  EXPECT_TRUE(contains(f, "decided by forced, kernel subvector4, U from options")) << f;
  if (host_target || cuda_target)
    EXPECT_TRUE(contains(f, "column indices: the matrix's own (SpmvOptions::compress_indices = off)")) << f;
  if (host_target) EXPECT_TRUE(contains(f, "x prefetched 64 entries ahead (SpmvOptions::prefetch_x = on)")) << f;

  o = SpmvOptions();
  o.compress_indices = Compression::offsets16;
  o.prefetch_x = XPrefetch::on;
  o.binning = SpmvBinning::single_bin;
  const typename K::Plan c_plan(s, o);
  const std::string c = c_plan.describe();
  EXPECT_TRUE(contains(c, "decided by model, binning from options")) << c;
  if (cuda_target && K::reads_index_copies(c_plan.schedule())) {
    EXPECT_TRUE(contains(c, "16-bit offsets from the row (bandwidth")) << c;
    EXPECT_TRUE(contains(c, "its row taken straight from the thread index")) << c;
  }
  if (host_target) {
    EXPECT_TRUE(contains(c, "16-bit offsets from the row (bandwidth")) << c;
    EXPECT_TRUE(contains(c, "(SpmvOptions::compress_indices = offsets16)")) << c;
    EXPECT_TRUE(contains(c, "x not prefetched (column indices near the diagonal")) << c;
  }

  // A 3D Poisson stencil: 27 patterns or fewer, automatic picks them and says why.
  const HostCsr P = rounded<typename K::Scalar>(gen::poisson3d(12));
  const typename K::Plan p_plan(to_crs<TypeParam>(P));
  const std::string p = p_plan.describe();
  if (K::reads_index_copies(p_plan.schedule()))
    EXPECT_TRUE(contains(p, "one 16-bit pattern id per row (automatic: the dictionary is at most a quarter"))
        << p;

  SpmvOptions portable;
  portable.backend = Backend::portable;
  const std::string q = typename K::Plan(s, portable).describe();
  EXPECT_TRUE(contains(q, "backend portable (Backend::portable: the portable Kokkos kernels)")) << q;
  EXPECT_FALSE(contains(q, "column indices")) << q;
}

TYPED_TEST(Spmv, EveryKernelOnPowerLaw) {
  using K = Kit<TypeParam>;
  const HostCsr A = gen::rmat(12, 16, test::seed_for(3));
  ASSERT_GT(longest_row(A), 200);  // heavy rows, orders of magnitude above the average
  K::run_configs(A, standard_configs(), 300);
}

TYPED_TEST(Spmv, EveryKernelOnNonSquare) {
  using K = Kit<TypeParam>;
  K::run_configs(random_with_empty_rows(300, 1000, 12.0, 4), standard_configs(), 400);
  K::run_configs(random_with_empty_rows(1000, 300, 6.0, 5), standard_configs(), 500);
}

TYPED_TEST(Spmv, EveryKernelOnUnsortedColumnsAndDuplicates) {
  using K = Kit<TypeParam>;
  const HostCsr A = test::unsorted_with_duplicates(500, 120, 39, 6);
  ASSERT_FALSE(A.is_sorted_and_unique());
  const TypeParam a = to_crs<TypeParam>(A);
  ASSERT_FALSE(to_host_csr(a).is_sorted_and_unique());  // to_crs kept them as they are
  K::run_configs(A, standard_configs(), 600);
}

TYPED_TEST(Spmv, EmptyMatrices) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{0, 0}, {5, 0}, {0, 5}, {5, 7}, {70, 3}};
  uint64_t salt = 700;
  for (const auto& [rows, cols] : shapes) {
    const HostCsr A = empty_matrix(rows, cols);
    K::run_configs(A, standard_configs(), salt += 100);
    const typename K::Plan plan(to_crs<TypeParam>(A));
    EXPECT_EQ(plan.schedule().features.nnz, 0);
    for (const char* mode : {"N", "T"})
      for (double beta : {0.0, 0.5}) {
        EXPECT_TRUE(K::template check_multi<typename K::MatL>(plan, A, mode, 2, 1.0, beta, salt += 2))
            << rows << " x " << cols << " mode " << mode << " beta " << beta;
        EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, A, mode, 3, 1.0, beta, salt += 2))
            << rows << " x " << cols << " mode " << mode << " beta " << beta;
      }
  }
  // A default-constructed CrsMatrix is the 0 x 0 matrix (its row map is empty, not {0}).
  const typename K::Plan plan{TypeParam()};
  EXPECT_EQ(plan.schedule().num_vrows(), 0);
  typename K::Vec x("x", 0), y("y", 0);
  EXPECT_NO_THROW(plan.apply("N", Scalar(1), x, Scalar(0), y));
  EXPECT_NO_THROW(plan.apply("T", Scalar(1), x, Scalar(0), y));
}

TYPED_TEST(Spmv, MultiVectorBothLayouts) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(mixed_lengths(250, 300, 7));
  const TypeParam a = to_crs<TypeParam>(A);
  std::vector<Config> configs = {{"automatic", {}}};
  configs.push_back({"portable", {}});
  configs.back().options.backend = Backend::portable;
  configs.push_back({"subvector4", {}});
  configs.back().options.kernel = SpmvKernel::subvector4;
  configs.push_back({"scatter transpose", {}});
  configs.back().options.transpose = SpmvTranspose::scatter;
  configs.push_back({"small split rows", small_split_options(Backend::automatic)});
  configs.push_back({"portable, small split rows", small_split_options(Backend::portable)});
  uint64_t salt = 1700;
  {  // zero columns: nothing to do, nothing to throw
    const typename K::Plan plan(a);
    const typename K::MatL X("X", A.num_cols, 0), Y("Y", A.num_rows, 0);
    EXPECT_NO_THROW(plan.apply("N", typename K::Scalar(1), X, typename K::Scalar(0), Y));
  }
  for (const Config& c : configs) {
    const typename K::Plan plan(a, c.options);
    for (const char* mode : {"N", "T"})
      for (const auto& [alpha, beta] : {std::pair{1.0, 0.0}, std::pair{0.5, -0.25}}) {
        EXPECT_TRUE(K::template check_multi<typename K::MatL>(plan, A, mode, 3, alpha, beta, salt += 2))
            << c.name << ", LayoutLeft, mode " << mode << ", alpha " << alpha << ", beta " << beta;
        EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, A, mode, 4, alpha, beta, salt += 2))
            << c.name << ", LayoutRight, mode " << mode << ", alpha " << alpha << ", beta " << beta;
      }
  }
}

TYPED_TEST(Spmv, AlphaZeroOnlyScalesY) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(random_with_empty_rows(300, 200, 8.0, 8));
  const TypeParam a = to_crs<TypeParam>(A);
  std::vector<Config> configs = standard_configs();
  configs.push_back({"small split rows", small_split_options(Backend::automatic)});
  uint64_t salt = 1800;
  for (const Config& c : configs) {
    const typename K::Plan plan(a, c.options);
    for (const char* mode : {"N", "T"})
      for (double beta : {0.0, 0.75, 1.0}) {  // x is NaN: must not be read; beta == 0: y NaN too
        EXPECT_TRUE(K::check(plan, A, mode, 0.0, beta, salt += 2)) << c.name << ", mode " << mode << ", beta " << beta;
        EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, A, mode, 2, 0.0, beta, salt += 2))
            << c.name << ", rank 2, mode " << mode << ", beta " << beta;
      }
  }
}

TYPED_TEST(Spmv, BinningOptions) {
  using K = Kit<TypeParam>;
  std::vector<Config> configs;
  for (Backend backend : {Backend::automatic, Backend::portable})
    for (SpmvBinning binning : {SpmvBinning::single_bin, SpmvBinning::binned})
      for (int U : {1, 3, 64, 1000}) {
        SpmvOptions o;
        o.backend = backend;
        o.binning = binning;
        o.virtual_row_size = U;
        configs.push_back({std::string(backend == Backend::portable ? "portable, " : "") +
                               (binning == SpmvBinning::binned ? "binned" : "single bin") + ", U = " + std::to_string(U),
                           o});
      }
  K::run_configs(mixed_lengths(500, 400, 9), configs, 1900);
  K::run_configs(gen::rmat(11, 8, test::seed_for(10)), configs, 2900);
  // U = 1000 on 500 rows: a single virtual row holds the whole matrix.
  SpmvOptions o;
  o.binning = SpmvBinning::binned;
  o.virtual_row_size = 1000;
  const typename K::Plan plan(to_crs<TypeParam>(mixed_lengths(500, 400, 9)), o);
  EXPECT_EQ(plan.schedule().num_vrows(), 1) << plan.describe();
}

TYPED_TEST(Spmv, SplitRowsInManyChunks) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(gen::rmat(12, 16, test::seed_for(11)));
  int64_t long_rows = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) long_rows += A.row_length(i) > 50;
  ASSERT_GT(long_rows, 10);
  ASSERT_GT(longest_row(A), 20 * 7);  // the longest split row has 20+ chunks
  const TypeParam a = to_crs<TypeParam>(A);
  std::vector<Config> configs = {{"split 50/7", small_split_options(Backend::automatic)},
                                 {"portable, split 50/7", small_split_options(Backend::portable)}};
  configs.push_back({"split 50/7, scatter transpose", small_split_options(Backend::automatic)});
  configs.back().options.transpose = SpmvTranspose::scatter;
  configs.push_back({"split 50/7, U = 3", small_split_options(Backend::automatic)});
  configs.back().options.virtual_row_size = 3;
  uint64_t salt = 3900;
  for (const Config& c : configs) {
    const typename K::Plan plan(a, c.options);
    ASSERT_TRUE(K::honours(plan, c.options)) << c.name;
    // The configuration claims split rows: every row longer than 50 is alone in a split_row bin.
    int64_t split_rows = 0, split_max = 0;
    for (const auto& bin : plan.schedule().bins)
      if (bin.kernel == SpmvKernel::split_row) {
        split_rows += bin.rows;
        split_max = std::max(split_max, bin.max_row);
      }
    EXPECT_EQ(split_rows, long_rows) << c.name << "\n" << plan.describe();
    EXPECT_EQ(split_max, longest_row(A)) << c.name << "\n" << plan.describe();
    for (const char* mode : {"N", "T"})
      for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}}) {
        EXPECT_TRUE(K::check(plan, A, mode, alpha, beta, salt += 2))
            << c.name << ", mode " << mode << ", beta " << beta << "\n" << plan.describe();
        EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, A, mode, 2, alpha, beta, salt += 2))
            << c.name << ", rank 2, mode " << mode << ", beta " << beta;
      }
  }
  // Forced team_per_row: one bin; the host executor runs its rows through the shared chunks.
  SpmvOptions team;
  team.kernel = SpmvKernel::team_per_row;
  team.split_chunk = 7;
  const typename K::Plan plan(a, team);
  ASSERT_TRUE(K::honours(plan, team)) << plan.describe();
  EXPECT_EQ(plan.schedule().split_chunk, 7);
  for (const char* mode : {"N", "T"}) {
    EXPECT_TRUE(K::check(plan, A, mode, 1.5, 0.0, salt += 2)) << "team_per_row, chunk 7, mode " << mode;
    EXPECT_TRUE(K::check(plan, A, mode, -0.5, 0.75, salt += 2)) << "team_per_row, chunk 7, mode " << mode;
  }
}

TYPED_TEST(Spmv, PlanReuseAndValueUpdate) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr A = rounded<Scalar>(mixed_lengths(600, 500, 12));
  TypeParam a = to_crs<TypeParam>(A);
  for (Backend backend : {Backend::automatic, Backend::portable}) {
    SpmvOptions o;
    o.backend = backend;
    const typename K::Plan plan(a, o);
    // Without split rows (or team_per_row rows, split on the host) no atomics run: two applies
    // must then agree bit for bit. Mode T runs a plan of A^T; its schedule is that of a plan of
    // transpose(a) with the same options.
    auto deterministic = [](const SpmvSchedule& s) {
      for (const auto& bin : s.bins)
        if (bin.kernel == SpmvKernel::split_row || bin.kernel == SpmvKernel::team_per_row) return false;
      return true;
    };
    const bool exact_n = deterministic(plan.schedule());
    const bool exact_t = deterministic(typename K::Plan(Sprocket::transpose(a), o).schedule());
    for (const char* mode : {"N", "T"}) {
      const int64_t in = mode[0] == 'N' ? A.num_cols : A.num_rows, out = mode[0] == 'N' ? A.num_rows : A.num_cols;
      const std::vector<double> x = rounded<Scalar>(test::random_vector(in, 13));
      const typename K::Vec xv = test::to_view<typename K::Vec>(x), y1("y1", out), y2("y2", out);
      test::poison(y1);
      test::poison(y2);
      plan.apply(mode, Scalar(1), xv, Scalar(0), y1);
      plan.apply(mode, Scalar(1), xv, Scalar(0), y2);
      const std::vector<double> r1 = test::to_host_vector(y1), r2 = test::to_host_vector(y2);
      EXPECT_TRUE(test::spmv_matches<Scalar>(mode, 1.0, A, x, 0.0, std::vector<double>(out, kNaN), r1));
      EXPECT_TRUE(test::spmv_matches<Scalar>(mode, 1.0, A, x, 0.0, std::vector<double>(out, kNaN), r2));
      if (mode[0] == 'N' ? exact_n : exact_t)
        EXPECT_EQ(r1, r2) << "mode " << mode << ": the second apply differs from the first";
    }
  }
  // New values (same pattern) copied into A.values: the plan keeps A's Views, so mode N and the
  // scatter transpose, which read A directly, see them.
  SpmvOptions scatter;
  scatter.transpose = SpmvTranspose::scatter;
  const typename K::Plan plan(a), scatter_plan(a, scatter);
  EXPECT_TRUE(K::check(plan, A, "N", 1.5, 0.0, 14));
  EXPECT_TRUE(K::check(scatter_plan, A, "T", 1.5, 0.0, 15));
  HostCsr B = A;
  B.values = rounded<Scalar>(test::random_vector(A.nnz(), 16));
  Kokkos::deep_copy(a.values, test::to_view<typename TypeParam::values_type::non_const_type>(B.values));
  EXPECT_TRUE(K::check(plan, B, "N", 1.5, 0.0, 17)) << "mode N after a value update";
  EXPECT_TRUE(K::check(plan, B, "N", -0.5, 0.75, 18)) << "mode N after a value update";
  EXPECT_TRUE(K::check(scatter_plan, B, "T", 1.5, 0.0, 19)) << "scatter transpose after a value update";
  EXPECT_TRUE(K::check(scatter_plan, B, "N", 1.5, 0.0, 20)) << "mode N after a value update";
}

// Compressed column indices (host target: 16-bit offsets col - row): every kernel on a banded
// matrix whose bandwidth allows it, with unsorted rows and negative offsets, with `offsets16`, `off`
// and automatic; a matrix whose bandwidth is too wide falls back to the matrix's own indices.
TYPED_TEST(Spmv, CompressedColumnIndices) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  using Compression = SpmvOptions::IndexCompression;
  const bool cuda_target = K::expected_target(Backend::automatic) == SpmvTarget::cuda;
  // Rows of 22 entries within |col - row| <= 30000 of the diagonal, unsorted.
  const HostCsr A = rounded<Scalar>(wide_band(33000, 30000, 21, 31));
  const TypeParam a = to_crs<TypeParam>(A);
  for (Compression c : {Compression::automatic, Compression::offsets16, Compression::off}) {
    for (SpmvKernel k : {SpmvKernel::automatic, SpmvKernel::thread_per_row,
                         SpmvKernel::subvector32, SpmvKernel::team_per_row}) {
      SpmvOptions o;
      o.compress_indices = c;
      o.kernel = k;
      const typename K::Plan plan(a, o);
      // avg row ~20 >= 16 (host), rows all different (no row patterns)
      const bool expect_compressed = c != Compression::off && K::reads_index_copies(plan.schedule());
      EXPECT_EQ(plan.schedule().compressed_indices, expect_compressed) << plan.describe();
      EXPECT_TRUE(K::check(plan, A, "N", 1.5, 0.0, 32)) << plan.describe();
      EXPECT_TRUE(K::check(plan, A, "N", -0.5, 0.75, 33)) << plan.describe();
    }
  }
  // Short rows: automatic leaves them alone on the host (the CUDA target takes the bytes),
  // `offsets16` still compresses.
  const HostCsr S = rounded<Scalar>(test::random_csr(500, 400, 5.0, 34));
  const TypeParam s = to_crs<TypeParam>(S);
  SpmvOptions o;
  const typename K::Plan short_rows(s, o);
  EXPECT_EQ(short_rows.schedule().compressed_indices, cuda_target && K::reads_index_copies(short_rows.schedule()))
      << short_rows.describe();
  o.compress_indices = Compression::offsets16;
  const typename K::Plan on(s, o);
  EXPECT_EQ(on.schedule().compressed_indices, K::reads_index_copies(on.schedule())) << on.describe();
  EXPECT_TRUE(K::check(on, S, "N", 1.0, 0.0, 35));
  // Too wide: one entry 40000 columns away from its row.
  HostCsr W = HostCsr::from_triplets(3, 50000, {{0, 0, 1.0}, {1, 40001, 2.0}, {2, 5, 3.0}});
  const TypeParam w = to_crs<TypeParam>(W);
  const typename K::Plan wide(w, o);
  EXPECT_FALSE(wide.schedule().compressed_indices);
  if (K::reads_index_copies(wide.schedule())) EXPECT_EQ(wide.schedule().bandwidth, 40000);
  EXPECT_TRUE(K::check(wide, W, "N", 1.0, 0.0, 36));
}

// Row-pattern column indices (host target): a 7-point Poisson operator whose interior rows come
// in runs of 8+ with one pattern, disturbed so that every path of the run kernel is taken: a
// block of rows stored in reverse (an unsorted pattern, run 8 at a time), runs of empty rows
// (patterns of length 0), a row with a duplicate entry, extra columns (non-square) reached from
// the last rows, a run ending at the last row. Every kernel, modes N and T, rank 1 and both rank-2
// layouts; automatic picks row patterns here; a matrix with too many patterns falls back.
TYPED_TEST(Spmv, RowPatternColumnIndices) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  using Compression = SpmvOptions::IndexCompression;
  HostCsr P = gen::poisson3d(12);  // 1728 rows, interior lines of 10 rows with one pattern
  HostCsr A;  // built by hand: from_triplets would sort the rows and merge the duplicate
  A.num_rows = P.num_rows;
  A.num_cols = P.num_cols + 37;
  for (int64_t r = 0; r < P.num_rows; ++r) {
    const bool empty = (r >= 300 && r < 324) || r == 1000 || (r >= 1100 && r < 1105);  // runs of 24, 1, 5
    const int64_t k0 = P.row_map[r], k1 = P.row_map[r + 1];
    for (int64_t k = k0; k < k1 && !empty; ++k) {
      const int64_t kk = (r >= 160 && r < 192) ? k1 - 1 - (k - k0) : k;  // reversed: unsorted pattern
      A.entries.push_back(P.entries[kk]);
    }
    if (r == 500) A.entries.push_back(P.entries[k0]);                         // duplicate entry
    if (r >= P.num_rows - 9) A.entries.push_back(static_cast<int>(A.num_cols - 1));  // last column
    A.row_map.push_back(static_cast<int64_t>(A.entries.size()));
  }
  A.values = test::random_vector(A.nnz(), 41);
  A.validate();
  A = rounded<Scalar>(A);
  const TypeParam a = to_crs<TypeParam>(A);
  uint64_t salt = 42;
  for (Compression c : {Compression::automatic, Compression::row_patterns}) {
    for (SpmvKernel k : {SpmvKernel::automatic, SpmvKernel::thread_per_row, SpmvKernel::subvector4,
                         SpmvKernel::subvector32, SpmvKernel::team_per_row}) {
      SpmvOptions o;
      o.compress_indices = c;
      o.kernel = k;
      const typename K::Plan plan(a, o);
      EXPECT_EQ(plan.schedule().row_patterns, K::reads_index_copies(plan.schedule())) << plan.describe();
      if (plan.schedule().row_patterns) {
        EXPECT_GT(plan.schedule().num_row_patterns, 27);
        EXPECT_LT(plan.schedule().num_row_patterns, 60);
        EXPECT_NE(plan.describe().find("row patterns"), std::string::npos) << plan.describe();
      }
      for (const char* mode : {"N", "T"})
        for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}}) {
          EXPECT_TRUE(K::check(plan, A, mode, alpha, beta, salt += 2)) << mode << "\n" << plan.describe();
          EXPECT_TRUE(K::template check_multi<typename K::MatL>(plan, A, mode, 3, alpha, beta, salt += 2))
              << mode << "\n" << plan.describe();
          EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, A, mode, 2, alpha, beta, salt += 2))
              << mode << "\n" << plan.describe();
          // One LayoutRight column: LayoutStride Views of stride 1, run as contiguous ones.
          EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, A, mode, 1, alpha, beta, salt += 2))
              << mode << "\n" << plan.describe();
        }
    }
  }
  // Forced off: the matrix's own indices, same answers.
  SpmvOptions off;
  off.compress_indices = Compression::off;
  const typename K::Plan plain(a, off);
  EXPECT_FALSE(plain.schedule().row_patterns);
  EXPECT_TRUE(K::check(plain, A, "N", 1.5, 0.0, salt += 2));
  // Every row different and together more than 16384 offsets: counting stops at the limit, the
  // plan falls back (to 16-bit offsets, which `automatic` takes for rows this long) and says so.
  const HostCsr R = rounded<Scalar>(test::random_csr(1200, 1000, 20.0, 43));
  const TypeParam r = to_crs<TypeParam>(R);
  for (Compression c : {Compression::automatic, Compression::row_patterns}) {
    SpmvOptions o;
    o.compress_indices = c;
    const typename K::Plan plan(r, o);
    EXPECT_FALSE(plan.schedule().row_patterns) << plan.describe();
    if (K::reads_index_copies(plan.schedule())) {
      EXPECT_GT(plan.schedule().row_pattern_offsets, 16384);
      EXPECT_NE(plan.describe().find("row patterns not used"), std::string::npos) << plan.describe();
      EXPECT_EQ(plan.schedule().compressed_indices, c == Compression::automatic);
    }
    EXPECT_TRUE(K::check(plan, R, "N", -0.5, 0.75, salt += 2)) << plan.describe();
  }
  // A small matrix whose rows all differ: within the limits, but automatic declines (the
  // dictionary would be as large as the indices); forcing takes it and stays correct.
  const HostCsr S = rounded<Scalar>(test::random_csr(200, 150, 6.0, 44));
  const TypeParam sm = to_crs<TypeParam>(S);
  const typename K::Plan declined(sm);
  EXPECT_FALSE(declined.schedule().row_patterns);
  if (K::reads_index_copies(declined.schedule()))
    EXPECT_NE(declined.describe().find("more than a quarter"), std::string::npos) << declined.describe();
  SpmvOptions forced;
  forced.compress_indices = Compression::row_patterns;
  const typename K::Plan small(sm, forced);
  EXPECT_EQ(small.schedule().row_patterns, K::reads_index_copies(small.schedule())) << small.describe();
  EXPECT_TRUE(K::check(small, S, "N", 1.5, 0.0, salt += 2)) << small.describe();
  EXPECT_TRUE(K::check(small, S, "N", -0.5, 0.75, salt += 2)) << small.describe();
}

// Prefetching x through the column indices (host target, the matrix's own indices): forced on,
// every kernel on a power-law matrix with unsorted rows and empty rows, modes N and T, beta 0 and
// not, rank 2 in both layouts; automatic turns it on only for an x above
// SpmvSchedule::x_prefetch_min_bytes, never under row patterns or 16-bit offsets, and describe()
// says so.
TYPED_TEST(Spmv, XPrefetchThroughTheColumnIndices) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  using XPrefetch = SpmvOptions::XPrefetch;
  const bool host_target = K::expected_target(Backend::automatic) == SpmvTarget::host;
  HostCsr A = empty_rows_unless(gen::rmat(11, 16, test::seed_for(45)), [](int64_t i) { return i % 5 != 3; });
  for (int64_t r = 0; r < A.num_rows; r += 2) {
    std::reverse(A.entries.begin() + A.row_map[r], A.entries.begin() + A.row_map[r + 1]);
    std::reverse(A.values.begin() + A.row_map[r], A.values.begin() + A.row_map[r + 1]);
  }
  std::vector<Config> configs = standard_configs();
  for (Config& c : configs) {
    c.options.prefetch_x = XPrefetch::on;
    c.options.compress_indices = SpmvOptions::IndexCompression::off;
    c.name += ", x prefetch";
  }
  K::run_configs(A, configs, 4500);
  const HostCsr R = rounded<Scalar>(A);
  const TypeParam a = to_crs<TypeParam>(R);
  SpmvOptions on;
  on.prefetch_x = XPrefetch::on;
  on.compress_indices = SpmvOptions::IndexCompression::off;
  const typename K::Plan plan(a, on);
  EXPECT_EQ(plan.schedule().x_prefetch_distance, host_target ? SpmvSchedule::x_prefetch_default_distance : 0);
  EXPECT_EQ(contains(plan.describe(), "x prefetched"), host_target) << plan.describe();
  uint64_t salt = 4600;
  for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}}) {
    EXPECT_TRUE(K::template check_multi<typename K::MatL>(plan, R, "N", 3, alpha, beta, salt += 2)) << plan.describe();
    EXPECT_TRUE(K::template check_multi<typename K::MatR>(plan, R, "N", 2, alpha, beta, salt += 2)) << plan.describe();
  }
  // Automatic: this x (2048 entries) is small, so no prefetch.
  EXPECT_EQ(typename K::Plan(a).schedule().x_prefetch_distance, 0);
  // An x of 1.1 million entries (4.4 MB in float, 8.8 MB in double, both above 4 MiB): on, and
  // correct for entries in the last columns; off when forced off.
  const int64_t wide_cols = 1100000;
  const HostCsr W = rounded<Scalar>(HostCsr::from_triplets(
      4, wide_cols, {{0, 0, 1.0}, {0, wide_cols - 1, 2.0}, {1, 700001, 3.0}, {3, 5, 4.0}, {3, wide_cols - 2, 5.0}}));
  const TypeParam w = to_crs<TypeParam>(W);
  const typename K::Plan wide(w);
  EXPECT_EQ(wide.schedule().x_prefetch_distance, host_target ? SpmvSchedule::x_prefetch_default_distance : 0)
      << wide.describe();
  EXPECT_TRUE(K::check(wide, W, "N", 1.5, 0.0, salt += 2)) << wide.describe();
  EXPECT_TRUE(K::check(wide, W, "N", -0.5, 0.75, salt += 2)) << wide.describe();
  SpmvOptions off;
  off.prefetch_x = XPrefetch::off;
  EXPECT_EQ(typename K::Plan(w, off).schedule().x_prefetch_distance, 0);
  // Row patterns or 16-bit offsets read x near the diagonal: no prefetch even when forced on.
  SpmvOptions forced;
  forced.prefetch_x = XPrefetch::on;
  const TypeParam poisson = to_crs<TypeParam>(gen::poisson3d(10));
  const typename K::Plan stencil(poisson, forced);
  EXPECT_EQ(stencil.schedule().row_patterns, K::reads_index_copies(stencil.schedule())) << stencil.describe();
  EXPECT_EQ(stencil.schedule().x_prefetch_distance, 0) << stencil.describe();
}

// The look-ahead reads of PrefetchingColumns stay inside the column indices: a row that ends
// within `distance` of the last entry looks at its own entries instead. The indices are placed in
// a longer buffer holding each position's own number, so a read past nnz would show.
TEST(SpmvHostKernel, PrefetchLookAheadStaysInsideTheIndices) {
  const int64_t nnz = 300, distance = 64;
  std::vector<int> positions(nnz + 2 * distance);
  for (size_t k = 0; k < positions.size(); ++k) positions[k] = static_cast<int>(k);
  const Impl::host::PrefetchingColumns<int> columns{positions.data(), nnz, distance};
  const std::vector<int64_t> row_map = {0, 10, 10, 150, 236, 237, 290, 300};
  for (size_t r = 0; r + 1 < row_map.size(); ++r) {
    const int64_t b = row_map[r], e = row_map[r + 1];
    const auto row = columns.row(static_cast<int64_t>(r), b, e);
    for (int64_t j = 0; j < e - b; ++j) {
      EXPECT_EQ(row(j), b + j);
      EXPECT_LT(row.ahead(j), nnz) << "row " << r << ", entry " << j;
      EXPECT_EQ(row.ahead(j), e + distance <= nnz ? b + j + distance : b + j) << "row " << r << ", entry " << j;
    }
  }
}

// Regression test: the cached transpose (SpmvTranspose::cached, the default) is built from a
// copy of A's values on the first transposed apply; it used to keep multiplying by the old A^T
// after A.values changed, against Sprocket_Operator.hpp's promise that "values of A may change
// between applies". The plan now refreshes A^T's values from A on every transposed apply.
TYPED_TEST(Spmv, CachedTransposeSeesValueUpdate) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr A = rounded<Scalar>(random_with_empty_rows(300, 250, 7.0, 21));
  TypeParam a = to_crs<TypeParam>(A);
  const typename K::Plan plan(a);
  ASSERT_EQ(plan.options().transpose, SpmvTranspose::cached);
  EXPECT_TRUE(K::check(plan, A, "T", 1.5, 0.0, 22));  // builds the cached transpose
  HostCsr B = A;
  B.values = rounded<Scalar>(test::random_vector(A.nnz(), 23));
  Kokkos::deep_copy(a.values, test::to_view<typename TypeParam::values_type::non_const_type>(B.values));
  EXPECT_TRUE(K::check(plan, B, "T", 1.5, 0.0, 24)) << "cached transpose after a value update";
  EXPECT_TRUE(K::check(plan, B, "T", -0.5, 0.75, 25)) << "cached transpose after a value update";
}

TYPED_TEST(Spmv, BadArgumentsThrowClearly) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  using Vec = typename K::Vec;
  using MatL = typename K::MatL;
  const TypeParam a = to_crs<TypeParam>(test::random_csr(30, 20, 3.0, 26));
  const typename K::Plan plan(a);
  const Vec x20("x", 20), x21("x", 21), y30("y", 30), y31("y", 31);
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), x21, Scalar(0), y30); },
                                      {"30 x 20", "x has 21 rows", "y has 30"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), x20, Scalar(0), y31); },
                                      {"30 x 20", "x has 20 rows", "y has 31"}));
  // Mode T wants x of 30 and y of 20.
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("T", Scalar(1), x20, Scalar(0), y30); },
                                      {"20 x 30", "mode T", "x has 20 rows", "y has 30"}));
  EXPECT_NO_THROW(plan.apply("T", Scalar(1), y30, Scalar(0), x20));
  const MatL X3("X", 20, 3), Y2("Y", 30, 2), Y3("Y", 30, 3);
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), X3, Scalar(0), Y2); },
                                      {"x has 3 columns but y has 2"}));
  EXPECT_NO_THROW(plan.apply("N", Scalar(1), X3, Scalar(0), Y3));
  for (const char* mode : {"X", "", "NT", "C", "H"})
    EXPECT_TRUE(throws_invalid_argument([&] { plan.apply(mode, Scalar(1), x20, Scalar(0), y30); },
                                        {std::string("\"") + mode + "\"", "\"N\" or \"T\""}))
        << "mode \"" << mode << "\"";
  EXPECT_NO_THROW(plan.apply("n", Scalar(1), x20, Scalar(0), y30));

  SpmvOptions o;
  o.virtual_row_size = -1;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); }, {"virtual_row_size", "-1"}));
  o.virtual_row_size = (1 << 20) + 1;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); }, {"virtual_row_size", "1048577"}));
  o = SpmvOptions();
  o.split_chunk = -5;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); }, {"split_chunk", "-5"}));
  o = SpmvOptions();
  o.split_row_threshold = -3;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); }, {"split_row_threshold", "-3"}));
  o = SpmvOptions();
  o.autotune = true;
  o.autotune_repeats = 0;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(a, o); }, {"autotune_repeats", "0"}));
}

// ================================================================================================
// Large and slow cases: double / int on the default execution space only

namespace {
using BigCrs = test::Crs<double, int, Kokkos::DefaultExecutionSpace>;
using BigKit = Kit<BigCrs>;

/// Mode T of these matrices has rows of length ~1, nothing a kernel could get wrong that the
/// other tests miss: a few configurations are enough there.
std::vector<Config> transpose_configs() {
  std::vector<Config> configs = {{"automatic", {}}, {"portable", {}}, {"scatter transpose", {}}};
  configs[1].options.backend = Backend::portable;
  configs[2].options.transpose = SpmvTranspose::scatter;
  return configs;
}
}  // namespace

TEST(SpmvLarge, SingleRowOfAMillionEntries) {
  const HostCsr A = dense_row_among_short(1, 1000000, 0, 30);
  ASSERT_EQ(A.nnz(), 1000000);
  BigKit::run_configs(A, standard_configs(), 3000, {"N"});
  BigKit::run_configs(A, transpose_configs(), 3000, {"T"});
}

TEST(SpmvLarge, MillionEntryRowAmongShortRows) {
  const HostCsr A = dense_row_among_short(1000, 1000000, 517, 31);
  ASSERT_EQ(A.row_length(517), 1000000);
  // The automatic analysis splits the long row (its own virtual row, split_row bin).
  const BigKit::Plan plan(to_crs<BigCrs>(A));
  bool split = false;
  for (const auto& bin : plan.schedule().bins)
    split |= bin.kernel == SpmvKernel::split_row && bin.rows == 1 && bin.max_row == 1000000;
  EXPECT_TRUE(split) << plan.describe();
  std::vector<Config> configs = standard_configs();
  configs.push_back({"small split rows", small_split_options(Backend::automatic)});
  configs.back().options.split_chunk = 1000;
  configs.push_back({"portable, small split rows", small_split_options(Backend::portable)});
  configs.back().options.split_chunk = 1000;
  BigKit::run_configs(A, configs, 3100, {"N"});
  BigKit::run_configs(A, transpose_configs(), 3100, {"T"});
}

TEST(SpmvLarge, PowerLawScale14) {
  const HostCsr A = gen::rmat(14, 16, test::seed_for(32));
  std::vector<Config> configs = {{"automatic", {}}};
  configs.push_back({"portable", {}});
  configs.back().options.backend = Backend::portable;
  configs.push_back({"split 50/7", small_split_options(Backend::automatic)});
  configs.push_back({"portable, split 50/7", small_split_options(Backend::portable)});
  configs.push_back({"binned, U = 3", {}});
  configs.back().options.binning = SpmvBinning::binned;
  configs.back().options.virtual_row_size = 3;
  configs.push_back({"scatter transpose", {}});
  configs.back().options.transpose = SpmvTranspose::scatter;
  BigKit::run_configs(A, configs, 3200);
}

// The host executor cuts the virtual rows into several nnz-balanced parts per thread, which the
// threads take dynamically: the parts cover every virtual row once, in order, and the product is
// right whichever thread ran which part. Host builds only (a CUDA build's default space is Cuda).
#ifndef KOKKOS_ENABLE_CUDA
TEST(SpmvLarge, HostPartsOutnumberTheThreads) {
  const HostCsr A = test::random_csr(20000, 15000, 9, 3400);
  const int threads = Kokkos::DefaultExecutionSpace().concurrency();
  for (const Config& c : standard_configs()) {
    const BigKit::Plan plan = BigKit::make_plan(to_crs<BigCrs>(A), c);
    const auto& d = plan.analysis().schedule;
    if (d.num_parts == 0) continue;  // Backend::portable: no host executor
    // Rows split across all threads (team_per_row, split_row forced) cost the parts nothing.
    if (d.num_split_rows < A.num_rows) EXPECT_GT(d.num_parts, threads) << c.name << "\n" << plan.describe();
    EXPECT_LE(d.num_parts, threads * Impl::host_parts_per_thread) << c.name;
    const auto begin = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.part_begin);
    ASSERT_EQ(int64_t(begin.extent(0)), d.num_parts + 1) << c.name;
    EXPECT_EQ(begin(0), 0) << c.name;
    EXPECT_EQ(begin(d.num_parts), int64_t(d.vrow_bounds.extent(0)) - 1) << c.name;
    for (int64_t p = 0; p < d.num_parts; ++p) EXPECT_LE(begin(p), begin(p + 1)) << c.name << ", part " << p;
  }
  BigKit::run_configs(A, standard_configs(), 3400, {"N"});
}
#endif  // KOKKOS_ENABLE_CUDA

TEST(SpmvAutotune, PowerLaw) {
  const HostCsr A = gen::rmat(13, 16, test::seed_for(33));
  SpmvOptions o;
  o.autotune = true;
  o.autotune_repeats = 2;
  const BigKit::Plan plan(to_crs<BigCrs>(A), o);
  EXPECT_EQ(plan.schedule().decided_by, SpmvDecidedBy::autotune) << plan.describe();
  EXPECT_FALSE(plan.schedule().decision_detail.empty()) << "the autotune candidate's name";
  EXPECT_TRUE(contains(plan.describe(), "decided by autotune: " + plan.schedule().decision_detail)) << plan.describe();
  EXPECT_TRUE(contains(plan.describe(), "autotune (median of 2 applies)")) << plan.describe();
  uint64_t salt = 3300;
  for (const char* mode : {"N", "T"})
    for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}}) {
      EXPECT_TRUE(BigKit::check(plan, A, mode, alpha, beta, salt += 2)) << "mode " << mode << "\n" << plan.describe();
      EXPECT_TRUE(BigKit::check_multi<BigKit::MatL>(plan, A, mode, 2, alpha, beta, salt += 2)) << "mode " << mode;
    }
  // Autotune on empty matrices has nothing to measure but must still work.
  for (const auto& [rows, cols] : {std::pair{0, 0}, std::pair{7, 0}, std::pair{0, 7}, std::pair{7, 7}}) {
    const HostCsr E = empty_matrix(rows, cols);
    const BigKit::Plan p(to_crs<BigCrs>(E), o);
    EXPECT_TRUE(BigKit::check(p, E, "N", 1.0, 0.0, 3400)) << rows << " x " << cols;
    EXPECT_TRUE(BigKit::check(p, E, "T", 1.0, 0.5, 3402)) << rows << " x " << cols;
  }
  // A forced kernel wins over autotune.
  o.kernel = SpmvKernel::subvector2;
  const BigKit::Plan forced(to_crs<BigCrs>(A), o);
  EXPECT_TRUE(BigKit::honours(forced, o)) << forced.describe();
}

// The CUDA target's autotune also times both row-block schedules (the automatic CUDA choice on
// irregular rows, which no decision describes), for the types whose kernels run them only, and the
// model's decision on A's own column indices; the other targets time decisions alone, with the
// options' indices. (The timing itself runs on a GPU build's tests.)
TEST(SpmvAutotune, RowBlockCandidatesOnTheCudaTargetOnly) {
  const SpmvDecision base = spmv_model_decide(spmv_features({0, 2, 5, 5, 9}, 9), SpmvTarget::cuda);
  auto row_block_names = [&](SpmvTarget target, bool kernels) {
    std::vector<std::string> names;
    const auto candidates = Impl::spmv_autotune_candidates(base, target, kernels);
    EXPECT_EQ(candidates.at(0).name, "model");
    EXPECT_TRUE(candidates.at(0).decision && candidates.at(0).decision->virtual_row_size == base.virtual_row_size);
    for (const auto& c : candidates)
      if (!c.decision) names.push_back(c.name + (c.row_blocks == SpmvBinning::row_blocks_merge ? " [merge]" : ""));
    return names;
  };
  EXPECT_EQ(row_block_names(SpmvTarget::cuda, true),
            (std::vector<std::string>{"row blocks", "row blocks, merge path [merge]"}));
  EXPECT_TRUE(row_block_names(SpmvTarget::cuda, false).empty());
  for (SpmvTarget t : {SpmvTarget::host, SpmvTarget::portable_cpu, SpmvTarget::portable_gpu})
    EXPECT_TRUE(row_block_names(t, true).empty()) << to_string(t);
  // The host candidates follow the rule of spmv_autotune.hpp, whatever their number: the model's
  // decision first; then the model's with U / f or U * f (clamped to [1, 2^20]) and all else as
  // the model decided, both for every factor f; and single bins, each of another kernel; every
  // name once, at least one of each kind.
  const auto host = Impl::spmv_autotune_candidates(base, SpmvTarget::host, true);
  ASSERT_FALSE(host.empty());
  EXPECT_EQ(host[0].name, "model");
  std::vector<std::string> names, scaled_down, scaled_up;
  std::vector<SpmvKernel> single_bins;
  for (size_t i = 0; i < host.size(); ++i) {
    const auto& c = host[i];
    SCOPED_TRACE(c.name);
    EXPECT_EQ(std::count(names.begin(), names.end(), c.name), 0) << "a name twice";
    names.push_back(c.name);
    ASSERT_TRUE(c.decision.has_value()) << "row blocks off the CUDA target";
    EXPECT_FALSE(c.compress_indices.has_value());
    const SpmvDecision& d = *c.decision;
    const int u = d.virtual_row_size, b = base.virtual_row_size;
    if (i == 0) {
      EXPECT_EQ(u, b);
      EXPECT_EQ(d.single_bin, base.single_bin);
    } else if (c.name.rfind("single bin, ", 0) == 0) {
      EXPECT_TRUE(d.single_bin);
      EXPECT_EQ(c.name, std::string("single bin, ") + to_string(d.single_bin_kernel));
      EXPECT_EQ(std::count(single_bins.begin(), single_bins.end(), d.single_bin_kernel), 0);
      single_bins.push_back(d.single_bin_kernel);
      EXPECT_EQ(u, b);
    } else {
      ASSERT_EQ(c.name.rfind("model, U", 0), 0u) << "neither a scaled U nor a single bin";
      const char op = c.name.at(8);
      const int f = std::stoi(c.name.substr(9));
      EXPECT_GT(f, 1);
      EXPECT_EQ(d.single_bin, base.single_bin);
      EXPECT_EQ(d.single_bin_kernel, base.single_bin_kernel);
      EXPECT_EQ(d.kernel_for_class, base.kernel_for_class);
      if (op == '/') {
        EXPECT_EQ(u, std::max(1, b / f));
        scaled_down.push_back(c.name.substr(9));
      } else {
        EXPECT_EQ(op, '*');
        EXPECT_EQ(u, std::min(1 << 20, b * f));
        scaled_up.push_back(c.name.substr(9));
      }
    }
  }
  EXPECT_FALSE(scaled_down.empty());
  EXPECT_EQ(scaled_down, scaled_up) << "every factor both ways";
  EXPECT_FALSE(single_bins.empty());
  auto own_indices = [&](SpmvTarget target) {
    std::vector<std::string> names;
    for (const auto& c : Impl::spmv_autotune_candidates(base, target, true))
      if (c.compress_indices) {
        EXPECT_EQ(*c.compress_indices, SpmvOptions::IndexCompression::off);
        EXPECT_TRUE(c.decision && c.decision->single_bin == base.single_bin &&
                    c.decision->virtual_row_size == base.virtual_row_size);
        names.push_back(c.name);
      }
    return names;
  };
  EXPECT_EQ(own_indices(SpmvTarget::cuda), std::vector<std::string>{"model, the matrix's own column indices"});
  EXPECT_TRUE(own_indices(SpmvTarget::host).empty());
}

TEST(SpmvApi, ConstInputExecutionSpaceInstanceAndDescribe) {
  using Device = BigCrs::device_type;
  const HostCsr A = mixed_lengths(500, 400, 34);
  const BigCrs a = to_crs<BigCrs>(A);
  const BigKit::Plan plan(a);
  const std::vector<double> x = test::random_vector(A.num_cols, 35), y0 = test::random_vector(A.num_rows, 36);
  Kokkos::View<const double*, Device> xv = test::to_view<BigKit::Vec>(x);
  BigKit::Vec yv = test::to_view<BigKit::Vec>(y0);
  plan.apply(Kokkos::DefaultExecutionSpace(), "N", 2.0, xv, -1.0, yv);
  Kokkos::fence();
  EXPECT_TRUE(test::spmv_matches<double>("N", 2.0, A, x, -1.0, y0, test::to_host_vector(yv)));
  const std::string d = plan.describe();
  EXPECT_TRUE(contains(d, "SpmvPlan<double>")) << d;
  EXPECT_TRUE(contains(d, Kokkos::DefaultExecutionSpace::name())) << d;
  for (const auto& bin : plan.schedule().bins) EXPECT_TRUE(contains(d, to_string(bin.kernel))) << d;
  EXPECT_EQ(plan.matrix().values.data(), a.values.data()) << "the plan must keep A's Views";
}

// analysis_seconds(): every phase measured once, none negative. On the host target a stencil's
// plan asks for the row patterns and the 16-bit offsets (its column-index decision), so those
// phases took time; forcing A's own indices with the model's decision asks for neither.
TEST(SpmvApi, AnalysisSecondsByPhase) {
  const BigCrs poisson = to_crs<BigCrs>(gen::poisson3d(30));
  const BigKit::Plan plan(poisson);
  const SpmvAnalysisSeconds& s = plan.analysis_seconds();
  for (double phase : {s.validate, s.row_map, s.row_patterns, s.offsets16, s.schedule, s.device_schedule, s.autotune})
    EXPECT_GE(phase, 0);
  EXPECT_GT(s.validate, 0);
  EXPECT_GT(s.schedule, 0);
  EXPECT_GT(s.device_schedule, 0);
  EXPECT_EQ(s.autotune, 0);
  EXPECT_NEAR(s.total(),
              s.validate + s.row_map + s.row_patterns + s.offsets16 + s.schedule + s.device_schedule + s.autotune,
              1e-12);
  if (plan.target() == SpmvTarget::host) {
    EXPECT_TRUE(plan.schedule().row_patterns) << plan.describe();
    EXPECT_GT(s.row_patterns, 0) << plan.describe();
  }
  SpmvOptions own;
  own.compress_indices = SpmvOptions::IndexCompression::off;
  own.prefetch_x = SpmvOptions::XPrefetch::off;
  const BigKit::Plan plain(poisson, own);
  EXPECT_EQ(plain.analysis_seconds().row_patterns, 0) << plain.describe();
  EXPECT_EQ(plain.analysis_seconds().offsets16, 0) << plain.describe();
}

namespace {
/// An execution space with no SpMV specialization, for the dispatch's backend resolution only.
struct SpaceWithoutSpecialization {
  static const char* name() { return "SpaceWithoutSpecialization"; }
};
}  // namespace

TEST(SpmvDispatch, BackendResolution) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  if (Impl::is_host_space_v<Space>) {
    EXPECT_EQ((Impl::spmv_target<Space, Kokkos::HostSpace>(Backend::native)), SpmvTarget::host);
    EXPECT_EQ((Impl::spmv_target<Space, Kokkos::HostSpace>(Backend::automatic)), SpmvTarget::host);
  }
  EXPECT_EQ((Impl::spmv_target<Space, Kokkos::HostSpace>(Backend::portable)), SpmvTarget::portable_cpu);
  // A space without a specialization: automatic and portable run the portable kernels, native
  // throws naming the backend and the space.
  using None = SpaceWithoutSpecialization;
  EXPECT_EQ((Impl::spmv_target<None, Kokkos::HostSpace>(Backend::automatic)), SpmvTarget::portable_cpu);
  EXPECT_EQ((Impl::spmv_target<None, Kokkos::HostSpace>(Backend::portable)), SpmvTarget::portable_cpu);
  EXPECT_TRUE(throws_invalid_argument([] { Impl::spmv_target<None, Kokkos::HostSpace>(Backend::native); },
                                      {"Backend::native", "SpaceWithoutSpecialization"}));
  EXPECT_EQ((Impl::spmv_target_why<None>(Backend::automatic, SpmvTarget::portable_cpu)),
            "Backend::automatic: SpaceWithoutSpecialization has no native kernels, the portable ones run");
}

TEST(SpmvKernelNames, DecidedByNames) {
  EXPECT_STREQ(to_string(SpmvDecidedBy::model), "model");
  EXPECT_STREQ(to_string(SpmvDecidedBy::forced), "forced");
  EXPECT_STREQ(to_string(SpmvDecidedBy::autotune), "autotune");
  EXPECT_STREQ(to_string(SpmvDecidedBy::options), "options");
  SpmvSchedule s;
  EXPECT_EQ(s.decided_by_text(), "model");
  s.decided_by = SpmvDecidedBy::autotune;
  s.decision_detail = "model, U/4";
  EXPECT_EQ(s.decided_by_text(), "autotune: model, U/4");
  s.decided_by = SpmvDecidedBy::forced;
  s.decision_detail = "kernel split_row";
  EXPECT_EQ(s.decided_by_text(), "forced, kernel split_row");
}

TEST(SpmvKernelNames, RoundTripAndUnknownNameListsValidOnes) {
  for (int k = 0; k < num_spmv_kernels; ++k) {
    const auto kernel = static_cast<SpmvKernel>(k);
    EXPECT_EQ(spmv_kernel_from_string(to_string(kernel)), kernel);
  }
  EXPECT_EQ(spmv_kernel_from_string("auto"), SpmvKernel::automatic);
  EXPECT_EQ(spmv_kernel_from_string("automatic"), SpmvKernel::automatic);
  std::vector<std::string> needles = {"nope"};
  for (int k = 0; k < num_spmv_kernels; ++k) needles.push_back(to_string(static_cast<SpmvKernel>(k)));
  EXPECT_TRUE(throws_invalid_argument([] { spmv_kernel_from_string("nope"); }, needles));
  EXPECT_EQ(spmv_kernel_lanes(SpmvKernel::thread_per_row), 1);
  EXPECT_EQ(spmv_kernel_lanes(SpmvKernel::subvector2), 2);
  EXPECT_EQ(spmv_kernel_lanes(SpmvKernel::subvector32), 32);
  EXPECT_EQ(spmv_kernel_lanes(SpmvKernel::team_per_row), 0);
  EXPECT_EQ(spmv_kernel_lanes(SpmvKernel::split_row), 0);
}
