#pragma once
// CUDA BSR SpMV kernels (placeholder: forwards to the portable kernel until the hand-written
// by-block, by-column and row-per-thread kernels land).
#include "impl/bsr/bsr_spmv_kokkos.hpp"

#ifdef KOKKOS_ENABLE_CUDA
namespace Sprocket {
namespace Impl {
namespace cuda {

template <class BsrType, class XView, class YView, class Scalar>
void bsr_spmv(const Kokkos::Cuda& space, BsrKernel kernel, const BsrType& A, Scalar alpha, const XView& x,
              Scalar beta, const YView& y) {
  (void)kernel;
  kokkos::bsr_spmv(space, A, alpha, x, beta, y);
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif
