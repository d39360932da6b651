#pragma once
/// \file host_blas.hpp
/// The host BLAS as the block kernels (block_ops.hpp) and the solvers use it: which library the
/// process runs (found at run time, not at build time: Debian's alternatives can swap
/// libblas.so.3 / libopenblas.so.0 under a built binary), whether dgemm may be called from inside
/// a host parallel region, and the two products the tall-skinny kernels hand to it.
///
/// Why it matters (perf_tests/results/block-ops-2026-11-26.md): on a host space OpenBLAS' dgemm
/// runs the Gram product U^T V and the block update U C 2-5x faster than Sprocket's own Kokkos
/// kernels (AVX-512 kernels chosen at run time, where the library is compiled for plain x86-64).
/// block_ops.hpp calls it once per row chunk inside its own parallel region, so the split over
/// threads, the fixed-order reduction of the chunks and the thread count stay Kokkos'. That is
/// only right when each call runs on the calling thread:
///  - OpenBLAS built with OpenMP (Debian libopenblas0-openmp, what the build links when it is
///    installed, impl/CMakeLists.txt): a call from inside an OpenMP parallel region runs on the
///    calling thread, and calls outside use the same OpenMP threads as Kokkos;
///  - sequential OpenBLAS;
///  - the pthreads OpenBLAS while it is set to one thread (BlasThreadScope).
/// Any other BLAS (reference BLAS: slower than the own kernels; others: unknown threading) and a
/// multi-threaded pthreads OpenBLAS are left alone: the own kernels run.
///
/// The pthreads OpenBLAS beside Kokkos' OpenMP threads is the bad case on a host with few cores:
/// its threads spin after every call on the cores Kokkos' threads need (the LOBPCG demo's small
/// dense LAPACK calls alone doubled its orthogonalization time). The solvers therefore hold a
/// BlasThreadScope while they run on a multi-threaded host space.
#include <cstdint>
#include <string>

namespace Sprocket {
namespace Impl {
namespace blocks {

/// What the process links as BLAS, seen at run time.
struct HostBlasInfo {
  bool openblas = false;  ///< OpenBLAS' own entry points are present
  /// OpenBLAS threading: 0 sequential, 1 pthreads, 2 OpenMP; -1 when not OpenBLAS.
  int threading = -1;
  std::string config;  ///< openblas_get_config(), or "" when not OpenBLAS
};

/// Detected once per process.
const HostBlasInfo& host_blas_info();

/// True when dgemm may be called from inside a host parallel region (each call on the
/// calling thread, concurrent calls safe): OpenBLAS built sequential or with OpenMP, or the
/// pthreads build while it is set to one thread. Cheap (no library call for the first two).
bool host_blas_in_parallel_ok();

/// One-line description for reports: "OpenBLAS (OpenMP) <config>", "OpenBLAS (pthreads, 1
/// thread) ...", or "not OpenBLAS (own kernels)".
std::string host_blas_description();

/// C = alpha op(A) op(B) + beta C (column-major, Fortran dgemm; beta == 0 does not read C).
void host_dgemm(bool transpose_a, bool transpose_b, int m, int n, int k, double alpha, const double* a, int lda,
                const double* b, int ldb, double beta, double* c, int ldc);

/// While alive and active, a pthreads OpenBLAS runs every call on the calling thread (one
/// thread); the previous thread count is restored at the end. A no-op for any other BLAS (the
/// OpenMP build already shares Kokkos' threads). Solvers hold one while they run on a host space
/// with several threads. Not for use from several threads at once (OpenBLAS' thread count is
/// process-wide).
class BlasThreadScope {
 public:
  explicit BlasThreadScope(bool active);
  ~BlasThreadScope();
  BlasThreadScope(const BlasThreadScope&) = delete;
  BlasThreadScope& operator=(const BlasThreadScope&) = delete;

 private:
  int restore_ = 0;  ///< thread count to restore, 0 when nothing was changed
};

}  // namespace blocks
}  // namespace Impl
}  // namespace Sprocket
