#pragma once
/// \file Sprocket_MatrixStats.hpp
/// Matrix statistics: the features the adaptive kernels decide from and what sprocket-info prints.

#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_HostMatrix.hpp"

namespace Sprocket {
/// Statistics of a matrix: dimensions, row lengths, bandwidth, stored diagonal (compute_stats).
struct MatrixStats {
  int64_t rows = 0;  ///< rows
  int64_t cols = 0;  ///< columns
  int64_t nnz = 0;          ///< stored entries
  int64_t min_row = 0;      ///< shortest row (0 for a matrix without rows)
  int64_t max_row = 0;      ///< longest row
  double avg_row = 0;       ///< nnz / rows (0 without rows)
  double var_row = 0;       ///< population variance of row lengths
  int64_t empty_rows = 0;   ///< rows without stored entries
  /// Row-length histogram on a log2 scale: bucket 0 counts empty rows, bucket k >= 1 counts rows
  /// whose length is in [2^(k-1), 2^k).
  std::vector<int64_t> histogram;
  int64_t lower_bandwidth = 0;  ///< max(i - j) over stored entries below the diagonal
  int64_t upper_bandwidth = 0;  ///< max(j - i) over stored entries above the diagonal
  int64_t diagonal_count = 0;   ///< rows with a stored diagonal entry (explicit zeros count)

  /// Max(lower_bandwidth, upper_bandwidth)
  int64_t bandwidth() const { return lower_bandwidth > upper_bandwidth ? lower_bandwidth : upper_bandwidth; }
  /// Human-readable, several lines.
  std::string to_text() const;
  /// One JSON object on one line; keys: rows, cols, nnz, min_row, max_row, avg_row, var_row,
  /// empty_rows, bandwidth, lower_bandwidth, upper_bandwidth, diagonal_count, histogram.
  std::string to_json() const;
};

/// The row-length part of the statistics, from a row map alone (what SpMV analysis needs). Throws
/// InvalidArgument, naming the row and its offsets, when the row map decreases.
struct RowLengthStats {
  int64_t rows = 0;  ///< rows: row_map.size() - 1
  int64_t nnz = 0;  ///< entries: row_map.back() - row_map.front()
  int64_t min_row = 0;  ///< shortest row
  int64_t max_row = 0;  ///< longest row
  int64_t empty_rows = 0;  ///< rows without entries
  double avg_row = 0;  ///< nnz / rows (0 without rows)
  double var_row = 0;  ///< population variance of row lengths
  std::vector<int64_t> histogram;  ///< as MatrixStats::histogram
};
/// The RowLengthStats of the rows `row_map` delimits
RowLengthStats row_length_stats(const std::vector<int64_t>& row_map);
/// Statistics of A; throws InvalidArgument when its structure is invalid (HostCsr::validate).
MatrixStats compute_stats(const HostCsr& A);
/// Statistics of a CrsMatrix, from a host copy (to_host_csr checks its structure first).
template <class CrsType, class = std::enable_if_t<is_crs_matrix_v<CrsType>>>
MatrixStats compute_stats(const CrsType& A) {
  return compute_stats(to_host_csr(A, "compute_stats"));
}

}  // namespace Sprocket
