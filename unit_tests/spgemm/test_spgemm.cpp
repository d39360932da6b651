// SpGEMM (Sprocket_Spgemm.hpp): C = A * B through SpgemmPlan on every backend the execution space
// runs (native host kernels, the portable Kokkos kernels), float and double, int and size_t
// offsets, against reference::spgemm (spgemm_test_utils.hpp: the same row map, the same columns
// in order, values within a bound scaled by |A||B| and the row's products). Every product is also
// re-run with new values of A and B (same patterns) into the same C, whose values are poisoned
// (NaN) first, and computed afresh into a second C.
//
// Matrices: rectangular A * B, A * A^T, runs of empty rows in A and in B, single-entry rows of A
// (direct referencing; off when B has unsorted rows), a dense row of A (one row of C reaching
// every row of B), a dense row of B, R-MAT power-law rows (large enough for the parallel path and
// for products-balanced chunks), unsorted columns with duplicates in A and B, products that cancel
// to explicit zeros, FEM-like blocks (B read as column words and runs), rows whose column range is too
// wide for the dense accumulator (hash and global hash), one row, no entries, 0 x 0, inner
// dimension 0. Options: every forced accumulator with direct rows on and off, both balances forced
// per pass, sorted and unsorted output. Each case asserts the path it exists for (row counts per
// accumulator, the balance chosen, the parallel workers, the column words and runs).
//
// Errors: shapes, invalid row maps and columns in A and B, re-run operands and a foreign C,
// invalid options, the memory limit (ResourceError before anything is allocated) and Offset
// overflow (int16_t offsets).
//
// No device code here (nvcc refuses extended lambdas in gtest bodies): plans, deep_copy, mirrors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_Spgemm.hpp"
#include "spgemm_test_utils.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using test::rounded;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

template <class F>
::testing::AssertionResult throws_with(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
  } catch (const Error& e) {
    for (const std::string& n : needles)
      if (!contains(e.what(), n))
        return ::testing::AssertionFailure() << "message \"" << e.what() << "\" lacks \"" << n << "\"";
    return ::testing::AssertionSuccess() << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

/// Writes new values (same count) into a matrix's values View.
template <class Crs>
void set_values(const Crs& M, const std::vector<double>& values) {
  auto h = Kokkos::create_mirror_view(M.values);
  for (size_t k = 0; k < values.size(); ++k) h(k) = static_cast<typename Crs::non_const_value_type>(values[k]);
  Kokkos::deep_copy(M.values, h);
}

std::string name_of(const SpgemmOptions& o) {
  return std::string(to_string(o.backend)) + "/" + to_string(o.accumulator) + (o.direct_rows ? "+direct" : "") + "/" +
         to_string(o.symbolic_balance) + "," + to_string(o.numeric_balance) + (o.sorted ? "/sorted" : "/unsorted");
}

/// The product of A0 and B0 with `options`: first numeric pass, re-run with new values into the
/// same C (poisoned), and a fresh C; each against the reference. Returns the plan's row counts
/// and more through *plan_out when given.
template <class Crs>
::testing::AssertionResult product_ok(const HostCsr& A0, const HostCsr& B0, const SpgemmOptions& options,
                                      uint64_t salt, std::string* describe = nullptr,
                                      SpgemmRowCounts* symbolic_rows = nullptr, SpgemmBalance* balance = nullptr) {
  using Scalar = typename Crs::non_const_value_type;
  const HostCsr A = rounded<Scalar>(A0), B = rounded<Scalar>(B0);
  const Crs a = to_crs<Crs>(A), b = to_crs<Crs>(B);
  SpgemmPlan<Crs> plan(a, b, options);
  if (describe) *describe = plan.describe();
  if (symbolic_rows) *symbolic_rows = plan.symbolic_rows();
  if (balance) *balance = plan.symbolic_balance();
  const test::SpgemmExpected expected = test::spgemm_expected(A, B);
  if (plan.nnz() != expected.product.nnz())
    return ::testing::AssertionFailure() << name_of(options) << ": symbolic nnz " << plan.nnz() << ", expected "
                                         << expected.product.nnz();
  const Crs C = plan.numeric(a, b);
  auto r = test::spgemm_matches<Scalar>(expected, to_host_csr(C), options.sorted);
  if (!r) return r << " (" << name_of(options) << ", first numeric pass)";
  const std::vector<int> columns = to_host_csr(C).entries;

  // New values, same patterns: the values-only re-run into C (poisoned first), then a fresh C.
  const HostCsr A2 = rounded<Scalar>(test::new_values(A, salt + 1)), B2 = rounded<Scalar>(test::new_values(B, salt + 2));
  set_values(a, A2.values);
  set_values(b, B2.values);
  test::poison(C.values);
  plan.numeric(a, b, C);
  const HostCsr rerun = to_host_csr(C);
  if (rerun.entries != columns)
    return ::testing::AssertionFailure() << name_of(options) << ": the re-run changed C's columns";
  const test::SpgemmExpected expected2 = test::spgemm_expected(A2, B2);
  r = test::spgemm_matches<Scalar>(expected2, rerun, options.sorted);
  if (!r) return r << " (" << name_of(options) << ", values-only re-run)";
  const Crs C2 = plan.numeric(a, b);
  r = test::spgemm_matches<Scalar>(expected2, to_host_csr(C2), options.sorted);
  if (!r) return r << " (" << name_of(options) << ", second first pass)";
  if (C2.graph.row_map.data() != C.graph.row_map.data())
    return ::testing::AssertionFailure() << "C's share the plan's row map";
  return ::testing::AssertionSuccess();
}

/// Every option combination on one pair (native: accumulators x direct x balances x sorted;
/// portable: sorted and not). `full` false: automatic and each accumulator forced once.
template <class Crs>
void every_option(const HostCsr& A, const HostCsr& B, uint64_t salt, bool full = true) {
  for (int acc = -1; acc < num_spgemm_accumulators; ++acc)
    for (int direct = 0; direct < 2; ++direct)
      for (int bal = 0; bal < 2; ++bal)
        for (int sorted = 0; sorted < 2; ++sorted) {
          if (!full && (direct == 0 || bal == 1 || sorted == 0)) continue;
          SpgemmOptions o;
          o.accumulator = static_cast<SpgemmAccumulator>(acc);
          o.direct_rows = direct;
          o.symbolic_balance = static_cast<SpgemmBalance>(bal);
          o.numeric_balance = static_cast<SpgemmBalance>(1 - bal);
          o.sorted = sorted;
          EXPECT_TRUE(product_ok<Crs>(A, B, o, salt));
        }
  for (int sorted = 0; sorted < 2; ++sorted) {
    SpgemmOptions o;
    o.backend = Backend::portable;
    o.sorted = sorted;
    EXPECT_TRUE(product_ok<Crs>(A, B, o, salt));
  }
}

int64_t rows_with_products(const SpgemmRowCounts& r) { return r.direct + r.hash + r.dense + r.global_hash; }

template <class Crs>
class SpgemmTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpgemmTest, test::CrsTypes);

// ------------------------------------------------------------------------------------------------
// Shapes and structures

TYPED_TEST(SpgemmTest, RectangularAndTransposed) {
  const HostCsr A = test::random_csr(60, 50, 4, 1), B = test::random_csr(50, 70, 5, 2);
  every_option<TypeParam>(A, B, 3);
  const HostCsr W = test::random_csr(70, 40, 6, 4);
  every_option<TypeParam>(W, transpose(W), 5);
}

TYPED_TEST(SpgemmTest, EmptyRowsInAAndB) {
  const HostCsr A = test::empty_rows_unless(test::random_csr(90, 80, 5, 10), [](int64_t i) { return i % 3 != 0 && (i < 30 || i > 55); });
  const HostCsr B = test::empty_rows_unless(test::random_csr(80, 60, 6, 11), [](int64_t i) { return i % 4 != 1; });
  every_option<TypeParam>(A, B, 12);
}

TYPED_TEST(SpgemmTest, SingleEntryRowsReferenceBDirectly) {
  const HostCsr A = test::single_entry_rows(200, 150, 20), B = test::random_csr(150, 120, 5, 21);
  every_option<TypeParam>(A, B, 22);
  SpgemmRowCounts rows;
  SpgemmOptions o;
  ASSERT_TRUE(product_ok<TypeParam>(A, B, o, 23, nullptr, &rows));
  EXPECT_GT(rows.direct, 40);
  o.direct_rows = false;
  ASSERT_TRUE(product_ok<TypeParam>(A, B, o, 24, nullptr, &rows));
  EXPECT_EQ(rows.direct, 0);
  // B with unsorted rows: direct referencing would copy them unsorted, so it is off.
  const HostCsr U = test::unsorted_with_duplicates(150, 120, 9, 25);
  ASSERT_FALSE(U.is_sorted_and_unique());
  ASSERT_TRUE(product_ok<TypeParam>(A, U, SpgemmOptions{}, 26, nullptr, &rows));
  EXPECT_EQ(rows.direct, 0);
}

TYPED_TEST(SpgemmTest, DenseRowsOfAAndB) {
  const HostCsr A = test::with_dense_row(100, 80, 7, 30), B = test::random_csr(80, 90, 6, 31);
  every_option<TypeParam>(A, B, 32);
  const HostCsr D = test::with_dense_row(80, 300, 3, 33);  // row 3 of B holds every column
  every_option<TypeParam>(A, D, 34);
}

TYPED_TEST(SpgemmTest, PowerLawRowsRunInParallelChunks) {
  const HostCsr R = gen::rmat(9, 8, test::seed_for(40));
  every_option<TypeParam>(R, R, 41, /*full=*/false);
  // Large enough for the workers (not the calling thread alone) and for products-balanced chunks.
  const HostCsr L = gen::rmat(12, 8, test::seed_for(42));
  std::string describe;
  SpgemmBalance balance;
  SpgemmOptions o;
  // The host's thresholds on every space: the CUDA defaults (the paper's) bin only from 28000
  // rows, or 5431 with very long rows, and leave this 4096-row matrix uniform (seen on an H100).
  o.symbolic_thresholds = SpgemmBalanceThresholds{8.0, 2048, 8.0, 2048};
  o.numeric_thresholds = SpgemmBalanceThresholds{4.0, 2048, 4.0, 2048};
  ASSERT_TRUE(product_ok<TypeParam>(L, L, o, 43, &describe, nullptr, &balance));
  if (Kokkos::DefaultHostExecutionSpace().concurrency() > 1 &&
      std::is_same_v<typename TypeParam::execution_space, Kokkos::DefaultHostExecutionSpace>)
    EXPECT_TRUE(contains(describe, "workers")) << describe;
  EXPECT_EQ(balance, SpgemmBalance::binned) << describe;
  o.symbolic_balance = o.numeric_balance = SpgemmBalance::uniform;
  ASSERT_TRUE(product_ok<TypeParam>(L, L, o, 44, nullptr, nullptr, &balance));
  EXPECT_EQ(balance, SpgemmBalance::uniform);
}

TYPED_TEST(SpgemmTest, UnsortedRowsWithDuplicates) {
  const HostCsr A = test::unsorted_with_duplicates(100, 80, 12, 50), B = test::unsorted_with_duplicates(80, 90, 12, 51);
  every_option<TypeParam>(A, B, 52);
}

TYPED_TEST(SpgemmTest, CancellationsStayExplicitZeros) {
  const auto [A, B] = test::cancelling_pair();
  const HostCsr ref = reference::spgemm(A, B);
  ASSERT_TRUE(std::count(ref.values.begin(), ref.values.end(), 0.0) > 0);  // the case exists
  every_option<TypeParam>(A, B, 60);
}

TYPED_TEST(SpgemmTest, FemBlocksFoldIntoColumnWords) {
  const HostCsr E = gen::elasticity3d(4, 3, test::seed_for(70));
  every_option<TypeParam>(E, E, 71, /*full=*/false);
  const HostCsr Band = gen::banded(300, 20, 0.8, test::seed_for(72));
  every_option<TypeParam>(Band, Band, 73, /*full=*/false);
  // The native host plan reads B as column words here (FEM rows: runs of consecutive columns).
  if constexpr (Impl::is_host_space_v<typename TypeParam::execution_space>) {
    using Scalar = typename TypeParam::non_const_value_type;
    const auto a = to_crs<TypeParam>(rounded<Scalar>(E));
    SpgemmPlan<TypeParam> plan(a, a);
    EXPECT_TRUE(plan.analysis().host.b_words != nullptr);  // runs of 9 columns: 3 nodes x 3 unknowns
    EXPECT_TRUE(plan.analysis().host.b_runs != nullptr);
    EXPECT_GT(plan.symbolic_rows().dense, 0);
  }
}

TYPED_TEST(SpgemmTest, WideSparseRowsUseHashTables) {
  // B with 400000 columns and a few entries per row: rows of C spread over a range the dense
  // accumulator would scan in vain (hash), and a dense row of A gathering more keys than a
  // worker's hash table over a range wider than the dense array (global hash).
  const HostCsr A = test::with_dense_row(300, 300, 11, 80), B = test::random_csr(300, 400000, 10, 81);
  SpgemmRowCounts rows;
  ASSERT_TRUE(product_ok<TypeParam>(A, B, SpgemmOptions{}, 82, nullptr, &rows));
  if constexpr (Impl::is_host_space_v<typename TypeParam::execution_space>) {
    EXPECT_GT(rows.hash, 0);
    EXPECT_EQ(rows.global_hash, 1);
  }
  every_option<TypeParam>(A, B, 83, /*full=*/false);
}

TYPED_TEST(SpgemmTest, ForcedAccumulatorsRunEveryRow) {
  const HostCsr A = test::single_entry_rows(120, 100, 90), B = test::random_csr(100, 110, 6, 91);
  for (int acc = 0; acc < num_spgemm_accumulators; ++acc) {
    SpgemmOptions o;
    o.accumulator = static_cast<SpgemmAccumulator>(acc);
    SpgemmRowCounts rows;
    ASSERT_TRUE(product_ok<TypeParam>(A, B, o, 92, nullptr, &rows));
    const int64_t accumulated = rows_with_products(rows) - rows.direct;
    EXPECT_GT(rows.direct, 0);
    if constexpr (Impl::is_host_space_v<typename TypeParam::execution_space>) {
      if (o.accumulator == SpgemmAccumulator::hash) EXPECT_EQ(rows.hash, accumulated);
      if (o.accumulator == SpgemmAccumulator::dense) EXPECT_EQ(rows.dense, accumulated);
      if (o.accumulator == SpgemmAccumulator::global_hash) EXPECT_EQ(rows.global_hash, accumulated);
    }
  }
}

TYPED_TEST(SpgemmTest, TinyAndEmptyShapes) {
  every_option<TypeParam>(test::random_csr(1, 50, 10, 100), test::random_csr(50, 60, 4, 101), 102);
  every_option<TypeParam>(test::no_entries(5, 6), test::random_csr(6, 7, 3, 103), 104);
  every_option<TypeParam>(test::random_csr(5, 6, 3, 105), test::no_entries(6, 7), 106);
  every_option<TypeParam>(test::no_entries(0, 0), test::no_entries(0, 0), 107);
  every_option<TypeParam>(test::no_entries(0, 5), test::random_csr(5, 3, 2, 108), 109);
  every_option<TypeParam>(test::no_entries(4, 0), test::no_entries(0, 3), 110);
}

// ------------------------------------------------------------------------------------------------
// Plan contract: what it reports, memory, errors

TYPED_TEST(SpgemmTest, PlanReportsShapeProductsAndMemory) {
  using Scalar = typename TypeParam::non_const_value_type;
  const HostCsr A = rounded<Scalar>(test::random_csr(80, 60, 5, 120)), B = rounded<Scalar>(test::random_csr(60, 70, 5, 121));
  const auto a = to_crs<TypeParam>(A), b = to_crs<TypeParam>(B);
  SpgemmPlan<TypeParam> plan(a, b);
  int64_t products = 0;
  for (int64_t k = 0; k < A.nnz(); ++k) products += B.row_length(A.entries[k]);
  EXPECT_EQ(plan.products(), products);
  EXPECT_EQ(plan.num_rows(), 80);
  EXPECT_EQ(plan.num_cols(), 70);
  EXPECT_EQ(plan.inner_dimension(), 60);
  const SpgemmMemory& m = plan.memory();
  EXPECT_EQ(m.output_bytes, int64_t(sizeof(typename TypeParam::non_const_size_type)) * 81 +
                                plan.nnz() * int64_t(sizeof(int) + sizeof(Scalar)));
  EXPECT_GE(m.peak_bytes, m.analysis_bytes + m.output_bytes);
  EXPECT_GT(m.limit_bytes, 0);
  const std::string d = plan.describe();
  for (const char* needle : {"SpgemmPlan<", "products", "nnz(C)", "symbolic:", "numeric:", "memory:", "peak"})
    EXPECT_TRUE(contains(d, needle)) << d;
  std::string why;
  plan.symbolic_balance(&why);
  EXPECT_FALSE(why.empty());
  const auto C = Sprocket::spgemm(a, b);
  EXPECT_TRUE(test::spgemm_matches<Scalar>(A, B, to_host_csr(C), true));
}

/// The row analysis's statistics against a serial count, on a small pair (one thread on a host
/// space) and a large one (parallel reductions): single-entry rows of A next to accumulated and
/// empty ones, and a dense row of B reached only by a single-entry row, so that the maxima over
/// every row and over the rows of several entries differ.
TYPED_TEST(SpgemmTest, RowAnalysisMatchesASerialCount) {
  for (const int64_t rows : {120, 6000}) {
    const int64_t inner = rows * 5 / 6, cols = rows * 2 / 3;
    const auto [A, B] = test::single_entry_row_reaches_dense_row(rows, inner, cols, 130 + rows);
    const auto a = to_crs<TypeParam>(A), b = to_crs<TypeParam>(B);
    const SpgemmPlan<TypeParam> plan(a, b);
    const auto& st = plan.analysis().stats;
    Impl::SpgemmRowStats ref;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t products = 0, longest = 0, referencing = 0, lo = cols, hi = -1;
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
        const int64_t j = A.entries[k], len = B.row_length(j);
        if (len == 0) continue;
        products += len;
        ++referencing;
        longest = std::max(longest, len);
        lo = std::min<int64_t>(lo, B.entries[B.row_map[j]]);
        hi = std::max<int64_t>(hi, B.entries[B.row_map[j + 1] - 1]);
      }
      if (products == 0) continue;
      const int64_t range = hi - lo + 1, need = std::min(products, range);
      ref.products += products;
      ref.max_row_products = std::max(ref.max_row_products, products);
      ref.max_row_range = std::max(ref.max_row_range, range);
      ref.max_row_need = std::max(ref.max_row_need, need);
      ref.max_longest_b = std::max(ref.max_longest_b, longest);
      ref.referencing_entries += referencing;
      ++ref.rows_with_products;
      if (A.row_length(i) == 1) {
        ++ref.single_entry_rows;
      } else {
        ref.max_row_need_multi = std::max(ref.max_row_need_multi, need);
        ref.max_row_range_multi = std::max(ref.max_row_range_multi, range);
      }
    }
    ASSERT_EQ(ref.max_row_need, cols) << "the dense row of B is reached";
    ASSERT_LT(ref.max_row_need_multi, cols) << "by a single-entry row only";
    EXPECT_EQ(st.products, ref.products) << rows;
    EXPECT_EQ(st.max_row_products, ref.max_row_products) << rows;
    EXPECT_EQ(st.max_row_range, ref.max_row_range) << rows;
    EXPECT_EQ(st.max_row_need, ref.max_row_need) << rows;
    EXPECT_EQ(st.max_row_need_multi, ref.max_row_need_multi) << rows;
    EXPECT_EQ(st.max_row_range_multi, ref.max_row_range_multi) << rows;
    EXPECT_EQ(st.max_longest_b, ref.max_longest_b) << rows;
    EXPECT_EQ(st.referencing_entries, ref.referencing_entries) << rows;
    EXPECT_EQ(st.rows_with_products, ref.rows_with_products) << rows;
    EXPECT_EQ(st.single_entry_rows, ref.single_entry_rows) << rows;
    EXPECT_TRUE(st.b_rows_sorted) << rows;
  }
}

TYPED_TEST(SpgemmTest, MemoryLimitThrowsBeforeAllocating) {
  const HostCsr A = test::random_csr(200, 200, 20, 130);
  const auto a = to_crs<TypeParam>(A);
  for (const Backend backend : {Backend::native, Backend::portable}) {
    SpgemmOptions o;
    o.backend = backend;
    o.memory_limit_bytes = 1000;  // not even the row analysis fits
    try {
      SpgemmPlan<TypeParam> plan(a, a, o);
      ADD_FAILURE() << "no ResourceError";
    } catch (const ResourceError& e) {
      EXPECT_TRUE(contains(e.what(), "limit of 1000 bytes")) << e.what();
      EXPECT_TRUE(contains(e.what(), "row analysis")) << e.what();
      EXPECT_GT(e.bytes_needed(), 1000);
      EXPECT_EQ(e.bytes_available(), 1000);
    }
    // Enough for the analysis, not for C (about 30000 entries of C).
    SpgemmOptions no_limit;
    no_limit.backend = backend;
    SpgemmPlan<TypeParam> unlimited(a, a, no_limit);
    o.memory_limit_bytes = unlimited.memory().analysis_bytes + unlimited.memory().symbolic_bytes +
                           unlimited.memory().workspace_bytes + 4096;
    try {
      SpgemmPlan<TypeParam> plan(a, a, o);
      ADD_FAILURE() << "no ResourceError";
    } catch (const ResourceError& e) {
      EXPECT_GT(e.bytes_needed(), o.memory_limit_bytes);
      EXPECT_TRUE(contains(e.what(), "needs")) << e.what();
    }
    // A limit at the plan's own peak passes.
    o.memory_limit_bytes = unlimited.memory().peak_bytes;
    EXPECT_NO_THROW((SpgemmPlan<TypeParam>(a, a, o)));
  }
}

/// A's pattern with the last entry of its first non-empty row given a column that row lacks (the
/// row kept sorted): the same shape, row map and nnz, other column indices.
HostCsr with_a_column_moved(HostCsr A) {
  for (int64_t i = 0; i < A.num_rows; ++i) {
    const auto first = A.entries.begin() + A.row_map[i], last = A.entries.begin() + A.row_map[i + 1];
    if (first == last) continue;
    for (int c = 0; c < A.num_cols; ++c)
      if (std::find(first, last, c) == last) {
        *(last - 1) = c;
        std::sort(first, last);
        return A;
      }
  }
  throw std::logic_error("with_a_column_moved: no row with a free column");
}

/// A's pattern with the last entry of its first row of two or more entries moved to the start of
/// the next row: the same shape, column indices and nnz, another row map.
HostCsr with_an_entry_in_the_next_row(HostCsr A) {
  for (int64_t i = 0; i + 1 < A.num_rows; ++i)
    if (A.row_length(i) >= 2) {
      --A.row_map[i + 1];
      return A;
    }
  throw std::logic_error("with_an_entry_in_the_next_row: no row of two entries");
}

TYPED_TEST(SpgemmTest, InvalidInputsThrowWithSizes) {
  const auto a = to_crs<TypeParam>(test::random_csr(3, 4, 2, 140));
  const auto b = to_crs<TypeParam>(test::random_csr(5, 6, 2, 141));
  EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(a, b); }, {"A is 3 x 4", "B is 5 x 6"}));

  // A column outside B's rows, in A; then one outside B's columns, in B.
  auto bad_a = to_crs<TypeParam>(test::random_csr(6, 4, 2, 142));
  {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bad_a.graph.entries);
    h(3) = 9;
    Kokkos::deep_copy(bad_a.graph.entries, h);
  }
  const auto b4 = to_crs<TypeParam>(test::random_csr(4, 5, 2, 143));
  const auto a36 = to_crs<TypeParam>(test::random_csr(3, 6, 3, 147));
  for (const Backend backend : {Backend::native, Backend::portable}) {
    SpgemmOptions o;
    o.backend = backend;
    EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(bad_a, b4, o); }, {"A (6 x 4)", "column 9", "outside [0, 4)"}));
    EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(a36, bad_a, o); }, {"B (6 x 4)", "column 9"}));
  }
  // A row map that decreases.
  auto broken = to_crs<TypeParam>(test::random_csr(6, 6, 3, 144));
  {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), broken.graph.row_map);
    using Offset = typename TypeParam::non_const_size_type;
    Kokkos::View<Offset*, typename TypeParam::device_type> rm("rm", h.extent(0));
    auto hm = Kokkos::create_mirror_view(rm);
    for (size_t i = 0; i < h.extent(0); ++i) hm(i) = h(i);
    hm(3) = hm(4) + 1;
    Kokkos::deep_copy(rm, hm);
    broken = TypeParam("broken", 6, 6, broken.nnz(), broken.values, rm, broken.graph.entries);
  }
  EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(broken, broken); }, {"row map is invalid at row"}));

  // Re-runs: operands of another shape, a C this plan did not make.
  using Scalar = typename TypeParam::non_const_value_type;
  const HostCsr hs = test::rounded<Scalar>(test::random_csr(6, 6, 3, 145));
  const auto s = to_crs<TypeParam>(hs);
  // Another shape, and the same shape with another nnz.
  const auto wider = to_crs<TypeParam>(test::random_csr(6, 7, 2, 146));
  ASSERT_GT(s.nnz(), 0u);
  const auto empty = to_crs<TypeParam>(test::no_entries(6, 6));
  SpgemmPlan<TypeParam> plan(s, s);
  EXPECT_TRUE(throws_with([&] { plan.numeric(s, wider); }, {"SpgemmPlan::numeric", "the plan analysed"}));
  EXPECT_TRUE(throws_with([&] { plan.numeric(s, empty); }, {"SpgemmPlan::numeric", "the plan analysed"}));
  const auto foreign = Sprocket::spgemm(s, s);
  EXPECT_TRUE(throws_with([&] { plan.numeric(s, s, foreign); }, {"not a product of this plan"}));
  // The same shape and nnz with another pattern, as A and as B: a column moved within its row,
  // an entry moved to the next row (the row map differs).
  const HostCsr column_moved = with_a_column_moved(hs), row_moved = with_an_entry_in_the_next_row(hs);
  ASSERT_EQ(column_moved.nnz(), hs.nnz());
  ASSERT_EQ(row_moved.nnz(), hs.nnz());
  const auto s_column = to_crs<TypeParam>(column_moved), s_row = to_crs<TypeParam>(row_moved);
  const TypeParam product = plan.numeric(s, s);
  EXPECT_TRUE(throws_with([&] { plan.numeric(s_column, s); }, {"SpgemmPlan::numeric", "A's column indices differ"}));
  EXPECT_TRUE(throws_with([&] { plan.numeric(s, s_column); }, {"SpgemmPlan::numeric", "B's column indices differ"}));
  EXPECT_TRUE(throws_with([&] { plan.numeric(s_row, s); }, {"SpgemmPlan::numeric", "A's row map differs"}));
  EXPECT_TRUE(throws_with([&] { plan.numeric(s, s_row, product); }, {"SpgemmPlan::numeric", "B's row map differs"}));
  // The analysed pattern in Views of its own (new values) is accepted.
  const HostCsr renewed = test::new_values(hs, 148);
  const auto s_renewed = to_crs<TypeParam>(renewed);
  test::poison(product.values);
  plan.numeric(s_renewed, s_renewed, product);
  EXPECT_TRUE(test::spgemm_matches<Scalar>(renewed, renewed, to_host_csr(product), true));

  // Options.
  SpgemmOptions o;
  o.accumulator = static_cast<SpgemmAccumulator>(7);
  EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(s, s, o); }, {"is not an SpgemmAccumulator"}));
  o = {};
  o.numeric_balance = static_cast<SpgemmBalance>(5);
  EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(s, s, o); }, {"SpgemmBalance"}));
  o = {};
  o.threads_per_b_row = 3;
  EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(s, s, o); }, {"threads_per_b_row = 3"}));
  o = {};
  o.memory_limit_bytes = -1;
  EXPECT_TRUE(throws_with([&] { SpgemmPlan<TypeParam> p(s, s, o); }, {"memory_limit_bytes = -1"}));
}

// ------------------------------------------------------------------------------------------------
// Not typed: names, Offset overflow, shared matrices

TEST(SpgemmNames, RoundTrip) {
  for (int a = -1; a < num_spgemm_accumulators; ++a) {
    const auto acc = static_cast<SpgemmAccumulator>(a);
    EXPECT_EQ(spgemm_accumulator_from_string(to_string(acc)), acc);
  }
  EXPECT_EQ(spgemm_balance_from_string("binned"), SpgemmBalance::binned);
  EXPECT_EQ(spgemm_balance_from_string("auto"), SpgemmBalance::automatic);
  EXPECT_THROW(spgemm_accumulator_from_string("sort"), InvalidArgument);
  EXPECT_THROW(spgemm_balance_from_string("static"), InvalidArgument);
}

// Host builds only (int16_t offsets are outside the compiled combinations, so the plan comes from
// the headers): a CUDA build's test programs instantiate Cuda types alone.
#ifndef KOKKOS_ENABLE_CUDA
TEST(SpgemmOverflow, NnzOfCBeyondTheOffsetTypeThrows) {
  // 300 x 1 times 1 x 300: 600 entries in, 90000 out; int16_t offsets hold 32767.
  using Crs16 = KokkosSparse::CrsMatrix<double, int, Kokkos::DefaultHostExecutionSpace, void, int16_t>;
  HostCsr col = test::no_entries(300, 1), row = test::no_entries(1, 300);
  for (int i = 0; i < 300; ++i) {
    col.entries.push_back(0);
    col.values.push_back(1.0 + i % 3);
    col.row_map[i + 1] = i + 1;
    row.entries.push_back(i);
    row.values.push_back(0.5);
  }
  row.row_map[1] = 300;
  const auto a = to_crs<Crs16>(col), b = to_crs<Crs16>(row);
  for (const Backend backend : {Backend::native, Backend::portable}) {
    SpgemmOptions o;
    o.backend = backend;
    EXPECT_TRUE(throws_with([&] { SpgemmPlan<Crs16> p(a, b, o); }, {"nnz(C) is 90000", "32767", "size_t offsets"}));
  }
  // 100 x 1 times 1 x 300 (30000 entries) fits: the same types work.
  HostCsr shorter = test::no_entries(100, 1);
  for (int i = 0; i < 100; ++i) {
    shorter.entries.push_back(0);
    shorter.values.push_back(2.0);
    shorter.row_map[i + 1] = i + 1;
  }
  const auto s = to_crs<Crs16>(shorter);
  SpgemmPlan<Crs16> plan(s, b);
  EXPECT_TRUE(test::spgemm_matches<double>(shorter, row, to_host_csr(plan.numeric(s, b)), true));
}
#endif  // KOKKOS_ENABLE_CUDA

// The build's own space: a CUDA build runs its kernels (and the portable ones on the GPU) on the
// real matrices.
using SharedCrs = test::Crs<double, int, Kokkos::DefaultExecutionSpace>;

TEST(SpgemmShared, SquaresOfSharedMatricesMatchTheReference) {
  for (const char* name : {"west0479", "rajat01", "bcsstk16", "nasa2910", "crystm01", "hor_131", "sherman5"}) {
    const HostCsr A = read_matrix_market(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz");
    SCOPED_TRACE(name);
    SpgemmOptions o;
    EXPECT_TRUE(product_ok<SharedCrs>(A, A, o, 150));
    o.backend = Backend::portable;
    EXPECT_TRUE(product_ok<SharedCrs>(A, A, o, 151));
  }
}

}  // namespace
