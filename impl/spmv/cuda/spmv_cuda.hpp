#pragma once
// CUDA specialization of the SpMV kernel family (placeholder: forwards to the portable path until
// the hand-written kernels land).
#include "impl/spmv/spmv_kokkos.hpp"

#ifdef KOKKOS_ENABLE_CUDA
namespace Sprocket {
namespace Impl {
namespace cuda {

template <class AMatrix, class Sched, class XView, class YView, class Scalar>
void spmv_apply(const Kokkos::Cuda& space, const AMatrix& A, const Sched& s, Scalar alpha, const XView& x,
                Scalar beta, const YView& y) {
  kokkos::spmv_apply(space, A, s, alpha, x, beta, y);
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif
