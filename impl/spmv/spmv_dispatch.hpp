#pragma once
// SpMV dispatch: every routing decision of SpmvPlan, from SpmvOptions::backend and the execution
// space to the file that runs an apply. Nothing routes around it: the plan calls spmv_target
// (analysis) and spmv_dispatch (apply) only, and no backend calls another.
//
//   case                                                  served by
//   ----------------------------------------------------  ---------------------------------------
//   Backend::automatic / native, Kokkos::Cuda             target cuda
//   Backend::automatic / native, Kokkos::OpenMP / Serial  target host
//   Backend::automatic, any other space                   target portable (cpu or gpu memory)
//   Backend::native, any other space                      throws InvalidArgument
//   Backend::portable, any space                          target portable (cpu or gpu memory)
//   y empty                                               nothing to do
//   alpha == 0 or x empty                                 impl/common/scale_only.hpp (y = beta y)
//   mode T, SpmvTranspose::scatter                        spmv_kokkos.hpp spmv_transpose_scatter
//   mode T, SpmvTranspose::cached                         spmv_kokkos.hpp spmv_gather_values (A^T's
//                                                         values from A), then mode N on A^T's
//                                                         analysis, routed as below
//   mode N, target cuda, float / double, y of that type   cuda/spmv_cuda.hpp   cuda::spmv_apply
//   mode N, target cuda, other scalar types               spmv_kokkos.hpp      kokkos::spmv_apply
//                                                         (no native atomicAdd / shuffle for them)
//   mode N, target host on a host space                   host/spmv_host.hpp   host::spmv_apply
//   mode N, anything else                                 spmv_kokkos.hpp      kokkos::spmv_apply
//
// Every SpmvKernel exists in every backend, so a forced kernel never conflicts with the backend.
// Rank-2 x and y reach here column by column (Impl::LinearOperator).
#include <string>
#include <type_traits>

#include "Sprocket_Operator.hpp"
#include "impl/common/scale_only.hpp"
#include "impl/spmv/cuda/spmv_cuda.hpp"
#include "impl/spmv/host/spmv_host.hpp"
#include "impl/spmv/spmv_analysis.hpp"
#include "impl/spmv/spmv_kokkos.hpp"

namespace Sprocket {
namespace Impl {

/// The target SpmvOptions::backend resolves to on ExecSpace (with its memory space); throws
/// InvalidArgument for Backend::native on a space without a specialization.
template <class ExecSpace, class MemorySpace>
SpmvTarget spmv_target(Backend backend) {
  constexpr bool gpu_memory = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  constexpr SpmvTarget portable = gpu_memory ? SpmvTarget::portable_gpu : SpmvTarget::portable_cpu;
  if (backend == Backend::portable) return portable;
  if constexpr (is_cuda_space_v<ExecSpace>) {
    return SpmvTarget::cuda;
  } else if constexpr (is_host_space_v<ExecSpace>) {
    return SpmvTarget::host;
  } else {
    SPROCKET_REQUIRE(backend != Backend::native, "SpmvPlan: Backend::native has no SpMV specialization on ",
                     ExecSpace::name(), " (native kernels: OpenMP, Serial, Cuda); use Backend::automatic or portable");
    return portable;
  }
}

/// Why spmv_target chose what it did, for describe().
template <class ExecSpace>
std::string spmv_target_why(Backend backend, SpmvTarget target) {
  const std::string space = ExecSpace::name();
  if (backend == Backend::portable) return "Backend::portable: the portable Kokkos kernels";
  const std::string by = backend == Backend::native ? "Backend::native" : "Backend::automatic";
  if (target == SpmvTarget::cuda) return by + ": " + space + " has the CUDA kernels (impl/spmv/cuda/)";
  if (target == SpmvTarget::host) return by + ": " + space + " has the host kernels (impl/spmv/host/)";
  return by + ": " + space + " has no native kernels, the portable ones run";
}

/// y = alpha * A * x + beta * y on `analysis` (mode N, rank 1, alpha != 0, x and y not empty).
template <class ExecSpace, class CrsType, class XView, class YView, class Scalar>
void spmv_dispatch_mode_n(const ExecSpace& space, const SpmvAnalysis<CrsType>& analysis, Scalar alpha,
                          const XView& x, Scalar beta, const YView& y) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (is_cuda_space_v<ExecSpace>) {
    if (analysis.target == SpmvTarget::cuda) {
      using YValue = typename YView::non_const_value_type;
      if constexpr (cuda::raw_kernel_supported_v<Scalar, YValue>) {
        return cuda::spmv_apply(space, analysis, alpha, x, beta, y);
      } else {
        // The portable kernels run bins; a row-block schedule has none for its short rows.
        if (analysis.schedule.row_blocks)
          throw InvalidArgument(
              "Sprocket::spmv: SpmvBinning::row_blocks runs on the CUDA kernels, which take float or double with "
              "y of the scalar's type; use another binning for these types");
        return kokkos::spmv_apply(space, analysis, alpha, x, beta, y);
      }
    }
  }
#endif
  if constexpr (is_host_space_v<ExecSpace>) {
    if (analysis.target == SpmvTarget::host) return host::spmv_apply(space, analysis, alpha, x, beta, y);
  }
  kokkos::spmv_apply(space, analysis, alpha, x, beta, y);
}

/// y = alpha * op(A) * x + beta * y for rank-1 x and y. `cached_transpose()` returns A^T's
/// SpmvTransposeAnalysis (the plan builds it on the first call); it is called only for mode T
/// with SpmvTranspose::cached when there is work to do.
template <class ExecSpace, class CrsType, class CachedTranspose, class XView, class YView, class Scalar>
void spmv_dispatch(const ExecSpace& space, Mode mode, SpmvTranspose transpose, const SpmvAnalysis<CrsType>& analysis,
                   const CachedTranspose& cached_transpose, Scalar alpha, const XView& x, Scalar beta,
                   const YView& y) {
  if (y.extent(0) == 0) return;
  if (alpha == Scalar(0) || x.extent(0) == 0) return scale_only(space, beta, y);
  if (mode == Mode::N) return spmv_dispatch_mode_n(space, analysis, alpha, x, beta, y);
  if (transpose == SpmvTranspose::scatter)
    return kokkos::spmv_transpose_scatter(space, analysis.A, alpha, x, beta, y);
  const SpmvTransposeAnalysis<CrsType>& t = cached_transpose();
  // A's values may have changed since A^T was formed: one O(nnz) gather first.
  kokkos::spmv_gather_values(space, t.analysis.A.values, analysis.A.values, t.source);
  spmv_dispatch_mode_n(space, t.analysis, alpha, x, beta, y);
}

}  // namespace Impl
}  // namespace Sprocket
