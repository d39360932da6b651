#pragma once
// Resource limits of the CUDA ASpT SpMM kernel (impl/spmm/cuda/spmm_cuda.hpp) that the analysis
// has to respect when it builds a layout for the GPU (modulo_slots). Plain constexpr, no CUDA
// dependency: host-only translation units (impl/spmm/spmm_options.cpp) include it too.
//
// The rule for the analysis (any K, float or double):
//   tile_cols (W) <= spmm_cuda_max_tile_cols(spmm_cuda_min_k_slice, sizeof(Scalar))
//                    = 512 for float, 256 for double;
//   panel_rows (P) <= spmm_cuda_max_panel_rows(sizeof(Scalar)) = 256 for float, 160 for double,
//                    for the best speed (a larger P is still correct: the block then walks the
//                    panel's rows in several passes and stages every heavy tile once per pass).
//                    P = 128 is one pass for both scalars, and lets K > 32 coarsen by 2 for float.
// A layout with a wider W makes spmm_aspt throw InvalidArgument (it cannot stage one K-slice).
#include <cstdint>

namespace Sprocket {
namespace Impl {
namespace cuda {

/// Dynamic shared memory one ASpT thread block may use to stage a heavy tile: the tile's W rows
/// of B restricted to the block's K-slice. 64 KiB leaves room for 2 resident blocks per SM on
/// A100 (164 KiB of shared memory per SM) and 3 on H100/H200 (228 KiB); the paper sized its
/// 32 KiB per block the same way (full occupancy on a P100, section 4.4).
inline constexpr int64_t spmm_cuda_shared_budget_bytes = int64_t{64} * 1024;

/// The narrowest K-slice the kernel uses once K >= 32: one warp's 32 lanes, one column each.
/// (Smaller K uses slices of next_pow2(K) columns, which only ever need less shared memory.)
inline constexpr int64_t spmm_cuda_min_k_slice = 32;

/// Largest tile width W (shared-memory slots per tile) whose staged rows of B fit the budget
/// for a K-slice of k_slice columns of scalar_bytes each; W * k_slice * scalar_bytes <= budget.
constexpr int64_t spmm_cuda_max_tile_cols(int64_t k_slice, int64_t scalar_bytes) {
  return (k_slice > 0 && scalar_bytes > 0) ? spmm_cuda_shared_budget_bytes / (k_slice * scalar_bytes) : 0;
}

/// Panel rows one block covers in a single pass at a K-slice of 32: 16 warps, each keeping the
/// accumulators of 16 float or 10 double rows in registers (spmm_rows_per_group in
/// spmm_cuda_kernels.cuh; a K-slice of 64 keeps 12 float or 5 double rows).
constexpr int64_t spmm_cuda_max_panel_rows(int64_t scalar_bytes) { return scalar_bytes <= 4 ? 256 : 160; }

static_assert(spmm_cuda_max_tile_cols(spmm_cuda_min_k_slice, 4) == 512 &&
                  spmm_cuda_max_tile_cols(spmm_cuda_min_k_slice, 8) == 256,
              "the documented tile widths");

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
