#pragma once
// BSR SpMV dispatch: the plan's kernel and the execution space pick the implementation.
//   host_block_row, host_padded,
//   host_symmetric                         -> impl/bsr/host/bsr_spmv_host.hpp   (OpenMP, Serial)
//   cuda_by_block, _by_column, _row_per_thread -> impl/bsr/cuda/bsr_spmv_cuda.hpp (Kokkos::Cuda)
//   portable, and mode T everywhere        -> impl/bsr/bsr_spmv_kokkos.hpp
//   (except for a matrix declared symmetric, whose mode T the plan sends here as mode N)
// The plan has already checked that the kernel suits the space.
#include "Sprocket_Operator.hpp"
#include "impl/bsr/bsr_spmv_kokkos.hpp"
#include "impl/bsr/cuda/bsr_spmv_cuda.hpp"
#include "impl/bsr/host/bsr_spmv_host.hpp"

namespace Sprocket {
namespace Impl {

/// What the plan's analysis built for the host kernels (empty Views for the others).
template <class Scalar, class Ordinal, class Device>
struct BsrHostWork {
  Kokkos::View<int64_t*, Device> parts;   ///< part p: block rows [parts(p), parts(p + 1))
  Kokkos::View<Scalar*, Device> padded;   ///< host_padded: the padded copy of the values
  /// host_symmetric: a packed copy of each block row's diagonal block and the blocks right of it
  /// (BSR arrays over the same block rows).
  Kokkos::View<int64_t*, Device> upper_row_map;
  Kokkos::View<Ordinal*, Device> upper_entries;
  Kokkos::View<Scalar*, Device> upper_values;
  Kokkos::View<int64_t*, Device> reach;         ///< host_symmetric: part p spills into [parts(p+1), reach(p))
  Kokkos::View<int64_t*, Device> spill_offset;  ///< host_symmetric: part p's spill at spill(spill_offset(p))
  Kokkos::View<Scalar*, Device> spill;          ///< host_symmetric: workspace, b scalars per spilled block row
};

template <class ExecSpace, class BsrType, class Work, class XView, class YView, class Scalar>
void bsr_spmv_dispatch(const ExecSpace& space, BsrKernel kernel, const BsrType& A, const Work& work, Scalar alpha,
                       const XView& x, Scalar beta, const YView& y) {
  if constexpr (is_host_space_v<ExecSpace>) {
    if (kernel == BsrKernel::host_block_row || kernel == BsrKernel::host_padded)
      return host::bsr_spmv(space, A, work.parts, work.padded, kernel == BsrKernel::host_padded, alpha, x, beta, y);
    if (kernel == BsrKernel::host_symmetric)
      return host::bsr_spmv_symmetric(space, A.block_size(), work, alpha, x, beta, y);
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
