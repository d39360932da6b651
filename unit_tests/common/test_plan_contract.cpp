// The plan contract (Sprocket_Operator.hpp, "Values"), plan by plan and preconditioner by
// preconditioner:
//  - A's values changed in place, then update_values(A): every apply, in every mode, equals the
//    serial reference with the new values (preconditioners: a fresh setup on the new values);
//  - update_values(B) with B another matrix of A's pattern (its own Views): the plan uses B's
//    values from then on;
//  - between an in-place change and update_values, the modes of one plan agree (the old values
//    everywhere for a plan that copies them, the new everywhere for one that reads A);
//  - a different pattern (another column order, an entry moved, another size) throws
//    InvalidArgument naming update_values;
//  - copies ("Copies"): a copy, made after the original built its caches, given other values by
//    update_values, leaves the original's results alone, and the other way round (copies run
//    concurrently in test_concurrency);
//  - accessors ("Accessors"): backend() resolved, backend_reason() in describe(), options() as
//    requested.
// Inputs drawn from the run's seed; outputs poisoned with NaN before every apply.
//
// No device code here (nvcc refuses extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spgemm.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "precond/precond_test_utils.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"
#include "sddmm/sddmm_test_utils.hpp"
#include "spgemm/spgemm_test_utils.hpp"

namespace {

using namespace Sprocket;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// A's values replaced by fresh random ones (pattern kept), rounded to Scalar.
template <class Scalar>
HostCsr with_new_values(const HostCsr& A, uint64_t salt) {
  HostCsr B = A;
  B.values = test::rounded<Scalar>(test::random_vector(A.nnz(), salt));
  return B;
}

/// The same pattern with the last two entries of its longest row swapped: same row map and
/// entry count, another column order.
HostCsr columns_swapped(const HostCsr& A) {
  HostCsr B = A;
  int64_t longest = 0;
  for (int64_t i = 0; i < A.num_rows; ++i)
    if (A.row_map[i + 1] - A.row_map[i] > A.row_map[longest + 1] - A.row_map[longest]) longest = i;
  const int64_t last = A.row_map[longest + 1] - 1;
  std::swap(B.entries[last], B.entries[last - 1]);
  return B;
}

/// Writes new values into the matrix's own values View (an in-place change).
template <class Matrix>
void overwrite_values(const Matrix& a, const std::vector<double>& values) {
  Kokkos::deep_copy(a.values, test::to_view<typename Matrix::values_type>(values));
}

// ---- plans over CRS, typed over scalar, offset and space ----------------------------------------

template <class Crs>
class PlanContract : public ::testing::Test {};
TYPED_TEST_SUITE(PlanContract, test::CrsTypes);

template <class Crs>
using VectorOf = Kokkos::View<typename Crs::non_const_value_type*, typename Crs::device_type>;
template <class Crs>
using BlockOf = Kokkos::View<typename Crs::non_const_value_type**, Kokkos::LayoutLeft, typename Crs::device_type>;

/// y = 1.5 op(A) x - 0.5 y0 by `plan` against the reference with `expected`'s values.
template <class Scalar, class Plan>
::testing::AssertionResult spmv_agrees(const Plan& plan, const char* mode, const HostCsr& expected, uint64_t salt) {
  using Vec = Kokkos::View<Scalar*, typename Plan::device_type>;
  const bool n = mode[0] == 'N';
  const std::vector<double> x = test::rounded<Scalar>(test::random_vector(n ? expected.num_cols : expected.num_rows, salt));
  const std::vector<double> y0 = test::rounded<Scalar>(test::random_vector(n ? expected.num_rows : expected.num_cols, salt + 1));
  const Vec xv = test::to_view<Vec>(x), yv = test::to_view<Vec>(y0);
  plan.apply(mode, Scalar(1.5), xv, Scalar(-0.5), yv);
  return test::spmv_matches<Scalar>(mode, 1.5, expected, x, -0.5, y0, test::to_host_vector(yv));
}

/// Y = 2 op(A) X (Y poisoned) for 5 columns.
template <class Scalar, class Plan>
::testing::AssertionResult spmm_agrees(const Plan& plan, const char* mode, const HostCsr& expected, uint64_t salt) {
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Plan::device_type>;
  const bool n = mode[0] == 'N';
  HostDense X = test::random_dense(n ? expected.num_cols : expected.num_rows, 5, salt);
  X.data = test::rounded<Scalar>(X.data);
  const MV Xv = test::to_view<MV>(X);
  MV Yv("Y", n ? expected.num_rows : expected.num_cols, 5);
  test::poison(Yv);
  plan.apply(mode, Scalar(2), Xv, Scalar(0), Yv);
  return test::spmm_matches<Scalar>(mode, 2.0, expected, X, 0.0, HostDense(Yv.extent(0), 5, 0.0), test::to_host_dense(Yv));
}

/// The contract for a plan with modes N and T: `check(plan, mode, expected, salt)`.
/// `copies_values`: the plan reads its own copy (old values until update_values).
template <class Crs, class Plan, class Check>
void run_contract(const char* name, const HostCsr& A, bool copies_values, Check check, uint64_t salt) {
  using Scalar = typename Crs::non_const_value_type;
  SCOPED_TRACE(name);
  const Crs a = to_crs<Crs>(A);
  Plan plan(a);
  const HostCsr B = with_new_values<Scalar>(A, salt + 1), C = with_new_values<Scalar>(A, salt + 2);
  for (const char* mode : {"N", "T"}) EXPECT_TRUE(check(plan, mode, A, salt + 10)) << mode << ", at construction";
  // In place, before update_values: both modes on the same values (old for a copy, new for A).
  overwrite_values(a, B.values);
  for (const char* mode : {"N", "T"})
    EXPECT_TRUE(check(plan, mode, copies_values ? A : B, salt + 20)) << mode << ", values changed in place, not updated ("
                                                                    << (copies_values ? "old" : "new") << " expected)";
  plan.update_values(a);
  for (const char* mode : {"N", "T"}) EXPECT_TRUE(check(plan, mode, B, salt + 30)) << mode << ", after update_values(A)";
  // Another matrix of the same pattern, on an execution-space instance.
  const Crs c = to_crs<Crs>(C);
  plan.update_values(typename Crs::execution_space(), c);
  for (const char* mode : {"N", "T"}) EXPECT_TRUE(check(plan, mode, C, salt + 40)) << mode << ", after update_values(C)";
  overwrite_values(a, A.values);  // the first matrix no longer matters...
  if (!copies_values)             // ...and a plan that reads its matrix reads C's
    for (const char* mode : {"N", "T"}) EXPECT_TRUE(check(plan, mode, C, salt + 50)) << mode << ", A changed again";
  // Another pattern.
  const std::string swapped = test::message_of<InvalidArgument>([&] { plan.update_values(to_crs<Crs>(columns_swapped(A))); });
  EXPECT_TRUE(contains(swapped, "update_values") && contains(swapped, "column indices differ")) << swapped;
  const std::string smaller = test::message_of<InvalidArgument>([&] { plan.update_values(to_crs<Crs>(test::random_csr(A.num_rows - 1, A.num_cols, 4, salt + 3))); });
  EXPECT_TRUE(contains(smaller, "update_values") && contains(smaller, "build a new plan")) << smaller;
}

TYPED_TEST(PlanContract, SpmvPlanReadsAsValues) {
  using Scalar = typename TypeParam::non_const_value_type;
  const HostCsr A = test::rounded<Scalar>(test::random_csr(300, 260, 6, 1));
  run_contract<TypeParam, SpmvPlan<TypeParam>>(
      "SpmvPlan", A, false, [](const auto& p, const char* m, const HostCsr& e, uint64_t s) { return spmv_agrees<Scalar>(p, m, e, s); },
      100);
}

TYPED_TEST(PlanContract, SpmmPlanReadsItsCopyInBothModes) {
  using Scalar = typename TypeParam::non_const_value_type;
  const HostCsr A = test::rounded<Scalar>(gen::rmat(9, 8, test::seed_for(2)));  // heavy tiles: a reordered copy
  run_contract<TypeParam, SpmmPlan<TypeParam>>(
      "SpmmPlan", A, true, [](const auto& p, const char* m, const HostCsr& e, uint64_t s) { return spmm_agrees<Scalar>(p, m, e, s); },
      200);
  run_contract<TypeParam, SpmmPlan<TypeParam>>(
      "SpmmPlan, one vector", A, true,
      [](const auto& p, const char* m, const HostCsr& e, uint64_t s) { return spmv_agrees<Scalar>(p, m, e, s); }, 300);
}

TYPED_TEST(PlanContract, PlanOperatorForwardsUpdateValues) {
  using Scalar = typename TypeParam::non_const_value_type;
  using MV = BlockOf<TypeParam>;
  const HostCsr A = test::rounded<Scalar>(test::random_csr(200, 200, 5, 4));
  const HostCsr B = with_new_values<Scalar>(A, 5);
  const TypeParam a = to_crs<TypeParam>(A);
  const auto op = make_operator(SpmmPlan<TypeParam>(a));
  overwrite_values(a, B.values);
  op->update_values(a);
  HostDense X = test::random_dense(200, 3, 6);
  X.data = test::rounded<Scalar>(X.data);
  MV Y("Y", 200, 3);
  test::poison(Y);
  op->apply(test::to_view<MV>(X), Y);
  EXPECT_TRUE(test::spmm_matches<Scalar>("N", 1.0, B, X, 0.0, HostDense(200, 3, 0.0), test::to_host_dense(Y)));
  EXPECT_THROW(op->update_values(to_crs<TypeParam>(columns_swapped(A))), InvalidArgument);
}

TYPED_TEST(PlanContract, SddmmPlanReadsSsValues) {
  using Scalar = typename TypeParam::non_const_value_type;
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutRight, typename TypeParam::device_type>;
  const HostCsr S = test::rounded<Scalar>(test::random_csr(150, 120, 6, 7));
  const HostCsr S2 = with_new_values<Scalar>(S, 8), S3 = with_new_values<Scalar>(S, 9);
  HostDense A = test::random_dense(150, 8, 10), B = test::random_dense(120, 8, 11);
  A.data = test::rounded<Scalar>(A.data);
  B.data = test::rounded<Scalar>(B.data);
  const MV Av = test::to_view<MV>(A), Bv = test::to_view<MV>(B);
  const auto agrees = [&](const SddmmPlan<TypeParam>& plan, const HostCsr& expected) {
    VectorOf<TypeParam> out("out", expected.nnz());
    test::poison(out);
    plan.apply(SddmmForm::scaled, Scalar(1), Av, Bv, Scalar(0), out);
    // The suite's entry-by-entry bound: a NaN left by an entry the plan never wrote fails.
    return test::sddmm_matches<Scalar>(true, 1.0, expected, A, B, 0.0, std::vector<double>(expected.nnz(), 0.0),
                                       test::to_host_vector(out));
  };
  const TypeParam s = to_crs<TypeParam>(S);
  SddmmPlan<TypeParam> plan(s);
  EXPECT_TRUE(agrees(plan, S));
  overwrite_values(s, S2.values);
  EXPECT_TRUE(agrees(plan, S2)) << "the plan reads S's values View";
  plan.update_values(s);
  EXPECT_TRUE(agrees(plan, S2));
  plan.update_values(to_crs<TypeParam>(S3));
  EXPECT_TRUE(agrees(plan, S3)) << "after update_values with another matrix";
  const std::string m = test::message_of<InvalidArgument>([&] { plan.update_values(to_crs<TypeParam>(columns_swapped(S))); });
  EXPECT_TRUE(contains(m, "SddmmPlan::update_values")) << m;
}

// ---- copies and accessors ------------------------------------------------------------------------

/// out = S o (A B^T) by `plan` against the reference with `expected`'s values.
template <class Scalar, class Plan>
::testing::AssertionResult sddmm_agrees(const Plan& plan, const HostCsr& expected, uint64_t salt) {
  using MV = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Plan::device_type>;
  using Vec = Kokkos::View<Scalar*, typename Plan::device_type>;
  HostDense A = test::random_dense(expected.num_rows, 6, salt), B = test::random_dense(expected.num_cols, 6, salt + 1);
  A.data = test::rounded<Scalar>(A.data);
  B.data = test::rounded<Scalar>(B.data);
  Vec out("out", expected.nnz());
  test::poison(out);
  plan.apply(SddmmForm::scaled, Scalar(1), test::to_view<MV>(A), test::to_view<MV>(B), Scalar(0), out);
  return test::sddmm_matches<Scalar>(true, 1.0, expected, A, B, 0.0, std::vector<double>(expected.nnz(), 0.0),
                                     test::to_host_vector(out));
}

/// The copy rule for a plan with modes N and T: a copy made after the original applied in both
/// modes (caches and workspaces built), then given C's values, and an assignment.
template <class Crs, class Plan, class Check>
void run_copies(const char* name, const HostCsr& A, Check check, uint64_t salt) {
  using Scalar = typename Crs::non_const_value_type;
  SCOPED_TRACE(name);
  const HostCsr C = with_new_values<Scalar>(A, salt);
  const Crs a = to_crs<Crs>(A), c = to_crs<Crs>(C);
  Plan original(a);
  for (const char* mode : {"N", "T"}) EXPECT_TRUE(check(original, mode, A, salt + 1)) << mode << ", original";
  Plan copy = original;
  copy.update_values(c);
  for (const char* mode : {"N", "T"}) {
    EXPECT_TRUE(check(copy, mode, C, salt + 2)) << mode << ", the copy after its update_values(C)";
    EXPECT_TRUE(check(original, mode, A, salt + 3)) << mode << ", the original after the copy's update_values(C)";
  }
  Plan assigned(c);
  assigned = original;
  original.update_values(c);
  for (const char* mode : {"N", "T"}) {
    EXPECT_TRUE(check(assigned, mode, A, salt + 4)) << mode << ", an assigned copy after the original's update";
    EXPECT_TRUE(check(original, mode, C, salt + 5)) << mode << ", the original after its update_values(C)";
  }
}

TYPED_TEST(PlanContract, CopiesAreIndependent) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  const HostCsr A = test::rounded<Scalar>(gen::rmat(9, 8, test::seed_for(20)));  // heavy tiles: SpMM reorders
  run_copies<Crs, SpmvPlan<Crs>>(
      "SpmvPlan", A, [](const auto& p, const char* m, const HostCsr& e, uint64_t s) { return spmv_agrees<Scalar>(p, m, e, s); },
      600);
  run_copies<Crs, SpmmPlan<Crs>>(
      "SpmmPlan", A, [](const auto& p, const char* m, const HostCsr& e, uint64_t s) { return spmm_agrees<Scalar>(p, m, e, s); },
      700);
  {
    SCOPED_TRACE("SddmmPlan");
    const HostCsr C = with_new_values<Scalar>(A, 800);
    const Crs a = to_crs<Crs>(A), c = to_crs<Crs>(C);
    const SddmmPlan<Crs> original(a);
    EXPECT_TRUE(sddmm_agrees<Scalar>(original, A, 801));
    SddmmPlan<Crs> copy = original;
    copy.update_values(c);
    EXPECT_TRUE(sddmm_agrees<Scalar>(copy, C, 802));
    EXPECT_TRUE(sddmm_agrees<Scalar>(original, A, 803));
  }
  {
    SCOPED_TRACE("SpgemmPlan");
    const HostCsr B = test::rounded<Scalar>(test::random_csr(A.num_cols, 70, 4, 900));
    const HostCsr C = with_new_values<Scalar>(A, 901);
    const Crs a = to_crs<Crs>(A), c = to_crs<Crs>(C), b = to_crs<Crs>(B);
    SpgemmPlan<Crs> original(a, b);
    const Crs product = original.numeric(a, b);
    EXPECT_TRUE(test::spgemm_matches<Scalar>(A, B, to_host_csr(product), true)) << "the original's first product";
    SpgemmPlan<Crs> copy = original;
    const Crs copy_product = copy.numeric(c, b);
    EXPECT_TRUE(test::spgemm_matches<Scalar>(C, B, to_host_csr(copy_product), true)) << "the copy's first product";
    // The re-runs write into C's that held their right values: poisoned first, so a re-run that
    // wrote nothing (or part) fails.
    test::poison(copy_product.values);
    copy.numeric(c, b, copy_product);
    EXPECT_TRUE(test::spgemm_matches<Scalar>(C, B, to_host_csr(copy_product), true)) << "the copy's re-run";
    test::poison(product.values);
    original.numeric(a, b, product);
    EXPECT_TRUE(test::spgemm_matches<Scalar>(A, B, to_host_csr(product), true)) << "the original's re-run";
  }
}

/// The accessors every plan has, with the same meaning (Sprocket_Operator.hpp, "Accessors").
template <class Plan, class Options>
void expect_accessors(const char* name, const Plan& plan, const Options& requested, Backend expected) {
  SCOPED_TRACE(name);
  EXPECT_EQ(plan.backend(), expected);
  EXPECT_EQ(plan.options().backend, requested.backend) << "options(): as requested";
  EXPECT_FALSE(plan.backend_reason().empty());
  EXPECT_TRUE(contains(plan.describe(), plan.backend_reason())) << plan.describe();
}

TYPED_TEST(PlanContract, EveryPlanHasTheSameAccessors) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  using Space = typename Crs::execution_space;
  const HostCsr A = test::rounded<Scalar>(test::random_csr(90, 90, 5, 30));
  const Crs a = to_crs<Crs>(A);
  // Automatic resolves to the space's native kernels (the test spaces are host spaces).
  const Backend native = Impl::is_host_space_v<Space> ? Backend::native : Backend::portable;
  for (Backend requested : {Backend::automatic, Backend::portable}) {
    const Backend expected = requested == Backend::automatic ? native : Backend::portable;
    SCOPED_TRACE(to_string(requested));
    SpmvOptions spmv;
    spmv.backend = requested;
    expect_accessors("SpmvPlan", SpmvPlan<Crs>(a, spmv), spmv, expected);
    SpmmOptions spmm;
    spmm.backend = requested;
    expect_accessors("SpmmPlan", SpmmPlan<Crs>(a, spmm), spmm, expected);
    SddmmOptions sddmm;
    sddmm.backend = requested;
    expect_accessors("SddmmPlan", SddmmPlan<Crs>(a, sddmm), sddmm, expected);
    SpgemmOptions spgemm;
    spgemm.backend = requested;
    const SpgemmPlan<Crs> product(a, a, spgemm);
    expect_accessors("SpgemmPlan", product, spgemm, expected);
    EXPECT_EQ(product.options().numeric_thresholds.ratio, 0) << "requested: the default, 0";
    EXPECT_GT(product.resolved_options().numeric_thresholds.ratio, 0) << "resolved: the backend's threshold";
    using Bsr = BsrMatrix<Scalar, int, typename Crs::device_type, typename Crs::non_const_size_type>;
    BsrSpmvOptions bsr;
    bsr.backend = requested;
    const BsrSpmvPlan<Bsr> blocks(to_bsr<Bsr>(csr_to_host_bsr(A, 3)), bsr);
    expect_accessors("BsrSpmvPlan", blocks, bsr, expected);
    EXPECT_EQ(blocks.kernel_reason(), blocks.backend_reason());
  }
}

// ---- BSR: every host kernel, with and without the symmetric promise -----------------------------
// Host builds only: a CUDA build's test programs instantiate Cuda types alone.
#ifndef KOKKOS_ENABLE_CUDA

template <class Bsr>
class BsrPlanContract : public ::testing::Test {};
using BsrTypes = ::testing::Types<BsrMatrix<double, int, Kokkos::DefaultHostExecutionSpace::device_type, int>,
                                  BsrMatrix<float, int, Kokkos::DefaultHostExecutionSpace::device_type, size_t>>;
TYPED_TEST_SUITE(BsrPlanContract, BsrTypes);

TYPED_TEST(BsrPlanContract, EveryKernelUsesOneSetOfValuesInBothModes) {
  using Bsr = TypeParam;
  using Scalar = typename Bsr::value_type;
  // Symmetric (elasticity) so that the symmetric kernel and the promise are testable too.
  const HostCsr A = test::rounded<Scalar>(gen::elasticity3d(5, 3, test::seed_for(12)));
  HostCsr B = A;  // new symmetric values: A scaled by a random factor per block pair
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t I = i / 3, J = A.entries[k] / 3;
      B.values[k] = static_cast<double>(static_cast<Scalar>(A.values[k] * (1.0 + 0.01 * double((I + J) % 7))));
    }
  const HostCsr C = with_new_values<Scalar>(A, 13);  // not symmetric
  struct Case {
    const char* name;
    BsrKernel kernel;
    Backend backend;
    bool symmetric, copies;
  };
  uint64_t salt = 400;
  for (const Case& c : {Case{"block_row", BsrKernel::block_row, Backend::native, false, false},
                        Case{"padded", BsrKernel::padded, Backend::native, false, true},
                        Case{"row_per_thread", BsrKernel::row_per_thread, Backend::portable, false, false},
                        Case{"symmetric", BsrKernel::symmetric, Backend::native, true, true},
                        Case{"block_row, declared symmetric", BsrKernel::block_row, Backend::native, true, false}}) {
    SCOPED_TRACE(c.name);
    BsrSpmvOptions o;
    o.kernel = c.kernel;
    o.backend = c.backend;
    o.symmetric = c.symmetric;
    const Bsr a = to_bsr<Bsr>(csr_to_host_bsr(A, 3));
    BsrSpmvPlan<Bsr> plan(a, o);
    ASSERT_EQ(plan.kernel(), c.kernel);
    EXPECT_TRUE(contains(plan.describe(), c.copies ? "values: the plan's copy" : "values: read from A")) << plan.describe();
    overwrite_values(a, csr_to_host_bsr(B, 3).values);
    for (const char* mode : {"N", "T"})
      EXPECT_TRUE(spmv_agrees<Scalar>(plan, mode, c.copies ? A : B, salt += 2)) << mode << ", not updated";
    plan.update_values(a);
    for (const char* mode : {"N", "T"}) EXPECT_TRUE(spmv_agrees<Scalar>(plan, mode, B, salt += 2)) << mode << ", updated";
    if (!c.symmetric) {
      plan.update_values(to_bsr<Bsr>(csr_to_host_bsr(C, 3)));
      for (const char* mode : {"N", "T"}) EXPECT_TRUE(spmv_agrees<Scalar>(plan, mode, C, salt += 2)) << mode << ", C";
    } else {
      EXPECT_THROW(plan.update_values(to_bsr<Bsr>(csr_to_host_bsr(C, 3))), InvalidArgument) << "not symmetric";
    }
    const std::string m = test::message_of<InvalidArgument>(
        [&] { plan.update_values(to_bsr<Bsr>(csr_to_host_bsr(A, 1))); });
    EXPECT_TRUE(contains(m, "BsrSpmvPlan::update_values") && contains(m, "blocks of 1x1")) << m;
  }
}

// A copy of a BSR plan, given other values, leaves the original's copies of the values (padded,
// symmetric) alone.
TYPED_TEST(BsrPlanContract, CopiesAreIndependent) {
  using Bsr = TypeParam;
  using Scalar = typename Bsr::value_type;
  const HostCsr A = test::rounded<Scalar>(gen::elasticity3d(4, 3, test::seed_for(15)));
  HostCsr B = A;  // other symmetric values
  for (double& v : B.values) v = static_cast<double>(static_cast<Scalar>(v * 1.5));
  uint64_t salt = 500;
  for (BsrKernel kernel : {BsrKernel::block_row, BsrKernel::padded, BsrKernel::symmetric}) {
    SCOPED_TRACE(to_string(kernel));
    BsrSpmvOptions o;
    o.kernel = kernel;
    o.backend = Backend::native;
    o.symmetric = kernel == BsrKernel::symmetric;
    const Bsr a = to_bsr<Bsr>(csr_to_host_bsr(A, 3));
    const BsrSpmvPlan<Bsr> original(a, o);
    BsrSpmvPlan<Bsr> copy = original;
    copy.update_values(to_bsr<Bsr>(csr_to_host_bsr(B, 3)));
    for (const char* mode : {"N", "T"}) {
      EXPECT_TRUE(spmv_agrees<Scalar>(copy, mode, B, salt += 2)) << mode << ", the copy";
      EXPECT_TRUE(spmv_agrees<Scalar>(original, mode, A, salt += 2)) << mode << ", the original";
    }
  }
}

#endif  // KOKKOS_ENABLE_CUDA

// ---- preconditioners: update_values(A) equals a fresh setup on A's new values -------------------

template <class Crs>
class PreconditionerContract : public ::testing::Test {};
// A CUDA build tests its own space (its test programs instantiate Cuda types only).
#if !defined(KOKKOS_ENABLE_CUDA) && defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL)
using PreconditionerTypes = ::testing::Types<test::Crs<double, int, Kokkos::OpenMP>, test::Crs<float, size_t, Kokkos::Serial>>;
#else
using PreconditionerTypes = ::testing::Types<test::Crs<double, int, Kokkos::DefaultExecutionSpace>>;
#endif
TYPED_TEST_SUITE(PreconditionerContract, PreconditionerTypes);

/// A symmetric positive definite matrix with new values: the diagonal scaled by random factors in
/// [2, 3] (dominant, so still positive definite), the off-diagonal entries kept (so smoothed
/// aggregation's strength graph and aggregates stay those of a fresh setup).
HostCsr spd_with_new_values(const HostCsr& A, uint64_t salt) {
  HostCsr B = A;
  const std::vector<double> r = test::random_vector(A.num_rows, salt);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] == i) B.values[k] *= 2.5 + 0.5 * r[i];
  return B;
}

TYPED_TEST(PreconditionerContract, UpdateValuesEqualsAFreshSetup) {
  using Crs = TypeParam;
  using Scalar = typename Crs::non_const_value_type;
  using Device = typename Crs::device_type;
  using Bsr = BsrMatrix<Scalar, int, Device, typename Crs::non_const_size_type>;
  const double tol = std::is_same_v<Scalar, float> ? 2e-4 : 1e-10;
  const HostCsr A = test::rounded<Scalar>(gen::poisson2d(12));
  const HostCsr B = test::rounded<Scalar>(spd_with_new_values(A, 14));
  const HostDense X = test::random_dense(A.num_rows, 3, 15);
  using Factory = std::function<std::shared_ptr<Preconditioner<Scalar, Device>>(const Crs&)>;
  // Each kind: its factory, and its update_values through the concrete type the factory returns.
  struct Kind {
    const char* name;
    Factory make;
    std::function<void(Preconditioner<Scalar, Device>&, const Crs&)> update;
  };
  const std::vector<Kind> kinds{
      {"jacobi", [](const Crs& a) { return make_jacobi(a); },
       [](auto& M, const Crs& a) { dynamic_cast<JacobiPreconditioner<Scalar, Device>&>(M).update_values(a); }},
      {"block_jacobi", [](const Crs& a) { return make_block_jacobi(a, 4); },
       [](auto& M, const Crs& a) { dynamic_cast<BlockJacobiPreconditioner<Scalar, Device>&>(M).update_values(a); }},
      {"block_jacobi (BSR)", [](const Crs& a) { return make_block_jacobi(csr_to_bsr<Bsr>(a, 2)); },
       [](auto& M, const Crs& a) {
         dynamic_cast<BlockJacobiPreconditioner<Scalar, Device>&>(M).update_values(csr_to_bsr<Bsr>(a, 2));
       }},
      {"chebyshev", [](const Crs& a) { return make_chebyshev(a); },
       [](auto& M, const Crs& a) { dynamic_cast<ChebyshevPreconditioner<Scalar, Device>&>(M).update_values(a); }},
      {"incomplete_cholesky", [](const Crs& a) { return make_incomplete_cholesky(a); },
       [](auto& M, const Crs& a) { dynamic_cast<IncompleteCholeskyPreconditioner<Scalar, Device>&>(M).update_values(a); }},
      {"incomplete_lu", [](const Crs& a) { return make_incomplete_lu(a); },
       [](auto& M, const Crs& a) { dynamic_cast<IncompleteLuPreconditioner<Scalar, Device>&>(M).update_values(a); }},
      // Two levels: coarse aggregates follow the coarse matrices' values, so a fresh setup on new
      // values may aggregate them otherwise (update_values keeps the setup's aggregates).
      {"smoothed_aggregation",
       [](const Crs& a) {
         SmoothedAggregationOptions o;
         o.coarse_size = 100;
         return make_smoothed_aggregation(a, o);
       },
       [](auto& M, const Crs& a) {
         dynamic_cast<SmoothedAggregationPreconditioner<Scalar, Device>&>(M).update_values(a);
       }},
      {"cholesky", [](const Crs& a) { return make_cholesky(a); },
       [](auto& M, const Crs& a) { dynamic_cast<DirectFactorizationPreconditioner<Scalar, Device>&>(M).update_values(a); }},
      {"lu", [](const Crs& a) { return make_lu(a); },
       [](auto& M, const Crs& a) { dynamic_cast<DirectFactorizationPreconditioner<Scalar, Device>&>(M).update_values(a); }}};
  for (const Kind& k : kinds) {
    SCOPED_TRACE(k.name);
    const Crs a = to_crs<Crs>(A);
    const auto M = k.make(a);
    const HostDense before = test::apply(*M, X);
    overwrite_values(a, B.values);
    EXPECT_LT(test::max_abs_difference(test::apply(*M, X), before), tol * test::max_abs(before))
        << "a preconditioner keeps its setup's values until update_values";
    k.update(*M, a);
    const HostDense updated = test::apply(*M, X), fresh = test::apply(*k.make(to_crs<Crs>(B)), X);
    EXPECT_LT(test::max_abs_difference(updated, fresh), tol * test::max_abs(fresh)) << M->describe();
    EXPECT_GT(test::max_abs_difference(updated, before), 1e-3 * test::max_abs(before)) << "the new values must matter";
    // Another size always throws (Jacobi and block-Jacobi read only diagonal blocks: the size is
    // their pattern).
    EXPECT_THROW(k.update(*M, to_crs<Crs>(gen::poisson2d(11))), InvalidArgument);
  }
}

}  // namespace
