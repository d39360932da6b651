#pragma once
// SpMM dispatch: the plan's kernel and the execution space pick the implementation.
//   csr_rows, aspt + Kokkos::OpenMP / Serial -> impl/spmm/host/spmm_host.hpp
//   csr_rows, aspt + Kokkos::Cuda            -> impl/spmm/cuda/spmm_cuda.hpp
//   portable (or any other space)            -> impl/spmm/spmm_kokkos.hpp
// The plan has already checked that the kernel suits the space, that B and C have the plan's
// scalar type, and handled mode T, alpha == 0 and empty extents.
#include "Sprocket_Operator.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/spmm/host/spmm_host.hpp"
#include "impl/spmm/spmm_kokkos.hpp"
#ifdef KOKKOS_ENABLE_CUDA
#include "impl/spmm/cuda/spmm_cuda.hpp"
#endif

namespace Sprocket {
namespace Impl {

/// Host only: parts, the nnz-balanced part boundaries (over rows for csr_rows, over row panels
/// for aspt); widest_tile, the most columns of a heavy tile; workspace, the plan's
/// host::SpmmWorkspace.
template <class ExecSpace, class Layout, class Parts, class Workspace, class BView, class CView, class Scalar>
void spmm_dispatch(const ExecSpace& space, SpmmKernel kernel, const Layout& L, const Parts& parts,
                   int64_t widest_tile, Workspace& workspace, Scalar alpha, const BView& B, Scalar beta,
                   const CView& C) {
  if constexpr (is_host_space_v<ExecSpace>) {
    if (kernel == SpmmKernel::aspt || kernel == SpmmKernel::csr_rows)
      return host::spmm(space, kernel == SpmmKernel::aspt, L, parts, widest_tile, workspace, alpha, B, beta, C);
  }
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (is_cuda_space_v<ExecSpace>) {
    if (kernel == SpmmKernel::aspt) return cuda::spmm_aspt(space, L, alpha, B, beta, C);
    if (kernel == SpmmKernel::csr_rows) return cuda::spmm_csr_rows(space, L, alpha, B, beta, C);
  }
#endif
  kokkos::spmm_rows(space, L, alpha, B, beta, C);
}

}  // namespace Impl
}  // namespace Sprocket
