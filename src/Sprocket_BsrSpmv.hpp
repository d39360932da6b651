#pragma once
/// \file Sprocket_BsrSpmv.hpp
/// Block-CSR SpMV / SpMM (paper: bsr-spmv, Eberhardt and Hoemmen).
///
///   Sprocket::BsrSpmvPlan<Bsr> plan(A);            // analysis: kernel choice, host partition
///   plan.apply("N", alpha, x, beta, y);             // y = alpha * op(A) * x + beta * y
///
/// Kernels (BsrKernel), chosen by target and block size, or forced:
///  - host_block_row: the paper's single-level algorithm: a host thread per contiguous,
///    block-balanced range of block rows, a b-length local accumulator, compile-time block sizes
///    for b <= 8 (runtime b above);
///  - host_padded: the same over a private copy of the values whose block rows are padded to a
///    multiple of 8 scalars (64 bytes) so every row of a block starts aligned for SIMD loads. The
///    copy is a snapshot used by mode "N": after changing A's values call update_values() (mode
///    "T" and the other kernels read A's values directly);
///  - cuda_by_block: (CUDA) a warp's lanes spread over the b*b entries of consecutive blocks of a
///    block row, coalesced value reads, shuffle reduction per row; b <= 5 in the paper's study;
///  - cuda_by_column: (CUDA) a lane per (block, column) pair, b up to 32;
///  - cuda_row_per_thread: (CUDA) a thread per scalar row, the block row's x segments staged in
///    shared memory; best for b >= 16;
///  - portable: the portable Kokkos kernel (a thread per scalar row), any execution space.
/// Mode "T" scatters with atomics without forming A^T (portable kernel on every target).
/// Rank-2 x and y (BSR SpMM) go through the same plan, column by column.
/// Semantics as KokkosSparse::spmv: beta == 0 overwrites y without reading it.

#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Operator.hpp"

namespace Sprocket {

enum class BsrKernel : int {
  host_block_row = 0,
  host_padded,
  cuda_by_block,
  cuda_by_column,
  cuda_row_per_thread,
  portable,
  automatic = -1,
};
inline constexpr int num_bsr_kernels = 6;

const char* to_string(BsrKernel kernel);
/// Parses the names printed by to_string ("auto" for automatic); throws InvalidArgument listing
/// the valid names.
BsrKernel bsr_kernel_from_string(const std::string& name);

struct BsrSpmvOptions {
  BsrKernel kernel = BsrKernel::automatic;
  /// Backend::portable forces BsrKernel::portable.
  Backend backend = Backend::automatic;
};

/// The kernel the plan uses on a target for a block size (no forcing). `cuda` selects among the
/// CUDA kernels: by-block up to b = 4, by-column up to 15, row-per-thread from 16 (the paper's
/// crossovers); host: host_block_row; anything else: portable.
BsrKernel bsr_default_kernel(bool cuda, bool host, int block_size);

}  // namespace Sprocket

#include "impl/bsr/bsr_spmv_plan.hpp"
