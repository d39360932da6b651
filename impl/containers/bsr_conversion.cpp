// CSR <-> BSR conversion and block-size detection, on the host (analysis time).
//
// Conversion visits one block row at a time: a marker array over block columns (stamped with
// the block row id, so it is never cleared) finds the distinct block columns of the b scalar
// rows, they are sorted, and each CSR entry is added into its slot (duplicates sum; positions
// with no entry stay zero: the "fill"). Detection counts blocks the same way for every
// candidate b, O(nnz) per candidate.
#include <algorithm>
#include <limits>

#include "Sprocket_BsrConversion.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"

namespace Sprocket {

namespace {

void require_block_size_fits(const HostCsr& A, int b, const char* who) {
  SPROCKET_REQUIRE(b >= 1 && b <= max_bsr_block_size, who, ": block size ", b, " outside [1, ",
                   max_bsr_block_size, "]");
  SPROCKET_REQUIRE(A.num_rows % b == 0 && A.num_cols % b == 0, who, ": matrix ", A.num_rows, " x ",
                   A.num_cols, " is not a multiple of block size ", b,
                   " in both dimensions (pad the matrix or choose a divisor)");
}

// Number of distinct b x b blocks touched by A's entries.
int64_t count_blocks(const HostCsr& A, int b, std::vector<int64_t>& stamp) {
  const int64_t num_block_rows = A.num_rows / b, num_block_cols = A.num_cols / b;
  if (static_cast<int64_t>(stamp.size()) < num_block_cols)  // a column count the file declared
    require_host_memory(num_block_cols * int64_t{sizeof(int64_t)},
                        "counting the " + std::to_string(b) + "x" + std::to_string(b) + " blocks of a " +
                            std::to_string(A.num_rows) + " x " + std::to_string(A.num_cols) + " matrix");
  stamp.assign(num_block_cols, -1);
  int64_t blocks = 0;
  for (int64_t I = 0; I < num_block_rows; ++I)
    for (int64_t k = A.row_map[I * b]; k < A.row_map[(I + 1) * b]; ++k) {
      const int64_t J = A.entries[k] / b;
      if (stamp[J] != I) {
        stamp[J] = I;
        ++blocks;
      }
    }
  return blocks;
}

}  // namespace

HostBsr csr_to_host_bsr(const HostCsr& A, int b, BsrConversionInfo* info) {
  A.validate();
  require_block_size_fits(A, b, "csr_to_bsr");
  const int64_t bb = int64_t{b} * b;
  // The fill is known before anything is allocated: up to b*b stored scalars per entry (an entry
  // alone in its block), so a large b on a scattered pattern is refused with its size here rather
  // than by the allocator halfway through.
  std::vector<int64_t> stamp;  // block row that last touched column J (count_blocks resets it)
  const int64_t blocks = count_blocks(A, b, stamp);
  // the result, and the two per-block-column arrays of the conversion (stamp again, slot)
  const int64_t bytes = blocks * (bb * int64_t{sizeof(double)} + int64_t{sizeof(int)}) +
                        (A.num_rows / b + 1) * int64_t{sizeof(int64_t)} +
                        2 * (A.num_cols / b) * int64_t{sizeof(int64_t)};
  require_host_memory(bytes, "csr_to_bsr: " + std::to_string(blocks) + " blocks of " + std::to_string(b) + "x" +
                                 std::to_string(b) + " for " + std::to_string(A.nnz()) + " entries");
  HostBsr bsr;
  bsr.block_size = b;
  bsr.num_block_rows = A.num_rows / b;
  bsr.num_block_cols = A.num_cols / b;
  bsr.row_map.assign(bsr.num_block_rows + 1, 0);
  bsr.entries.reserve(static_cast<size_t>(blocks));
  bsr.values.reserve(static_cast<size_t>(blocks * bb));

  stamp.assign(bsr.num_block_cols, -1);
  std::vector<int64_t> slot(bsr.num_block_cols, 0);    // J's block index within that block row
  std::vector<int> block_cols;
  for (int64_t I = 0; I < bsr.num_block_rows; ++I) {
    const int64_t first = A.row_map[I * b], last = A.row_map[(I + 1) * b];
    block_cols.clear();
    for (int64_t k = first; k < last; ++k) {
      const int J = A.entries[k] / b;
      if (stamp[J] != I) {
        stamp[J] = I;
        block_cols.push_back(J);
      }
    }
    std::sort(block_cols.begin(), block_cols.end());
    const int64_t base = static_cast<int64_t>(bsr.entries.size());
    for (size_t p = 0; p < block_cols.size(); ++p) slot[block_cols[p]] = base + static_cast<int64_t>(p);
    bsr.entries.insert(bsr.entries.end(), block_cols.begin(), block_cols.end());
    bsr.values.resize(bsr.entries.size() * bb, 0.0);
    for (int64_t r = 0; r < b; ++r) {
      const int64_t row = I * b + r;
      for (int64_t k = A.row_map[row]; k < A.row_map[row + 1]; ++k) {
        const int col = A.entries[k];
        bsr.values[slot[col / b] * bb + r * b + col % b] += A.values[k];
      }
    }
    bsr.row_map[I + 1] = static_cast<int64_t>(bsr.entries.size());
  }
  if (info) {
    info->block_size = b;
    info->num_blocks = bsr.num_blocks();
    info->csr_nnz = A.nnz();
    info->stored_nnz = bsr.num_blocks() * bb;
    info->fill_ratio = A.nnz() > 0 ? static_cast<double>(info->stored_nnz) / A.nnz() : 1.0;
  }
  return bsr;
}

HostCsr host_bsr_to_csr(const HostBsr& A, bool drop_zeros) {
  A.validate("bsr_to_csr");
  const int b = A.block_size;
  SPROCKET_REQUIRE(b >= 1 && b <= max_bsr_block_size, "bsr_to_csr: block size ", b, " outside [1, ",
                   max_bsr_block_size, "]");
  SPROCKET_REQUIRE(static_cast<int64_t>(A.row_map.size()) == A.num_block_rows + 1,
                   "bsr_to_csr: row_map has ", A.row_map.size(), " entries, expected ",
                   A.num_block_rows + 1);
  SPROCKET_REQUIRE(A.values.size() == A.entries.size() * b * b, "bsr_to_csr: ", A.values.size(),
                   " values for ", A.entries.size(), " blocks of ", b, "x", b);
  HostCsr csr;
  csr.num_rows = A.num_block_rows * b;
  csr.num_cols = A.num_block_cols * b;
  require_host_memory((csr.num_rows + 1) * int64_t{sizeof(int64_t)} +
                          static_cast<int64_t>(A.values.size()) * int64_t{sizeof(int) + sizeof(double)},
                      "bsr_to_csr: a " + std::to_string(csr.num_rows) + " x " + std::to_string(csr.num_cols) +
                          " matrix from " + std::to_string(A.entries.size()) + " blocks");
  csr.row_map.assign(csr.num_rows + 1, 0);
  csr.entries.reserve(A.values.size());
  csr.values.reserve(A.values.size());
  std::vector<int64_t> order;
  for (int64_t I = 0; I < A.num_block_rows; ++I) {
    // Visit the blocks of this block row in increasing block column so CSR rows come out sorted.
    order.clear();
    for (int64_t k = A.row_map[I]; k < A.row_map[I + 1]; ++k) order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return A.entries[x] < A.entries[y]; });
    for (int r = 0; r < b; ++r) {
      for (int64_t k : order)
        for (int c = 0; c < b; ++c) {
          const double v = A.value(k, r, c);
          if (drop_zeros && v == 0.0) continue;
          csr.entries.push_back(A.entries[k] * b + c);
          csr.values.push_back(v);
        }
      csr.row_map[I * b + r + 1] = static_cast<int64_t>(csr.entries.size());
    }
  }
  csr.validate();  // also catches block columns out of range
  return csr;
}

int detect_block_size(const HostCsr& A, int max_block_size, int value_bytes, int ordinal_bytes,
                      int offset_bytes, std::vector<BlockSizeEstimate>* candidates) {
  A.validate();
  SPROCKET_REQUIRE(max_block_size >= 1 && max_block_size <= max_bsr_block_size,
                   "detect_block_size: max_block_size ", max_block_size, " outside [1, ",
                   max_bsr_block_size, "]");
  if (candidates) candidates->clear();
  int best = 1;
  double best_bytes = std::numeric_limits<double>::infinity();
  std::vector<int64_t> stamp;
  for (int b = 1; b <= max_block_size; ++b) {
    if (A.num_rows % b != 0 || A.num_cols % b != 0) continue;
    if (b > 1 && (A.num_rows == 0 || A.num_cols == 0)) break;
    BlockSizeEstimate e;
    e.block_size = b;
    e.num_blocks = count_blocks(A, b, stamp);
    e.fill_ratio = A.nnz() > 0 ? static_cast<double>(e.num_blocks) * b * b / A.nnz() : 1.0;
    e.bytes = static_cast<double>(e.num_blocks) * (double(b) * b * value_bytes + ordinal_bytes) +
              static_cast<double>(A.num_rows / b + 1) * offset_bytes +
              static_cast<double>(A.num_rows + A.num_cols) * value_bytes;
    if (candidates) candidates->push_back(e);
    if (e.bytes < best_bytes) {  // strict: ties keep the smaller block
      best_bytes = e.bytes;
      best = b;
    }
  }
  return best;
}

}  // namespace Sprocket
