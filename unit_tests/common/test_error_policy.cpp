// The error policy (README, "Error policy"), entry point by entry point: every public function of
// src/*.hpp refuses the inputs a user gets wrong with the documented exception type and a message
// that names the sizes involved. Inputs tried: mismatched extents of x / y and B / C, a layout the
// entry point cannot take, bad option values, unsupported modes, block sizes out of range, and
// CSR / BSR matrices that break their invariants (row map not starting at 0 or decreasing, a
// column index out of range, a row map that does not end at the number of entries).
//
// The exception type is checked exactly (typeid), not through its base: a ParseError where an
// InvalidArgument is promised fails. Host execution space only (the checks are the same code on
// every space), so CUDA configurations do not build it (HOST_ONLY, unit_tests/CMakeLists.txt). No
// device code here.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_MatrixStats.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spgemm.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "Sprocket_Validate.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using Device = Kokkos::DefaultHostExecutionSpace::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using Bsr = BsrMatrix<double, int, Device, int>;
using Vector = Kokkos::View<double*, Device>;
using Block = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
using RowMajor = Kokkos::View<double**, Kokkos::LayoutRight, Device>;

/// f() must throw exactly E (not a base, not a sibling) whose what() contains every needle.
template <class E, class F>
::testing::AssertionResult throws(F&& f, const std::vector<std::string>& needles) {
  try {
    f();
  } catch (const std::exception& e) {
    if (typeid(e) != typeid(E))
      return ::testing::AssertionFailure() << "threw " << typeid(e).name() << " instead of " << typeid(E).name()
                                           << ": " << e.what();
    const std::string what = e.what();
    for (const std::string& needle : needles)
      if (what.find(needle) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << what << "\" lacks \"" << needle << "\"";
    return ::testing::AssertionSuccess() << what;
  }
  return ::testing::AssertionFailure() << "did not throw";
}

template <class F>
::testing::AssertionResult invalid(F&& f, const std::vector<std::string>& needles) {
  return throws<InvalidArgument>(std::forward<F>(f), needles);
}

/// A CrsMatrix over exactly these arrays, unchecked (Kokkos Kernels' constructor only refuses a
/// row map whose extent is not rows + 1). Values 1 unless given.
Crs raw_crs(int rows, int cols, const std::vector<int>& row_map, const std::vector<int>& entries,
            std::vector<double> values = {}) {
  if (values.empty()) values.assign(entries.size(), 1.0);
  Kokkos::View<int*, Device> r("r", row_map.size()), e("e", entries.size());
  Vector v("v", values.size());
  for (size_t i = 0; i < row_map.size(); ++i) r(i) = row_map[i];
  for (size_t k = 0; k < entries.size(); ++k) e(k) = entries[k];
  for (size_t k = 0; k < values.size(); ++k) v(k) = values[k];
  return Crs("A", rows, cols, static_cast<int>(entries.size()), v, r, e);
}

/// A BsrMatrix over exactly these arrays (the constructor checks extents only).
Bsr raw_bsr(int block_rows, int block_cols, int b, const std::vector<int>& row_map, const std::vector<int>& entries) {
  Kokkos::View<int*, Device> r("r", row_map.size()), e("e", entries.size());
  Vector v("v", entries.size() * b * b);
  for (size_t i = 0; i < row_map.size(); ++i) r(i) = row_map[i];
  for (size_t k = 0; k < entries.size(); ++k) e(k) = entries[k];
  Kokkos::deep_copy(v, 1.0);
  return Bsr(block_rows, block_cols, b, r, e, v);
}

/// 3 x 3 matrices, each breaking one CSR invariant, and what the message must say about it.
struct BadCsr {
  std::string broken;
  Crs A;
  std::string needle;
};
std::vector<BadCsr> bad_csrs() {
  return {
      {"column index out of range", raw_crs(3, 3, {0, 1, 2, 3}, {0, 5, 2}),
       "column index 5 at position 1 outside [0, 3)"},
      {"row map decreasing", raw_crs(3, 3, {0, 2, 1, 3}, {0, 1, 2}), "row_map decreases at row 1 (2 > 1)"},
      {"row map not from 0", raw_crs(3, 3, {1, 2, 3, 3}, {0, 1, 2}), "row_map(0) = 1, expected 0"},
      {"nnz above the entries", raw_crs(3, 3, {0, 1, 2, 4}, {0, 1, 2}), "row_map(3) = 4 but there are 3 column indices"},
      {"values short of the entries", raw_crs(3, 3, {0, 1, 2, 3}, {0, 1, 2}, {1.0, 1.0}),
       "row_map(3) = 3 but there are 3 column indices and 2 values"},
  };
}

/// Every bad CSR given to f throws InvalidArgument starting with `who` and naming the violation.
template <class F>
void expect_refuses_bad_csrs(const std::string& who, F&& f) {
  for (const BadCsr& bad : bad_csrs())
    EXPECT_TRUE(invalid([&] { f(bad.A); }, {who + ": ", bad.needle})) << who << ", " << bad.broken;
}

/// 2 x 2 blocks of 2 x 2, each breaking one BSR invariant.
struct BadBsr {
  std::string broken;
  Bsr A;
  std::string needle;
};
std::vector<BadBsr> bad_bsrs() {
  return {
      {"block column out of range", raw_bsr(2, 2, 2, {0, 1, 2}, {0, 4}),
       "block column index 4 at position 1 outside [0, 2)"},
      {"row map decreasing", raw_bsr(2, 2, 2, {0, 2, 1}, {0, 1}), "row_map decreases at row 1 (2 > 1)"},
      {"nnz above the blocks", raw_bsr(2, 2, 2, {0, 1, 3}, {0, 1}), "row_map(2) = 3 but there are 2 block column indices"},
  };
}

template <class F>
void expect_refuses_bad_bsrs(const std::string& who, F&& f) {
  for (const BadBsr& bad : bad_bsrs())
    EXPECT_TRUE(invalid([&] { f(bad.A); }, {who + ": ", bad.needle})) << who << ", " << bad.broken;
}

/// A broken HostCsr of each kind (from a valid 3 x 3 one).
std::vector<std::pair<HostCsr, std::string>> bad_host_csrs() {
  const HostCsr good = test::csr_from_dense(3, 3, {1, 2, 0, 0, 3, 0, 4, 0, 5});
  std::vector<std::pair<HostCsr, std::string>> out;
  HostCsr bad = good;
  bad.entries[1] = 7;
  out.push_back({bad, "column index 7 at position 1 outside [0, 3)"});
  bad = good;
  bad.row_map[1] = 4;
  out.push_back({bad, "row_map decreases at row 1 (4 > 3)"});
  bad = good;
  bad.row_map.back() = 6;
  out.push_back({bad, "row_map(3) = 6 but there are 5 column indices"});
  bad = good;
  bad.values.pop_back();
  out.push_back({bad, "row_map(3) = 5 but there are 5 column indices and 4 values"});
  bad = good;
  bad.row_map.pop_back();
  out.push_back({bad, "row_map has 3 offsets, expected rows + 1 = 4"});
  return out;
}

Crs poisson(int64_t n) { return to_crs<Crs>(gen::poisson2d(n)); }

}  // namespace

TEST(ErrorPolicy, ExceptionTypes) {
  // Everything Sprocket throws is a Sprocket::Error; ParseError and ResourceError carry fields.
  static_assert(std::is_base_of_v<Error, InvalidArgument> && std::is_base_of_v<Error, ParseError> &&
                std::is_base_of_v<Error, ResourceError> && std::is_base_of_v<std::runtime_error, Error>);
  const ParseError p("m.mtx", 7, "bad size line");
  EXPECT_STREQ(p.what(), "m.mtx:7: bad size line");
  EXPECT_EQ(p.file(), "m.mtx");
  EXPECT_EQ(p.line(), 7);
  const ResourceError r("x: needs 10 bytes", 10, 4);
  EXPECT_EQ(r.bytes_needed(), 10);
  EXPECT_EQ(r.bytes_available(), 4);
  EXPECT_TRUE(invalid([] { parse_mode("C"); }, {"mode \"C\" is not supported", "\"N\" or \"T\""}));
  EXPECT_TRUE(invalid([] { backend_from_string("gpu"); }, {"unknown backend \"gpu\"", "automatic, portable, native"}));
}

TEST(ErrorPolicy, MatrixMarketReader) {
  const std::string banner = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_TRUE(throws<ParseError>([&] { read_matrix_market_string(banner + "3 3 1\n4 1 1.0\n", "m.mtx"); },
                                 {"m.mtx:3:", "row index 4 out of range [1, 3]"}));
  EXPECT_TRUE(throws<ParseError>([&] { read_matrix_market_string(banner + "3 3 1\n1 0 1.0\n", "m.mtx"); },
                                 {"m.mtx:3:", "column index 0 out of range [1, 3]"}));
  EXPECT_TRUE(throws<ParseError>([&] { read_matrix_market_string(banner + "3 3 2\n1 1 1.0\n", "m.mtx"); },
                                 {"m.mtx:", "2 entries", "found 1"}));
  EXPECT_TRUE(throws<ParseError>([&] { read_matrix_market_string(banner + "3 3 1\n1 1 1.0\n2 2 1.0\n", "m.mtx"); },
                                 {"m.mtx:4:", "more entries than the 1 declared"}));
  EXPECT_TRUE(throws<ParseError>(
      [] { read_matrix_market_string("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "d.mtx"); },
      {"d.mtx:1:", "unsupported format 'array'"}));
  EXPECT_TRUE(throws<ParseError>(
      [] { read_matrix_market_string("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "s.mtx"); },
      {"s.mtx:2:", "must be square", "2 x 3"}));
  EXPECT_TRUE(throws<ParseError>([] { read_matrix_market("/nonexistent/sprocket/m.mtx"); },
                                 {"/nonexistent/sprocket/m.mtx:0:", "cannot open file"}));
}

TEST(ErrorPolicy, MatrixMarketWriter) {
  const std::string path = ::testing::TempDir() + "sprocket_error_policy.mtx";
  for (const auto& item : bad_host_csrs()) {
    // Named references, not structured bindings: lambdas capturing those are C++20 (nvcc warns).
    const auto& bad = item.first;
    const auto& needle = item.second;
    EXPECT_TRUE(invalid([&] { write_matrix_market(path, bad); }, {"HostCsr: ", needle}));
  }
  const HostCsr nonsymmetric = test::csr_from_dense(2, 2, {1, 2, 0, 1});
  EXPECT_TRUE(invalid([&] { write_matrix_market(path, nonsymmetric, MatrixMarketSymmetry::symmetric); },
                      {"(0, 1)", "(1, 0)"}));
  const HostCsr rectangular = test::csr_from_dense(2, 3, {1, 0, 0, 0, 1, 0});
  EXPECT_TRUE(invalid([&] { write_matrix_market(path, rectangular, MatrixMarketSymmetry::symmetric); }, {"2 x 3"}));
  EXPECT_TRUE(throws<Error>([&] { write_matrix_market("/nonexistent/sprocket/out.mtx", nonsymmetric); },
                            {"/nonexistent/sprocket/out.mtx"}));
}

TEST(ErrorPolicy, GeneratorsAndSpecs) {
  EXPECT_TRUE(invalid([] { gen::poisson2d(0); }, {"poisson2d: n must be at least 1 (got 0)"}));
  EXPECT_TRUE(invalid([] { gen::poisson2d(4, 7); }, {"poisson2d: points must be 5 or 9 (got 7)"}));
  EXPECT_TRUE(invalid([] { gen::poisson3d(4, 8); }, {"poisson3d: points must be 7 or 27 (got 8)"}));
  EXPECT_TRUE(invalid([] { gen::elasticity3d(2, 65); }, {"elasticity3d: dof must be in [1, 64] (got 65)"}));
  EXPECT_TRUE(invalid([] { gen::banded(10, 2, 1.5); }, {"banded: fill must be in [0, 1] (got 1.5)"}));
  EXPECT_TRUE(invalid([] { gen::uniform_random(10, 8, 9.0); }, {"uniform", "9", "8"}));
  EXPECT_TRUE(invalid([] { gen::rmat(31); }, {"rmat: scale must be in [1, 30] (got 31)"}));
  // Specifications: ParseError with the specification as the file and line 0.
  EXPECT_TRUE(throws<ParseError>([] { gen::from_spec("gen:poisson2d:n=0"); }, {"gen:poisson2d:n=0:0:", "n"}));
  EXPECT_TRUE(throws<ParseError>([] { gen::from_spec("gen:nope:n=3"); }, {"gen:nope:n=3:0:", "nope"}));
  EXPECT_TRUE(throws<ParseError>([] { gen::from_spec("gen:poisson2d:m=3"); }, {"gen:poisson2d:m=3:0:", "m"}));
  EXPECT_TRUE(throws<ParseError>([] { gen::from_spec("gen:poisson2d:n=abc"); }, {"gen:poisson2d:n=abc:0:", "abc"}));
  EXPECT_TRUE(throws<ParseError>([] { gen::from_spec("poisson2d:n=3"); }, {"starts with 'gen:'"}));
  EXPECT_TRUE(throws<ParseError>([] { load_matrix("gen:poisson3d:n=4,points=8"); }, {"gen:poisson3d:n=4,points=8:0:"}));
  EXPECT_TRUE(throws<ParseError>([] { load_matrix("/nonexistent/sprocket/m.mtx"); }, {"cannot open file"}));
  // What cannot fit is refused before it is allocated, naming the bytes.
  set_host_memory_limit(1 << 20);
  EXPECT_TRUE(throws<ResourceError>([] { gen::poisson2d(1000); }, {"needs ", " bytes, more than the 1048576 bytes"}));
  set_host_memory_limit(0);
}

TEST(ErrorPolicy, HostMemoryCeiling) {
  EXPECT_TRUE(invalid([] { set_host_memory_limit(-5); }, {"set_host_memory_limit: -5 bytes"}));
  const int64_t huge = int64_t{1} << 62;
  try {
    require_host_memory(huge, "a test allocation");
    ADD_FAILURE() << "2^62 bytes were allowed";
  } catch (const ResourceError& e) {
    EXPECT_EQ(e.bytes_needed(), huge);
    EXPECT_NE(std::string(e.what()).find("a test allocation: needs 4611686018427387904 bytes"), std::string::npos)
        << e.what();
  }
}

TEST(ErrorPolicy, HostCsrConstructionAndValidation) {
  EXPECT_TRUE(invalid([] { HostCsr::from_triplets(2, 2, {{2, 0, 1.0}}); }, {"from_triplets: entry (2, 0) outside 2 x 2"}));
  EXPECT_TRUE(invalid([] { HostCsr::from_triplets(2, 2, {{0, -1, 1.0}}); }, {"entry (0, -1) outside 2 x 2"}));
  EXPECT_TRUE(invalid([] { HostCsr::from_triplets(-1, 2, {}); }, {"from_triplets: negative dimensions -1 x 2"}));
  EXPECT_TRUE(invalid([] { HostCsr::from_triplets(int64_t{3} << 31, 2, {}); },
                      {"6442450944 x 2 does not fit 32-bit ordinals"}));
  for (const auto& item : bad_host_csrs()) {
    const auto& bad = item.first;
    const auto& needle = item.second;
    EXPECT_TRUE(invalid([&] { bad.validate(); }, {"HostCsr: ", needle}));
    // Host -> device: to_crs checks the HostCsr first.
    EXPECT_TRUE(invalid([&] { to_crs<Crs>(bad); }, {"HostCsr: ", needle}));
  }
  // The same checks for HostBsr.
  HostBsr hb;
  hb.block_size = 2;
  hb.num_block_rows = 2;
  hb.num_block_cols = 2;
  hb.row_map = {0, 1, 2};
  hb.entries = {0, 3};
  hb.values.assign(8, 1.0);
  EXPECT_TRUE(invalid([&] { hb.validate(); }, {"HostBsr: block column index 3 at position 1 outside [0, 2)"}));
  hb.entries = {0, 1};
  hb.values.pop_back();
  EXPECT_TRUE(invalid([&] { hb.validate(); }, {"HostBsr: 7 values for 2 blocks of 2x2 (expected 8)"}));
}

TEST(ErrorPolicy, ValidateCrsAndBsr) {
  expect_refuses_bad_csrs("validate", [](const Crs& A) { Sprocket::validate(A); });
  expect_refuses_bad_csrs("mine", [](const Crs& A) { Sprocket::validate(A, "mine"); });
  EXPECT_NO_THROW(Sprocket::validate(poisson(3)));
  EXPECT_NO_THROW(Sprocket::validate(Crs()));
  expect_refuses_bad_bsrs("validate", [](const Bsr& A) { Sprocket::validate(A); });
  EXPECT_NO_THROW(Sprocket::validate(csr_to_bsr<Bsr>(poisson(4), 2)));
  EXPECT_NO_THROW(Sprocket::validate(Bsr()));
}

TEST(ErrorPolicy, DeviceToHostCsr) {
  // to_host_csr reads A through its row map: it checks before it reads.
  expect_refuses_bad_csrs("to_host_csr", [](const Crs& A) { to_host_csr(A); });
}

TEST(ErrorPolicy, CsrBsrConversions) {
  expect_refuses_bad_csrs("csr_to_bsr", [](const Crs& A) { csr_to_bsr<Bsr>(A, 1); });
  const Crs A = poisson(4);  // 16 x 16
  EXPECT_TRUE(invalid([&] { csr_to_bsr<Bsr>(A, 0); }, {"csr_to_bsr: block size 0 outside [1, 32]"}));
  EXPECT_TRUE(invalid([&] { csr_to_bsr<Bsr>(A, 33); }, {"csr_to_bsr: block size 33 outside [1, 32]"}));
  EXPECT_TRUE(invalid([&] { csr_to_bsr<Bsr>(A, 3); }, {"csr_to_bsr: matrix 16 x 16 is not a multiple of block size 3"}));
  EXPECT_TRUE(invalid([&] { csr_to_host_bsr(to_host_csr(A), 5); }, {"16 x 16", "block size 5"}));
  for (const auto& item : bad_host_csrs()) {
    const auto& bad = item.first;
    const auto& needle = item.second;
    EXPECT_TRUE(invalid([&] { csr_to_host_bsr(bad, 1); }, {"HostCsr: ", needle}));
  }
  EXPECT_TRUE(invalid([&] { detect_block_size(to_host_csr(A), 0); }, {"detect_block_size: max_block_size 0 outside [1, 32]"}));
  // BsrMatrix's constructor: block size and extents.
  Kokkos::View<int*, Device> r("r", 3), e("e", 2);
  Vector v8("v", 8), v7("v", 7);
  EXPECT_TRUE(invalid([&] { Bsr(2, 2, 0, r, e, v8); }, {"BsrMatrix: block size 0 outside [1, 32]"}));
  EXPECT_TRUE(invalid([&] { Bsr(2, 2, 40, r, e, v8); }, {"BsrMatrix: block size 40 outside [1, 32]"}));
  EXPECT_TRUE(invalid([&] { Bsr(3, 2, 2, r, e, v8); }, {"BsrMatrix: row_map has 3 entries, expected 4"}));
  EXPECT_TRUE(invalid([&] { Bsr(2, 2, 2, r, e, v7); }, {"BsrMatrix: 7 values for 2 blocks of 2x2"}));
  // BSR contents: every conversion checks before it reads.
  expect_refuses_bad_bsrs("bsr_to_csr", [](const Bsr& B) { bsr_to_csr<Crs>(B); });
  expect_refuses_bad_bsrs("to_host_bsr", [](const Bsr& B) { to_host_bsr(B); });
  HostBsr hb = to_host_bsr(csr_to_bsr<Bsr>(A, 2));
  hb.entries[0] = 8;  // 8 x 8 blocks: block column 8 is out of range
  EXPECT_TRUE(invalid([&] { to_bsr<Bsr>(hb); }, {"to_bsr: block column index 8 at position 0 outside [0, 8)"}));
  EXPECT_TRUE(invalid([&] { host_bsr_to_csr(hb); }, {"bsr_to_csr: block column index 8 at position 0 outside [0, 8)"}));
}

TEST(ErrorPolicy, CsrUtilities) {
  expect_refuses_bad_csrs("sort_rows", [](const Crs& A) { sort_rows(A); });
  expect_refuses_bad_csrs("sum_duplicates", [](const Crs& A) { sum_duplicates(A); });
  expect_refuses_bad_csrs("transpose", [](const Crs& A) { transpose(A); });
  for (const auto& item : bad_host_csrs()) {
    const auto& bad = item.first;
    const auto& needle = item.second;
    HostCsr copy = bad;
    EXPECT_TRUE(invalid([&] { sort_rows(copy); }, {"HostCsr: ", needle}));
    copy = bad;
    EXPECT_TRUE(invalid([&] { sum_duplicates(copy); }, {"HostCsr: ", needle}));
    EXPECT_TRUE(invalid([&] { transpose(bad); }, {"HostCsr: ", needle}));
  }
}

TEST(ErrorPolicy, MatrixStats) {
  expect_refuses_bad_csrs("compute_stats", [](const Crs& A) { compute_stats(A); });
  for (const auto& item : bad_host_csrs()) {
    const auto& bad = item.first;
    const auto& needle = item.second;
    EXPECT_TRUE(invalid([&] { compute_stats(bad); }, {"HostCsr: ", needle}));
  }
  EXPECT_TRUE(invalid([] { row_length_stats({0, 3, 2, 4}); }, {"row_length_stats: the row map decreases at row 1 (3 > 2)"}));
}

TEST(ErrorPolicy, SpmvPlan) {
  expect_refuses_bad_csrs("SpmvPlan", [](const Crs& A) { SpmvPlan<Crs> plan(A); });
  const Crs A = to_crs<Crs>(test::random_csr(3, 4, 2.0, 1901));
  SpmvOptions o;
  o.virtual_row_size = -1;
  EXPECT_TRUE(invalid([&] { SpmvPlan<Crs> plan(A, o); }, {"virtual_row_size", "-1"}));
  o = {};
  o.split_chunk = -5;
  EXPECT_TRUE(invalid([&] { SpmvPlan<Crs> plan(A, o); }, {"split_chunk", "-5"}));
  EXPECT_TRUE(invalid([] { spmv_kernel_from_string("fast"); }, {"unknown SpMV kernel \"fast\"", "thread_per_row"}));

  const SpmvPlan<Crs> plan(A);
  Vector x3("x3", 3), x4("x4", 4), y3("y3", 3), y4("y4", 4);
  EXPECT_TRUE(invalid([&] { plan.apply("N", 1.0, x3, 0.0, y3); },
                      {"SpmvPlan::apply", "op(A) is 3 x 4", "x has 3 rows and y has 3"}));
  EXPECT_TRUE(invalid([&] { plan.apply("T", 1.0, x4, 0.0, y3); }, {"op(A) is 4 x 3 (mode T, A is 3 x 4)"}));
  EXPECT_TRUE(invalid([&] { plan.apply("C", 1.0, x4, 0.0, y3); }, {"mode \"C\" is not supported"}));
  Block X2("X", 4, 2), Y3("Y", 3, 3);
  EXPECT_TRUE(invalid([&] { plan.apply("N", 1.0, X2, 0.0, Y3); }, {"x has 2 columns but y has 3"}));
  EXPECT_NO_THROW(plan.apply("N", 1.0, x4, 0.0, y3));
  // Through the solvers' interface.
  const auto op = make_operator(SpmvPlan<Crs>(A));
  Block X1("X1", 3, 1), Y1("Y1", 3, 1);
  EXPECT_TRUE(invalid([&] { op->apply(X1, Y1); }, {"op(A) is 3 x 4", "x has 3 rows"}));
}

TEST(ErrorPolicy, BsrSpmvPlan) {
  expect_refuses_bad_bsrs("BsrSpmvPlan", [](const Bsr& B) { BsrSpmvPlan<Bsr> plan(B); });
  const Bsr B = csr_to_bsr<Bsr>(to_crs<Crs>(test::random_blocked(3, 2, 2, 1.5, 0.7, 1902)), 2);  // 6 x 4
  BsrSpmvOptions o;
  o.host_parts = -1;
  EXPECT_TRUE(invalid([&] { BsrSpmvPlan<Bsr> plan(B, o); }, {"BsrSpmvOptions::host_parts = -1"}));
  o = {};
  o.kernel = BsrKernel::by_block;  // a CUDA kernel: the host backend does not have it
  EXPECT_TRUE(invalid([&] { BsrSpmvPlan<Bsr> plan(B, o); }, {"BsrSpmvPlan: kernel", "by_block"}));
  o = {};
  o.symmetric = true;  // 6 x 4: cannot equal its transpose
  EXPECT_TRUE(invalid([&] { BsrSpmvPlan<Bsr> plan(B, o); }, {"BsrSpmvPlan", "3 x 2"}));
  EXPECT_TRUE(invalid([] { bsr_kernel_from_string("fast"); }, {"unknown BSR kernel \"fast\"", "block_row"}));

  const BsrSpmvPlan<Bsr> plan(B);
  Vector x4("x4", 4), x6("x6", 6), y6("y6", 6), y7("y7", 7);
  EXPECT_TRUE(invalid([&] { plan.apply("N", 1.0, x4, 0.0, y7); },
                      {"BsrSpmvPlan::apply", "op(A) is 6 x 4", "x has 4 rows and y has 7"}));
  EXPECT_TRUE(invalid([&] { plan.apply("N", 1.0, x6, 0.0, y6); }, {"x has 6 rows"}));
  EXPECT_TRUE(invalid([&] { plan.apply("H", 1.0, x4, 0.0, y6); }, {"mode \"H\" is not supported"}));

  // update_values(A) of a plan declared symmetric checks the promise again.
  const Bsr S = csr_to_bsr<Bsr>(poisson(4), 2);
  BsrSpmvOptions sym;
  sym.symmetric = true;
  BsrSpmvPlan<Bsr> sym_plan(S, sym);
  Kokkos::deep_copy(Kokkos::subview(S.values, 1), 5.0);  // block 0, entry (0, 1): (1, 0) stays
  EXPECT_TRUE(invalid([&] { sym_plan.update_values(S); }, {"BsrSpmvPlan::update_values", "A(0, 1)"}));
}

TEST(ErrorPolicy, SpmmPlan) {
  expect_refuses_bad_csrs("SpmmPlan", [](const Crs& A) { SpmmPlan<Crs> plan(A); });
  const Crs A = to_crs<Crs>(test::random_csr(5, 4, 2.0, 1903));
  SpmmOptions o;
  o.tiling.panel_rows = -2;
  EXPECT_TRUE(invalid([&] { SpmmPlan<Crs> plan(A, o); }, {"SpmmTiling::panel_rows = -2"}));
  o = {};
  o.tiling.min_heavy_fraction = 1.5;
  EXPECT_TRUE(invalid([&] { SpmmPlan<Crs> plan(A, o); }, {"SpmmTiling::min_heavy_fraction = 1.5"}));
  o = {};
  o.kernel = SpmmKernel::aspt;
  o.backend = Backend::portable;
  EXPECT_TRUE(invalid([&] { SpmmPlan<Crs> plan(A, o); }, {"SpmmPlan: kernel aspt", "portable"}));
  EXPECT_TRUE(invalid([] { spmm_kernel_from_string("fast"); }, {"unknown SpMM kernel \"fast\"", "csr_rows"}));

  const SpmmPlan<Crs> plan(A);
  RowMajor B43("B", 4, 3), B53("B", 5, 3);
  Block C53("C", 5, 3), C52("C", 5, 2);
  EXPECT_TRUE(invalid([&] { plan.apply("N", 1.0, B53, 0.0, C53); },
                      {"SpmmPlan::apply", "op(A) is 5 x 4", "x has 5 rows and y has 5"}));
  EXPECT_TRUE(invalid([&] { plan.apply("N", 1.0, B43, 0.0, C52); }, {"x has 3 columns but y has 2"}));
  EXPECT_TRUE(invalid([&] { plan.apply("X", 1.0, B43, 0.0, C53); }, {"mode \"X\" is not supported"}));
  EXPECT_NO_THROW(plan.apply("N", 1.0, B43, 0.0, C53));  // any layout of B and C
}

TEST(ErrorPolicy, SddmmPlan) {
  // The CSR pattern: SddmmPlan's own check, sizes in the message.
  const std::vector<std::pair<Crs, std::string>> bad = {
      {raw_crs(3, 3, {0, 1, 2, 3}, {0, 5, 2}), "entry 1 has column 5 outside [0, 3)"},
      {raw_crs(3, 3, {0, 2, 1, 3}, {0, 1, 2}), "decreases at row 1 (2 > 1)"},
      {raw_crs(3, 3, {0, 1, 2, 4}, {0, 1, 2}), "runs from 0 to 4, expected 0 to nnz = 3"},
      {raw_crs(3, 3, {0, 1, 2, 3}, {0, 1, 2}, {1.0, 1.0}), "2 values for 3 entries"},
  };
  for (const auto& item : bad) {
    const auto& S = item.first;
    const auto& needle = item.second;
    EXPECT_TRUE(invalid([&] { SddmmPlan<Crs> plan(S); }, {"SddmmPlan: ", needle}));
  }
  const Crs S = to_crs<Crs>(test::random_csr(3, 4, 2.0, 1904));
  const int64_t nnz = S.nnz();
  SddmmOptions o;
  o.tile_nonzeros = 6;
  EXPECT_TRUE(invalid([&] { SddmmPlan<Crs> plan(S, o); }, {"SddmmOptions::tile_nonzeros = 6"}));
  EXPECT_TRUE(invalid([] { sddmm_kernel_from_string("fast"); }, {"unknown SDDMM kernel \"fast\""}));

  const SddmmPlan<Crs> plan(S);
  RowMajor A35("A", 3, 5), A25("A", 2, 5), B45("B", 4, 5), B46("B", 4, 6);
  Vector out("out", nnz), short_out("short", nnz + 2);
  EXPECT_TRUE(invalid([&] { plan.apply(SddmmForm::scaled, 1.0, A25, B45, 0.0, out); }, {"A is 2 x 5 and B is 4 x 5; S is 3 x 4"}));
  EXPECT_TRUE(invalid([&] { plan.apply(SddmmForm::scaled, 1.0, A35, B46, 0.0, out); }, {"A is 3 x 5 and B is 4 x 6"}));
  EXPECT_TRUE(invalid([&] { plan.apply(SddmmForm::scaled, 1.0, A35, B45, 0.0, short_out); },
                      {"out holds " + std::to_string(nnz + 2) + " values, S has " + std::to_string(nnz) + " entries"}));
  // The layout of out matters: S's values in order, contiguous.
  RowMajor two("two", nnz, 2);
  const auto strided = Kokkos::subview(two, Kokkos::ALL(), 0);
  if (nnz > 1)
    EXPECT_TRUE(invalid([&] { plan.apply(SddmmForm::scaled, 1.0, A35, B45, 0.0, strided); }, {"out must be contiguous (stride 2)"}));
  EXPECT_NO_THROW(plan.apply(SddmmForm::scaled, 1.0, A35, B45, 0.0, out));

  // COO: three arrays of one length, indices in range; aspt needs CSR.
  Kokkos::View<int*, Device> rows("rows", 2), cols("cols", 2), cols3("cols3", 3);
  Vector vals("vals", 2);
  EXPECT_TRUE(invalid([&] { SddmmPlan<Crs> p(3, 4, rows, cols3, vals); }, {"2 values for 3 entries"}));
  rows(1) = 7;
  EXPECT_TRUE(invalid([&] { SddmmPlan<Crs> p(3, 4, rows, cols, vals); }, {"entry 1 has row 7 outside [0, 3)"}));
  rows(1) = 0;
  SddmmOptions aspt;
  aspt.kernel = SddmmKernel::aspt;
  EXPECT_TRUE(invalid([&] { SddmmPlan<Crs> p(3, 4, rows, cols, vals, aspt); }, {"aspt", "COO"}));
}

TEST(ErrorPolicy, SpgemmPlan) {
  const Crs A34 = to_crs<Crs>(test::random_csr(3, 4, 2.0, 1905));
  const Crs B52 = to_crs<Crs>(test::random_csr(5, 2, 1.0, 1906));
  const Crs B42 = to_crs<Crs>(test::random_csr(4, 2, 1.0, 1907));
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(A34, B52); }, {"SpgemmPlan: A is 3 x 4 and B is 5 x 2"}));
  EXPECT_TRUE(invalid([&] { spgemm(A34, B52); }, {"A is 3 x 4 and B is 5 x 2"}));
  // Invalid patterns: the row analysis names the matrix, the row and the offsets or column.
  const Crs P = to_crs<Crs>(test::random_csr(3, 3, 1.0, 1908));
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(raw_crs(3, 3, {0, 1, 2, 3}, {0, 5, 2}), P); },
                      {"SpgemmPlan: A (3 x 3) has column 5 in row 1", "outside [0, 3)"}));
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(P, raw_crs(3, 3, {0, 2, 1, 3}, {0, 1, 2})); },
                      {"SpgemmPlan: B's row map is invalid at row"}));
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(raw_crs(3, 3, {0, 1, 2, 4}, {0, 1, 2}), P); },
                      {"SpgemmPlan: A's row map is invalid at row 2: offsets 2 to 4", "nnz = 3"}));
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(P, raw_crs(3, 3, {0, 1, 2, 3}, {0, 1, 2}, {1.0, 1.0})); },
                      {"SpgemmPlan: B has 2 values for 3 column indices"}));
  SpgemmOptions o;
  o.threads_per_b_row = 3;
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(A34, B42, o); }, {"threads_per_b_row = 3"}));
  o = {};
  o.memory_limit_bytes = -1;
  EXPECT_TRUE(invalid([&] { SpgemmPlan<Crs> p(A34, B42, o); }, {"memory_limit_bytes = -1"}));
  o.memory_limit_bytes = 16;
  EXPECT_TRUE(throws<ResourceError>([&] { SpgemmPlan<Crs> p(A34, B42, o); }, {"bytes"}));
  EXPECT_TRUE(invalid([] { spgemm_accumulator_from_string("fast"); }, {"unknown SpGEMM accumulator \"fast\""}));

  SpgemmPlan<Crs> plan(A34, B42);
  const Crs C = plan.numeric(A34, B42);
  // numeric() compares shapes and nnz with the analysed ones (O(1); the patterns themselves are the
  // caller's promise). A full 3 x 4 has 12 entries, A34 at most 6.
  const Crs other = to_crs<Crs>(test::csr_from_dense(3, 4, std::vector<double>(12, 1.0)));
  EXPECT_TRUE(invalid([&] { plan.numeric(other, B42); },
                      {"SpgemmPlan::numeric: A is 3 x 4 with nnz 12", "the plan analysed 3 x 4 with nnz"}));
  const Crs foreign = to_crs<Crs>(to_host_csr(C));
  EXPECT_TRUE(invalid([&] { plan.numeric(A34, B42, foreign); }, {"SpgemmPlan::numeric: C (3 x 2", "is not a product of this plan"}));
}

TEST(ErrorPolicy, PreconditionerFactories) {
  expect_refuses_bad_csrs("make_jacobi", [](const Crs& A) { make_jacobi(A); });
  expect_refuses_bad_csrs("make_block_jacobi", [](const Crs& A) { make_block_jacobi(A, 2); });
  expect_refuses_bad_bsrs("make_block_jacobi", [](const Bsr& B) { make_block_jacobi(B); });
  expect_refuses_bad_csrs("make_chebyshev", [](const Crs& A) { make_chebyshev(A); });
  expect_refuses_bad_csrs("make_incomplete_cholesky", [](const Crs& A) { make_incomplete_cholesky(A); });
  expect_refuses_bad_csrs("make_incomplete_lu", [](const Crs& A) { make_incomplete_lu(A); });
  expect_refuses_bad_csrs("make_smoothed_aggregation", [](const Crs& A) { make_smoothed_aggregation(A); });
  expect_refuses_bad_csrs("make_cholesky", [](const Crs& A) { make_cholesky(A); });
  expect_refuses_bad_csrs("make_lu", [](const Crs& A) { make_lu(A); });

  const Crs rect = to_crs<Crs>(test::random_csr(3, 4, 2.0, 1910));
  for (const auto& item : std::vector<std::pair<std::string, std::function<void(const Crs&)>>>{
           {"make_jacobi", [](const Crs& A) { make_jacobi(A); }},
           {"make_block_jacobi", [](const Crs& A) { make_block_jacobi(A, 1); }},
           {"make_chebyshev", [](const Crs& A) { make_chebyshev(A); }},
           {"make_incomplete_cholesky", [](const Crs& A) { make_incomplete_cholesky(A); }},
           {"make_incomplete_lu", [](const Crs& A) { make_incomplete_lu(A); }},
           {"make_smoothed_aggregation", [](const Crs& A) { make_smoothed_aggregation(A); }},
           {"make_cholesky", [](const Crs& A) { make_cholesky(A); }},
           {"make_lu", [](const Crs& A) { make_lu(A); }},
       }) {
    const auto& who = item.first;
    const auto& make = item.second;
    EXPECT_TRUE(invalid([&] { make(rect); }, {who + ": A must be square, it is 3 x 4"})) << who;
  }

  // What A cannot give, and bad options.
  const Crs zero_diagonal = to_crs<Crs>(test::csr_from_dense(3, 3, {1, 0, 0, 0, 0, 1, 0, 1, 1}));
  EXPECT_TRUE(invalid([&] { make_jacobi(zero_diagonal); }, {"make_jacobi: row 1 has a zero (or missing) diagonal entry"}));
  const Crs A = poisson(3);  // 9 x 9, SPD
  EXPECT_TRUE(invalid([&] { make_block_jacobi(A, 0); }, {"make_block_jacobi: block_size = 0"}));
  const Crs singular_block = to_crs<Crs>(test::csr_from_dense(2, 2, {1, 1, 1, 1}));
  EXPECT_TRUE(invalid([&] { make_block_jacobi(singular_block, 2); }, {"make_block_jacobi", "block 0", "singular"}));
  ChebyshevOptions cheb;
  cheb.degree = 0;
  EXPECT_TRUE(invalid([&] { make_chebyshev(A, cheb); }, {"make_chebyshev: degree = 0"}));
  cheb = {};
  cheb.lambda_min = 2;
  cheb.lambda_max = 1;
  EXPECT_TRUE(invalid([&] { make_chebyshev(A, cheb); }, {"lambda_min = 2 is not below lambda_max = 1"}));
  const Crs nonsymmetric = to_crs<Crs>(test::csr_from_dense(2, 2, {4, 1, 0, 4}));
  EXPECT_TRUE(invalid([&] { make_incomplete_cholesky(nonsymmetric); },
                      {"make_incomplete_cholesky: A is not symmetric: A(0, 1) = 1 but A(1, 0) = 0"}));
  IncompleteLuOptions ilu;
  ilu.level = -1;
  EXPECT_TRUE(invalid([&] { make_incomplete_lu(A, ilu); }, {"make_incomplete_lu: level = -1"}));
  SmoothedAggregationOptions sa;
  sa.coarse_size = 0;
  EXPECT_TRUE(invalid([&] { make_smoothed_aggregation(A, sa); }, {"make_smoothed_aggregation: coarse_size = 0"}));
  sa = {};
  sa.near_null_space.assign(5, 1.0);
  sa.near_null_space_columns = 1;
  EXPECT_TRUE(invalid([&] { make_smoothed_aggregation(A, sa); }, {"make_smoothed_aggregation", "5"}));
  EXPECT_TRUE(invalid([] { rigid_body_modes({0, 0, 0, 1}, 4); }, {"rigid_body_modes: dimension = 4"}));
  EXPECT_TRUE(invalid([&] { make_cholesky(nonsymmetric); }, {"make_cholesky", "(0, 1)"}));
  const Crs singular = to_crs<Crs>(test::csr_from_dense(2, 2, {1, 1, 1, 1}));
  EXPECT_TRUE(invalid([&] { make_lu(singular); }, {"make_lu", "(2 x 2) is singular"}));
  DirectFactorizationOptions shifted;
  shifted.shift = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(invalid([&] { make_lu(A, shifted); }, {"make_lu: shift = inf"}));

  // apply: X and Y must be n x s; update_values: A of the preconditioner's size and a valid one.
  Block X9("X", 9, 2), Y8("Y", 8, 2), Y93("Y", 9, 3);
  const auto jacobi = make_jacobi(A);
  EXPECT_TRUE(invalid([&] { jacobi->apply(X9, Y8); },
                      {"JacobiPreconditioner::apply: the preconditioner is 9 x 9 but X has 9 rows and Y has 8"}));
  EXPECT_TRUE(invalid([&] { jacobi->apply(X9, Y93); }, {"X has 2 columns but Y has 3"}));
  const auto lu = make_incomplete_lu(A);
  EXPECT_TRUE(invalid([&] { lu->apply(X9, Y8); }, {"IncompleteLuPreconditioner::apply", "9 x 9", "Y has 8"}));
  EXPECT_TRUE(invalid([&] { lu->update_values(poisson(2)); },
                      {"IncompleteLuPreconditioner::update_values: A is 4 x 4 but the preconditioner is 9 x 9"}));
  const auto direct = make_lu(A);
  EXPECT_TRUE(invalid([&] { direct->update_values(poisson(2)); }, {"update_values: A is 4 x 4", "9 x 9"}));
  const auto amg = make_smoothed_aggregation(A);
  EXPECT_TRUE(invalid([&] { amg->apply(X9, Y8); }, {"SmoothedAggregationPreconditioner::apply", "Y has 8"}));
  EXPECT_TRUE(invalid([&] { amg->update_values(poisson(2)); }, {"update_values", "4 x 4"}));
}

TEST(ErrorPolicy, BlockGmres) {
  const Crs A = poisson(3);  // 9 x 9
  const auto op = make_operator(SpmvPlan<Crs>(A));
  Block B("B", 9, 2), X("X", 9, 2), X8("X8", 8, 2), X3("X3", 9, 3);
  EXPECT_TRUE(invalid([&] { block_gmres(*op, B, X8); }, {"block_gmres: A is 9 x 9 but B has 9 rows and X 8"}));
  EXPECT_TRUE(invalid([&] { block_gmres(*op, B, X3); }, {"block_gmres: B has 2 columns but X has 3"}));
  BlockGmresOptions o;
  o.restart = 0;
  EXPECT_TRUE(invalid([&] { block_gmres(*op, B, X, o); }, {"block_gmres: restart = 0"}));
  o = {};
  o.tol = 0;
  EXPECT_TRUE(invalid([&] { block_gmres(*op, B, X, o); }, {"block_gmres: tol = 0"}));
  o = {};
  o.block_size = -1;
  EXPECT_TRUE(invalid([&] { block_gmres(*op, B, X, o); }, {"block_gmres: block_size = -1"}));
  const auto small = make_jacobi(poisson(2));
  EXPECT_TRUE(invalid([&] { block_gmres(*op, B, X, {}, small.get()); },
                      {"block_gmres: A is 9 x 9 but the preconditioner is 4 x 4"}));
  const auto rect = make_operator(SpmvPlan<Crs>(to_crs<Crs>(test::random_csr(9, 8, 2.0, 1911))));
  EXPECT_TRUE(invalid([&] { block_gmres(*rect, B, X); }, {"block_gmres: A must be square, it is 9 x 8"}));
}

TEST(ErrorPolicy, Lobpcg) {
  const Crs A = poisson(4);  // 16 x 16
  const auto op = make_operator(SpmvPlan<Crs>(A));
  Block X("X", 16, 2), X15("X15", 15, 2);
  LobpcgOptions o;
  o.nev = 0;
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o); }, {"lobpcg: nev must be at least 1 (got 0)"}));
  o.nev = 6;
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o); }, {"lobpcg: nev = 6 is too large for n = 16"}));
  o.nev = 2;
  o.block_size = 1;
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o); }, {"lobpcg: block_size = 1 must be 0 (automatic) or at least nev = 2"}));
  o.block_size = 0;
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X15, o); }, {"lobpcg: X is 15 x 2, expected 16 x 2"}));
  o.tol = -1;
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o); }, {"lobpcg: tol must be positive (got -1)"}));
  o.tol = 1e-8;
  o.max_iterations = -1;
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o); }, {"lobpcg: max_iterations must be >= 0 (got -1)"}));
  o.max_iterations = 10;
  const auto small = make_jacobi(poisson(2));
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o, small.get()); }, {"lobpcg: the preconditioner is 4 x 4, A is 16 x 16"}));
  EXPECT_TRUE(invalid([&] { lobpcg(*op, X, o, nullptr, small.get()); }, {"lobpcg: M is 4 x 4, A is 16 x 16"}));
  const auto rect = make_operator(SpmvPlan<Crs>(to_crs<Crs>(test::random_csr(16, 15, 2.0, 1912))));
  EXPECT_TRUE(invalid([&] { lobpcg(*rect, X, o); }, {"lobpcg: A must be square (got 16 x 15)"}));
}

TEST(ErrorPolicy, ReferenceKernels) {
  const HostCsr A = test::csr_from_dense(2, 3, {1, 0, 2, 0, 3, 0});
  std::vector<double> x2(2), x3(3), y2(2);
  EXPECT_TRUE(invalid([&] { reference::spmv("N", 1.0, A, x2, 0.0, y2); }, {"spmv", "2", "3"}));
  EXPECT_TRUE(invalid([&] { reference::spmv("C", 1.0, A, x3, 0.0, y2); }, {"spmv", "C"}));
  for (const auto& item : bad_host_csrs()) {
    const auto& bad = item.first;
    const auto& needle = item.second;
    std::vector<double> x(3), y(3);
    EXPECT_TRUE(invalid([&] { reference::spmv("N", 1.0, bad, x, 0.0, y); }, {"HostCsr: ", needle}));
  }
}
