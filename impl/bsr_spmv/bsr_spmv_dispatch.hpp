#pragma once
// BSR SpMV dispatch: every routing decision of BsrSpmvPlan.
//
//   case                                              file (entry point)
//   alpha == 0 or x empty                             impl/common/scale_only.hpp (y = beta * y)
//   y empty                                           nothing to do
//   mode T, matrix not declared symmetric             impl/bsr_spmv/bsr_spmv_kokkos.hpp
//                                                       (kokkos::bsr_spmv_transpose: atomic scatter,
//                                                       every backend and space)
//   mode T, declared symmetric (A^T == A)             as mode N below
//   Backend::native, host space (OpenMP, Serial):
//     block_row, padded, symmetric                    impl/bsr_spmv/host/bsr_spmv_host.hpp
//                                                       (host::bsr_spmv_apply)
//   Backend::native, Kokkos::Cuda:
//     by_block, by_column, row_per_thread             impl/bsr_spmv/cuda/bsr_spmv_cuda.hpp
//                                                       (cuda::bsr_spmv_apply)
//     scalars other than float / double, or y of
//     another type than the scalar                    impl/bsr_spmv/bsr_spmv_kokkos.hpp
//   Backend::portable, any space: row_per_thread      impl/bsr_spmv/bsr_spmv_kokkos.hpp
//                                                       (kokkos::bsr_spmv_apply)
//
// Backend resolution (bsr_spmv_resolve_backend): automatic is native on host spaces and
// Kokkos::Cuda, portable elsewhere; native elsewhere throws. Which kernels each backend has is
// bsr_backend_has_kernel (impl/bsr_spmv/bsr_spmv_options.cpp); the analysis rejects a forced kernel
// the resolved backend lacks, so the routing below never meets one.
#include <Kokkos_Core.hpp>

#include "Sprocket_Operator.hpp"
#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/bsr_spmv/bsr_spmv_kokkos.hpp"
#include "impl/bsr_spmv/cuda/bsr_spmv_cuda.hpp"
#include "impl/bsr_spmv/host/bsr_spmv_host.hpp"
#include "impl/common/scale_only.hpp"

namespace Sprocket {
namespace Impl {

/// The backend a plan on ExecSpace runs for the requested one (native or portable).
template <class ExecSpace>
Backend bsr_spmv_resolve_backend(Backend requested) {
  constexpr bool has_native = is_host_space_v<ExecSpace> || is_cuda_space_v<ExecSpace>;
  if (requested == Backend::portable) return Backend::portable;
  SPROCKET_REQUIRE(requested != Backend::native || has_native, "BsrSpmvPlan: Backend::native: ", ExecSpace::name(),
                   " has no native BSR SpMV kernels (host spaces and Kokkos::Cuda have; Backend::portable runs "
                   "everywhere)");
  return has_native ? Backend::native : Backend::portable;
}

/// y = alpha * op(A) * x + beta * y for rank-1 x and y (the plan splits rank-2 ones).
template <class ExecSpace, class BsrType, class XView, class YView, class Scalar>
void bsr_spmv_dispatch(const ExecSpace& space, const BsrSpmvAnalysis<BsrType>& an, Mode mode, Scalar alpha,
                       const XView& x, Scalar beta, const YView& y) {
  if (y.extent(0) == 0) return;
  if (alpha == Scalar(0) || x.extent(0) == 0) return scale_only(space, beta, y);
  if (mode == Mode::T && !an.symmetric) return kokkos::bsr_spmv_transpose(space, an, alpha, x, beta, y);
  if (an.backend == Backend::native) {
    if constexpr (is_host_space_v<ExecSpace>) return host::bsr_spmv_apply(space, an, alpha, x, beta, y);
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (is_cuda_space_v<ExecSpace>) {
      if constexpr (cuda::raw_kernel_supported_v<Scalar, typename YView::non_const_value_type>)
        return cuda::bsr_spmv_apply(space, an, alpha, x, beta, y);
    }
#endif
  }
  kokkos::bsr_spmv_apply(space, an, alpha, x, beta, y);
}

}  // namespace Impl
}  // namespace Sprocket
