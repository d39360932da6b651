// Fuzz target: CSR -> BSR conversion, block-size detection and the way back. The input is read
// as a small matrix: dimensions, a block size, then (row, column, value) triplets. Whatever the
// conversion accepts must round-trip: host_bsr_to_csr(csr_to_host_bsr(A), drop_zeros) equals A
// with duplicates summed and zeros dropped.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "Sprocket_BsrConversion.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "fuzz_common.hpp"

namespace {

struct Reader {
  const uint8_t* data;
  size_t size;
  template <class T>
  bool take(T& out) {
    if (size < sizeof(T)) return false;
    std::memcpy(&out, data, sizeof(T));
    data += sizeof(T), size -= sizeof(T);
    return true;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  Reader in{data, size};
  uint16_t rows = 0, cols = 0;
  int8_t block = 0;
  if (!in.take(rows) || !in.take(cols) || !in.take(block)) return 0;
  // Up to 1024 x 1024: large enough for every block size and its remainders, small enough that an
  // execution costs microseconds.
  rows %= 1025, cols %= 1025;
  std::vector<Sprocket::Triplet> triplets;
  uint16_t r = 0, c = 0;
  int8_t v = 0;
  // Indices wrap into the matrix, except that a value byte of 127 puts the column one past the
  // last (refused by from_triplets, as documented).
  while (rows && cols && in.take(r) && in.take(c) && in.take(v))
    triplets.push_back({r % rows, v == 127 ? cols : c % cols, double(v % 17)});
  Sprocket::HostCsr A;
  try {
    A = Sprocket::HostCsr::from_triplets(rows, cols, triplets);
  } catch (const Sprocket::Error&) {
    return 0;  // an index equal to the dimension: refused, as documented
  }
  std::vector<Sprocket::BlockSizeEstimate> candidates;
  const int detected = Sprocket::detect_block_size(A, 16, 8, 4, 8, &candidates);
  if (detected < 1 || detected > 16 || rows % detected || cols % detected) __builtin_trap();
  Sprocket::HostBsr B;
  Sprocket::BsrConversionInfo info;
  try {
    B = Sprocket::csr_to_host_bsr(A, block, &info);
  } catch (const Sprocket::Error&) {
    return 0;
  }
  if (info.stored_nnz != B.num_blocks() * block * block || info.csr_nnz != A.nnz()) __builtin_trap();
  const Sprocket::HostCsr back = Sprocket::host_bsr_to_csr(B, /*drop_zeros=*/true);
  back.validate();
  // A without zeros (from_triplets summed duplicates and sorted), entry by entry.
  size_t k = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    for (int64_t p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      if (A.values[p] == 0) continue;
      if (k >= back.entries.size() || back.entries[k] != A.entries[p] || back.values[k] != A.values[p])
        __builtin_trap();
      if (!(back.row_map[i] <= static_cast<int64_t>(k) && static_cast<int64_t>(k) < back.row_map[i + 1]))
        __builtin_trap();
      ++k;
    }
  }
  if (k != back.entries.size()) __builtin_trap();
  return 0;
}
