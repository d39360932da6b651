#pragma once
// sprocket-bench's Kokkos peers in a translation unit of their own (bench_kk_peers.cpp): Kokkos
// Kernels' spmv (rank 1 and rank 2) and SpGEMM, and the kokkos_team SDDMM written plainly in
// Kokkos. Kokkos Kernels is header-only here (the dependency prefix is built with its explicit
// instantiations off), so its kernels are compiled in that file, which host builds compile for the
// machine they run on (-march of this CPU, perf_tests/CMakeLists.txt): the peers get the
// instruction set a user building Kokkos Kernels for their machine gets (Kokkos_ARCH_*), while
// our kernels keep the baseline build and their run-time AVX2 + FMA copies (SPROCKET_HOST_ISA).
// The peers' own code is also kept out of our kernels' translation units: an edit of either
// recompiles only its own.
//
// Instantiated for Scalar float/double x Offset int/size_t (CUDA builds: SpGEMM with int only; a
// bench built with SPROCKET_BENCH_TYPES=double_int: double / int alone) on the default execution
// space, dense operands LayoutLeft and LayoutRight.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <memory>
#include <string>
#include <vector>

#include "Sprocket_HostMatrix.hpp"
#include "bench_common.hpp"

namespace sprocket_bench {
namespace kk {

using Space = Kokkos::DefaultExecutionSpace;
using Device = Kokkos::Device<Space, Space::memory_space>;
template <class Scalar, class Offset>
using Crs = KokkosSparse::CrsMatrix<Scalar, int, Device, void, Offset>;
template <class Scalar>
using Vec = Kokkos::View<Scalar*, Device>;
template <class Scalar, class Layout>
using Mat = Kokkos::View<Scalar**, Layout, Device>;

/// The -march the peers were compiled with ("znver4", ...; "default" where the build does not set
/// one: CUDA builds, or a compiler that cannot tell): the peer_march key.
const char* peers_march();

/// KokkosSparse::spmv("N", alpha, A, x, beta, y), every way Kokkos Kernels 3.4 offers on this
/// space: its default, the "schedule" control static and dynamic (host), and on OpenMP with
/// doubles its raw OpenMP kernel over the graph's own row partitioning
/// (StaticCrsGraph::create_block_partitioning, one block per thread: built here, once per matrix
/// as its users build it; the bench counts it in the peer's set-up). A copy of A carries the
/// partitioning.
template <class Scalar, class Offset>
std::vector<Way> spmv_ways(const Crs<Scalar, Offset>& A, Scalar alpha, const Vec<Scalar>& x, Scalar beta,
                           const Vec<Scalar>& y);

/// KokkosSparse::spmv("N", alpha, A, B, beta, C): rank 2 (one algorithm in 3.4).
template <class Scalar, class Offset, class Layout>
void spmm(const Crs<Scalar, Offset>& A, Scalar alpha, const Mat<Scalar, Layout>& B, Scalar beta,
          const Mat<Scalar, Layout>& C);

/// The kokkos_team SDDMM peer: out(k) = alpha A(i, :) . B(j, :) (+ beta out(k)) for S's entry
/// k = (i, j); a team per row, the row's entries over the team's threads, the dot product over
/// vector lanes (as many as K needs, up to a warp; host backends take the lane loop as a plain
/// inner loop).
template <class Scalar, class Offset, class Layout>
void kokkos_team_sddmm(const Crs<Scalar, Offset>& S, const Mat<Scalar, Layout>& A, const Mat<Scalar, Layout>& B,
                       Scalar alpha, Scalar beta, const typename Crs<Scalar, Offset>::values_type& out);

/// Kokkos Kernels' SpGEMM through its View-level interface (the matrix-level spgemm_numeric of 3.4
/// destroys the handle, so it could not re-run), with one of its algorithms; sorted afterwards with
/// KokkosKernels::Impl::sort_crs_matrix when `sort` (3.4's output is unsorted).
class Spgemm {
 public:
  virtual ~Spgemm() = default;
  virtual void full() = 0;  ///< handle, symbolic, C's allocation, numeric, (sort), handle gone
  virtual void release() = 0;
  virtual Sprocket::HostCsr result() const = 0;
  virtual void prepare_numeric() = 0;
  virtual void numeric() = 0;  ///< spgemm_numeric again on the kept handle (+ the sort)
  virtual Sprocket::HostCsr numeric_result() const = 0;
  virtual void release_numeric() = 0;
  /// Sets every value of the last full()'s C (numeric_c false) or of the numeric re-runs' C to value.
  virtual void fill_c_values(bool numeric_c, double value) = 0;
};

/// The algorithms tried (KK's own variants, SPGEMM_KK its default): "kk", "kk_dense", "kk_memory",
/// "kk_lp".
std::vector<std::string> spgemm_algorithms();

template <class Scalar, class Offset>
std::unique_ptr<Spgemm> make_spgemm(const Crs<Scalar, Offset>& A, const Crs<Scalar, Offset>& B, bool sort,
                                    const std::string& algorithm);

}  // namespace kk
}  // namespace sprocket_bench
