// SDDMM operator (Sprocket_Sddmm.hpp): every path the execution space runs, forced
// (nonzero_tiles and aspt on the native backend, with small tiles so matrices of a few hundred
// rows have many panels and several heavy tiles per panel; the portable backend), the automatic
// choice with and without an ASpT analysis, and a plan sharing an SpmmPlan's analysis;
// K in {1, 7, 32, 33, 64, 256, 1000} (vector widths, their remainders, the AVX2 unroll of 4
// vectors, and K beyond the copy threshold), A and B LayoutRight, LayoutLeft and mixed (a
// LayoutLeft operand is copied row-major by the host kernels), float and double, int and size_t
// offsets; scaled (S's values) and pattern (cuSPARSE's) forms, beta == 0 with out poisoned (NaN),
// beta != 0, alpha == 0 with A poisoned; CSR and COO input (COO in shuffled order); values of S
// changed between applies; the automatic rule, describe(), and argument errors. Against
// reference::sddmm with the scaled error bound of test::sddmm_matches.
//
// Matrices break kernels with: runs of empty rows longer than a panel (and a host part made of
// empty rows), single-entry rows, power-law rows (R-MAT, rows far longer than a part), non-square
// shapes, unsorted columns with duplicates, explicit zeros (kept as entries: out is 0 there in
// the scaled form, the dot product in the pattern form), one row, no entries at all. Each case
// asserts the property it is there for (heavy tiles exist, the row is longer than a part, ...).
//
// No device code here: everything goes through the plan, deep_copy and mirrors (nvcc refuses
// extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "Sprocket_Generators.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spmm.hpp"
#include "sprocket_test_types.hpp"
#include "sddmm_test_utils.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using test::rounded;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<int64_t> kColumns = {1, 7, 32, 33, 64, 256, 1000};

using test::contains;
using test::throws_invalid_argument;

/// Small tiles: a few hundred rows make many panels with several heavy tiles each.
SpmmTiling small_tiling() {
  SpmmTiling t;
  t.panel_rows = 16;
  t.tile_cols = 8;
  t.heavy_threshold = 2;
  return t;
}

// ------------------------------------------------------------------------------------------------
// Matrices

/// rows x cols with about 3 random entries per row, plus column `col` in rows [0, dense_rows):
/// heavy in every panel those rows cover.
HostCsr with_dense_column(int64_t rows, int64_t cols, int64_t dense_rows, int col, uint64_t salt) {
  const HostCsr R = test::random_csr(rows, cols, 3, salt);
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) t.push_back({i, R.entries[k], R.values[k]});
  std::mt19937_64 rng(test::seed_for(salt + 1));
  for (int64_t i = 0; i < dense_rows; ++i)
    t.push_back({i, col, static_cast<double>(static_cast<int>(rng() % 17) - 8) / 4.0});
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

/// Every row holds exactly one entry (or none for every 5th row).
HostCsr single_entry_rows(int64_t rows, int64_t cols, uint64_t salt) {
  std::mt19937_64 rng(test::seed_for(salt));
  std::vector<Triplet> t;
  for (int64_t i = 0; i < rows; ++i)
    if (i % 5 != 2) t.push_back({i, static_cast<int64_t>(rng() % cols), 1.0 + static_cast<double>(rng() % 4)});
  return HostCsr::from_triplets(rows, cols, std::move(t));
}

/// Some values replaced by explicit zeros (still stored).
HostCsr with_explicit_zeros(HostCsr A) {
  for (size_t k = 0; k < A.values.size(); k += 3) A.values[k] = 0.0;
  return A;
}

struct Case {
  std::string name;
  HostCsr S;
};

/// The matrices every path runs on (a few hundred rows: many 16-row panels, parts of both host
/// threads crossing rows).
std::vector<Case> matrices() {
  std::vector<Case> c;
  c.push_back({"random_200x150", test::random_csr(200, 150, 5, 11)});
  c.push_back({"dense_column_panels", with_dense_column(160, 90, 100, 7, 12)});
  c.push_back({"empty_rows_runs", test::empty_rows_unless(test::random_csr(300, 120, 4, 13),
                                                         [](int64_t i) { return i < 40 || i >= 200; })});
  c.push_back({"single_entry_rows", single_entry_rows(120, 80, 14)});
  c.push_back({"power_law_rmat", gen::rmat(8, 8, test::seed_for(15))});
  c.push_back({"unsorted_duplicates", test::unsorted_with_duplicates(90, 60, 12, 16)});
  c.push_back({"explicit_zeros", with_explicit_zeros(test::random_csr(100, 70, 4, 17))});
  c.push_back({"one_row", test::random_csr(1, 40, 20, 18)});
  c.push_back({"wide_40x500", test::random_csr(40, 500, 30, 19)});
  c.push_back({"no_entries", test::no_entries(30, 20)});
  return c;
}

// ------------------------------------------------------------------------------------------------
// Applying and checking, for one CrsMatrix type

template <class CrsType>
struct Kit {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Device = typename CrsType::device_type;
  using ExecSpace = typename CrsType::execution_space;
  using Vec = Kokkos::View<Scalar*, Device>;
  using Index = Kokkos::View<Ordinal*, Device>;
  using MatL = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;
  using MatR = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;
  using Plan = SddmmPlan<CrsType>;

  /// One apply of `plan` in `form` with operands in layouts (LA, LB) against the reference.
  /// beta == 0: out poisoned; alpha == 0: A poisoned too (must not be read).
  template <class MA, class MB>
  static ::testing::AssertionResult check(const Plan& plan, const HostCsr& S, SddmmForm form, double alpha,
                                          double beta, int64_t K, uint64_t salt) {
    const HostDense A = rounded<Scalar>(test::random_dense(S.num_rows, K, salt));
    const HostDense B = rounded<Scalar>(test::random_dense(S.num_cols, K, salt + 1));
    std::vector<double> out0 = rounded<Scalar>(test::random_vector(S.nnz(), salt + 2));
    const MA a = test::to_view<MA>(A, "A");
    const MB b = test::to_view<MB>(B, "B");
    Vec out = test::to_view<Vec>(out0, "out");
    if (beta == 0) {
      test::poison(out);
      out0.assign(out0.size(), kNaN);
    }
    if (alpha == 0) test::poison(a);
    plan.apply(ExecSpace(), form, static_cast<Scalar>(alpha), a, b, static_cast<Scalar>(beta), out);
    return test::sddmm_matches<Scalar>(form == SddmmForm::scaled, alpha, S, alpha == 0 ? HostDense(A.num_rows, K) : A,
                                       B, beta, out0, test::to_host_vector(out));
  }

  /// Every K, both forms, the layout mixes and the alpha / beta cases on one plan.
  static void sweep(const Plan& plan, const HostCsr& S, const std::string& what) {
    uint64_t salt = 100;
    for (int64_t K : kColumns) {
      if (K == 1000 && S.nnz() > 800) continue;  // the long dot products on the smaller matrices only
      SCOPED_TRACE(what + ", K = " + std::to_string(K));
      EXPECT_TRUE((check<MatR, MatR>(plan, S, SddmmForm::scaled, 1.0, 0.0, K, salt++)));
      EXPECT_TRUE((check<MatR, MatR>(plan, S, SddmmForm::pattern, -0.5, 1.5, K, salt++)));
      EXPECT_TRUE((check<MatL, MatL>(plan, S, SddmmForm::scaled, 2.0, -1.0, K, salt++)));
      EXPECT_TRUE((check<MatR, MatL>(plan, S, SddmmForm::pattern, 1.0, 0.0, K, salt++)));
      EXPECT_TRUE((check<MatL, MatR>(plan, S, SddmmForm::scaled, 0.75, 0.0, K, salt++)));
    }
    EXPECT_TRUE((check<MatR, MatR>(plan, S, SddmmForm::scaled, 0.0, 0.5, 32, salt++))) << what << ", alpha = 0";
    EXPECT_TRUE((check<MatR, MatR>(plan, S, SddmmForm::pattern, 0.0, 0.0, 32, salt++))) << what << ", alpha = 0";
  }

  static SddmmOptions options(SddmmKernel kernel, Backend backend) {
    SddmmOptions o;
    o.kernel = kernel;
    o.backend = backend;
    o.tiling = small_tiling();
    return o;
  }

  /// S as COO Views in a shuffled entry order; *shuffled gets the same entries as a HostCsr
  /// whose entry order is that order (one row per entry, so the reference pairs them up).
  static Plan coo_plan(const HostCsr& S, uint64_t salt, HostCsr* order, Index* rows_keep, Index* cols_keep,
                       Vec* vals_keep, const SddmmOptions& o) {
    std::vector<int64_t> perm(S.nnz());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(test::seed_for(salt)));
    std::vector<int64_t> row_of(S.nnz());
    for (int64_t i = 0; i < S.num_rows; ++i)
      for (int64_t k = S.row_map[i]; k < S.row_map[i + 1]; ++k) row_of[k] = i;
    Index rows("rows", S.nnz()), cols("cols", S.nnz());
    Vec vals("vals", S.nnz());
    auto rh = Kokkos::create_mirror_view(rows);
    auto ch = Kokkos::create_mirror_view(cols);
    auto vh = Kokkos::create_mirror_view(vals);
    // The reference sees the shuffled entries as a matrix with one entry per row: row p of
    // `order` is entry perm[p]; its A is A's rows gathered by row_of (done by the caller through
    // gather_rows).
    order->num_rows = S.nnz();
    order->num_cols = S.num_cols;
    order->row_map.resize(S.nnz() + 1);
    order->entries.resize(S.nnz());
    order->values.resize(S.nnz());
    for (int64_t p = 0; p < S.nnz(); ++p) {
      rh(p) = static_cast<Ordinal>(row_of[perm[p]]);
      ch(p) = static_cast<Ordinal>(S.entries[perm[p]]);
      vh(p) = static_cast<Scalar>(S.values[perm[p]]);
      order->row_map[p] = p;
      order->entries[p] = S.entries[perm[p]];
      order->values[p] = S.values[perm[p]];
    }
    order->row_map[S.nnz()] = S.nnz();
    Kokkos::deep_copy(rows, rh);
    Kokkos::deep_copy(cols, ch);
    Kokkos::deep_copy(vals, vh);
    *rows_keep = rows;
    *cols_keep = cols;
    *vals_keep = vals;
    return Plan(S.num_rows, S.num_cols, rows, cols, vals, o);
  }
};

template <class CrsType>
class SddmmTest : public ::testing::Test {};
TYPED_TEST_SUITE(SddmmTest, test::CrsTypes);

// ------------------------------------------------------------------------------------------------
// Every path against the reference

TYPED_TEST(SddmmTest, ForcedPathsMatchReference) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  for (const Case& c : matrices()) {
    const HostCsr S = rounded<Scalar>(c.S);
    const TypeParam Sd = to_crs<TypeParam>(S);
    // Native nonzero_tiles: the host parts must cross rows (and a power-law row must be longer
    // than a part) for the walk to be tested.
    {
      const typename K::Plan plan(Sd, K::options(SddmmKernel::nonzero_tiles, Backend::native));
      ASSERT_EQ(plan.kernel_for(32), SddmmKernel::nonzero_tiles);
      K::sweep(plan, S, c.name + " nonzero_tiles");
    }
    // Native aspt with small tiles.
    {
      const typename K::Plan plan(Sd, K::options(SddmmKernel::aspt, Backend::native));
      ASSERT_TRUE(plan.has_tiles());
      ASSERT_EQ(plan.kernel_for(1), SddmmKernel::aspt);
      if (c.name == "dense_column_panels") ASSERT_GT(plan.analysis().heavy_fraction, 0.3) << plan.describe();
      K::sweep(plan, S, c.name + " aspt");
    }
    // Portable.
    {
      const typename K::Plan plan(Sd, K::options(SddmmKernel::automatic, Backend::portable));
      ASSERT_EQ(plan.backend(), Backend::portable);
      K::sweep(plan, S, c.name + " portable");
    }
  }
}

TYPED_TEST(SddmmTest, PowerLawRowLongerThanAHostPart) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  // Row 3 holds every column: longer than a host part (nnz / threads), so one part starts and
  // ends inside it.
  std::vector<Triplet> t;
  const HostCsr R = test::random_csr(50, 400, 2, 21);
  for (int64_t i = 0; i < R.num_rows; ++i)
    for (int64_t k = R.row_map[i]; k < R.row_map[i + 1]; ++k) t.push_back({i, R.entries[k], R.values[k]});
  for (int64_t j = 0; j < 400; ++j) t.push_back({3, j, 0.25 * static_cast<double>(j % 7)});
  const HostCsr S = rounded<Scalar>(HostCsr::from_triplets(50, 400, std::move(t)));
  ASSERT_GT(test::longest_row(S), S.nnz() / 2);
  const TypeParam Sd = to_crs<TypeParam>(S);
  for (Backend backend : {Backend::native, Backend::portable}) {
    const typename K::Plan plan(Sd, K::options(SddmmKernel::automatic, backend));
    K::sweep(plan, S, std::string("long row, ") + to_string(backend));
  }
}

TYPED_TEST(SddmmTest, CooInputInAnyOrder) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  for (const Case& c : matrices()) {
    const HostCsr S = rounded<Scalar>(c.S);
    for (Backend backend : {Backend::native, Backend::portable}) {
      SCOPED_TRACE(c.name + " COO " + to_string(backend));
      HostCsr order;
      typename K::Index rows, cols;
      typename K::Vec vals;
      const typename K::Plan plan = K::coo_plan(S, 31, &order, &rows, &cols, &vals, K::options(SddmmKernel::automatic, backend));
      ASSERT_TRUE(plan.is_coo());
      ASSERT_EQ(plan.kernel_for(128), SddmmKernel::nonzero_tiles);
      // The reference over `order` (one entry per row) needs A's rows gathered to the entries.
      auto rows_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
      for (int64_t K_ : {int64_t{7}, int64_t{64}}) {
        const HostDense A = rounded<Scalar>(test::random_dense(S.num_rows, K_, 40));
        const HostDense B = rounded<Scalar>(test::random_dense(S.num_cols, K_, 41));
        HostDense gathered(order.num_rows, K_);
        for (int64_t p = 0; p < order.num_rows; ++p)
          for (int64_t j = 0; j < K_; ++j) gathered(p, j) = A(rows_h(p), j);
        typename K::Vec out("out", S.nnz());
        test::poison(out);
        plan.apply(SddmmForm::scaled, Scalar(1), test::to_view<typename K::MatR>(A), test::to_view<typename K::MatL>(B), Scalar(0),
                   out);
        EXPECT_TRUE(test::sddmm_matches<Scalar>(true, 1.0, order, gathered, B, 0.0,
                                                std::vector<double>(S.nnz(), kNaN), test::to_host_vector(out)));
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Sharing, the automatic choice, new values

TYPED_TEST(SddmmTest, SharesAnSpmmPlansAnalysisAndChoosesByK) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr S = rounded<Scalar>(with_dense_column(200, 100, 200, 5, 51));
  const TypeParam Sd = to_crs<TypeParam>(S);
  SpmmOptions so;
  so.tiling = small_tiling();
  so.tiling.min_heavy_fraction = 0.1;
  const SpmmPlan<TypeParam> spmm(Sd, so);
  // The host default never picks aspt automatically; the K rule is the CUDA default's.
  {
    const typename K::Plan host_default(spmm);
    std::string why;
    if (Impl::is_host_space_v<typename K::ExecSpace>) {
      EXPECT_EQ(host_default.kernel_for(1024, &why), SddmmKernel::nonzero_tiles);
      EXPECT_TRUE(contains(why, "on the host")) << why;
    } else {
      EXPECT_EQ(host_default.kernel_for(64, &why), SddmmKernel::aspt) << why;
    }
  }
  SddmmOptions with_k_rule;
  with_k_rule.aspt_min_k = 32;
  const typename K::Plan plan(spmm, with_k_rule);
  if (spmm.backend() != Backend::native) {
    EXPECT_FALSE(plan.has_tiles());
    return;
  }
  ASSERT_TRUE(plan.has_tiles());
  EXPECT_TRUE(plan.analysis().tiles_shared);
  // The same arrays, not a copy.
  EXPECT_EQ(plan.analysis().tiles.permutation.data(), spmm.analysis().permutation.data());
  std::string why;
  EXPECT_EQ(plan.kernel_for(8, &why), SddmmKernel::nonzero_tiles);
  EXPECT_TRUE(contains(why, "K = 8 < 32")) << why;
  EXPECT_EQ(plan.kernel_for(64, &why), SddmmKernel::aspt) << why << "\n" << plan.describe();
  EXPECT_TRUE(contains(why, "heavy tiles")) << why;
  EXPECT_TRUE(contains(plan.describe(), "shared with an SpmmPlan")) << plan.describe();
  K::sweep(plan, S, "shared analysis");
  // A plan without tiles never picks aspt.
  const typename K::Plan plain(Sd);
  EXPECT_FALSE(plain.has_tiles());
  EXPECT_EQ(plain.kernel_for(512, &why), SddmmKernel::nonzero_tiles);
  EXPECT_TRUE(contains(why, "no ASpT analysis")) << why;
  // build_tiles, with a heavy fraction too small for the rule.
  SddmmOptions o;
  o.build_tiles = true;
  o.aspt_min_k = 32;
  o.tiling = small_tiling();
  o.tiling.min_heavy_fraction = 1.0;
  const typename K::Plan strict(Sd, o);
  ASSERT_TRUE(strict.has_tiles());
  EXPECT_FALSE(strict.analysis().tiles_shared);
  EXPECT_EQ(strict.kernel_for(512, &why), SddmmKernel::nonzero_tiles);
  EXPECT_TRUE(contains(why, "needed for aspt")) << why;
}

TYPED_TEST(SddmmTest, ReadsSValuesAtEveryApply) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  HostCsr S = rounded<Scalar>(with_dense_column(120, 60, 80, 3, 61));
  const TypeParam Sd = to_crs<TypeParam>(S);
  for (SddmmKernel kernel : {SddmmKernel::nonzero_tiles, SddmmKernel::aspt}) {
    const typename K::Plan plan(Sd, K::options(kernel, Backend::native));
    for (int round = 0; round < 2; ++round) {
      for (size_t k = 0; k < S.values.size(); ++k) S.values[k] = static_cast<double>((k * 7 + round * 3) % 11) - 5.0;
      auto vh = Kokkos::create_mirror_view(Sd.values);
      for (size_t k = 0; k < S.values.size(); ++k) vh(k) = static_cast<Scalar>(S.values[k]);
      Kokkos::deep_copy(Sd.values, vh);
      EXPECT_TRUE((K::template check<typename K::MatR, typename K::MatR>(plan, S, SddmmForm::scaled, 1.0, 0.0, 33,
                                                                          70 + round)))
          << to_string(kernel) << " round " << round;
    }
  }
}

// The forms chosen by argument count stay one release, deprecated: each must run its named form
// (the two differ: scaled multiplies by S's values, pattern does not).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TYPED_TEST(SddmmTest, DeprecatedFormsRunTheirNamedForm) {
  using K = Kit<TypeParam>;
  using Scalar = typename K::Scalar;
  const HostCsr S = rounded<Scalar>(test::random_csr(40, 30, 5, 83));
  const TypeParam Sd = to_crs<TypeParam>(S);
  const typename K::Plan plan(Sd);
  const auto A = test::to_view<typename K::MatR>(rounded<Scalar>(test::random_dense(40, 9, 84)), "A");
  const auto B = test::to_view<typename K::MatR>(rounded<Scalar>(test::random_dense(30, 9, 85)), "B");
  typename K::Vec named("named", S.nnz()), old("old", S.nnz());
  for (SddmmForm form : {SddmmForm::scaled, SddmmForm::pattern}) {
    const bool scaled = form == SddmmForm::scaled;
    const Scalar alpha = scaled ? Scalar(1) : Scalar(-1.5), beta = scaled ? Scalar(0) : Scalar(0.5);
    Kokkos::deep_copy(named, Scalar(0.25));
    Kokkos::deep_copy(old, Scalar(0.25));
    plan.apply(form, alpha, A, B, beta, named);
    if (scaled)
      plan.apply(A, B, old);
    else
      plan.apply(alpha, A, B, beta, old);
    EXPECT_EQ(test::to_host_vector(named), test::to_host_vector(old)) << to_string(form);
  }
}
#pragma GCC diagnostic pop

// ------------------------------------------------------------------------------------------------
// Errors and describe()

TYPED_TEST(SddmmTest, RejectsBadArgumentsClearly) {
  using K = Kit<TypeParam>;
  const HostCsr S = test::random_csr(20, 30, 3, 81);
  const TypeParam Sd = to_crs<TypeParam>(S);
  const typename K::Plan plan(Sd);
  const typename K::MatR A("A", 20, 8), B("B", 30, 8), Bshort("B", 30, 7), Awrong("A", 21, 8);
  typename K::Vec out("out", S.nnz()), short_out("out", S.nnz() - 1);
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply(SddmmForm::scaled, 1, A, Bshort, 0, out); }, {"20 x 8", "30 x 7"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply(SddmmForm::pattern, 1, Awrong, B, 0, out); }, {"21 x 8", "20 x K"}));
  EXPECT_TRUE(throws_invalid_argument([&] { plan.apply(SddmmForm::scaled, 1, A, B, 0, short_out); },
                                      {std::to_string(S.nnz() - 1), std::to_string(S.nnz())}));
  SddmmOptions aspt_portable;
  aspt_portable.kernel = SddmmKernel::aspt;
  aspt_portable.backend = Backend::portable;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(Sd, aspt_portable); }, {"aspt", "Backend::portable"}));
  SddmmOptions bad_ts;
  bad_ts.tile_nonzeros = 6;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(Sd, bad_ts); }, {"tile_nonzeros = 6"}));
  SddmmOptions bad_kernel;
  bad_kernel.kernel = static_cast<SddmmKernel>(7);
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(Sd, bad_kernel); }, {"7", "SddmmKernel"}));
  // COO: aspt needs CSR; indices out of range; length mismatches.
  typename K::Index rows("rows", 3), cols("cols", 3), cols2("cols", 2);
  typename K::Vec vals("vals", 3);
  SddmmOptions aspt;
  aspt.kernel = SddmmKernel::aspt;
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(20, 30, rows, cols, vals, aspt); }, {"CSR"}));
  Kokkos::deep_copy(Kokkos::subview(cols, 1), 30);
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(20, 30, rows, cols, vals); },
                                      {"entry 1", "column 30", "[0, 30)"}));
  Kokkos::deep_copy(cols, 0);
  Kokkos::deep_copy(Kokkos::subview(rows, 2), -1);
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(20, 30, rows, cols, vals); }, {"entry 2", "row -1"}));
  EXPECT_TRUE(throws_invalid_argument([&] { typename K::Plan p(20, 30, rows, cols2, vals); }, {"3 values", "2 entries"}));
  EXPECT_THROW(sddmm_kernel_from_string("preds2"), InvalidArgument);
  EXPECT_EQ(sddmm_kernel_from_string("aspt"), SddmmKernel::aspt);
  EXPECT_EQ(sddmm_kernel_from_string("auto"), SddmmKernel::automatic);
}

TYPED_TEST(SddmmTest, DescribeSaysWhatAndWhy) {
  using K = Kit<TypeParam>;
  const TypeParam Sd = to_crs<TypeParam>(test::random_csr(50, 50, 4, 91));
  const typename K::Plan plan(Sd, K::options(SddmmKernel::aspt, Backend::automatic));
  const std::string d = plan.describe();
  EXPECT_TRUE(contains(d, "kernel at K = 32: aspt (forced)")) << d;
  EXPECT_TRUE(contains(d, "built by this plan")) << d;
  EXPECT_TRUE(contains(d, "nnz " + std::to_string(Sd.nnz()))) << d;
  const typename K::Plan portable(Sd, K::options(SddmmKernel::automatic, Backend::portable));
  EXPECT_TRUE(contains(portable.describe(), "the portable backend's only kernel")) << portable.describe();
}

}  // namespace
