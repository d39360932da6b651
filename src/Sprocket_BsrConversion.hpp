#pragma once
/// \file Sprocket_BsrConversion.hpp
/// CSR <-> BSR conversion and block-size detection on the host (HostCsr, HostBsr): the compiled
/// core of the templated BsrMatrix conversions in Sprocket_BsrMatrix.hpp. Kokkos-free.
#include <cstdint>
#include <vector>

#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {

inline constexpr int max_bsr_block_size = 32;  ///< largest block size b a BsrMatrix accepts

/// What a CSR -> BSR conversion produced.
struct BsrConversionInfo {
  int block_size = 1;  ///< block size b of the result
  int64_t num_blocks = 0;  ///< stored b x b blocks
  int64_t csr_nnz = 0;     ///< entries of the CSR input
  int64_t stored_nnz = 0;  ///< num_blocks * b * b: scalars stored after zero fill
  /// stored_nnz / csr_nnz (>= 1; 1 means the blocks were already dense). 1 for an empty matrix.
  double fill_ratio = 1;
};

/// Host-side conversions (the compiled core of the templated ones below).
/// csr_to_host_bsr sums duplicate CSR entries into their block slot, fills missing positions of a
/// stored block with zeros, sorts block columns, and throws InvalidArgument when the CSR
/// dimensions are not multiples of b.
HostBsr csr_to_host_bsr(const HostCsr& A, int block_size, BsrConversionInfo* info = nullptr);
/// Every scalar of every stored block becomes a CSR entry (explicit zeros included), unless
/// drop_zeros is set; columns sorted.
HostCsr host_bsr_to_csr(const HostBsr& A, bool drop_zeros = false);

/// Estimated bytes one SpMV moves for one candidate block size.
struct BlockSizeEstimate {
  int block_size = 1;  ///< candidate block size b (1: plain CSR)
  int64_t num_blocks = 0;  ///< b x b blocks stored at this block size
  double fill_ratio = 1;  ///< stored scalars / CSR entries at this block size (>= 1)
  double bytes = 0;  ///< matrix arrays + x read once + y written once
};

/// Picks the block size (a common divisor of rows and columns, 1..max_block_size) whose BSR
/// form moves the fewest bytes per SpMV, counting values (value_bytes each, zero fill included),
/// block column indices (ordinal_bytes) and block row offsets (offset_bytes). b = 1 is plain CSR.
/// All candidates considered are returned through `candidates` when given.
int detect_block_size(const HostCsr& A, int max_block_size = 16, int value_bytes = 8,
                      int ordinal_bytes = 4, int offset_bytes = 8,
                      std::vector<BlockSizeEstimate>* candidates = nullptr);

}  // namespace Sprocket
