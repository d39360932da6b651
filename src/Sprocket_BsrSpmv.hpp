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
///  - host_symmetric: for a matrix declared symmetric (BsrSpmvOptions::symmetric), the block-row
///    kernel reading only the diagonal and upper blocks, each upper block applied as itself and as
///    its transpose (about half the value bytes: what a bandwidth-bound SpMV pays for). It reads
///    a packed private copy of those blocks (about half of A's size; a snapshot like host_padded's:
///    after changing A's values call update_values()). A part's transposed products that land in
///    later parts' rows go to a per-part workspace, added in a second pass; so one plan must not
///    run apply() from two host threads at once;
///  - cuda_by_block: (CUDA) a warp's lanes spread over the b*b entries of consecutive blocks of a
///    block row, coalesced value reads, shuffle reduction per row; b <= 5 in the paper's study;
///  - cuda_by_column: (CUDA) a lane per (block, column) pair, b up to 32;
///  - cuda_row_per_thread: (CUDA) a thread per scalar row, the block row's x segments staged in
///    shared memory; best for b >= 16;
///  - portable: the portable Kokkos kernel (a thread per scalar row), any execution space.
/// Mode "T" scatters with atomics without forming A^T (portable kernel on every target), except
/// for a matrix declared symmetric, where it runs the mode "N" kernel (A^T == A).
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
  host_symmetric,
  cuda_by_block,
  cuda_by_column,
  cuda_row_per_thread,
  portable,
  automatic = -1,
};
inline constexpr int num_bsr_kernels = 7;

const char* to_string(BsrKernel kernel);
/// Parses the names printed by to_string ("auto" for automatic); throws InvalidArgument listing
/// the valid names.
BsrKernel bsr_kernel_from_string(const std::string& name);

struct BsrSpmvOptions {
  BsrKernel kernel = BsrKernel::automatic;
  /// Backend::portable forces BsrKernel::portable.
  Backend backend = Backend::automatic;
  /// The caller's promise that A == A^T (a square matrix equal to its transpose; duplicate blocks
  /// count as their sum, a block absent from the pattern as zeros) with ascending block columns in
  /// every block row. The plan checks it exactly at analysis and throws InvalidArgument naming the
  /// first entry that differs; update_values() checks it again. With it the automatic kernel on
  /// host spaces is host_symmetric when A's values take at least bsr_symmetric_min_bytes (smaller
  /// matrices sit in cache, where the general kernel's single pass is faster), and mode "T" runs
  /// the mode "N" kernel on every target.
  bool symmetric = false;
  /// Host kernels: the number of contiguous block-row parts (0: one per thread of the execution
  /// space). More parts than threads balance irregular rows at the cost of more, smaller ranges.
  int host_parts = 0;
};

/// Below this size of A's values the automatic kernel for a matrix declared symmetric stays
/// host_block_row: measured on the 2-core CI machine, host_symmetric was 1.1-1.4x slower on
/// bcsstk16 / bcsstk12 (2.6 MB / 0.3 MB, in cache) and 2-3x faster than Kokkos Kernels on the
/// elasticity matrices (118 / 343 MB).
inline constexpr int64_t bsr_symmetric_min_bytes = int64_t{16} << 20;

/// The kernel the plan uses on a target for a block size (no forcing). `cuda` selects among the
/// CUDA kernels: by-block up to b = 4, by-column up to 15, row-per-thread from 16 (the paper's
/// crossovers); host: host_block_row; anything else: portable. A plan whose options declare a
/// large matrix symmetric picks host_symmetric on host spaces instead (bsr_symmetric_min_bytes).
BsrKernel bsr_default_kernel(bool cuda, bool host, int block_size);

}  // namespace Sprocket

#include "impl/bsr/bsr_spmv_plan.hpp"
