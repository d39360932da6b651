#pragma once
// BSR SpMV dispatch: the plan's kernel and the execution space pick the implementation.
//   host_block_row, host_padded            -> impl/bsr/host/bsr_spmv_host.hpp   (OpenMP, Serial)
//   cuda_by_block, _by_column, _row_per_thread -> impl/bsr/cuda/bsr_spmv_cuda.hpp (Kokkos::Cuda)
//   portable, and mode T everywhere        -> impl/bsr/bsr_spmv_kokkos.hpp
// The plan has already checked that the kernel suits the space.
#include "Sprocket_Operator.hpp"
#include "impl/bsr/bsr_spmv_kokkos.hpp"
#include "impl/bsr/cuda/bsr_spmv_cuda.hpp"
#include "impl/bsr/host/bsr_spmv_host.hpp"

namespace Sprocket {
namespace Impl {

template <class ExecSpace, class BsrType, class Parts, class Padded, class XView, class YView, class Scalar>
void bsr_spmv_dispatch(const ExecSpace& space, BsrKernel kernel, const BsrType& A, const Parts& parts,
                       const Padded& padded, Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  if constexpr (is_host_space_v<ExecSpace>) {
    if (kernel == BsrKernel::host_block_row || kernel == BsrKernel::host_padded)
      return host::bsr_spmv(space, A, parts, padded, kernel == BsrKernel::host_padded, alpha, x, beta, y);
  }
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (is_cuda_space_v<ExecSpace>) {
    if (kernel == BsrKernel::cuda_by_block || kernel == BsrKernel::cuda_by_column ||
        kernel == BsrKernel::cuda_row_per_thread)
      return cuda::bsr_spmv(space, kernel, A, alpha, x, beta, y);
  }
#endif
  kokkos::bsr_spmv(space, A, alpha, x, beta, y);
}

}  // namespace Impl
}  // namespace Sprocket
