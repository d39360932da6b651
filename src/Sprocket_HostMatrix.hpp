#pragma once
/// \file Sprocket_HostMatrix.hpp
/// Plain host-side containers. HostCsr: the host-side CSR (double values, int columns, 64-bit offsets) that the
/// non-templated parts of Sprocket exchange: the Matrix Market reader and writer, the
/// generators, the statistics and the reference kernels. Kernels run on
/// KokkosSparse::CrsMatrix; Sprocket_Crs.hpp converts between the two.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace Sprocket {

/// One stored entry in coordinate form (0-based).
struct Triplet {
  int64_t row;  ///< row index
  int64_t col;  ///< column index
  double value;  ///< value
};
/// Host-side CSR matrix: double values, int columns, 64-bit offsets (see the file comment).
struct HostCsr {
  int64_t num_rows = 0;  ///< rows
  int64_t num_cols = 0;  ///< columns
  std::vector<int64_t> row_map{0};  ///< num_rows + 1 offsets, row_map[0] == 0
  std::vector<int> entries;         ///< column of each stored entry
  std::vector<double> values;       ///< value of each stored entry

  /// Stored entries, explicit zeros and duplicates included
  int64_t nnz() const { return static_cast<int64_t>(entries.size()); }
  int64_t row_length(int64_t i) const { return row_map[i + 1] - row_map[i]; }  ///< stored entries of row i

  /// Throws InvalidArgument unless the structure is consistent: row_map monotone with the right
  /// size and ends, columns in range, values sized like entries. Sortedness is not required.
  void validate() const;

  /// True when every row's columns are strictly increasing (sorted, no duplicates).
  bool is_sorted_and_unique() const;

  /// Builds a CSR from coordinate entries: sorted by (row, column), duplicates summed,
  /// explicit zeros kept. Throws InvalidArgument on an index outside [0,rows)x[0,cols) or when
  /// rows/cols do not fit the int column type.
  static HostCsr from_triplets(int64_t num_rows, int64_t num_cols,
                               std::vector<Triplet> triplets);
};

/// Dense host matrix, column-major (element (i, j) at data[i + j * num_rows]), used by the
/// reference kernels and the tests as the oracle-side multivector.
struct HostDense {
  int64_t num_rows = 0;  ///< rows
  int64_t num_cols = 0;  ///< columns
  std::vector<double> data;  ///< num_rows * num_cols elements, column-major

  HostDense() = default;
  HostDense(int64_t rows, int64_t cols, double fill = 0.0)
      /// Rows x cols, every element `fill`
      : num_rows(rows), num_cols(cols), data(static_cast<std::size_t>(rows * cols), fill) {}
  double& operator()(int64_t i, int64_t j) { return data[i + j * num_rows]; }  ///< element (i, j), writable
  double operator()(int64_t i, int64_t j) const { return data[i + j * num_rows]; }  ///< element (i, j)
};

/// Host-side block CSR with square b x b blocks. Block k of the entries holds block row i
/// (row_map[i] <= k < row_map[i+1]) and block column entries[k]; its b*b values are stored
/// row-major inside the block: value (r, c) of block k is values[k*b*b + r*b + c], the same
/// in-block layout as Sprocket::BsrMatrix.
struct HostBsr {
  int block_size = 1;  ///< block size b (>= 1)
  int64_t num_block_rows = 0;  ///< block rows
  int64_t num_block_cols = 0;  ///< block columns
  std::vector<int64_t> row_map{0};  ///< num_block_rows + 1 offsets into entries, row_map[0] == 0
  std::vector<int> entries;  ///< block column of each stored block
  std::vector<double> values;  ///< b * b values per stored block, row-major inside a block

  int64_t num_blocks() const { return static_cast<int64_t>(entries.size()); }  ///< stored blocks
  /// Throws InvalidArgument unless the structure is consistent: block_size >= 1, row_map of
  /// num_block_rows + 1 offsets from 0, non-decreasing, ending at num_blocks(); block columns in
  /// [0, num_block_cols); b*b values per block. The message, starting with `who`, names the first
  /// violation and its sizes.
  void validate(const char* who = "HostBsr") const;
  /// Value (r, c) of stored block `block`
  double value(int64_t block, int r, int c) const {
    return values[static_cast<std::size_t>(block) * block_size * block_size + r * block_size + c];
  }
};

}  // namespace Sprocket
