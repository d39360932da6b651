#pragma once
// SpMM dispatch: every routing decision of SpmmPlan, at construction (which backend) and at apply
// (which file runs). The plan and the backend files call no backend directly.
//
//   At construction (spmm_resolve_backend, spmm_check_kernel, spmm_target):
//     Backend::automatic + Kokkos::OpenMP / Serial            -> native, target host
//     Backend::automatic + Kokkos::Cuda, float or double      -> native, target cuda
//     Backend::automatic + any other space or scalar type     -> portable, target portable
//     Backend::native    + a space / scalar without kernels   -> InvalidArgument
//     Backend::portable                                       -> portable, target portable
//     SpmmKernel::aspt forced on the portable backend         -> InvalidArgument (kernel, backend, space)
//     SpmmKernel::automatic                                   -> chosen by the analysis
//                                                                (spmm_analysis.hpp, spmm_choose_kernel)
//   At apply (spmm_apply), in this order:
//     C without rows or columns                -> nothing to do
//     mode T                                   -> the plan's SpmvPlan (cached transpose), column by column
//     alpha == 0 or A without entries          -> spmm_scale_only (spmm_kokkos.hpp): C = beta * C
//     rank-1 x, y                              -> the rank-2 path on one-column strided Views
//     native  + OpenMP / Serial (csr_rows, aspt) -> impl/spmm/host/spmm_host.hpp  host::spmm_apply
//     native  + Kokkos::Cuda    (csr_rows, aspt) -> impl/spmm/cuda/spmm_cuda.hpp  cuda::spmm_apply
//     portable (csr_rows)                        -> impl/spmm/spmm_kokkos.hpp     kokkos::spmm_apply
// The plan has already checked mode, ranks and extents (LinearOperator) and that B and C hold
// the plan's scalar type.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/spmm/host/spmm_host.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "impl/spmm/spmm_kokkos.hpp"
#ifdef KOKKOS_ENABLE_CUDA
#include "impl/spmm/cuda/spmm_cuda.hpp"
#endif

namespace Sprocket {
namespace Impl {

/// True when ExecSpace has native SpMM kernels for Scalar: the host kernels (any scalar), the
/// CUDA kernels (float and double only).
template <class ExecSpace, class Scalar>
inline constexpr bool spmm_has_native_v =
    is_host_space_v<ExecSpace> ||
    (is_cuda_space_v<ExecSpace> && (std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>));

/// The backend a plan runs (native or portable, never automatic); *why says what decided it
/// (for describe()). Throws InvalidArgument for Backend::native where there is no native kernel.
template <class ExecSpace, class Scalar>
Backend spmm_resolve_backend(Backend requested, std::string* why) {
  const std::string space = ExecSpace::name();
  constexpr bool native = spmm_has_native_v<ExecSpace, Scalar>;
  const std::string missing =
      is_cuda_space_v<ExecSpace> ? "the CUDA kernels take float and double only" : space + " has no native kernels";
  switch (requested) {
    case Backend::portable: *why = "requested"; return Backend::portable;
    case Backend::native:
      SPROCKET_REQUIRE(native, "SpmmPlan: Backend::native on ", space, ": ", missing,
                       " (use Backend::portable or Backend::automatic)");
      *why = "requested";
      return Backend::native;
    case Backend::automatic:
      *why = native ? "automatic: " + space + (is_cuda_space_v<ExecSpace> ? " has CUDA kernels" : " has host kernels")
                    : "automatic: " + missing;
      return native ? Backend::native : Backend::portable;
  }
  throw InvalidArgument("SpmmPlan: SpmmOptions::backend = " + std::to_string(static_cast<int>(requested)) +
                        " is not a Backend");
}

/// Throws InvalidArgument when `kernel` is not an SpmmKernel, or is forced on a backend that does
/// not have it (aspt on the portable backend), naming kernel, backend and space.
template <class ExecSpace>
void spmm_check_kernel(SpmmKernel kernel, Backend requested, Backend resolved) {
  SPROCKET_REQUIRE(kernel == SpmmKernel::automatic ||
                       (static_cast<int>(kernel) >= 0 && static_cast<int>(kernel) < num_spmm_kernels),
                   "SpmmPlan: SpmmOptions::kernel = ", static_cast<int>(kernel), " is not an SpmmKernel");
  SPROCKET_REQUIRE(!(kernel == SpmmKernel::aspt && resolved == Backend::portable), "SpmmPlan: kernel ",
                   to_string(kernel), " is not available on Backend::portable (", to_string(requested),
                   " requested, execution space ", ExecSpace::name(),
                   "); the portable backend runs csr_rows only, aspt needs Backend::native on a host or CUDA space");
}

/// Whose calibrated defaults and which analysis variant a plan with this resolved backend uses.
template <class ExecSpace>
SpmmTarget spmm_target(Backend resolved) {
  if (resolved == Backend::portable) return SpmmTarget::portable;
  return is_cuda_space_v<ExecSpace> ? SpmmTarget::cuda : SpmmTarget::host;
}

/// C = alpha * op(A) * B + beta * C (rank 2, or rank 1 as one column) with the plan's analysis;
/// transpose() returns the plan's SpmvPlan for mode T (built on its first call).
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Device, class Transpose, class BView,
          class CView>
void spmm_apply(const ExecSpace& space, const SpmmAnalysis<Scalar, Ordinal, Offset, Device>& analysis, Mode mode,
                Transpose&& transpose, Scalar alpha, const BView& B, Scalar beta, const CView& C) {
  const int64_t K = CView::rank == 2 ? static_cast<int64_t>(C.extent(CView::rank - 1)) : 1;
  if (C.extent(0) == 0 || K == 0) return;
  if (mode == Mode::T) {
    // The transposed product is a scatter; SpmvPlan's cached transpose turns it into a gather.
    transpose().apply(space, "T", alpha, B, beta, C);
    return;
  }
  if constexpr (CView::rank == 1) {
    // K = 1: the same kernels over x and y seen as one-column strided matrices.
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    using X2 = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Device, Unmanaged>;
    using Y2 = Kokkos::View<Scalar**, Kokkos::LayoutStride, Device, Unmanaged>;
    const X2 x2(B.data(), Kokkos::LayoutStride(B.extent(0), B.stride(0), 1, 1));
    const Y2 y2(C.data(), Kokkos::LayoutStride(C.extent(0), C.stride(0), 1, 1));
    spmm_apply(space, analysis, mode, transpose, alpha, x2, beta, y2);
  } else {
    if (alpha == Scalar(0) || analysis.nnz == 0) return spmm_scale_only(space, beta, C);
    if (analysis.backend == Backend::native) {
      if constexpr (is_host_space_v<ExecSpace>) return host::spmm_apply(space, analysis, alpha, B, beta, C);
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (is_cuda_space_v<ExecSpace> && spmm_has_native_v<ExecSpace, Scalar>)
        return cuda::spmm_apply(space, analysis, alpha, B, beta, C);
#endif
    }
    kokkos::spmm_apply(space, analysis, alpha, B, beta, C);
  }
}

}  // namespace Impl
}  // namespace Sprocket
