// The plans the library compiles once (impl/common/eti.hpp) and the ones it does not.
//
// - A matrix type outside the list comes from the headers: here KokkosSparse's short form, whose
//   Device parameter is the execution space itself (a different type from the listed
//   Kokkos::Device<Space, MemorySpace>). SpmvPlan, SpmmPlan, BsrSpmvPlan and SddmmPlan run on it
//   and match the reference.
// - A listed type takes x and y of any layout through two compiled View pairs (contiguous,
//   strided): every pairing of a contiguous and a strided x and y, in both modes, matches the
//   reference, so a route that read a strided vector as a contiguous one fails here.
// - LinearOperator routes Views that fit the compiled pairs to apply_compiled without
//   instantiating the operator's generic apply_vector for them (which compiled every kernel again
//   in the caller's translation unit, for nothing): a probe operator's apply_vector fails to
//   compile for such Views, and counts which route each call took.
// The listed types themselves are tested by every kernel's own tests. Seeds are printed by the
// test main; outputs are poisoned (NaN) before beta == 0 applies.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "Sprocket_BsrConversion.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spmm.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_types.hpp"
#include "sprocket_test_utils.hpp"

using namespace Sprocket;

namespace {

using Space = Kokkos::DefaultExecutionSpace;
/// Not listed: Device is the execution space, not Kokkos::Device<Space, MemorySpace>.
using UnlistedCrs = KokkosSparse::CrsMatrix<double, int, Space, void, int>;
/// Listed (impl/common/eti.hpp) in every build: the build's test space with its memory space.
using ListedCrs = test::Crs<double, int, Space>;
static_assert(!std::is_same_v<UnlistedCrs, ListedCrs>, "the unlisted type must differ from the listed one");
static_assert(std::is_same_v<ListedCrs, Impl::EtiCrs<double, int, Space>>, "the listed type is the ETI list's");

using Vector = Kokkos::View<double*, Space>;
using RowMajor = Kokkos::View<double**, Kokkos::LayoutRight, Space>;
using ColMajor = Kokkos::View<double**, Kokkos::LayoutLeft, Space>;

/// y (poisoned when beta == 0) = alpha op(A) x + beta y through plan.apply, against the reference.
/// strided_x / strided_y: x or y is column 1 of a 3-column LayoutRight View (stride 3).
template <class Plan>
::testing::AssertionResult spmv_route(const Plan& plan, const HostCsr& A, const std::string& mode, double beta,
                                      bool strided_x, bool strided_y, uint64_t salt) {
  const bool n = mode == "N";
  const int64_t in = n ? A.num_cols : A.num_rows, out = n ? A.num_rows : A.num_cols;
  const std::vector<double> x = test::random_vector(in, salt), y0 = test::random_vector(out, salt + 1);
  RowMajor x3("x3", in, 3), y3("y3", out, 3);
  Vector xc("xc", in), yc("yc", out);
  const auto xs = Kokkos::subview(x3, Kokkos::ALL(), 1);
  const auto ys = Kokkos::subview(y3, Kokkos::ALL(), 1);
  auto set = [](const auto& v, const std::vector<double>& h) {
    auto m = Kokkos::create_mirror_view(v);
    for (size_t i = 0; i < h.size(); ++i) m(i) = h[i];
    Kokkos::deep_copy(v, m);
  };
  auto get = [](const auto& v) {
    auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    std::vector<double> h(v.extent(0));
    for (size_t i = 0; i < h.size(); ++i) h[i] = m(i);
    return h;
  };
  using Any = Kokkos::View<double*, Kokkos::LayoutStride, Space>;
  if (beta == 0) {
    Kokkos::deep_copy(y3, std::numeric_limits<double>::quiet_NaN());
    Kokkos::deep_copy(yc, std::numeric_limits<double>::quiet_NaN());
  } else {
    set(strided_y ? Any(ys) : Any(yc), y0);
  }
  set(strided_x ? Any(xs) : Any(xc), x);
  const double alpha = 1.5;
  std::vector<double> y;
  if (strided_x && strided_y) plan.apply(mode.c_str(), alpha, xs, beta, ys), y = get(ys);
  else if (strided_x) plan.apply(mode.c_str(), alpha, xs, beta, yc), y = get(yc);
  else if (strided_y) plan.apply(mode.c_str(), alpha, xc, beta, ys), y = get(ys);
  else plan.apply(mode.c_str(), alpha, xc, beta, yc), y = get(yc);
  return test::spmv_matches<double>(mode, alpha, A, x, beta, beta == 0 ? std::vector<double>(out, 0.0) : y0, y);
}

TEST(Eti, ListedSpmvPlanTakesEveryVectorLayoutPairing) {
  const HostCsr A = test::random_csr(137, 91, 6, 11);
  for (const SpmvKernel kernel : {SpmvKernel::automatic, SpmvKernel::subvector4}) {
    SpmvOptions o;
    o.kernel = kernel;
    const SpmvPlan<ListedCrs> plan(to_crs<ListedCrs>(A), o);
    for (const std::string mode : {"N", "T"})
      for (const double beta : {0.0, -0.5})
        for (const bool sx : {false, true})
          for (const bool sy : {false, true})
            EXPECT_TRUE(spmv_route(plan, A, mode, beta, sx, sy, 20 + 2 * sx + sy))
                << to_string(kernel) << " mode " << mode << " beta " << beta << " strided x " << sx << " strided y "
                << sy;
  }
}

TEST(Eti, ListedBsrSpmvPlanTakesEveryVectorLayoutPairing) {
  const HostCsr A = test::random_csr(96, 60, 5, 12);  // 2x2 blocks: 48 x 30 block rows and columns
  using Bsr = BsrMatrix<double, int, test::DeviceOf<Space>, int>;
  const HostBsr hb = csr_to_host_bsr(A, 2);
  const BsrSpmvPlan<Bsr> plan(to_bsr<Bsr>(hb));
  for (const std::string mode : {"N", "T"})
    for (const bool sx : {false, true})
      for (const bool sy : {false, true})
        EXPECT_TRUE(spmv_route(plan, A, mode, -0.5, sx, sy, 30 + 2 * sx + sy))
            << "mode " << mode << " strided x " << sx << " strided y " << sy;
}

/// A compiled-once operator (compiled_vectors) on the host that runs no kernel: it counts the
/// route of each apply. Its apply_vector does not compile for Views that fit CompiledVectors, so
/// this file stops building if LinearOperator instantiates the generic route for them again.
struct RoutingProbe : Impl::LinearOperator<RoutingProbe, Kokkos::DefaultHostExecutionSpace, double> {
  static constexpr const char* operator_name = "RoutingProbe::apply";
  static constexpr bool compiled_vectors = true;
  using execution_space = Kokkos::DefaultHostExecutionSpace;
  using device_type = Kokkos::Device<execution_space, execution_space::memory_space>;
  using vectors = Impl::CompiledVectors<double, device_type>;

  int64_t num_rows() const { return 4; }
  int64_t num_cols() const { return 4; }

  void apply_compiled(const execution_space&, Mode, double, const vectors::const_contiguous&, double,
                      const vectors::contiguous&) const {
    ++contiguous;
  }
  void apply_compiled(const execution_space&, Mode, double, const vectors::const_strided&, double,
                      const vectors::strided&) const {
    ++strided;
  }
  template <class XView, class YView>
  void apply_vector(const execution_space&, Mode, double, const XView&, double, const YView&) const {
    static_assert(!Impl::compiled_vectors_fit_v<double, device_type, XView, YView>,
                  "LinearOperator instantiated the generic route for Views the compiled one takes");
    ++generic;
  }

  mutable int contiguous = 0, strided = 0, generic = 0;
};

TEST(Eti, FittingVectorsNeverInstantiateTheGenericRoute) {
  using HostSpace = Kokkos::DefaultHostExecutionSpace;
  Kokkos::View<double*, HostSpace> x("x", 4), y("y", 4);
  Kokkos::View<double**, Kokkos::LayoutRight, HostSpace> X("X", 4, 3), Y("Y", 4, 3);
  Kokkos::View<const double*, HostSpace> cx = x;
  Kokkos::View<float*, HostSpace> xf("xf", 4);  // another value type: the generic route
  RoutingProbe probe;
  probe.apply("N", 1.0, x, 0.0, y);
  probe.apply("T", 1.0, cx, 0.0, y);
  EXPECT_EQ(probe.contiguous, 2);
  probe.apply("N", 1.0, Kokkos::subview(X, Kokkos::ALL(), 1), 0.0, y);
  probe.apply("N", 1.0, X, 0.0, Y);  // rank 2: column by column, each of stride 3
  EXPECT_EQ(probe.strided, 4);
  probe.apply("N", 1.0, xf, 0.0, y);
  EXPECT_EQ(probe.generic, 1);
  EXPECT_EQ(probe.contiguous, 2);
}

TEST(Eti, UnlistedMatrixTypeRunsFromTheHeaders) {
  const HostCsr A = test::random_csr(120, 77, 7, 13);
  const UnlistedCrs Ad = to_crs<UnlistedCrs>(A);
  // SpMV, both modes, contiguous and strided vectors.
  const SpmvPlan<UnlistedCrs> spmv(Ad);
  for (const std::string mode : {"N", "T"})
    for (const bool strided : {false, true})
      EXPECT_TRUE(spmv_route(spmv, A, mode, 0.0, strided, strided, 40 + strided)) << "SpmvPlan mode " << mode;
  // BSR SpMV over 1x1 blocks of the same matrix.
  using UnlistedBsr = BsrMatrix<double, int, Space, int>;
  const BsrSpmvPlan<UnlistedBsr> bsr(to_bsr<UnlistedBsr>(csr_to_host_bsr(A, 1)));
  EXPECT_TRUE(spmv_route(bsr, A, "N", 0.0, true, false, 42)) << "BsrSpmvPlan";
  // SpMM, K = 5, LayoutLeft B into LayoutRight C.
  const int64_t K = 5;
  HostDense B(A.num_cols, K);
  B.data = test::random_vector(A.num_cols * K, 43);
  const ColMajor Bd = test::to_view<ColMajor>(B);
  RowMajor Cd("C", A.num_rows, K);
  Kokkos::deep_copy(Cd, std::numeric_limits<double>::quiet_NaN());
  const SpmmPlan<UnlistedCrs> spmm(Ad);
  spmm.apply("N", 2.0, Bd, 0.0, Cd);
  EXPECT_TRUE(test::spmm_matches<double>("N", 2.0, A, B, 0.0, HostDense(A.num_rows, K), test::to_host_dense(Cd)))
      << "SpmmPlan";
  // SDDMM: out = S o (X Y^T) on S's entries.
  HostDense X(A.num_rows, K), Y(A.num_cols, K);
  X.data = test::random_vector(A.num_rows * K, 44);
  Y.data = test::random_vector(A.num_cols * K, 45);
  const SddmmPlan<UnlistedCrs> sddmm(Ad);
  Vector out("out", A.nnz());
  Kokkos::deep_copy(out, std::numeric_limits<double>::quiet_NaN());
  sddmm.apply(SddmmForm::scaled, 1.0, test::to_view<RowMajor>(X), test::to_view<ColMajor>(Y), 0.0, out);
  const HostCsr expected = reference::sddmm(A, X, Y);
  const std::vector<double> got = test::to_host_vector(out);
  ASSERT_EQ(got.size(), expected.values.size());
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_NEAR(got[k], expected.values[k], 1e-12 * (1 + std::fabs(expected.values[k]))) << "SddmmPlan entry " << k;
}

}  // namespace
