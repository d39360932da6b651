#pragma once
// SpMV dispatch: the plan's target and the execution space pick the implementation.
//   target cuda  + Kokkos::Cuda            -> impl/spmv/cuda/spmv_cuda.hpp
//   target host  + Kokkos::OpenMP / Serial -> impl/spmv/host/spmv_host.hpp
//   anything else (or Backend::portable)   -> impl/spmv/spmv_kokkos.hpp
#include "Sprocket_Operator.hpp"
#include "impl/spmv/cuda/spmv_cuda.hpp"
#include "impl/spmv/host/spmv_host.hpp"
#include "impl/spmv/spmv_kokkos.hpp"

namespace Sprocket {
namespace Impl {

template <class ExecSpace, class AMatrix, class Sched, class XView, class YView, class Scalar>
void spmv_dispatch(const ExecSpace& space, SpmvTarget target, const AMatrix& A, const Sched& s, Scalar alpha,
                   const XView& x, Scalar beta, const YView& y) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (is_cuda_space_v<ExecSpace>) {
    if (target == SpmvTarget::cuda) return cuda::spmv_apply(space, A, s, alpha, x, beta, y);
  }
#endif
  if constexpr (is_host_space_v<ExecSpace>) {
    if (target == SpmvTarget::host) return host::spmv_apply(space, A, s, alpha, x, beta, y);
  }
  kokkos::spmv_apply(space, A, s, alpha, x, beta, y);
}

}  // namespace Impl
}  // namespace Sprocket
