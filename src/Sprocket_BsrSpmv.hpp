#pragma once
/// \file Sprocket_BsrSpmv.hpp
/// Block-CSR SpMV / SpMM (paper: bsr-spmv, Eberhardt and Hoemmen).
///
///   Sprocket::BsrSpmvPlan<Bsr> plan(A);            // analysis: kernel choice, host partition
///   plan.apply("N", alpha, x, beta, y);             // y = alpha * op(A) * x + beta * y
///
/// Selection: BsrSpmvOptions::backend (Sprocket_Operator.hpp) picks the implementation family,
/// BsrSpmvOptions::kernel the algorithm inside it; describe() says what was chosen and why.
///  - Backend::native on a host space (OpenMP, Serial; what Backend::automatic means there):
///    - block_row: the paper's single-level algorithm: a host thread per contiguous,
///      block-balanced range of block rows, a b-length local accumulator, compile-time block sizes
///      for b <= 8 (runtime b above); the automatic kernel;
///    - padded: the same over a private copy of the values whose block rows are padded to a
///      multiple of 8 scalars (64 bytes) so every row of a block starts aligned for SIMD loads.
///      The copy is a snapshot used by both modes (mode "T" scatters from it): after changing
///      A's values call update_values(A) (the other row kernels read A's values directly);
///    - symmetric: for a matrix declared symmetric (BsrSpmvOptions::symmetric), the block-row
///      kernel reading only the diagonal and upper blocks, each upper block applied as itself and
///      as its transpose (about half the value bytes: what a bandwidth-bound SpMV pays for). It
///      reads a packed private copy of those blocks (about half of A's size; a snapshot like
///      padded's: after changing A's values call update_values(A)). A part's transposed products
///      that land in later parts' rows go to a per-part workspace of the apply's own, added in a
///      second pass. Automatic for a matrix declared
///      symmetric whose values take at least bsr_symmetric_min_bytes;
///  - Backend::native on Kokkos::Cuda (what Backend::automatic means there):
///    - by_block: a warp's lanes spread over the b*b entries of consecutive blocks of a block row,
///      coalesced value reads, shuffle reduction per row; b <= 8 (automatic up to 4);
///    - by_column: a lane per (block, column) pair, b up to 32 (automatic from 5 to 15);
///    - row_per_thread: a thread per scalar row, the block row's x segments staged in shared
///      memory (automatic from 16);
///  - Backend::portable (any execution space; what Backend::automatic means on spaces without a
///    native implementation): row_per_thread, a thread per scalar row, its one kernel.
/// Backend::native on a space without native kernels throws InvalidArgument, and so does forcing
/// a kernel the resolved backend does not have (naming kernel, backend and space).
/// Mode "T" scatters with atomics without forming A^T (the portable backend's scatter on every
/// target), except for a matrix declared symmetric, where it runs the mode "N" kernel (A^T == A).
/// Rank-2 x and y (BSR SpMM) go through the same plan, column by column.
/// Semantics as KokkosSparse::spmv: beta == 0 overwrites y without reading it.
///
/// Thread safety: apply() is const and keeps no state in the plan (the symmetric kernel's spill
/// workspace belongs to each apply), so applies may run concurrently on one plan, in both modes;
/// update_values(A) must not overlap an apply.

#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Operator.hpp"

namespace Sprocket {

/// What a BSR kernel does (which backend runs it: Sprocket_BsrSpmv.hpp's file comment).
enum class BsrKernel : int {
  block_row = 0,   ///< host: a thread per balanced range of block rows
  padded,          ///< host: block_row over a copy with rows padded to 8 scalars
  symmetric,       ///< host: diagonal and upper blocks only, for a matrix declared symmetric
  by_block,        ///< CUDA: lanes over the b*b entries of consecutive blocks
  by_column,       ///< CUDA: a lane per (block, column)
  row_per_thread,  ///< CUDA and portable: a thread per scalar row
  automatic = -1,  ///< let the plan choose (options only)
};
inline constexpr int num_bsr_kernels = 6;  ///< number of BsrKernel values other than automatic

const char* to_string(BsrKernel kernel);  ///< the kernel's name ("automatic" for automatic)
/// Parses the names printed by to_string ("auto" or "automatic" for automatic); throws
/// InvalidArgument listing the valid names.
BsrKernel bsr_kernel_from_string(const std::string& name);
/// Options of a BsrSpmvPlan: kernel, backend, symmetry declaration, host partition.
struct BsrSpmvOptions {
  /// automatic: the backend's choice for the space, block size and symmetric declaration.
  BsrKernel kernel = BsrKernel::automatic;
  /// automatic: native on host spaces and Kokkos::Cuda, portable elsewhere.
  Backend backend = Backend::automatic;
  /// The caller's promise that A == A^T (a square matrix equal to its transpose; duplicate blocks
  /// count as their sum, a block absent from the pattern as zeros) with ascending block columns in
  /// every block row. The plan checks it exactly at analysis and throws InvalidArgument naming the
  /// first entry that differs; update_values(A) checks it again. With it the automatic kernel on
  /// host spaces is symmetric when A's values take at least bsr_symmetric_min_bytes (smaller
  /// matrices sit in cache, where the general kernel's single pass is faster), and mode "T" runs
  /// the mode "N" kernel on every target.
  bool symmetric = false;
  /// Host kernels: the number of contiguous block-row parts, which the threads take dynamically
  /// (0: up to 8 per thread of the execution space, each of at least 2048 blocks plus block rows).
  int host_parts = 0;
};

/// Below this size of A's values the automatic kernel for a matrix declared symmetric stays
/// block_row: such a matrix sits in cache, where the general kernel's single pass is faster than
/// the symmetric kernel's two; above it the symmetric kernel's halved bytes win (measurements:
/// perf_tests/results/bsr-host-2026-11-21.md).
inline constexpr int64_t bsr_symmetric_min_bytes = int64_t{16} << 20;

/// The automatic kernel on a kind of space for a block size (no symmetric declaration).
/// `cuda`: by_block up to b = 4, by_column up to 15, row_per_thread from 16 (the paper's
/// crossovers); `host`: block_row; anything else: row_per_thread (the portable backend's). A plan
/// whose options declare a large matrix symmetric picks symmetric on host spaces instead
/// (bsr_symmetric_min_bytes).
BsrKernel bsr_default_kernel(bool cuda, bool host, int block_size);

/// Whether a kernel can run a block size at all (by_block's lane mapping stops at 8).
bool bsr_kernel_supports(BsrKernel kernel, int block_size);

/// Whether `backend` has `kernel` on a kind of space: native: block_row, padded, symmetric on host
/// spaces, by_block, by_column, row_per_thread on Kokkos::Cuda, none elsewhere; portable:
/// row_per_thread on any space; automatic: native's where the space has native kernels, else
/// portable's.
bool bsr_backend_has_kernel(Backend backend, bool cuda, bool host, BsrKernel kernel);

}  // namespace Sprocket

#include "impl/bsr_spmv/bsr_spmv_plan.hpp"
