// Tests of the reference kernels (the oracles of every other test). The hand-checked cases are
// tiny and use dyadic values (multiples of powers of two), so every product and sum is exact in
// double and results are compared for exact equality. The consistency cases build random
// matrices from a local LCG with values that are multiples of 1/8, which keeps them exact too:
// any summation order gives bit-identical results. The last cases check the error bound every
// kernel test compares against (sprocket_test_utils.hpp) with the same exact inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Reference.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using Sprocket::HostBsr;
using Sprocket::HostCsr;
using Sprocket::HostDense;
using Sprocket::InvalidArgument;
using Sprocket::Triplet;
namespace ref = Sprocket::reference;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

void expect_values_eq(const std::vector<double>& expected, const std::vector<double>& actual) {
  ASSERT_EQ(expected.size(), actual.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_DOUBLE_EQ(expected[i], actual[i]) << "at index " << i;
}

/// Column j of a column-major dense matrix as a vector.
std::vector<double> column(const HostDense& M, int64_t j) {
  return std::vector<double>(M.data.begin() + j * M.num_rows,
                             M.data.begin() + (j + 1) * M.num_rows);
}

HostDense dense_from_columns(int64_t rows, const std::vector<std::vector<double>>& columns) {
  HostDense M(rows, static_cast<int64_t>(columns.size()));
  for (std::size_t j = 0; j < columns.size(); ++j)
    for (int64_t i = 0; i < rows; ++i) M(i, static_cast<int64_t>(j)) = columns[j][i];
  return M;
}

/// Deterministic 64-bit LCG (Knuth's MMIX constants); the high bits are the well-mixed ones.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return state_ >> 33;
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  /// A multiple of 1/8 in [-2, 2]: exact in double, and so are sums of a few hundred products.
  double dyadic() { return static_cast<double>(below(33) - 16) / 8.0; }

 private:
  uint64_t state_;
};

/// A random CSR with about `density` of its entries stored, each row reversed after assembly so
/// that columns are unsorted, and a duplicate of the first entry appended to every third row.
HostCsr random_csr(int64_t rows, int64_t cols, double density, uint64_t seed) {
  Lcg lcg(seed);
  std::vector<Triplet> triplets;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (lcg.below(1000) < static_cast<int64_t>(density * 1000))
        triplets.push_back({i, j, lcg.dyadic()});
  const HostCsr sorted = HostCsr::from_triplets(rows, cols, triplets);
  HostCsr messy;
  messy.num_rows = rows;
  messy.num_cols = cols;
  messy.row_map.assign(rows + 1, 0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t k = sorted.row_map[i + 1] - 1; k >= sorted.row_map[i]; --k) {
      messy.entries.push_back(sorted.entries[k]);
      messy.values.push_back(sorted.values[k]);
    }
    if (i % 3 == 0 && sorted.row_length(i) > 0) {
      messy.entries.push_back(sorted.entries[sorted.row_map[i]]);
      messy.values.push_back(lcg.dyadic());
    }
    messy.row_map[i + 1] = messy.nnz();
  }
  return messy;
}

std::vector<double> random_vector(int64_t n, Lcg& lcg) {
  std::vector<double> v(n);
  for (double& value : v) value = lcg.dyadic();
  return v;
}

HostDense random_dense(int64_t rows, int64_t cols, Lcg& lcg) {
  HostDense M(rows, cols);
  for (double& value : M.data) value = lcg.dyadic();
  return M;
}

/// Dense row-major copy of a CSR (duplicates summed), for checking products independently.
std::vector<std::vector<double>> to_dense(const HostCsr& A) {
  std::vector<std::vector<double>> dense(A.num_rows, std::vector<double>(A.num_cols, 0.0));
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      dense[i][A.entries[k]] += A.values[k];
  return dense;
}

/// The scalar CSR with the same entries as a BSR: scalar row block_row*b + r holds, for every
/// block of that block row in stored order, the b values of the block's row r.
HostCsr bsr_to_csr(const HostBsr& A) {
  const int64_t b = A.block_size;
  HostCsr csr;
  csr.num_rows = A.num_block_rows * b;
  csr.num_cols = A.num_block_cols * b;
  csr.row_map.assign(csr.num_rows + 1, 0);
  for (int64_t block_row = 0; block_row < A.num_block_rows; ++block_row) {
    for (int r = 0; r < b; ++r) {
      for (int64_t k = A.row_map[block_row]; k < A.row_map[block_row + 1]; ++k) {
        for (int c = 0; c < b; ++c) {
          csr.entries.push_back(static_cast<int>(A.entries[k] * b + c));
          csr.values.push_back(A.value(k, r, c));
        }
      }
      csr.row_map[block_row * b + r + 1] = csr.nnz();
    }
  }
  return csr;
}

/// A random BSR with unsorted block columns, an empty block row and a duplicated block.
HostBsr random_bsr(int block_size, int64_t block_rows, int64_t block_cols, uint64_t seed) {
  Lcg lcg(seed);
  HostBsr A;
  A.block_size = block_size;
  A.num_block_rows = block_rows;
  A.num_block_cols = block_cols;
  A.row_map.assign(block_rows + 1, 0);
  for (int64_t block_row = 0; block_row < block_rows; ++block_row) {
    if (block_row != 1) {  // block row 1 stays empty
      for (int64_t block_col = block_cols - 1; block_col >= 0; --block_col)  // descending
        if (lcg.below(2) == 0) A.entries.push_back(static_cast<int>(block_col));
      if (block_row == 0) A.entries.push_back(0);  // duplicate (or lone) block (0, 0)
    }
    A.row_map[block_row + 1] = A.num_blocks();
  }
  A.values.resize(A.num_blocks() * block_size * block_size);
  for (double& value : A.values) value = lcg.dyadic();
  return A;
}

/// The 3 x 4 matrix of the SpMV cases, stored with unsorted columns and a duplicate:
///   [ 1  0  0  2.5 ]   row 0 stored as (0,3)=2, (0,0)=1, (0,3)=0.5
///   [ 0  0  0  0   ]   row 1 empty
///   [ 0  4 -1  0   ]   row 2 stored as (2,2)=-1, (2,1)=4
HostCsr small_csr() {
  HostCsr A;
  A.num_rows = 3;
  A.num_cols = 4;
  A.row_map = {0, 3, 3, 5};
  A.entries = {3, 0, 3, 2, 1};
  A.values = {2.0, 1.0, 0.5, -1.0, 4.0};
  return A;
}

/// Two block rows and two block columns with b = 2, blocks unsorted in block row 0:
///   [ 1 2 | 5 0 ]
///   [ 3 4 | 0 6 ]
///   [ 0 0 |-1 1 ]
///   [ 0 0 | 2 0 ]
HostBsr small_bsr_b2() {
  HostBsr A;
  A.block_size = 2;
  A.num_block_rows = 2;
  A.num_block_cols = 2;
  A.row_map = {0, 2, 3};
  A.entries = {1, 0, 1};
  A.values = {5, 0, 0, 6, /**/ 1, 2, 3, 4, /**/ -1, 1, 2, 0};
  return A;
}

/// Two block rows and two block columns with b = 3; block row 0 is empty:
///   rows 0-2: zero
///   [ 1 2 3 | 1 0 0 ]
///   [ 4 5 6 | 0 2 0 ]
///   [ 7 8 9 | 0 0 3 ]
HostBsr small_bsr_b3() {
  HostBsr A;
  A.block_size = 3;
  A.num_block_rows = 2;
  A.num_block_cols = 2;
  A.row_map = {0, 0, 2};
  A.entries = {0, 1};
  A.values = {1, 2, 3, 4, 5, 6, 7, 8, 9, /**/ 1, 0, 0, 0, 2, 0, 0, 0, 3};
  return A;
}

template <class Fn>
void expect_invalid_argument_mentioning(Fn fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected Sprocket::InvalidArgument";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    for (const std::string& fragment : fragments)
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message \"" << message << "\" does not mention \"" << fragment << "\"";
  }
}

// ---------------------------------------------------------------------------------------------
// spmv

// ||A||_2 of a diagonal matrix is its largest |entry|; of a non-square one, the largest singular
// value (here of [[3, 4]]: 5); the empty and the zero matrix give 0; steps < 1 throws.
TEST(ReferenceNorm2Estimate, KnownNorms) {
  std::vector<Triplet> d;
  for (int64_t i = 0; i < 50; ++i) d.push_back({i, i, i == 17 ? -9.0 : 1.0 + 0.1 * static_cast<double>(i % 10)});
  EXPECT_NEAR(ref::norm2_estimate(HostCsr::from_triplets(50, 50, d), 200), 9.0, 1e-6);
  EXPECT_NEAR(ref::norm2_estimate(HostCsr::from_triplets(1, 2, {{0, 0, 3.0}, {0, 1, 4.0}}), 3), 5.0, 1e-12);
  EXPECT_EQ(ref::norm2_estimate(HostCsr::from_triplets(0, 0, {}), 5), 0.0);
  EXPECT_EQ(ref::norm2_estimate(HostCsr::from_triplets(3, 3, {{1, 1, 0.0}}), 5), 0.0);
  EXPECT_THROW(ref::norm2_estimate(HostCsr::from_triplets(2, 2, {{0, 0, 1.0}}), 0), InvalidArgument);
}

TEST(ReferenceSpmv, NonTransposeHandChecked) {
  const HostCsr A = small_csr();
  std::vector<double> y = {kNaN, kNaN, kNaN};  // beta == 0 must not read y
  ref::spmv("N", 1.0, A, {1, 2, 3, 4}, 0.0, y);
  expect_values_eq({11, 0, 5}, y);

  y = {kNaN, kNaN, kNaN};
  ref::spmv("N", 2.0, A, {1, 2, 3, 4}, 0.0, y);
  expect_values_eq({22, 0, 10}, y);
}

TEST(ReferenceSpmv, TransposeHandChecked) {
  const HostCsr A = small_csr();
  std::vector<double> y(4, kNaN);
  ref::spmv("T", 1.0, A, {1, 2, 3}, 0.0, y);
  expect_values_eq({1, 12, -3, 2.5}, y);
}

TEST(ReferenceSpmv, BetaScalesThenAccumulates) {
  const HostCsr A = small_csr();
  std::vector<double> y = {1, -1, 0.5};
  ref::spmv("N", 1.0, A, {1, 2, 3, 4}, 2.0, y);
  expect_values_eq({13, -2, 6}, y);

  std::vector<double> yt = {1, 1, 1, 1};
  ref::spmv("T", -1.0, A, {1, 2, 3}, 2.0, yt);
  expect_values_eq({1, -10, 5, -0.5}, yt);
}

TEST(ReferenceSpmv, AlphaZero) {
  const HostCsr A = small_csr();
  std::vector<double> y = {kNaN, 7, kNaN};
  ref::spmv("N", 0.0, A, {1, 2, 3, 4}, 0.0, y);
  expect_values_eq({0, 0, 0}, y);

  y = {1, -2, 3};
  ref::spmv("N", 0.0, A, {kNaN, kNaN, kNaN, kNaN}, 3.0, y);  // alpha == 0: x is not read
  expect_values_eq({3, -6, 9}, y);
}

TEST(ReferenceSpmv, BetaNonZeroPropagatesNaN) {
  // Only beta == 0 has the overwrite semantics; otherwise y's NaN is part of the result.
  const HostCsr A = small_csr();
  std::vector<double> y = {kNaN, 0, 0};
  ref::spmv("N", 1.0, A, {1, 2, 3, 4}, 1.0, y);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_DOUBLE_EQ(0.0, y[1]);
  EXPECT_DOUBLE_EQ(5.0, y[2]);
}

// ---------------------------------------------------------------------------------------------
// spmm

TEST(ReferenceSpmm, NonTransposeHandChecked) {
  const HostCsr A = small_csr();
  const HostDense X = dense_from_columns(4, {{1, 2, 3, 4}, {0, 1, 0, -1}, {0, 0, 0, 0}});
  HostDense Y(3, 3, kNaN);
  ref::spmm("N", 1.0, A, X, 0.0, Y);
  expect_values_eq({11, 0, 5}, column(Y, 0));
  expect_values_eq({-2.5, 0, 4}, column(Y, 1));
  expect_values_eq({0, 0, 0}, column(Y, 2));
}

TEST(ReferenceSpmm, TransposeHandChecked) {
  const HostCsr A = small_csr();
  const HostDense X = dense_from_columns(3, {{1, 2, 3}, {0, 1, 0}, {1, 0, -1}});
  HostDense Y = dense_from_columns(4, {{1, 1, 1, 1}, {2, 2, 2, 2}, {0, 0, 0, 0}});
  ref::spmm("T", 1.0, A, X, -1.0, Y);
  expect_values_eq({0, 11, -4, 1.5}, column(Y, 0));
  expect_values_eq({-2, -2, -2, -2}, column(Y, 1));  // A^T e_1 = 0: row 1 of A is empty
  expect_values_eq({1, -4, 1, 2.5}, column(Y, 2));
}

TEST(ReferenceSpmm, ColumnsMatchSpmvOnRandomMatrix) {
  const HostCsr A = random_csr(20, 15, 0.3, 12345);
  ASSERT_FALSE(A.is_sorted_and_unique());  // the case exercises unsorted and duplicate columns
  Lcg lcg(777);
  for (const std::string mode : {"N", "T"}) {
    const int64_t op_rows = mode == "N" ? 20 : 15, op_cols = mode == "N" ? 15 : 20;
    const HostDense X = random_dense(op_cols, 3, lcg);
    const HostDense Y0 = random_dense(op_rows, 3, lcg);
    for (double beta : {0.0, 0.5}) {
      HostDense Y = Y0;
      ref::spmm(mode, -1.5, A, X, beta, Y);
      for (int64_t j = 0; j < 3; ++j) {
        std::vector<double> y = column(Y0, j);
        ref::spmv(mode, -1.5, A, column(X, j), beta, y);
        SCOPED_TRACE("mode " + mode + ", beta " + std::to_string(beta) + ", column " +
                     std::to_string(j));
        expect_values_eq(y, column(Y, j));
      }
    }
  }
}

TEST(ReferenceSpmv, RandomMatchesDenseProduct) {
  // An independent check of the scatter used for "T": compare with a dense loop.
  const HostCsr A = random_csr(20, 15, 0.3, 99);
  const auto dense = to_dense(A);
  Lcg lcg(5);
  const std::vector<double> x = random_vector(20, lcg);
  std::vector<double> y(15, kNaN), expected(15, 0.0);
  for (int64_t i = 0; i < 20; ++i)
    for (int64_t j = 0; j < 15; ++j) expected[j] += dense[i][j] * x[i];
  ref::spmv("T", 1.0, A, x, 0.0, y);
  expect_values_eq(expected, y);
}

// ---------------------------------------------------------------------------------------------
// bsr_spmv / bsr_spmm

TEST(ReferenceBsr, BlockSize2HandChecked) {
  const HostBsr A = small_bsr_b2();
  std::vector<double> y(4, kNaN);
  ref::bsr_spmv("N", 1.0, A, {1, 2, 3, 4}, 0.0, y);
  expect_values_eq({20, 35, 1, 6}, y);

  y.assign(4, kNaN);
  ref::bsr_spmv("T", 1.0, A, {1, 2, 3, 4}, 0.0, y);
  expect_values_eq({7, 10, 10, 15}, y);

  y = {1, 2, 3, 4};
  ref::bsr_spmv("N", 2.0, A, {1, 2, 3, 4}, -1.0, y);
  expect_values_eq({39, 68, -1, 8}, y);
}

TEST(ReferenceBsr, BlockSize3HandChecked) {
  const HostBsr A = small_bsr_b3();
  std::vector<double> y(6, kNaN);
  ref::bsr_spmv("N", 1.0, A, {1, 2, 3, 4, 5, 6}, 0.0, y);
  expect_values_eq({0, 0, 0, 18, 42, 68}, y);

  y.assign(6, kNaN);
  ref::bsr_spmv("T", 1.0, A, {1, 2, 3, 4, 5, 6}, 0.0, y);
  expect_values_eq({66, 81, 96, 4, 10, 18}, y);
}

TEST(ReferenceBsr, SpmmHandChecked) {
  const HostBsr A = small_bsr_b2();
  const HostDense X = dense_from_columns(4, {{1, 2, 3, 4}, {1, 0, 0, 0}});
  HostDense Y(4, 2, kNaN);
  ref::bsr_spmm("N", 1.0, A, X, 0.0, Y);
  expect_values_eq({20, 35, 1, 6}, column(Y, 0));
  expect_values_eq({1, 3, 0, 0}, column(Y, 1));

  HostDense Yt(4, 2, 1.0);
  ref::bsr_spmm("T", 1.0, A, X, 1.0, Yt);
  expect_values_eq({8, 11, 11, 16}, column(Yt, 0));
  expect_values_eq({2, 3, 6, 1}, column(Yt, 1));
}

TEST(ReferenceBsr, MatchesScalarCsrForSeveralBlockSizes) {
  for (int b : {1, 2, 3, 5}) {
    const HostBsr A = random_bsr(b, 4, 3, 1000 + b);
    const HostCsr scalar = bsr_to_csr(A);
    ASSERT_NO_THROW(scalar.validate());
    Lcg lcg(b);
    for (const std::string mode : {"N", "T"}) {
      SCOPED_TRACE("block size " + std::to_string(b) + ", mode " + mode);
      const int64_t op_rows = mode == "N" ? scalar.num_rows : scalar.num_cols;
      const int64_t op_cols = mode == "N" ? scalar.num_cols : scalar.num_rows;

      const std::vector<double> x = random_vector(op_cols, lcg);
      const std::vector<double> y0 = random_vector(op_rows, lcg);
      std::vector<double> y_bsr = y0, y_csr = y0;
      ref::bsr_spmv(mode, 0.75, A, x, -2.0, y_bsr);
      ref::spmv(mode, 0.75, scalar, x, -2.0, y_csr);
      expect_values_eq(y_csr, y_bsr);

      const HostDense X = random_dense(op_cols, 3, lcg);
      HostDense Y_bsr(op_rows, 3, kNaN), Y_csr(op_rows, 3, kNaN);
      ref::bsr_spmm(mode, 1.25, A, X, 0.0, Y_bsr);
      ref::spmm(mode, 1.25, scalar, X, 0.0, Y_csr);
      expect_values_eq(Y_csr.data, Y_bsr.data);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// sddmm

TEST(ReferenceSddmm, HandChecked) {
  // S: row 0 stored as (0,2)=1, (0,0)=2 (unsorted); row 1 empty; row 2: (2,1)=-1, (2,2)=0.5.
  HostCsr S;
  S.num_rows = 3;
  S.num_cols = 3;
  S.row_map = {0, 2, 2, 4};
  S.entries = {2, 0, 1, 2};
  S.values = {1.0, 2.0, -1.0, 0.5};
  HostDense A(3, 2), B(3, 2);
  // rows of A: [1 2], [3 4], [-1 1]; rows of B: [1 0], [0 1], [2 1]
  A(0, 0) = 1, A(0, 1) = 2, A(1, 0) = 3, A(1, 1) = 4, A(2, 0) = -1, A(2, 1) = 1;
  B(0, 0) = 1, B(0, 1) = 0, B(1, 0) = 0, B(1, 1) = 1, B(2, 0) = 2, B(2, 1) = 1;

  const HostCsr out = ref::sddmm(S, A, B);
  EXPECT_EQ(3, out.num_rows);
  EXPECT_EQ(3, out.num_cols);
  EXPECT_EQ(S.row_map, out.row_map);
  EXPECT_EQ(S.entries, out.entries);
  // (0,2): 1 * (1*2 + 2*1) = 4; (0,0): 2 * 1 = 2; (2,1): -1 * 1 = -1; (2,2): 0.5 * (-2 + 1)
  expect_values_eq({4, 2, -1, -0.5}, out.values);
}

TEST(ReferenceSddmm, NonSquareMatchesDenseLoop) {
  const HostCsr S = random_csr(7, 5, 0.5, 31);
  Lcg lcg(8);
  const HostDense A = random_dense(7, 4, lcg), B = random_dense(5, 4, lcg);
  const HostCsr out = ref::sddmm(S, A, B);
  EXPECT_EQ(S.row_map, out.row_map);
  EXPECT_EQ(S.entries, out.entries);
  for (int64_t i = 0; i < S.num_rows; ++i) {
    for (int64_t k = S.row_map[i]; k < S.row_map[i + 1]; ++k) {
      double dot = 0;
      for (int64_t p = 0; p < 4; ++p) dot += A(i, p) * B(S.entries[k], p);
      EXPECT_DOUBLE_EQ(S.values[k] * dot, out.values[k]) << "entry " << k;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// spgemm

TEST(ReferenceSpgemm, HandChecked) {
  // A (3 x 2): row 0 stored as (0,1)=2, (0,0)=1; row 1 empty; row 2 (2,1)=3 and duplicate 1.
  HostCsr A;
  A.num_rows = 3;
  A.num_cols = 2;
  A.row_map = {0, 2, 2, 4};
  A.entries = {1, 0, 1, 1};
  A.values = {2.0, 1.0, 3.0, 1.0};
  // B (2 x 4): row 0 = (0,0)=2, (0,3)=1; row 1 stored as (1,3)=-0.5, (1,1)=4.
  HostCsr B;
  B.num_rows = 2;
  B.num_cols = 4;
  B.row_map = {0, 2, 4};
  B.entries = {0, 3, 3, 1};
  B.values = {2.0, 1.0, -0.5, 4.0};

  // C row 0 = 1*B0 + 2*B1 = [2 8 . (1 - 1)] keeps the cancelled (0,3) as an explicit zero;
  // row 1 is empty; row 2 = 4*B1 = [. 16 . -2].
  const HostCsr C = ref::spgemm(A, B);
  EXPECT_EQ(3, C.num_rows);
  EXPECT_EQ(4, C.num_cols);
  EXPECT_EQ((std::vector<int64_t>{0, 3, 3, 5}), C.row_map);
  EXPECT_EQ((std::vector<int>{0, 1, 3, 1, 3}), C.entries);
  expect_values_eq({2, 8, 0, 16, -2}, C.values);
  EXPECT_TRUE(C.is_sorted_and_unique());
  EXPECT_NO_THROW(C.validate());
}

TEST(ReferenceSpgemm, RandomMatchesDenseProductAndIsSorted) {
  const HostCsr A = random_csr(12, 9, 0.3, 4), B = random_csr(9, 7, 0.3, 6);
  const HostCsr C = ref::spgemm(A, B);
  ASSERT_NO_THROW(C.validate());
  EXPECT_EQ(12, C.num_rows);
  EXPECT_EQ(7, C.num_cols);
  EXPECT_TRUE(C.is_sorted_and_unique());
  const auto a = to_dense(A), b = to_dense(B), c = to_dense(C);
  for (int64_t i = 0; i < 12; ++i) {
    for (int64_t j = 0; j < 7; ++j) {
      double expected = 0;
      bool structural = false;  // symbolic product: some A(i,p) and B(p,j) both stored
      for (int64_t p = 0; p < 9; ++p) expected += a[i][p] * b[p][j];
      for (int64_t ka = A.row_map[i]; ka < A.row_map[i + 1]; ++ka)
        for (int64_t kb = B.row_map[A.entries[ka]]; kb < B.row_map[A.entries[ka] + 1]; ++kb)
          structural = structural || B.entries[kb] == j;
      EXPECT_DOUBLE_EQ(expected, c[i][j]) << "at (" << i << ", " << j << ")";
      bool stored = false;
      for (int64_t k = C.row_map[i]; k < C.row_map[i + 1]; ++k) stored = stored || C.entries[k] == j;
      EXPECT_EQ(structural, stored) << "pattern at (" << i << ", " << j << ")";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// argument errors

TEST(ReferenceErrors, BadMode) {
  const HostCsr A = small_csr();
  std::vector<double> y(3);
  for (const std::string mode : {"n", "t", "C", "H", "", "NT"}) {
    SCOPED_TRACE("mode \"" + mode + "\"");
    expect_invalid_argument_mentioning([&] { ref::spmv(mode, 1.0, A, {1, 2, 3, 4}, 0.0, y); },
                                       {"\"" + mode + "\""});
    HostDense X(4, 1), Y(3, 1);
    EXPECT_THROW(ref::spmm(mode, 1.0, A, X, 0.0, Y), InvalidArgument);
    std::vector<double> yb(4);
    EXPECT_THROW(ref::bsr_spmv(mode, 1.0, small_bsr_b2(), {1, 2, 3, 4}, 0.0, yb),
                 InvalidArgument);
    HostDense Xb(4, 1), Yb(4, 1);
    EXPECT_THROW(ref::bsr_spmm(mode, 1.0, small_bsr_b2(), Xb, 0.0, Yb), InvalidArgument);
  }
}

TEST(ReferenceErrors, SpmvLengths) {
  const HostCsr A = small_csr();  // 3 x 4
  std::vector<double> y3(3), y4(4), y5(5);
  expect_invalid_argument_mentioning([&] { ref::spmv("N", 1.0, A, {1, 2, 3}, 0.0, y3); },
                                     {"3 x 4", "x has 3"});
  expect_invalid_argument_mentioning([&] { ref::spmv("N", 1.0, A, {1, 2, 3, 4}, 0.0, y4); },
                                     {"3 x 4", "y has 4"});
  // For "T", op(A) is 4 x 3: the lengths that were right for "N" are wrong.
  expect_invalid_argument_mentioning([&] { ref::spmv("T", 1.0, A, {1, 2, 3, 4}, 0.0, y4); },
                                     {"4 x 3", "x has 4"});
  expect_invalid_argument_mentioning([&] { ref::spmv("T", 1.0, A, {1, 2, 3}, 0.0, y5); },
                                     {"4 x 3", "y has 5"});
}

TEST(ReferenceErrors, SpmmShapes) {
  const HostCsr A = small_csr();  // 3 x 4
  HostDense X(4, 2), Y(3, 2);
  EXPECT_NO_THROW(ref::spmm("N", 1.0, A, X, 0.0, Y));
  HostDense X_rows(3, 2), Y_rows(4, 2), Y_cols(3, 3);
  expect_invalid_argument_mentioning([&] { ref::spmm("N", 1.0, A, X_rows, 0.0, Y); },
                                     {"x has 3 rows"});
  expect_invalid_argument_mentioning([&] { ref::spmm("N", 1.0, A, X, 0.0, Y_rows); },
                                     {"y has 4 rows"});
  expect_invalid_argument_mentioning([&] { ref::spmm("N", 1.0, A, X, 0.0, Y_cols); },
                                     {"2 columns", "3"});
  EXPECT_THROW(ref::spmm("T", 1.0, A, X, 0.0, Y), InvalidArgument);
  HostDense malformed(4, 2);
  malformed.data.pop_back();  // 7 values for a 4 x 2 matrix
  expect_invalid_argument_mentioning([&] { ref::spmm("N", 1.0, A, malformed, 0.0, Y); },
                                     {"4 x 2", "7"});
}

TEST(ReferenceErrors, BsrShapesAndStructure) {
  const HostBsr A = small_bsr_b3();  // 6 x 6 scalar
  std::vector<double> x4(4), y6(6);
  expect_invalid_argument_mentioning([&] { ref::bsr_spmv("N", 1.0, A, x4, 0.0, y6); },
                                     {"6 x 6", "x has 4"});
  HostDense X(6, 2), Y(6, 1);
  EXPECT_THROW(ref::bsr_spmm("N", 1.0, A, X, 0.0, Y), InvalidArgument);

  std::vector<double> x6(6);
  HostBsr bad_values = A;
  bad_values.values.pop_back();
  EXPECT_THROW(ref::bsr_spmv("N", 1.0, bad_values, x6, 0.0, y6), InvalidArgument);
  HostBsr bad_column = A;
  bad_column.entries[1] = 2;
  EXPECT_THROW(ref::bsr_spmv("N", 1.0, bad_column, x6, 0.0, y6), InvalidArgument);
  HostBsr bad_block_size = A;
  bad_block_size.block_size = 0;
  EXPECT_THROW(ref::bsr_spmv("N", 1.0, bad_block_size, {}, 0.0, y6), InvalidArgument);
  HostBsr bad_row_map = A;
  bad_row_map.row_map = {0, 2};
  EXPECT_THROW(ref::bsr_spmv("N", 1.0, bad_row_map, x6, 0.0, y6), InvalidArgument);
}

TEST(ReferenceErrors, SddmmShapes) {
  HostCsr S = small_csr();  // 3 x 4
  const HostDense A(3, 2), B(4, 2);
  EXPECT_NO_THROW(ref::sddmm(S, A, B));
  expect_invalid_argument_mentioning([&] { ref::sddmm(S, HostDense(4, 2), B); },
                                     {"3 x 4", "A has 4 rows"});
  expect_invalid_argument_mentioning([&] { ref::sddmm(S, A, HostDense(3, 2)); },
                                     {"3 x 4", "B has 3 rows"});
  expect_invalid_argument_mentioning([&] { ref::sddmm(S, A, HostDense(4, 3)); },
                                     {"3 x 2", "4 x 3"});
}

TEST(ReferenceErrors, SpgemmInnerDimension) {
  const HostCsr A = small_csr();  // 3 x 4
  expect_invalid_argument_mentioning([&] { ref::spgemm(A, A); }, {"3 x 4", "inner"});
}

TEST(ReferenceErrors, InvalidCsrStructure) {
  HostCsr column_out_of_range = small_csr();
  column_out_of_range.entries[0] = 4;
  HostCsr short_row_map = small_csr();
  short_row_map.row_map = {0, 3, 5};
  HostCsr missing_values = small_csr();
  missing_values.values.pop_back();
  for (const HostCsr& bad : {column_out_of_range, short_row_map, missing_values}) {
    std::vector<double> y(3);
    EXPECT_THROW(ref::spmv("N", 1.0, bad, {1, 2, 3, 4}, 0.0, y), InvalidArgument);
    HostDense X(4, 1), Y(3, 1);
    EXPECT_THROW(ref::spmm("N", 1.0, bad, X, 0.0, Y), InvalidArgument);
    EXPECT_THROW(ref::sddmm(bad, HostDense(3, 1), HostDense(4, 1)), InvalidArgument);
    EXPECT_THROW(ref::spgemm(bad, HostCsr::from_triplets(4, 2, {})), InvalidArgument);
    EXPECT_THROW(ref::spgemm(HostCsr::from_triplets(2, 3, {}), bad), InvalidArgument);
  }
}

// ---------------------------------------------------------------------------------------------
// empty extents

HostCsr empty_csr(int64_t rows, int64_t cols) {
  return HostCsr::from_triplets(rows, cols, {});
}

TEST(ReferenceEmpty, ZeroByZero) {
  const HostCsr A;  // default: 0 x 0
  std::vector<double> x, y;
  ref::spmv("N", 1.0, A, x, 0.0, y);
  ref::spmv("T", 1.0, A, x, 1.0, y);
  EXPECT_TRUE(y.empty());
  HostDense X, Y;
  ref::spmm("N", 1.0, A, X, 0.0, Y);
  const HostCsr C = ref::spgemm(A, A);
  EXPECT_EQ(0, C.num_rows);
  EXPECT_EQ(0, C.nnz());
  EXPECT_NO_THROW(C.validate());
  const HostCsr out = ref::sddmm(A, HostDense(0, 3), HostDense(0, 3));
  EXPECT_EQ(0, out.nnz());
  const HostBsr B;
  ref::bsr_spmv("N", 1.0, B, x, 0.0, y);
  ref::bsr_spmm("T", 1.0, B, X, 0.0, Y);
}

TEST(ReferenceEmpty, ZeroRowsOrColumns) {
  const HostCsr no_rows = empty_csr(0, 3), no_cols = empty_csr(3, 0);
  std::vector<double> y3(3, kNaN), y0;
  ref::spmv("N", 1.0, no_rows, {1, 2, 3}, 0.0, y0);
  ref::spmv("T", 1.0, no_rows, {}, 0.0, y3);
  expect_values_eq({0, 0, 0}, y3);
  y3.assign(3, kNaN);
  ref::spmv("N", 1.0, no_cols, {}, 0.0, y3);
  expect_values_eq({0, 0, 0}, y3);

  HostDense X(3, 0), Y(0, 0);  // zero vectors
  ref::spmm("N", 1.0, no_rows, X, 0.0, Y);
  HostDense Xt(0, 2), Yt(3, 2, kNaN);
  ref::spmm("T", 1.0, no_rows, Xt, 0.0, Yt);
  expect_values_eq(std::vector<double>(6, 0.0), Yt.data);

  // (3 x 0) * (0 x 3): no inner dimension, so an all-empty 3 x 3 product.
  const HostCsr C = ref::spgemm(no_cols, no_rows);
  EXPECT_EQ(3, C.num_rows);
  EXPECT_EQ(3, C.num_cols);
  EXPECT_EQ((std::vector<int64_t>{0, 0, 0, 0}), C.row_map);
  EXPECT_EQ(0, C.nnz());
  // (0 x 3) * (3 x 0)
  const HostCsr D = ref::spgemm(no_rows, no_cols);
  EXPECT_EQ(0, D.num_rows);
  EXPECT_EQ(0, D.num_cols);
  EXPECT_NO_THROW(D.validate());

  // SDDMM with K = 0: every inner product is empty, so the values are zero.
  const HostCsr S = HostCsr::from_triplets(2, 2, {{0, 1, 3.0}, {1, 0, -2.0}});
  const HostCsr out = ref::sddmm(S, HostDense(2, 0), HostDense(2, 0));
  expect_values_eq({0, 0}, out.values);

  HostBsr bsr_no_rows;
  bsr_no_rows.block_size = 2;
  bsr_no_rows.num_block_cols = 2;
  std::vector<double> y4(4, kNaN);
  ref::bsr_spmv("T", 1.0, bsr_no_rows, {}, 0.0, y4);
  expect_values_eq({0, 0, 0, 0}, y4);
}

// ---------------------------------------------------------------------------------------------
// The kernel tests' error bound (test::spmv_matches, test::spmm_matches)

TEST(TestErrorBound, ScaleIsTheReferenceOnAbsoluteValues) {
  const HostCsr A = random_csr(20, 15, 0.3, 4242);
  ASSERT_FALSE(A.is_sorted_and_unique());
  Lcg lcg(31);
  for (const std::string mode : {"N", "T"}) {
    const int64_t op_rows = mode == "N" ? 20 : 15, op_cols = mode == "N" ? 15 : 20;
    const std::vector<double> x = random_vector(op_cols, lcg), y0 = random_vector(op_rows, lcg);
    for (double alpha : {1.5, -0.5, 0.0})
      for (double beta : {0.0, 0.75, -2.0}) {
        // Poisoned where neither may read: x when alpha is 0, y0 when beta is 0.
        const std::vector<double> xs = alpha == 0 ? std::vector<double>(op_cols, kNaN) : x;
        const std::vector<double> ys = beta == 0 ? std::vector<double>(op_rows, kNaN) : y0;
        std::vector<double> abs_x(op_cols), expected(op_rows);
        for (int64_t j = 0; j < op_cols; ++j) abs_x[j] = std::fabs(xs[j]);
        for (int64_t i = 0; i < op_rows; ++i) expected[i] = std::fabs(ys[i]);
        ref::spmv(mode, std::fabs(alpha), Sprocket::test::absolute(A), abs_x, std::fabs(beta), expected);
        std::vector<double> scale(op_rows, kNaN);
        Sprocket::test::spmv_error_scale(mode == "T", alpha, A, xs.data(), beta, ys.data(), op_rows,
                                         scale.data());
        SCOPED_TRACE("mode " + mode + ", alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta));
        expect_values_eq(expected, scale);
      }
  }
}

TEST(TestErrorBound, LengthIsTheLongestRowOfOpA) {
  // 3 x 5: rows of 4, 1 and 2 entries; column 2 holds 3 entries, the others at most 1.
  const HostCsr A = Sprocket::test::csr_from_dense(3, 5, {1, 0, 2, 3, 4,  //
                                                           0, 0, 5, 0, 0,  //
                                                           0, 6, 7, 0, 0});
  EXPECT_EQ(Sprocket::test::longest_dot("N", A), 4);
  EXPECT_EQ(Sprocket::test::longest_dot("T", A), 3);
  EXPECT_EQ(Sprocket::test::longest_dot("N", Sprocket::transpose(A)), 3);
  EXPECT_EQ(Sprocket::test::longest_dot("T", Sprocket::test::no_entries(2, 7)), 0);
  // Per entry of op(A) x: its row's (column's) entries + 2.
  EXPECT_EQ(Sprocket::test::dot_lengths("N", A), (std::vector<double>{6, 3, 4}));
  EXPECT_EQ(Sprocket::test::dot_lengths("T", A), (std::vector<double>{3, 3, 5, 3, 3}));
  EXPECT_EQ(Sprocket::test::dot_lengths("N", Sprocket::test::no_entries(2, 7)), (std::vector<double>{2, 2}));
}

// The bound of entry i follows row i's length, not the longest row's: next to a long row, an
// error of a few times a short row's bound fails (it passed when every entry had the longest
// row's bound), in both modes and column by column of a multivector.
TEST(TestErrorBound, ShortRowsKeepTheirOwnBound) {
  // 3 x 8: row 0 holds every column, row 1 one entry (column 3), row 2 two (columns 3 and 5);
  // column 3 holds 3 entries, the others 1 or 2.
  const HostCsr A = Sprocket::test::csr_from_dense(3, 8, {1, 2, 3, 4, 5, 6, 7, 8,  //
                                                           0, 0, 0, 3, 0, 0, 0, 0,  //
                                                           0, 0, 0, 5, 0, 7, 0, 0});
  const double eps = std::numeric_limits<double>::epsilon();
  for (const std::string mode : {"N", "T"}) {
    SCOPED_TRACE("mode " + mode);
    const bool transpose = mode == "T";
    const int64_t rows = transpose ? 8 : 3, cols = transpose ? 3 : 8;
    std::vector<double> x(cols), y0(rows);
    for (int64_t j = 0; j < cols; ++j) x[j] = 0.25 + 0.125 * static_cast<double>(j);
    for (int64_t i = 0; i < rows; ++i) y0[i] = -0.5 + 0.25 * static_cast<double>(i);
    std::vector<double> y = y0;
    ref::spmv(mode, 1.5, A, x, 0.75, y);
    // The short entry: row 1 of A (1 entry), or column 0 of A (1 entry: row 0's) under T; the
    // longest row of op(A) has 8 entries (N) or 3 (T).
    const int64_t i = transpose ? 0 : 1, longest = transpose ? 3 : 8;
    std::vector<double> scale(rows);
    Sprocket::test::spmv_error_scale(transpose, 1.5, A, x.data(), 0.75, y0.data(), rows, scale.data());
    const double own_bound = 4.0 * eps * 3.0 * scale[i], longest_bound = 4.0 * eps * (longest + 2.0) * scale[i];
    ASSERT_LT(1.5 * own_bound, longest_bound);
    std::vector<double> inside = y, outside = y;
    inside[i] += 0.5 * own_bound;
    outside[i] += 1.5 * own_bound;  // within the longest row's bound
    EXPECT_TRUE(Sprocket::test::spmv_matches<double>(mode, 1.5, A, x, 0.75, y0, inside));
    EXPECT_FALSE(Sprocket::test::spmv_matches<double>(mode, 1.5, A, x, 0.75, y0, outside));
    const HostDense X = dense_from_columns(cols, {x, x}), Y0 = dense_from_columns(rows, {y0, y0});
    EXPECT_TRUE(
        Sprocket::test::spmm_matches<double>(mode, 1.5, A, X, 0.75, Y0, dense_from_columns(rows, {inside, inside})));
    EXPECT_FALSE(
        Sprocket::test::spmm_matches<double>(mode, 1.5, A, X, 0.75, Y0, dense_from_columns(rows, {y, outside})));
  }
}

TEST(TestErrorBound, MatchesRejectWhatLiesOutsideTheBound) {
  const HostCsr A = random_csr(20, 15, 0.3, 99);
  Lcg lcg(8);
  const std::vector<double> x = random_vector(15, lcg), y0 = random_vector(20, lcg);
  std::vector<double> y = y0;
  ref::spmv("N", 1.5, A, x, 0.75, y);
  EXPECT_TRUE(Sprocket::test::spmv_matches<float>("N", 1.5, A, x, 0.75, y0, y));
  // Entry i's bound, computed here the long way: 4 eps(float) (row i's entries + 2) scale_i, scale
  // = 1.5 |A| |x| + 0.75 |y0|.
  std::vector<double> abs_x(15), scale(20);
  for (int64_t j = 0; j < 15; ++j) abs_x[j] = std::fabs(x[j]);
  for (int64_t r = 0; r < 20; ++r) scale[r] = std::fabs(y0[r]);
  ref::spmv("N", 1.5, Sprocket::test::absolute(A), abs_x, 0.75, scale);
  int64_t i = 0;
  while (i < 20 && !(scale[i] > 0)) ++i;
  ASSERT_LT(i, 20);
  const double len = static_cast<double>(A.row_length(i) + 2);
  const double bound = 4.0 * std::numeric_limits<float>::epsilon() * len * scale[i];
  std::vector<double> inside = y, outside = y, nan = y;
  inside[i] += 0.5 * bound;
  outside[i] += 2.0 * bound;
  nan[i] = kNaN;
  EXPECT_TRUE(Sprocket::test::spmv_matches<float>("N", 1.5, A, x, 0.75, y0, inside));
  EXPECT_FALSE(Sprocket::test::spmv_matches<float>("N", 1.5, A, x, 0.75, y0, outside));
  EXPECT_FALSE(Sprocket::test::spmv_matches<float>("N", 1.5, A, x, 0.75, y0, nan));
  EXPECT_FALSE(Sprocket::test::spmv_matches<float>("N", 1.5, A, x, 0.75, y0, std::vector<double>(19, 0.0)));
  // The multivector check: column 1 of two, the same entry outside its bound.
  const HostDense X = dense_from_columns(15, {x, x}), Y0 = dense_from_columns(20, {y0, y0});
  EXPECT_TRUE(Sprocket::test::spmm_matches<float>("N", 1.5, A, X, 0.75, Y0, dense_from_columns(20, {y, inside})));
  const auto r =
      Sprocket::test::spmm_matches<float>("N", 1.5, A, X, 0.75, Y0, dense_from_columns(20, {y, outside}));
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("(column 1)"), std::string::npos) << r.message();
}

}  // namespace
