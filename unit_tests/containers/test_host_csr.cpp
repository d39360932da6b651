// HostCsr construction and validation, and HostCsr <-> KokkosSparse::CrsMatrix round trips on
// every enabled execution space, for float/double and int/size_t offsets.
#include <gtest/gtest.h>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Validate.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

TEST(HostCsr, FromTripletsSortsAndSumsDuplicatesKeepsZeros) {
  HostCsr A = HostCsr::from_triplets(3, 4, {{2, 3, 1.0}, {0, 2, 2.0}, {0, 0, 3.0}, {0, 2, 0.5},
                                           {2, 0, 0.0}, {0, 1, -1.0}});
  EXPECT_EQ(A.num_rows, 3);
  EXPECT_EQ(A.num_cols, 4);
  EXPECT_EQ(A.row_map, (std::vector<int64_t>{0, 3, 3, 5}));
  EXPECT_EQ(A.entries, (std::vector<int>{0, 1, 2, 0, 3}));
  EXPECT_EQ(A.values, (std::vector<double>{3.0, -1.0, 2.5, 0.0, 1.0}));
  EXPECT_TRUE(A.is_sorted_and_unique());
  EXPECT_NO_THROW(A.validate());
}

TEST(HostCsr, FromTripletsRejectsOutOfRange) {
  EXPECT_THROW(HostCsr::from_triplets(2, 2, {{2, 0, 1.0}}), InvalidArgument);
  EXPECT_THROW(HostCsr::from_triplets(2, 2, {{0, -1, 1.0}}), InvalidArgument);
  EXPECT_THROW(HostCsr::from_triplets(-1, 2, {}), InvalidArgument);
}

TEST(HostCsr, EmptyMatrices) {
  HostCsr A = HostCsr::from_triplets(0, 0, {});
  EXPECT_EQ(A.nnz(), 0);
  EXPECT_NO_THROW(A.validate());
  HostCsr B = HostCsr::from_triplets(5, 3, {});
  EXPECT_EQ(B.row_map, std::vector<int64_t>(6, 0));
}

TEST(HostCsr, ValidateCatchesBrokenStructure) {
  HostCsr A = test::csr_from_dense(2, 2, {1, 2, 0, 3});
  HostCsr bad = A;
  bad.entries[0] = 5;
  EXPECT_THROW(bad.validate(), InvalidArgument);
  bad = A;
  bad.row_map[1] = 4;  // larger than row_map[2] = 3
  EXPECT_THROW(bad.validate(), InvalidArgument);
  bad = A;
  bad.values.pop_back();
  EXPECT_THROW(bad.validate(), InvalidArgument);
  bad = A;
  bad.row_map.pop_back();
  EXPECT_THROW(bad.validate(), InvalidArgument);
  try {
    bad.validate();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("row_map"), std::string::npos) << e.what();
  }
}

TEST(HostCsr, UnsortedIsDetected) {
  HostCsr A;
  A.num_rows = 1;
  A.num_cols = 3;
  A.row_map = {0, 2};
  A.entries = {2, 0};
  A.values = {1, 2};
  EXPECT_NO_THROW(A.validate());
  EXPECT_FALSE(A.is_sorted_and_unique());
}

template <class CrsType>
class CrsConversion : public ::testing::Test {};
TYPED_TEST_SUITE(CrsConversion, test::CrsTypes);

TYPED_TEST(CrsConversion, RoundTripIsExactForRepresentableValues) {
  using Crs = TypeParam;
  HostCsr host = test::random_csr(57, 33, 4.0, 1);
  // Values representable in float so the float round trip is exact too.
  for (double& v : host.values) v = static_cast<float>(v);
  Crs A = to_crs<Crs>(host);
  EXPECT_EQ(A.numRows(), 57);
  EXPECT_EQ(A.numCols(), 33);
  EXPECT_EQ(static_cast<int64_t>(A.nnz()), host.nnz());
  EXPECT_TRUE(test::same_csr(to_host_csr(A), host));
}

TYPED_TEST(CrsConversion, EmptyAndDegenerateShapes) {
  using Crs = TypeParam;
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{0, 0}, {0, 5}, {5, 0}, {1, 1}}) {
    HostCsr host = HostCsr::from_triplets(rows, cols, {});
    Crs A = to_crs<Crs>(host);
    EXPECT_EQ(A.numRows(), rows);
    EXPECT_EQ(A.numCols(), cols);
    EXPECT_TRUE(test::same_csr(to_host_csr(A), host));
  }
  // A default-constructed CrsMatrix is the 0 x 0 matrix.
  HostCsr from_default = to_host_csr(Crs());
  EXPECT_EQ(from_default.num_rows, 0);
  EXPECT_EQ(from_default.nnz(), 0);
}

TYPED_TEST(CrsConversion, InvalidHostMatrixIsRejected) {
  HostCsr host = test::csr_from_dense(2, 2, {1, 0, 0, 1});
  host.entries[1] = 7;
  EXPECT_THROW(to_crs<TypeParam>(host), InvalidArgument);
}

// Sprocket::validate on CrsMatrix: valid matrices (also unsorted, duplicates, 0 x 0) pass; every
// broken invariant throws with its sizes (a row map of the wrong length Kokkos Kernels' own
// constructor already refuses).
TEST(CrsValidate, NamesTheBrokenInvariant) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Kokkos::DefaultHostExecutionSpace::device_type, void, int>;
  using RowMap = Kokkos::View<int*, Kokkos::DefaultHostExecutionSpace::device_type>;
  using Entries = Kokkos::View<int*, Kokkos::DefaultHostExecutionSpace::device_type>;
  using Values = Kokkos::View<double*, Kokkos::DefaultHostExecutionSpace::device_type>;
  auto make = [](int rows, int cols, std::vector<int> rm, std::vector<int> en) {
    RowMap r("r", rm.size());
    Entries e("e", en.size());
    Values v("v", en.size());
    for (size_t i = 0; i < rm.size(); ++i) r(i) = rm[i];
    for (size_t i = 0; i < en.size(); ++i) e(i) = en[i];
    return Crs("A", rows, cols, static_cast<int>(en.size()), v, r, e);
  };
  auto message = [](const Crs& A) -> std::string {
    try {
      Sprocket::validate(A);
    } catch (const Sprocket::InvalidArgument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message(make(2, 3, {0, 2, 3}, {2, 0, 2})), "");  // unsorted, fine
  EXPECT_EQ(message(make(2, 3, {0, 2, 2}, {1, 1})), "");     // duplicates, fine
  EXPECT_EQ(message(Crs()), "");                             // default: 0 x 0
  EXPECT_NE(message(make(2, 3, {1, 2, 2}, {1, 1})).find("row_map(0) = 1"), std::string::npos);
  EXPECT_NE(message(make(2, 3, {0, 2, 1}, {1, 1})).find("decreases at row 1 (2 > 1)"), std::string::npos);
  EXPECT_NE(message(make(2, 3, {0, 1, 3}, {1, 1})).find("row_map(2) = 3 but there are 2 column indices"), std::string::npos);
  EXPECT_NE(message(make(2, 3, {0, 1, 2}, {1, 3})).find("column index 3 at position 1 outside [0, 3)"), std::string::npos);
  EXPECT_NE(message(make(2, 3, {0, 1, 2}, {-1, 0})).find("column index -1 at position 0"), std::string::npos);
}
