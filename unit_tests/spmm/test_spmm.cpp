// SpMM operator (Sprocket_Spmm.hpp): every kernel the execution space runs (csr_rows and aspt
// forced, with small tiles so matrices of a few hundred rows have many panels and several heavy
// tiles per panel, the automatic choice with the calibrated defaults, Backend::native, and
// Backend::portable with its csr_rows automatic and forced),
// K in {1, 3, 32, 33, 128, 500} (register-chunk widths, their remainders, and more columns than
// one cache chunk), B and C LayoutRight, LayoutLeft and mixed, float and double, int and size_t
// offsets, beta == 0 with C poisoned (NaN), beta != 0, alpha == 0 with B poisoned, against
// reference::spmm with the scaled error bound of test::spmm_matches; modes N and T, rank 1
// (contiguous and strided); the reordered matrix (a permutation of each row, same products);
// update_values(A); the automatic kernel choice; backend and kernel selection (Backend::native,
// forced kernels under each backend, the throwing combinations) and describe()'s reasons; stats;
// argument errors.
//
// Matrices break kernels with: runs of empty rows longer than a panel (empty panels), a panel
// whose column 7 is dense, power-law rows (R-MAT), non-square shapes (300 x 70, 40 x 500),
// unsorted columns with duplicates, one row, no entries at all, and the 0 x 0 matrix. Each case
// asserts the property it is there for (the heavy tiles exist, the panel is empty, ...), so a
// test cannot pass by silently testing something easier.
//
// No device code here: everything goes through the plan, deep_copy and mirrors (nvcc refuses
// extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "Sprocket_Generators.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using test::empty_rows_unless;
using test::no_entries;
using test::rounded;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<int64_t> kColumns = {1, 3, 32, 33, 128, 500};

// ------------------------------------------------------------------------------------------------
// Matrices

/// rows x cols, rows [0, dense_rows) all hold column `col`, plus about 3 random entries per row.
HostCsr dense_column_panel(int64_t rows, int64_t cols, int64_t dense_rows, int col, uint64_t salt) {
  const HostCsr R = test::random_csr(rows, cols, 3, salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) t.push_back({i, R.entries[k], R.values[k]});
  std::mt19937_64 rng(test::seed_for(salt + 1));
  for (int64_t i = 0; i < dense_rows; ++i)
    t.push_back({i, col, static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0});
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

/// rows x (rows + 5), row i: columns i - 2, i, i + 1, i + 1 (a duplicate), i + 3, the one below 0
/// left out, random values: runs of consecutive rows slide (the same length, row i + 1's p-th
/// column row i's plus one). Every 17th row has one more entry and every 23rd its i + 3 at i + 4,
/// so the runs break at varied places. Sorted: the analysis measures the slide on sorted rows.
HostCsr sliding_rows_with_breaks(int64_t rows, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = rows + 5;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<int64_t> cols = {i - 2, i, i + 1, i + 1, i % 23 == 7 ? i + 4 : i + 3};
    if (i % 17 == 3) cols.push_back(i + 5);
    for (int64_t c : cols)
      if (c >= 0) {
        A.entries.push_back(static_cast<int>(c));
        A.values.push_back(static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0);
      }
    A.row_map.push_back(static_cast<int64_t>(A.entries.size()));
  }
  return A;
}

/// rows x (rows + width), row i: columns i .. i + width - 1 (every row slides), random values.
HostCsr sliding_band(int64_t rows, int64_t width, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  HostCsr A;
  A.num_rows = rows;
  A.num_cols = rows + width;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t c = i; c < i + width; ++c) {
      A.entries.push_back(static_cast<int>(c));
      A.values.push_back(static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0);
    }
    A.row_map.push_back(static_cast<int64_t>(A.entries.size()));
  }
  return A;
}

/// Rows r of A from which `run` consecutive rows slide.
int64_t sliding_run_starts(const HostCsr& A, int64_t run) {
  int64_t starts = 0;
  for (int64_t r = 0; r + run <= A.num_rows; ++r) {
    bool slide = true;
    for (int64_t i = 1; i < run && slide; ++i) {
      slide = A.row_length(r + i) == A.row_length(r);
      for (int64_t p = 0; p < A.row_length(r) && slide; ++p)
        slide = A.entries[A.row_map[r + i] + p] == A.entries[A.row_map[r] + p] + i;
    }
    starts += slide;
  }
  return starts;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

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

/// Small tiles: a few hundred rows make many panels with several heavy tiles each.
SpmmTiling small_tiling() {
  SpmmTiling t;
  t.panel_rows = 16;
  t.tile_cols = 8;
  t.heavy_threshold = 2;
  return t;
}

// ------------------------------------------------------------------------------------------------
// Applying and checking, for one CrsMatrix type

struct Config {
  std::string name;
  SpmmOptions options;
};

template <class CrsType>
struct Kit {
  using Scalar = typename CrsType::non_const_value_type;
  using Device = typename CrsType::device_type;
  using ExecSpace = typename CrsType::execution_space;
  using Vec = Kokkos::View<Scalar*, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using Plan = SpmmPlan<CrsType>;
  static constexpr bool native = Impl::is_host_space_v<ExecSpace> || Impl::is_cuda_space_v<ExecSpace>;

  /// csr_rows and aspt (small tiles, and the GPU's slots on CUDA) forced, the automatic choice,
  /// Backend::native with the automatic kernel and small tiles, and Backend::portable with the
  /// automatic kernel and with csr_rows forced.
  static std::vector<Config> configs() {
    std::vector<Config> out;
    if (native) {
      SpmmOptions rows;
      rows.kernel = SpmmKernel::csr_rows;
      out.push_back({"csr_rows", rows});
      SpmmOptions aspt;
      aspt.kernel = SpmmKernel::aspt;
      aspt.tiling = small_tiling();
      out.push_back({"aspt (small tiles)", aspt});
      SpmmOptions native_auto;
      native_auto.backend = Backend::native;
      native_auto.tiling = small_tiling();
      out.push_back({"Backend::native (small tiles)", native_auto});
    }
    out.push_back({"automatic", SpmmOptions{}});
    SpmmOptions portable;
    portable.backend = Backend::portable;
    out.push_back({"Backend::portable", portable});
    SpmmOptions portable_rows = portable;
    portable_rows.kernel = SpmmKernel::csr_rows;
    out.push_back({"Backend::portable, csr_rows", portable_rows});
    return out;
  }

  /// The backend a plan must run.
  static Backend expected_backend(const SpmmOptions& o) {
    return o.backend == Backend::portable || !native ? Backend::portable : Backend::native;
  }

  /// The kernel a plan must run.
  static SpmmKernel expected_kernel(const Plan& plan, const SpmmOptions& o) {
    if (o.kernel != SpmmKernel::automatic) return o.kernel;
    if (expected_backend(o) == Backend::portable) return SpmmKernel::csr_rows;
    if (plan.target() == SpmmTarget::cuda) return SpmmKernel::csr_rows;  // aspt only when forced there
    return plan.stats().heavy_nnz > 0 && plan.heavy_fraction() >= plan.tiling().min_heavy_fraction
               ? SpmmKernel::aspt
               : SpmmKernel::csr_rows;
  }

  /// C = alpha op(A) B + beta C with k columns, B of type BMat and C of type CMat, against the
  /// reference on A (rounded to Scalar). beta == 0 poisons C with NaN first; alpha == 0 poisons B
  /// (neither may be read).
  template <class BMat, class CMat>
  static ::testing::AssertionResult check(const Plan& plan, const HostCsr& A, const std::string& mode, int64_t k,
                                          double alpha, double beta, uint64_t salt) {
    const int64_t in = mode == "N" ? A.num_cols : A.num_rows, out = mode == "N" ? A.num_rows : A.num_cols;
    const HostDense B = alpha == 0 ? HostDense(in, k, kNaN) : rounded<Scalar>(test::random_dense(in, k, salt));
    const HostDense C0 = beta == 0 ? HostDense(out, k, kNaN) : rounded<Scalar>(test::random_dense(out, k, salt + 1));
    const BMat bv = test::to_view<BMat>(B, "B");
    const CMat cv = test::to_view<CMat>(C0, "C");
    plan.apply(mode.c_str(), static_cast<Scalar>(alpha), bv, static_cast<Scalar>(beta), cv);
    return test::spmm_matches<Scalar>(mode, alpha, A, B, beta, C0, test::to_host_dense(cv));
  }

  /// Rank 1: y = alpha op(A) x + beta y.
  static ::testing::AssertionResult check_vector(const Plan& plan, const HostCsr& A, const std::string& mode,
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

  /// Every configuration, every K in kColumns with B and C both LayoutRight and both LayoutLeft,
  /// (alpha, beta) = (1.5, 0) with C poisoned and (-0.5, 0.75); mixed layouts for K = 3 and 33;
  /// rank 1. Mode N (mode T has its own test: it is SpmvPlan's).
  static void run_configs(const HostCsr& A0, const std::string& what, uint64_t salt) {
    const HostCsr A = rounded<Scalar>(A0);
    const CrsType a = to_crs<CrsType>(A);
    for (const Config& c : configs()) {
      const Plan plan(a, c.options);
      EXPECT_EQ(plan.kernel(), expected_kernel(plan, c.options)) << c.name << ", " << what;
      EXPECT_EQ(plan.backend(), expected_backend(c.options)) << c.name << ", " << what;
      const auto context = [&](int64_t k, double alpha, double beta) {
        return c.name + ", K = " + std::to_string(k) + ", alpha " + std::to_string(alpha) + ", beta " +
               std::to_string(beta) + ", " + what + "\n" + plan.describe();
      };
      for (int64_t k : kColumns)
        for (const auto& [alpha_, beta_] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}}) {
          const double alpha = alpha_, beta = beta_;
          EXPECT_TRUE((check<MatR, MatR>(plan, A, "N", k, alpha, beta, salt += 2))) << "R/R, " << context(k, alpha, beta);
          EXPECT_TRUE((check<MatL, MatL>(plan, A, "N", k, alpha, beta, salt += 2))) << "L/L, " << context(k, alpha, beta);
        }
      for (int64_t k : {3, 33}) {
        EXPECT_TRUE((check<MatL, MatR>(plan, A, "N", k, 1.5, 0.0, salt += 2))) << "B L, C R, " << context(k, 1.5, 0);
        EXPECT_TRUE((check<MatR, MatL>(plan, A, "N", k, -0.5, 0.75, salt += 2))) << "B R, C L, " << context(k, -0.5, 0.75);
      }
      EXPECT_TRUE(check_vector(plan, A, "N", 1.5, 0.0, salt += 2)) << "rank 1, " << context(1, 1.5, 0);
      EXPECT_TRUE(check_vector(plan, A, "N", -0.5, 0.75, salt += 2)) << "rank 1, " << context(1, -0.5, 0.75);
    }
  }
};

/// A plan's tiling stats when aspt is forced with small tiles.
template <class CrsType>
SpmmTilingStats small_tiling_stats(const HostCsr& A) {
  SpmmOptions o;
  if (Kit<CrsType>::native) o.kernel = SpmmKernel::aspt;
  else o.backend = Backend::portable;
  o.tiling = small_tiling();
  return SpmmPlan<CrsType>(to_crs<CrsType>(A), o).stats();
}

}  // namespace

// ================================================================================================
// Typed tests: every (Scalar, Offset) on every enabled execution space

template <class CrsType>
class Spmm : public ::testing::Test {};
TYPED_TEST_SUITE(Spmm, test::CrsTypes);

// 150 x 130 with rows 32..79 empty (three empty panels of 16 rows) and every 9th row empty.
TYPED_TEST(Spmm, RandomWithEmptyPanels) {
  const HostCsr A = empty_rows_unless(test::random_csr(150, 130, 6, 1),
                                      [](int64_t i) { return (i < 32 || i >= 80) && i % 9 != 4; });
  const SpmmTilingStats s = small_tiling_stats<TypeParam>(A);
  ASSERT_GT(s.num_heavy_tiles, 0);
  ASSERT_GT(s.light_nnz, 0);
  Kit<TypeParam>::run_configs(A, "150 x 130 with empty panels", 1000);
}

// Rows 0..15 (panel 0 of the small tiling) all hold column 7: one dense column segment.
TYPED_TEST(Spmm, PanelWithOneDenseColumn) {
  const HostCsr A = dense_column_panel(40, 60, 16, 7, 2);
  const SpmmTilingStats s = small_tiling_stats<TypeParam>(A);
  ASSERT_GE(s.heavy_nnz, 16);
  Kit<TypeParam>::run_configs(A, "40 x 60, a dense column in panel 0", 2000);
}

TYPED_TEST(Spmm, PowerLaw) {
  const HostCsr A = gen::rmat(8, 8, test::seed_for(3));
  const SpmmTilingStats s = small_tiling_stats<TypeParam>(A);
  ASSERT_GT(s.num_heavy_tiles, s.num_panels);  // several tiles per panel on average
  Kit<TypeParam>::run_configs(A, "R-MAT scale 8", 3000);
}

// A stencil's rows slide one column per row: csr_rows on the host reads column-major B and C in
// place, in column groups (every K of kColumns: groups of 4, then 2 and 1); R-MAT's do not,
// and it keeps packing B. Both through every configuration and layout.
TYPED_TEST(Spmm, ColumnGroupsOnAStencil) {
  using K = Kit<TypeParam>;
  const HostCsr stencil = gen::poisson3d(8);
  const HostCsr power_law = gen::rmat(9, 8, test::seed_for(6));
  SpmmOptions rows;
  rows.kernel = SpmmKernel::csr_rows;
  if (K::native && Impl::is_host_space_v<typename TypeParam::execution_space>) {
    const typename K::Plan on_stencil(to_crs<TypeParam>(stencil), rows);
    EXPECT_TRUE(on_stencil.analysis().column_groups) << on_stencil.describe();
    EXPECT_GT(on_stencil.analysis().next_row_shift_fraction, 0.8) << on_stencil.describe();
    EXPECT_TRUE(contains(on_stencil.describe(), "column groups of 4 in place, sliding rows ")) << on_stencil.describe();
    const typename K::Plan on_power_law(to_crs<TypeParam>(power_law), rows);
    EXPECT_FALSE(on_power_law.analysis().column_groups) << on_power_law.describe();
  }
  K::run_configs(stencil, "Poisson 8^3", 3500);
  K::run_configs(power_law, "R-MAT scale 9", 3600);
}

// Column groups over runs of sliding rows (a SIMD register of rows at a time, 2 to 8 by scalar
// and instruction set) broken at varied places, with a duplicate, through every
// configuration and layout; rows of 40 entries, whose transposed values fill a thread's buffer
// long before a block's 2048 rows (the block ends early); rows of 8200, too long to transpose
// (they go one at a time), with csr_rows and LayoutLeft B and C; on the host, B and C as blocks of
// rows of taller Views.
TYPED_TEST(Spmm, ColumnGroupsOnSlidingRuns) {
  using K = Kit<TypeParam>;
  const HostCsr broken = sliding_rows_with_breaks(400, 9100);
  const int64_t runs_of_8 = sliding_run_starts(broken, 8);
  ASSERT_GT(runs_of_8, 100);
  ASSERT_LT(sliding_run_starts(broken, 2), 390);  // the breaks
  SpmmOptions rows;
  rows.kernel = SpmmKernel::csr_rows;
  if (K::native && Impl::is_host_space_v<typename TypeParam::execution_space>) {
    const typename K::Plan plan(to_crs<TypeParam>(broken), rows);
    EXPECT_TRUE(plan.analysis().column_groups) << plan.describe();
  }
  K::run_configs(broken, "400 x 405 sliding runs with breaks", 9100);
  // B and C as blocks of rows of taller column-major Views (LayoutStride subviews, columns
  // further apart than their length): the kernels step by the Views' own column stride, and C's
  // rows outside the block keep their values.
  if constexpr (Impl::is_host_space_v<typename TypeParam::execution_space>) {
    using Scalar = typename K::Scalar;
    const HostCsr A = rounded<Scalar>(broken);
    const typename K::Plan plan(to_crs<TypeParam>(A), rows);
    const int64_t k = 6, extra = 3;
    const HostDense B = rounded<Scalar>(test::random_dense(A.num_cols, k, 9150));
    const HostDense C0 = rounded<Scalar>(test::random_dense(A.num_rows, k, 9151));
    const typename K::MatL b_tall("B", A.num_cols + extra, k), c_tall("C", A.num_rows + extra, k);
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t i = 0; i < A.num_cols + extra; ++i) b_tall(i, j) = i < A.num_cols ? Scalar(B(i, j)) : Scalar(kNaN);
      for (int64_t i = 0; i < A.num_rows + extra; ++i) c_tall(i, j) = i < A.num_rows ? Scalar(C0(i, j)) : Scalar(7);
    }
    const auto b = Kokkos::subview(b_tall, std::pair<int64_t, int64_t>(0, A.num_cols), Kokkos::ALL());
    const auto c = Kokkos::subview(c_tall, std::pair<int64_t, int64_t>(0, A.num_rows), Kokkos::ALL());
    ASSERT_EQ(static_cast<int64_t>(b.stride(1)), A.num_cols + extra);
    plan.apply("N", Scalar(-0.5), b, Scalar(0.75), c);
    EXPECT_TRUE(test::spmm_matches<Scalar>("N", -0.5, A, B, 0.75, C0, test::to_host_dense(c))) << plan.describe();
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = A.num_rows; i < A.num_rows + extra; ++i) EXPECT_EQ(c_tall(i, j), Scalar(7)) << i << ", " << j;
  }
  uint64_t salt = 9200;
  for (const auto& [width, num_rows, ks] : {std::tuple{int64_t{40}, int64_t{600}, std::vector<int64_t>{1, 3, 6, 33}},
                                            std::tuple{int64_t{8200}, int64_t{12}, std::vector<int64_t>{1, 3, 6}}}) {
    const HostCsr band = sliding_band(num_rows, width, salt);
    ASSERT_EQ(sliding_run_starts(band, 8), num_rows - 7);
    const typename K::Plan plan(to_crs<TypeParam>(rounded<typename K::Scalar>(band)), rows);
    const std::string what = std::to_string(num_rows) + " rows of " + std::to_string(width) + " sliding entries\n";
    for (int64_t k : ks)
      for (const auto& [alpha, beta] : {std::pair{1.5, 0.0}, std::pair{-0.5, 0.75}})
        EXPECT_TRUE((K::template check<typename K::MatL, typename K::MatL>(plan, rounded<typename K::Scalar>(band),
                                                                           "N", k, alpha, beta, salt += 2)))
            << what << "K = " << k << ", beta " << beta << "\n" << plan.describe();
  }
}

TYPED_TEST(Spmm, NonSquare) {
  Kit<TypeParam>::run_configs(test::random_csr(300, 70, 5, 4), "300 x 70", 4000);
  Kit<TypeParam>::run_configs(test::random_csr(40, 500, 30, 5), "40 x 500", 5000);
}

TYPED_TEST(Spmm, UnsortedWithDuplicates) {
  const HostCsr A = test::unsorted_with_duplicates(90, 40, 25, 6);
  ASSERT_FALSE(A.is_sorted_and_unique());
  Kit<TypeParam>::run_configs(A, "90 x 40 unsorted with duplicates", 6000);
}

TYPED_TEST(Spmm, OneRowAndEmptyMatrices) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  K::run_configs(test::random_csr(1, 50, 20, 7), "1 x 50", 7000);
  K::run_configs(test::csr_from_dense(1, 1, {2.5}), "1 x 1", 7100);
  // No entries: C = beta C (zeros over NaN for beta == 0).
  for (const auto& [rows, cols] : {std::pair{0, 0}, std::pair{0, 5}, std::pair{5, 0}, std::pair{7, 9}})
    K::run_configs(no_entries(rows, cols), std::to_string(rows) + " x " + std::to_string(cols) + " without entries",
                   8000 + 100 * rows + cols);
  // A default-constructed CrsMatrix is the 0 x 0 matrix (its row map is empty, not {0}).
  for (const Config& c : K::configs()) {
    const typename K::Plan plan{TypeParam(), c.options};
    typename K::MatR B("B", 0, 4), C("C", 0, 4);
    EXPECT_NO_THROW(plan.apply("N", Scalar(1), B, Scalar(0), C)) << c.name;
    EXPECT_NO_THROW(plan.apply("T", Scalar(1), B, Scalar(0), C)) << c.name;
    EXPECT_EQ(plan.stats().num_panels, 0);
  }
}

TYPED_TEST(Spmm, AlphaZeroOnlyScalesC) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(test::random_csr(70, 50, 6, 9));
  const TypeParam a = to_crs<TypeParam>(A);
  uint64_t salt = 9000;
  for (const Config& c : K::configs()) {
    const typename K::Plan plan(a, c.options);
    for (const char* mode : {"N", "T"})
      for (double beta : {0.0, 0.75, 1.0}) {  // B is NaN: must not be read; beta == 0: C NaN too
        EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatR>(plan, A, mode, 33, 0.0, beta, salt += 2)))
            << c.name << ", mode " << mode << ", beta " << beta;
        EXPECT_TRUE((K::template check<typename K::MatL, typename K::MatL>(plan, A, mode, 5, 0.0, beta, salt += 2)))
            << c.name << ", mode " << mode << ", beta " << beta;
        EXPECT_TRUE(K::check_vector(plan, A, mode, 0.0, beta, salt += 2))
            << c.name << ", rank 1, mode " << mode << ", beta " << beta;
      }
  }
}

TYPED_TEST(Spmm, TransposeMode) {
  using K = Kit<TypeParam>;
  uint64_t salt = 10000;
  for (const HostCsr& A0 : {test::random_csr(60, 45, 5, 10), test::unsorted_with_duplicates(30, 50, 12, 11)}) {
    const HostCsr A = rounded<typename K::Scalar>(A0);
    const TypeParam a = to_crs<TypeParam>(A);
    for (const Config& c : K::configs()) {
      const typename K::Plan plan(a, c.options);
      for (int64_t k : {1, 33}) {
        EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatR>(plan, A, "T", k, 1.5, 0.0, salt += 2)))
            << c.name << ", K = " << k;
        EXPECT_TRUE((K::template check<typename K::MatL, typename K::MatL>(plan, A, "T", k, -0.5, 0.75, salt += 2)))
            << c.name << ", K = " << k;
      }
      EXPECT_TRUE(K::check_vector(plan, A, "T", -0.5, 0.75, salt += 2)) << c.name;
    }
  }
}

// Rank 1 through strided Views: columns of a LayoutRight multivector (stride K).
TYPED_TEST(Spmm, StridedVectors) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr A = rounded<Scalar>(test::random_csr(80, 64, 7, 12));
  const TypeParam a = to_crs<TypeParam>(A);
  const HostDense X = rounded<Scalar>(test::random_dense(A.num_cols, 3, 13));
  const HostDense Y0 = rounded<Scalar>(test::random_dense(A.num_rows, 3, 14));
  for (const Config& c : K::configs()) {
    const typename K::Plan plan(a, c.options);
    const typename K::MatR xv = test::to_view<typename K::MatR>(X), yv = test::to_view<typename K::MatR>(Y0);
    auto x1 = Kokkos::subview(xv, Kokkos::ALL(), 1);
    auto y2 = Kokkos::subview(yv, Kokkos::ALL(), 2);
    ASSERT_EQ(x1.stride(0), 3u);
    plan.apply("N", Scalar(2), x1, Scalar(-1), y2);
    const HostDense Y = test::to_host_dense(yv);
    std::vector<double> x(X.data.begin() + X.num_rows, X.data.begin() + 2 * X.num_rows);
    std::vector<double> y0(Y0.data.begin() + 2 * Y0.num_rows, Y0.data.end());
    std::vector<double> y(Y.data.begin() + 2 * Y.num_rows, Y.data.end());
    EXPECT_TRUE(test::spmv_matches<Scalar>("N", 2.0, A, x, -1.0, y0, y)) << c.name;
    for (int64_t i = 0; i < Y.num_rows; ++i)  // the other columns untouched
      ASSERT_EQ(Y(i, 0), Y0(i, 0)) << c.name;
  }
}

// The reordered copy is A with each row's entries permuted (column values kept, so it is a valid
// unordered CSR equal to A), shares A's row map, and SpMV on it gives A's product.
TYPED_TEST(Spmm, ReorderedMatrixIsARowPermutation) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  uint64_t salt = 11000;
  for (const HostCsr& A0 : {HostCsr(gen::rmat(8, 8, test::seed_for(15))), test::unsorted_with_duplicates(90, 40, 25, 16),
                            dense_column_panel(40, 60, 16, 7, 17)}) {
    const HostCsr A = rounded<Scalar>(A0);
    const TypeParam a = to_crs<TypeParam>(A);
    for (const Config& c : K::configs()) {
      const typename K::Plan plan(a, c.options);
      const TypeParam& r = plan.reordered_matrix();
      EXPECT_EQ(r.graph.row_map.data(), a.graph.row_map.data()) << c.name;
      const HostCsr R = to_host_csr(r);
      ASSERT_EQ(R.num_rows, A.num_rows);
      ASSERT_EQ(R.num_cols, A.num_cols);
      ASSERT_EQ(R.row_map, A.row_map);
      int64_t moved_entries = 0;
      for (int64_t i = 0; i < A.num_rows; ++i) {
        std::vector<std::pair<int, double>> ra, rr;
        for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
          ra.push_back({A.entries[k], A.values[k]});
          rr.push_back({R.entries[k], R.values[k]});
          moved_entries += A.entries[k] != R.entries[k];
        }
        std::sort(ra.begin(), ra.end());
        std::sort(rr.begin(), rr.end());
        ASSERT_EQ(ra, rr) << c.name << ": row " << i << " is not a permutation of A's";
      }
      if (plan.stats().heavy_nnz > 0 && plan.stats().light_nnz > 0 && c.options.kernel == SpmmKernel::aspt) {
        EXPECT_GT(moved_entries, 0) << c.name << ": heavy and light entries but nothing moved";
      }
      // SpMV on the reordered matrix equals the reference on A.
      const std::vector<double> x = rounded<Scalar>(test::random_vector(A.num_cols, salt += 2));
      const std::vector<double> y0 = rounded<Scalar>(test::random_vector(A.num_rows, salt += 2));
      const typename K::Vec xv = test::to_view<typename K::Vec>(x), yv = test::to_view<typename K::Vec>(y0);
      SpmvPlan<TypeParam>(r).apply("N", Scalar(1.25), xv, Scalar(0.5), yv);
      EXPECT_TRUE(test::spmv_matches<Scalar>("N", 1.25, A, x, 0.5, y0, test::to_host_vector(yv))) << c.name;
    }
  }
}

// After new values are copied into A, both modes keep reading the reordered copy (the old values)
// until update_values(A) refreshes it; then both read the new ones. update_values with another
// matrix of the same pattern (its own Views) makes the plan read that one's values.
TYPED_TEST(Spmm, UpdateValues) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr A = rounded<Scalar>(gen::rmat(8, 8, test::seed_for(18)));
  HostCsr B = A;
  B.values = rounded<Scalar>(test::random_vector(A.nnz(), 19));
  uint64_t salt = 12000;
  for (const Config& c : K::configs()) {
    TypeParam a = to_crs<TypeParam>(A);
    typename K::Plan plan(a, c.options);
    EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatR>(plan, A, "N", 7, 1.5, 0.0, salt += 2))) << c.name;
    Kokkos::deep_copy(a.values, test::to_view<typename TypeParam::values_type>(B.values));
    EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatR>(plan, A, "N", 7, 1.5, 0.0, salt += 2)))
        << c.name << ": before update_values, the copy";
    EXPECT_TRUE((K::template check<typename K::MatL, typename K::MatL>(plan, A, "T", 3, -0.5, 0.75, salt += 2)))
        << c.name << ": before update_values, mode T reads the same copy";
    plan.update_values(a);
    EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatR>(plan, B, "N", 7, 1.5, 0.0, salt += 2))) << c.name;
    EXPECT_TRUE((K::template check<typename K::MatL, typename K::MatL>(plan, B, "N", 33, -0.5, 0.75, salt += 2)))
        << c.name;
    EXPECT_TRUE((K::template check<typename K::MatL, typename K::MatL>(plan, B, "T", 3, -0.5, 0.75, salt += 2)))
        << c.name;
  }
}

// The automatic choice follows min_heavy_fraction; describe() and stats() report it.
TYPED_TEST(Spmm, AutomaticChoiceDescribeAndStats) {
  using K = Kit<TypeParam>;
  const HostCsr A = gen::rmat(9, 8, test::seed_for(20));
  const TypeParam a = to_crs<TypeParam>(A);
  SpmmOptions always, never;
  always.tiling = small_tiling();
  always.tiling.min_heavy_fraction = 0.0;
  never.tiling = small_tiling();
  never.tiling.min_heavy_fraction = 1.0;
  const typename K::Plan p_always(a, always), p_never(a, never);
  const SpmmTilingStats& s = p_always.stats();
  ASSERT_GT(s.heavy_nnz, 0);
  ASSERT_GT(s.light_nnz, 0);
  EXPECT_EQ(s.heavy_nnz + s.light_nnz, A.nnz());
  EXPECT_EQ(s.num_panels, (A.num_rows + 15) / 16);
  EXPECT_GE(s.analysis_seconds, 0.0);
  EXPECT_EQ(p_always.tiling().panel_rows, 16);
  EXPECT_EQ(p_always.tiling().tile_cols, 8);
  EXPECT_EQ(p_always.tiling().heavy_threshold, 2);
  if (K::native) {
    // The CUDA target runs csr_rows whatever the heavy fraction (aspt only when forced).
    EXPECT_EQ(p_always.kernel(), p_always.target() == SpmmTarget::cuda ? SpmmKernel::csr_rows : SpmmKernel::aspt);
    EXPECT_EQ(p_never.kernel(), SpmmKernel::csr_rows);
  } else {
    EXPECT_EQ(p_always.kernel(), SpmmKernel::csr_rows);
    EXPECT_EQ(p_always.backend(), Backend::portable);
  }
  const std::string d = p_always.describe();
  for (const std::string& needle : {std::string("SpmmPlan<"), std::string("kernel ") + to_string(p_always.kernel()),
                                    std::string("panel_rows 16"), std::string("tile_cols 8"),
                                    std::to_string(s.num_heavy_tiles) + " heavy tiles",
                                    "heavy nnz " + std::to_string(s.heavy_nnz)})
    EXPECT_TRUE(contains(d, needle)) << "describe() lacks \"" << needle << "\":\n" << d;
  // Defaults: every field resolved from the target's calibrated values.
  const typename K::Plan p_default(a);
  const SpmmTiling t = p_default.tiling();
  SpmmTiling d_t = spmm_default_tiling(p_default.target());
  if (p_default.target() == SpmmTarget::cuda) {  // capped to what the CUDA kernel stages in one pass
    const int64_t bytes = sizeof(typename K::Scalar);
    d_t.panel_rows = std::min(d_t.panel_rows, Impl::cuda::spmm_cuda_max_panel_rows(bytes));
    d_t.tile_cols = std::min(d_t.tile_cols, Impl::cuda::spmm_cuda_max_tile_cols(Impl::cuda::spmm_cuda_min_k_slice, bytes));
  }
  EXPECT_EQ(t.panel_rows, d_t.panel_rows);
  EXPECT_EQ(t.tile_cols, d_t.tile_cols);
  EXPECT_EQ(t.heavy_threshold, d_t.heavy_threshold);
  EXPECT_EQ(t.min_heavy_fraction, d_t.min_heavy_fraction);
  EXPECT_EQ(p_default.kernel(), K::expected_kernel(p_default, SpmmOptions{}));
  // As a MultiVectorOperator (Y = A X, LayoutLeft).
  auto op = make_operator(typename K::Plan(a));
  const HostCsr Ar = rounded<typename K::Scalar>(A);
  const HostDense X = rounded<typename K::Scalar>(test::random_dense(A.num_cols, 4, 21));
  const typename K::MatL xv = test::to_view<typename K::MatL>(X);
  typename K::MatL yv("Y", A.num_rows, 4);
  test::poison(yv);
  const TypeParam ar = to_crs<TypeParam>(Ar);
  auto op_r = make_operator(typename K::Plan(ar));
  op_r->apply(xv, yv);
  EXPECT_TRUE(test::spmm_matches<typename K::Scalar>("N", 1.0, Ar, X, 0.0, HostDense(A.num_rows, 4, kNaN),
                                                      test::to_host_dense(yv)));
  EXPECT_EQ(op->num_rows(), A.num_rows);
}

// Backend and kernel selection: Backend::native on a space with native kernels, each kernel
// forced under each backend (aspt on the portable backend throws, naming kernel, backend and
// space), and describe() saying what was chosen and why.
TYPED_TEST(Spmm, SelectionAndDescribeWhy) {
  using K = Kit<TypeParam>;
  const HostCsr A = rounded<typename K::Scalar>(gen::rmat(9, 8, test::seed_for(23)));
  const TypeParam a = to_crs<TypeParam>(A);
  const std::string space = TypeParam::execution_space::name();
  const auto describe_has = [](const typename K::Plan& plan, const std::vector<std::string>& needles) {
    const std::string d = plan.describe();
    for (const std::string& n : needles)
      if (!contains(d, n)) return ::testing::AssertionFailure() << "describe() lacks \"" << n << "\":\n" << d;
    return ::testing::AssertionSuccess();
  };
  // Automatic: the backend says what decided it, the kernel the heavy fraction it compared.
  SpmmOptions automatic;
  automatic.tiling = small_tiling();
  const typename K::Plan p_auto(a, automatic);
  if (K::native) {
    EXPECT_EQ(p_auto.backend(), Backend::native);
    if (p_auto.target() == SpmmTarget::cuda)
      EXPECT_TRUE(describe_has(p_auto, {"backend native (automatic: " + space + " has",
                                        "kernel csr_rows (automatic: csr_rows on the CUDA target (aspt only when forced)"}));
    else
      EXPECT_TRUE(describe_has(p_auto, {"backend native (automatic: " + space + " has",
                                        std::string("kernel ") + to_string(p_auto.kernel()) + " (automatic: ",
                                        "% of the nonzeros in heavy tiles, ", "% needed for aspt)"}));
  } else {
    EXPECT_EQ(p_auto.backend(), Backend::portable);
    EXPECT_TRUE(describe_has(p_auto, {"backend portable (automatic: ",
                                      "kernel csr_rows (automatic: the portable backend's only kernel)"}));
  }
  // Backend::portable: requested; its kernel automatic, or csr_rows forced; aspt refused.
  SpmmOptions portable;
  portable.backend = Backend::portable;
  const typename K::Plan p_portable(a, portable);
  EXPECT_EQ(p_portable.backend(), Backend::portable);
  EXPECT_EQ(p_portable.kernel(), SpmmKernel::csr_rows);
  EXPECT_EQ(p_portable.target(), SpmmTarget::portable);
  EXPECT_TRUE(describe_has(p_portable, {"target portable", "backend portable (requested)",
                                        "kernel csr_rows (automatic: the portable backend's only kernel)"}));
  portable.kernel = SpmmKernel::csr_rows;
  const typename K::Plan p_portable_rows(a, portable);
  EXPECT_EQ(p_portable_rows.kernel(), SpmmKernel::csr_rows);
  EXPECT_TRUE(describe_has(p_portable_rows, {"backend portable (requested)", "kernel csr_rows (forced)"}));
  portable.kernel = SpmmKernel::aspt;
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, portable); },
                                      {"kernel aspt", "Backend::portable", space}));
  // Backend::native and automatic with each kernel forced.
  for (Backend backend : {Backend::native, Backend::automatic})
    for (SpmmKernel kernel : {SpmmKernel::csr_rows, SpmmKernel::aspt, SpmmKernel::automatic}) {
      SpmmOptions o;
      o.backend = backend;
      o.kernel = kernel;
      o.tiling = small_tiling();
      const std::string what = std::string(to_string(backend)) + " + " + to_string(kernel);
      if (!K::native) {
        if (backend == Backend::native)
          EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, o); }, {"Backend::native", space}))
              << what;
        else if (kernel == SpmmKernel::aspt)
          EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, o); }, {"aspt", "Backend::portable", space}))
              << what;
        continue;
      }
      const typename K::Plan plan(a, o);
      EXPECT_EQ(plan.backend(), Backend::native) << what;
      EXPECT_EQ(plan.target(), Impl::is_cuda_space_v<typename TypeParam::execution_space> ? SpmmTarget::cuda
                                                                                           : SpmmTarget::host)
          << what;
      EXPECT_EQ(plan.kernel(), K::expected_kernel(plan, o)) << what;
      EXPECT_TRUE(describe_has(plan, {std::string("backend native (") +
                                          (backend == Backend::native ? "requested)" : "automatic: "),
                                      std::string("kernel ") + to_string(plan.kernel()) +
                                          (kernel == SpmmKernel::automatic ? " (automatic: " : " (forced)")}))
          << what;
      EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatL>(plan, A, "N", 33, 1.5, 0.5, 13000)))
          << what;
    }
}

TYPED_TEST(Spmm, BadOptionsAndExtentsThrow) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const TypeParam a = to_crs<TypeParam>(test::random_csr(20, 15, 3, 22));
  auto with_tiling = [](int64_t P, int64_t T, int64_t th, double f) {
    SpmmOptions o;
    o.tiling.panel_rows = P;
    o.tiling.tile_cols = T;
    o.tiling.heavy_threshold = th;
    o.tiling.min_heavy_fraction = f;
    return o;
  };
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, with_tiling(-1, 0, 0, -1)); }, {"panel_rows = -1"}));
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, with_tiling(0, -4, 0, -1)); }, {"tile_cols = -4"}));
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, with_tiling(0, 0, -2, -1)); }, {"heavy_threshold = -2"}));
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, with_tiling(0, 0, 0, 1.5)); }, {"min_heavy_fraction"}));
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, with_tiling(0, 0, 0, kNaN)); }, {"min_heavy_fraction"}));
  SpmmOptions bad_kernel;
  bad_kernel.kernel = static_cast<SpmmKernel>(7);
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, bad_kernel); }, {"SpmmKernel"}));
  SpmmOptions conflict;
  conflict.kernel = SpmmKernel::aspt;
  conflict.backend = Backend::portable;
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, conflict); },
                                      {"Backend::portable", "aspt", TypeParam::execution_space::name()}));
  SpmmOptions bad_backend;
  bad_backend.backend = static_cast<Backend>(9);
  EXPECT_TRUE(throws_invalid_argument([&] { (void)typename K::Plan(a, bad_backend); }, {"Backend"}));
  EXPECT_TRUE(throws_invalid_argument([] { spmm_kernel_from_string("tiled"); }, {"tiled", "csr_rows", "aspt", "portable"}));
  EXPECT_TRUE(throws_invalid_argument([] { spmm_kernel_from_string("portable"); }, {"\"portable\"", "Backend::portable"}));
  EXPECT_EQ(spmm_kernel_from_string("aspt"), SpmmKernel::aspt);
  EXPECT_EQ(spmm_kernel_from_string("csr_rows"), SpmmKernel::csr_rows);
  EXPECT_EQ(spmm_kernel_from_string("automatic"), SpmmKernel::automatic);
  EXPECT_EQ(spmm_kernel_from_string("auto"), SpmmKernel::automatic);
  for (int k = 0; k < num_spmm_kernels; ++k)
    EXPECT_EQ(spmm_kernel_from_string(to_string(static_cast<SpmmKernel>(k))), static_cast<SpmmKernel>(k));

  const typename K::Plan plan(a);
  typename K::MatR B("B", 15, 4), C("C", 20, 4), B_short("B", 14, 4), C_short("C", 19, 4), C_wide("C", 20, 5);
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), B_short, Scalar(0), C); }, {"14", "15"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), B, Scalar(0), C_short); }, {"19", "20"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("N", Scalar(1), B, Scalar(0), C_wide); }, {"4", "5"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("T", Scalar(1), B, Scalar(0), C); }, {"mode T"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply("C", Scalar(1), B, Scalar(0), C); }, {"\"C\""}));
  EXPECT_NO_THROW(plan.apply("N", Scalar(1), B, Scalar(0), C));
}

// C larger than spmm_host_streaming_bytes (64 MiB) with beta == 0: the host kernels write it with
// non-temporal stores (rows of 65 doubles: every other row is not 16-byte aligned and falls back
// to plain stores). One type: the path depends on the byte count, not on the type. Host builds
// only: a CUDA build's test programs instantiate Cuda types alone.
#ifndef KOKKOS_ENABLE_CUDA
TEST(SpmmLarge, StreamingStoresOfALargeC) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Crs = test::Crs<double, int, Space>;
  using Mat = Kokkos::View<double**, Kokkos::LayoutRight, test::DeviceOf<Space>>;
  const int64_t rows = 130000, cols = 64, K = 65;
  ASSERT_GT(rows * K * 8, Impl::host::spmm_host_streaming_bytes);
  const HostCsr A = test::random_csr(rows, cols, 2, 30);
  const HostDense B = test::random_dense(cols, K, 31);
  const Crs a = to_crs<Crs>(A);
  for (SpmmKernel kernel : {SpmmKernel::csr_rows, SpmmKernel::aspt}) {
    SpmmOptions o;
    o.kernel = kernel;
    const SpmmPlan<Crs> plan(a, o);
    const Mat bv = test::to_view<Mat>(B, "B");
    Mat cv(Kokkos::ViewAllocateWithoutInitializing("C"), rows, K);
    test::poison(cv);
    plan.apply("N", 1.5, bv, 0.0, cv);
    EXPECT_TRUE(test::spmm_matches<double>("N", 1.5, A, B, 0.0, HostDense(rows, K, kNaN), test::to_host_dense(cv)))
        << to_string(kernel);
  }
}
#endif  // KOKKOS_ENABLE_CUDA

// A matrix of ~26000 entries: the host kernels cut its rows (csr_rows) or panels (aspt) into
// several parts per thread, taken dynamically; column-major C under aspt gives every thread its
// own scratch (taken per part). Every part must run exactly once, whichever thread takes it.
#ifndef KOKKOS_ENABLE_CUDA
TEST(SpmmLarge, HostPartsOutnumberTheThreads) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Crs = test::Crs<double, int, Space>;
  using K = Kit<Crs>;
  const HostCsr A = test::random_csr(2000, 700, 12, 40);
  const int threads = Space().concurrency();
  const Crs a = to_crs<Crs>(A);
  uint64_t salt = 41;
  for (SpmmKernel kernel : {SpmmKernel::csr_rows, SpmmKernel::aspt}) {
    SpmmOptions o;
    o.kernel = kernel;
    if (kernel == SpmmKernel::aspt) o.tiling = small_tiling();
    const K::Plan plan(a, o);
    const int parts = plan.analysis().num_parts;
    EXPECT_GT(parts, threads) << to_string(kernel) << "\n" << plan.describe();
    EXPECT_LE(parts, threads * Impl::host_parts_per_thread) << to_string(kernel);
    const auto bounds = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.analysis().parts);
    ASSERT_EQ(int(bounds.extent(0)), parts + 1);
    for (int p = 0; p < parts; ++p) EXPECT_LE(bounds(p), bounds(p + 1)) << "part " << p;
    EXPECT_EQ(bounds(0), 0);
    EXPECT_GT(bounds(parts), 0);
    for (int64_t k : {3, 64}) {
      EXPECT_TRUE((K::check<K::MatR, K::MatR>(plan, A, "N", k, 1.5, 0.0, salt += 2))) << to_string(kernel) << ", R/R, K " << k;
      EXPECT_TRUE((K::check<K::MatL, K::MatL>(plan, A, "N", k, 1.5, 0.0, salt += 2))) << to_string(kernel) << ", L/L, K " << k;
      EXPECT_TRUE((K::check<K::MatL, K::MatL>(plan, A, "N", k, -0.5, 0.75, salt += 2))) << to_string(kernel) << ", L/L, K " << k;
    }
  }
}
#endif  // KOKKOS_ENABLE_CUDA

// A space without native SpMM kernels (none is enabled in a host build, so a stand-in type with
// the one member the selection reads): Backend::native throws naming the space, automatic falls
// back to the portable backend and says why, and forcing aspt there throws naming kernel,
// backend and space.
namespace {
struct SpaceWithoutSpmmKernels {
  static const char* name() { return "SpaceWithoutSpmmKernels"; }
};
}  // namespace

TEST(SpmmSelection, SpaceWithoutNativeKernels) {
  using Space = SpaceWithoutSpmmKernels;
  std::string why;
  EXPECT_TRUE(throws_invalid_argument([&] { Impl::spmm_resolve_backend<Space, double>(Backend::native, &why); },
                                      {"Backend::native", "SpaceWithoutSpmmKernels"}));
  EXPECT_EQ((Impl::spmm_resolve_backend<Space, double>(Backend::automatic, &why)), Backend::portable);
  EXPECT_TRUE(contains(why, "automatic: SpaceWithoutSpmmKernels has no native kernels")) << why;
  EXPECT_EQ((Impl::spmm_resolve_backend<Space, double>(Backend::portable, &why)), Backend::portable);
  EXPECT_EQ(why, "requested");
  EXPECT_EQ(Impl::spmm_target<Space>(Backend::portable), SpmmTarget::portable);
  EXPECT_TRUE(throws_invalid_argument(
      [&] { Impl::spmm_check_kernel<Space>(SpmmKernel::aspt, Backend::automatic, Backend::portable); },
      {"kernel aspt", "Backend::portable", "automatic requested", "SpaceWithoutSpmmKernels"}));
  EXPECT_NO_THROW(Impl::spmm_check_kernel<Space>(SpmmKernel::csr_rows, Backend::automatic, Backend::portable));
  EXPECT_NO_THROW(Impl::spmm_check_kernel<Space>(SpmmKernel::automatic, Backend::automatic, Backend::portable));
  // The host spaces have native kernels for every scalar type.
  EXPECT_EQ((Impl::spmm_resolve_backend<Kokkos::DefaultHostExecutionSpace, double>(Backend::native, &why)),
            Backend::native);
  EXPECT_EQ(why, "requested");
  EXPECT_EQ((Impl::spmm_resolve_backend<Kokkos::DefaultHostExecutionSpace, float>(Backend::automatic, &why)),
            Backend::native);
  EXPECT_TRUE(contains(why, "has host kernels")) << why;
}
