// Resource limits (issue 19).
// Integer overflow: offsets, nnz counts and products must never wrap silently. A matrix with more
// than 2^31 entries does not fit this machine's test budget, so the checks are driven with a
// 16-bit Offset (and Ordinal) type, whose limit small matrices pass: every counting path must
// refuse with InvalidArgument naming the count, never build a wrapped row map.
// Memory: workspaces sized by the caller's arguments (a BSR conversion's fill, a solver's basis)
// are checked against the memory ceiling before they are allocated: ResourceError with the bytes.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Spgemm.hpp"
#include "Sprocket_Spmv.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using namespace Sprocket::test;
using Device = Kokkos::DefaultHostExecutionSpace::device_type;
using Crs16 = KokkosSparse::CrsMatrix<double, int, Device, void, int16_t>;
using CrsOrdinal16 = KokkosSparse::CrsMatrix<double, int16_t, Device, void, int>;

/// The message of the `Expected` exception `f` throws ("" when it throws nothing, a marked text
/// when it throws something else).
template <class Expected, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Expected& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<another exception: ") + e.what() + ">";
  }
  return "";
}

HostCsr dense_block(int64_t rows, int64_t cols) {
  std::vector<double> d(static_cast<size_t>(rows * cols), 1.0);
  return csr_from_dense(rows, cols, d);
}

TEST(Overflow, ToCrsRefusesCountsPastTheOffsetType) {
  const HostCsr fits = dense_block(181, 181);   // 32761 entries <= 32767
  const HostCsr wraps = dense_block(182, 182);  // 33124 entries
  EXPECT_NO_THROW(to_crs<Crs16>(fits));
  const std::string m = message_of<InvalidArgument>([&] { to_crs<Crs16>(wraps); });
  EXPECT_NE(m.find("33124 entries do not fit the matrix's offset type"), std::string::npos) << m;
}

TEST(Overflow, ToCrsRefusesDimensionsPastTheOrdinalType) {
  const HostCsr tall = no_entries(40000, 3);
  const std::string m = message_of<InvalidArgument>([&] { to_crs<CrsOrdinal16>(tall); });
  EXPECT_NE(m.find("40000 x 3 does not fit the matrix's ordinal type"), std::string::npos) << m;
}

TEST(Overflow, SpgemmOffsetCheckAtTheBoundary) {
  EXPECT_NO_THROW(Impl::spgemm_check_offset<int16_t>(32767, "nnz(C)"));
  const std::string past = message_of<InvalidArgument>([] { Impl::spgemm_check_offset<int16_t>(32768, "nnz(C)"); });
  EXPECT_NE(past.find("nnz(C) is 32768, more than the matrix's Offset type holds (32767)"), std::string::npos) << past;
  EXPECT_NE(message_of<InvalidArgument>([] { Impl::spgemm_check_offset<int16_t>(-1, "nnz(C)"); }), "");
  EXPECT_NE(message_of<InvalidArgument>([] { Impl::spgemm_check_offset<int>(int64_t{1} << 31, "nnz(C)"); }), "");
  EXPECT_NO_THROW(Impl::spgemm_check_offset<int>((int64_t{1} << 31) - 1, "nnz(C)"));
}

// A product whose inputs fit 16-bit offsets but whose result does not: a column times a row.
// Every backend's symbolic pass counts in 64 bits and refuses before the row map is written.
TEST(Overflow, SpgemmRefusesAProductPastTheOffsetType) {
  const HostCsr column = dense_block(200, 1), row = dense_block(1, 200);  // C = 200 x 200, 40000 entries
  const Crs16 a = to_crs<Crs16>(column), b = to_crs<Crs16>(row);
  for (const Backend backend : {Backend::automatic, Backend::portable}) {
    SpgemmOptions options;
    options.backend = backend;
    const std::string m = message_of<InvalidArgument>([&] { SpgemmPlan<Crs16> plan(a, b, options); });
    EXPECT_NE(m.find("nnz(C) is 40000, more than the matrix's Offset type holds (32767)"), std::string::npos)
        << to_string(backend) << ": " << m;
  }
  // 181 x 181 = 32761 entries fit: the same product shape one size down is computed.
  const HostCsr column_fits = dense_block(181, 1), row_fits = dense_block(1, 181);
  SpgemmPlan<Crs16> plan(to_crs<Crs16>(column_fits), to_crs<Crs16>(row_fits));
  EXPECT_EQ(plan.nnz(), 181 * 181);
}

// Products of dimensions in the generators are checked before they are formed (the grid sizes
// n^2, n^3 and dof * n^3 of 64-bit counts): a size that cannot exist is refused, never wrapped.
TEST(Overflow, GeneratorsRefuseSizesThatWrap) {
  for (const std::string spec : {"gen:poisson3d:n=3000000", "gen:poisson2d:n=4000000000", "gen:elasticity:n=2100000,dof=6",
                                 "gen:rmat:scale=70", "gen:uniform:n=9223372036854775807,avg=1",
                                 // a fuzz finding: the bytes of 4.4e17 edges overflowed before the check
                                 "gen:rmat:scale=2,ef=111111111111111112.1"}) {
    try {
      gen::from_spec(spec);
      ADD_FAILURE() << spec << " was generated";
    } catch (const ParseError&) {  // a specification's sizes: the policy's type for specs
    } catch (const ResourceError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << spec << ": " << e.what();
    }
  }
}

/// Sets the host memory ceiling for one scope.
class MemoryCeiling {
 public:
  explicit MemoryCeiling(int64_t bytes) : saved_(host_memory_limit()) { set_host_memory_limit(bytes); }
  ~MemoryCeiling() { set_host_memory_limit(saved_); }
  MemoryCeiling(const MemoryCeiling&) = delete;
  MemoryCeiling& operator=(const MemoryCeiling&) = delete;

 private:
  int64_t saved_;
};

// One entry per 32 x 32 block: the BSR form stores 1024 scalars per entry (8 KiB), so 3200
// entries need 26 MB. Under a 4 MB ceiling the conversion refuses before allocating; the same
// pattern with b = 1 (no fill) converts.
TEST(ResourceLimits, CsrToBsrFillIsCheckedBeforeAllocating) {
  std::vector<Triplet> t;
  for (int64_t k = 0; k < 3200; ++k) t.push_back({k, (k * 37) % 3200, 1.0});
  const HostCsr A = HostCsr::from_triplets(3200, 3200, t);
  const MemoryCeiling ceiling(int64_t{4} << 20);
  const std::string m = message_of<ResourceError>([&] { csr_to_host_bsr(A, 32); });
  EXPECT_NE(m.find("csr_to_bsr: 3200 blocks of 32x32 for 3200 entries: needs 26"), std::string::npos) << m;
  EXPECT_NO_THROW(csr_to_host_bsr(A, 1));
}

// Block GMRES keeps (restart + 1) x block basis vectors: restart 500, block 8 and n = 10^4 need
// 323 MB, refused under a 64 MB ceiling before the first allocation; a small restart runs.
TEST(ResourceLimits, BlockGmresBasisIsCheckedBeforeAllocating) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  using MV = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
  const HostCsr A = gen::poisson2d(100);
  auto op = make_operator(SpmvPlan<Crs>(to_crs<Crs>(A)));
  MV B("B", A.num_rows, 8), X("X", A.num_rows, 8);
  Kokkos::deep_copy(B, 1.0);
  const MemoryCeiling ceiling(int64_t{64} << 20);
  BlockGmresOptions options;
  options.restart = 500;
  const std::string m = message_of<ResourceError>([&] { block_gmres(*op, B, X, options); });
  EXPECT_NE(m.find("block_gmres: the Krylov basis and work blocks (n = 10000, restart 500, block 8): needs 322560000 bytes"),
            std::string::npos)
      << m;
  options.restart = 10;
  options.max_iterations = 2;
  EXPECT_NO_THROW(block_gmres(*op, B, X, options));
}

// LOBPCG's search space is 3 blocks of X's width, several times over: block 2000 on n = 10^4 is
// refused under a 64 MB ceiling.
TEST(ResourceLimits, LobpcgBlocksAreCheckedBeforeAllocating) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  using MV = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
  const HostCsr A = gen::poisson2d(100);
  auto op = make_operator(SpmvPlan<Crs>(to_crs<Crs>(A)));
  const MemoryCeiling ceiling(int64_t{64} << 20);
  LobpcgOptions options;
  options.nev = 1;
  options.block_size = 2000;
  const std::string m = message_of<ResourceError>([&] { Sprocket::lobpcg(*op, MV(), options); });
  EXPECT_NE(m.find("lobpcg: the search-space blocks (n = 10000, block 2000): needs"), std::string::npos) << m;
}

}  // namespace
