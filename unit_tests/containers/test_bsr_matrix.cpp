// BsrMatrix container, CSR <-> BSR conversion (with zero fill) and block-size detection.
#include <gtest/gtest.h>

#include <map>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Generators.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {


HostCsr without_zeros(const HostCsr& A) {
  std::vector<Triplet> t;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.values[k] != 0.0) t.push_back({i, A.entries[k], A.values[k]});
  return HostCsr::from_triplets(A.num_rows, A.num_cols, std::move(t));
}

}  // namespace

class BsrConversion : public ::testing::TestWithParam<int> {};

TEST_P(BsrConversion, RoundTripAndFillRatio) {
  const int b = GetParam();
  HostCsr A = without_zeros(test::random_blocked(13, 9, b, 2.5, 0.6, b));
  BsrConversionInfo info;
  HostBsr bsr = csr_to_host_bsr(A, b, &info);
  EXPECT_EQ(bsr.block_size, b);
  EXPECT_EQ(bsr.num_block_rows, 13);
  EXPECT_EQ(bsr.num_block_cols, 9);
  EXPECT_EQ(info.num_blocks, bsr.num_blocks());
  EXPECT_EQ(info.csr_nnz, A.nnz());
  EXPECT_EQ(info.stored_nnz, bsr.num_blocks() * b * b);
  EXPECT_DOUBLE_EQ(info.fill_ratio, double(info.stored_nnz) / A.nnz());
  EXPECT_GE(info.fill_ratio, 1.0);
  // Every scalar sits where the in-block row-major layout says.
  std::map<std::pair<int64_t, int64_t>, double> dense;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) dense[{i, A.entries[k]}] = A.values[k];
  int64_t nonzeros_seen = 0;
  for (int64_t I = 0; I < bsr.num_block_rows; ++I)
    for (int64_t k = bsr.row_map[I]; k < bsr.row_map[I + 1]; ++k) {
      if (k > bsr.row_map[I]) {
        ASSERT_LT(bsr.entries[k - 1], bsr.entries[k]);
      }
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) {
          auto it = dense.find({I * b + r, int64_t{bsr.entries[k]} * b + c});
          const double expected = it == dense.end() ? 0.0 : it->second;
          ASSERT_EQ(bsr.value(k, r, c), expected);
          nonzeros_seen += it != dense.end();
        }
    }
  EXPECT_EQ(nonzeros_seen, A.nnz());
  // Back to CSR: with zero dropping we get A again; without, the filled pattern.
  EXPECT_TRUE(test::same_csr(host_bsr_to_csr(bsr, true), A));
  HostCsr filled = host_bsr_to_csr(bsr, false);
  EXPECT_EQ(filled.nnz(), info.stored_nnz);
  EXPECT_TRUE(filled.is_sorted_and_unique());
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, BsrConversion,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 11, 16, 17, 32));

TEST(BsrConversionErrors, BadBlockSizesAndShapes) {
  HostCsr A = test::random_csr(12, 18, 3.0, 1);
  EXPECT_THROW(csr_to_host_bsr(A, 0), InvalidArgument);
  EXPECT_THROW(csr_to_host_bsr(A, 33), InvalidArgument);
  EXPECT_THROW(csr_to_host_bsr(A, 5), InvalidArgument);  // 12 % 5 != 0
  EXPECT_THROW(csr_to_host_bsr(A, 4), InvalidArgument);  // 18 % 4 != 0
  try {
    csr_to_host_bsr(A, 4);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("not a multiple of block size 4"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(csr_to_host_bsr(A, 6));
}

TEST(BsrConversionErrors, DuplicatesAreSummedAndEmptyBlockRowsKept) {
  HostCsr A;
  A.num_rows = 4;
  A.num_cols = 4;
  A.row_map = {0, 2, 2, 2, 3};  // block row 0 has entries, block row 1 only in its last row
  A.entries = {1, 1, 0};
  A.values = {1.5, 2.0, 7.0};
  HostBsr bsr = csr_to_host_bsr(A, 2);
  ASSERT_EQ(bsr.num_blocks(), 2);
  EXPECT_EQ(bsr.value(0, 0, 1), 3.5);
  EXPECT_EQ(bsr.value(1, 1, 0), 7.0);
  HostBsr empty = csr_to_host_bsr(HostCsr::from_triplets(6, 4, {}), 2);
  EXPECT_EQ(empty.num_blocks(), 0);
  EXPECT_EQ(empty.row_map, std::vector<int64_t>(4, 0));
}

TEST(BlockSizeDetection, FindsTheElasticityBlock) {
  for (int dof : {2, 3, 6}) {
    HostCsr A = gen::elasticity3d(4, dof, 1);
    std::vector<BlockSizeEstimate> candidates;
    EXPECT_EQ(detect_block_size(A, 16, 8, 4, 8, &candidates), dof) << "dof " << dof;
    ASSERT_FALSE(candidates.empty());
    EXPECT_EQ(candidates.front().block_size, 1);
    EXPECT_EQ(candidates.front().num_blocks, A.nnz());
  }
}

TEST(BlockSizeDetection, ScatteredMatrixStaysCsr) {
  EXPECT_EQ(detect_block_size(test::random_csr(600, 600, 6.0, 5)), 1);
  EXPECT_EQ(detect_block_size(HostCsr::from_triplets(0, 0, {})), 1);
}

TEST(BlockSizeDetection, SharedStiffnessMatricesConvertAndMatch) {
  for (const char* name : {"bcsstk12", "bcsstk16"}) {
    HostCsr A = load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz");
    std::vector<BlockSizeEstimate> candidates;
    const int b = detect_block_size(A, 8, 8, 4, 8, &candidates);
    std::cout << name << ": detected block size " << b << "\n";
    EXPECT_GT(b, 1) << name << " is a stiffness matrix with node blocks";
    BsrConversionInfo info;
    HostBsr bsr = csr_to_host_bsr(A, b, &info);
    EXPECT_TRUE(test::same_csr(host_bsr_to_csr(bsr, true), without_zeros(A)));
    std::vector<double> x = test::random_vector(A.num_cols, 7), y(A.num_rows), y_bsr(A.num_rows);
    reference::spmv("N", 1.0, A, x, 0.0, y);
    reference::bsr_spmv("N", 1.0, bsr, x, 0.0, y_bsr);
    EXPECT_TRUE(test::spmv_matches<double>("N", 1.0, A, x, 0.0, y, y_bsr));
  }
}

template <class CrsType>
class BsrOnDevice : public ::testing::Test {};
TYPED_TEST_SUITE(BsrOnDevice, test::CrsTypes);

TYPED_TEST(BsrOnDevice, CsrToBsrToCsr) {
  using Crs = TypeParam;
  using Bsr = BsrMatrix<typename Crs::non_const_value_type, int, typename Crs::device_type,
                        typename Crs::non_const_size_type>;
  HostCsr A = without_zeros(test::random_blocked(7, 5, 3, 2.0, 0.5, 11));
  Crs a = to_crs<Crs>(A);
  BsrConversionInfo info;
  Bsr bsr = csr_to_bsr<Bsr>(a, 3, &info);
  EXPECT_EQ(bsr.block_size(), 3);
  EXPECT_EQ(bsr.numRows(), 21);
  EXPECT_EQ(bsr.numCols(), 15);
  EXPECT_EQ(static_cast<int64_t>(bsr.nnz()), info.stored_nnz);
  EXPECT_TRUE(test::same_csr(without_zeros(to_host_csr(bsr_to_csr<Crs>(bsr))), A));
  EXPECT_TRUE(test::same_csr(to_host_csr(bsr_to_csr<Crs>(bsr, true)), A));
}

TYPED_TEST(BsrOnDevice, ConstructorChecksExtents) {
  using Crs = TypeParam;
  using Bsr = BsrMatrix<typename Crs::non_const_value_type, int, typename Crs::device_type,
                        typename Crs::non_const_size_type>;
  typename Bsr::row_map_type row_map("r", 3);
  typename Bsr::entries_type entries("e", 2);
  typename Bsr::values_type values("v", 8);
  EXPECT_NO_THROW(Bsr(2, 2, 2, row_map, entries, values));
  EXPECT_THROW(Bsr(2, 2, 3, row_map, entries, values), InvalidArgument);
  EXPECT_THROW(Bsr(3, 2, 2, row_map, entries, values), InvalidArgument);
  EXPECT_THROW(Bsr(2, 2, 0, row_map, entries, values), InvalidArgument);
  EXPECT_THROW(Bsr(2, 2, 33, row_map, entries, values), InvalidArgument);
}
