#pragma once
// SDDMM dispatch: every routing decision of SddmmPlan, at construction (which backend, whether an
// ASpT analysis exists) and at apply (which kernel, which file runs). The plan and the backend
// files call no backend directly.
//
//   At construction (sddmm_resolve_backend, sddmm_check_kernel in sddmm_analysis.hpp):
//     Backend::automatic + Kokkos::OpenMP / Serial            -> native
//     Backend::automatic + Kokkos::Cuda, float or double      -> native
//     Backend::automatic + any other space or scalar type     -> portable
//     Backend::native    + a space / scalar without kernels   -> InvalidArgument
//     Backend::portable                                       -> portable
//     SddmmKernel::aspt forced on the portable backend or COO -> InvalidArgument
//     ASpT analysis: taken from an SpmmPlan (native, same space) / built when aspt is forced or
//                    SddmmOptions::build_tiles / none otherwise
//   At apply (sddmm_apply), in this order:
//     S without entries                        -> nothing to do
//     alpha == 0 or K == 0                     -> scale_only (impl/common/scale_only.hpp): out = beta * out
//     kernel: forced, or sddmm_choose_kernel (sddmm_analysis.hpp): aspt when the tiles exist,
//             K >= aspt_min_k (default 32 on CUDA, never on the host) and the heavy fraction
//             reaches min_heavy_fraction; else nonzero_tiles
//     native  + OpenMP / Serial (nonzero_tiles, aspt) -> impl/sddmm/host/sddmm_host.hpp  host::sddmm_apply
//     native  + Kokkos::Cuda    (nonzero_tiles, aspt) -> impl/sddmm/cuda/sddmm_cuda.hpp  cuda::sddmm_apply
//     portable (nonzero_tiles)                        -> impl/sddmm/sddmm_kokkos.hpp     kokkos::sddmm_apply
// The plan has already checked ranks, extents and scalar types.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spmm.hpp"  // spmm_has_native_v: the same kernel coverage
#include "impl/common/backend_resolution.hpp"
#include "impl/common/scale_only.hpp"
#include "impl/sddmm/host/sddmm_host.hpp"
#include "impl/sddmm/sddmm_analysis.hpp"
#include "impl/sddmm/sddmm_kokkos.hpp"
#ifdef KOKKOS_ENABLE_CUDA
#include "impl/sddmm/cuda/sddmm_cuda.hpp"
#endif

namespace Sprocket {
namespace Impl {

/// True when ExecSpace has native SDDMM kernels for Scalar: the host kernels (any scalar), the
/// CUDA kernels (float and double only), as for SpMM.
template <class ExecSpace, class Scalar>
inline constexpr bool sddmm_has_native_v = spmm_has_native_v<ExecSpace, Scalar>;

/// The backend a plan runs (native or portable, never automatic); *why says what decided it.
/// Throws InvalidArgument for Backend::native where there is no native kernel.
template <class ExecSpace, class Scalar>
Backend sddmm_resolve_backend(Backend requested, std::string* why) {
  return resolve_backend("SddmmPlan", requested, sddmm_has_native_v<ExecSpace, Scalar>, is_cuda_space_v<ExecSpace>,
                         ExecSpace::name(), why);
}

/// out = alpha * (w o A B^T)[S's entries] + beta * out with the plan's analysis.
template <class ExecSpace, class Scalar, class Ordinal, class Offset, class Device, class AView, class BView,
          class OutView>
void sddmm_apply(const ExecSpace& space, const SddmmAnalysis<Scalar, Ordinal, Offset, Device>& analysis,
                 SddmmForm form, Scalar alpha, const AView& A, const BView& B, Scalar beta, const OutView& out) {
  if (analysis.nnz == 0) return;
  const int64_t K = A.extent(1);
  if (alpha == Scalar(0) || K == 0) return scale_only(space, beta, out);
  const SddmmKernel kernel = sddmm_choose_kernel(analysis, K);
  if (analysis.backend == Backend::native) {
    if constexpr (is_host_space_v<ExecSpace>)
      return host::sddmm_apply(space, analysis, kernel, form, alpha, A, B, beta, out);
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (is_cuda_space_v<ExecSpace> && sddmm_has_native_v<ExecSpace, Scalar>)
      return cuda::sddmm_apply(space, analysis, kernel, form, alpha, A, B, beta, out);
#endif
  }
  kokkos::sddmm_apply(space, analysis, form, alpha, A, B, beta, out);
}

}  // namespace Impl
}  // namespace Sprocket
