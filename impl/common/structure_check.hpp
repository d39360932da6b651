#pragma once
// The structural check of a compressed-row matrix (CSR, or BSR over block rows) that every
// validating entry point shares: Sprocket::validate (CrsMatrix, BsrMatrix), HostCsr::validate,
// HostBsr::validate and the converters between them. One implementation, one wording of every
// violation, the sizes in every message. Kokkos-free: the caller reads its arrays through
// callables, so host Views and std::vectors both fit.
#include <cstdint>
#include <utility>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {

/// Throws InvalidArgument, the message starting with `who`, at the first violated invariant of a
/// rows x cols structure (block rows and block columns when block_size > 0): negative dimensions,
/// a row map without rows + 1 offsets, row_map(0) != 0, a decreasing row map, row_map(rows) != the
/// number of (block) column indices or a value count other than indices * block_size^2 (indices
/// for CSR, block_size == 0), an index outside [0, cols). row_map(i) and index(k) return int64_t.
/// Sortedness and duplicates are allowed.
///
/// The two passes over whole arrays are the caller's folds, called only once the sizes above were
/// checked: row_map_nondecreasing() (row_map(0) <= ... <= row_map(rows)) and index_range() (the
/// minimum and maximum index as int64_t, {0, -1} without indices). check_compressed_rows below
/// folds serially through the callables; a caller holding contiguous host arrays passes the
/// parallel folds of impl/common/host_folds.hpp.
template <class RowMapAt, class IndexAt, class RowMapNondecreasing, class IndexRange>
void check_compressed_rows_folded(const char* who, int64_t rows, int64_t cols, int64_t row_map_size,
                                  const RowMapAt& row_map, int64_t num_indices, const IndexAt& index,
                                  int64_t num_values, int block_size,
                                  const RowMapNondecreasing& row_map_nondecreasing, const IndexRange& index_range) {
  const char* unit = block_size > 0 ? " blocks" : "";
  const char* index_name = block_size > 0 ? "block column index" : "column index";
  const char* indices_name = block_size > 0 ? "block column indices" : "column indices";
  SPROCKET_REQUIRE(rows >= 0 && cols >= 0, who, ": negative dimensions ", rows, " x ", cols, unit);
  SPROCKET_REQUIRE(row_map_size == rows + 1, who, ": row_map has ", row_map_size, " offsets, expected rows + 1 = ",
                   rows + 1, " for ", rows, " x ", cols, unit);
  SPROCKET_REQUIRE(row_map(0) == 0, who, ": row_map(0) = ", row_map(0), ", expected 0");
  // Each pass first folds (a plan's analysis runs it once per matrix, and the loop that stops at
  // the first violation took as long as a few SpMV applies), then looks for the first violation
  // only when there is one.
  const bool increasing = row_map_nondecreasing();
  for (int64_t i = 0; i < rows && !increasing; ++i)
    SPROCKET_REQUIRE(row_map(i) <= row_map(i + 1), who, ": row_map decreases at row ", i, " (", row_map(i), " > ",
                     row_map(i + 1), ")");
  const int64_t nnz = row_map(rows);
  const int64_t values_per_index = block_size > 0 ? int64_t{block_size} * block_size : 1;
  SPROCKET_REQUIRE(nnz == num_indices, who, ": row_map(", rows, ") = ", nnz, " but there are ", num_indices, " ",
                   indices_name, " and ", num_values, " values");
  if (block_size > 0)
    SPROCKET_REQUIRE(num_values == num_indices * values_per_index, who, ": ", num_values, " values for ", num_indices,
                     " blocks of ", block_size, "x", block_size, " (expected ", num_indices * values_per_index, ")");
  else
    SPROCKET_REQUIRE(num_values == num_indices, who, ": row_map(", rows, ") = ", nnz, " but there are ", num_indices,
                     " ", indices_name, " and ", num_values, " values");
  const auto [min_index, max_index] = index_range();
  const bool inside = num_indices == 0 || (min_index >= 0 && max_index < cols);
  for (int64_t k = 0; k < num_indices && !inside; ++k) {
    const int64_t c = index(k);
    SPROCKET_REQUIRE(c >= 0 && c < cols, who, ": ", index_name, " ", c, " at position ", k, " outside [0, ", cols, ")");
  }
}

/// check_compressed_rows_folded with serial folds through the callables.
template <class RowMapAt, class IndexAt>
void check_compressed_rows(const char* who, int64_t rows, int64_t cols, int64_t row_map_size,
                           const RowMapAt& row_map, int64_t num_indices, const IndexAt& index,
                           int64_t num_values, int block_size = 0) {
  check_compressed_rows_folded(
      who, rows, cols, row_map_size, row_map, num_indices, index, num_values, block_size,
      [&] {
        bool nondecreasing = true;
        for (int64_t i = 0; i < rows; ++i) nondecreasing &= row_map(i) <= row_map(i + 1);
        return nondecreasing;
      },
      [&] {
        int64_t lo = num_indices > 0 ? index(0) : 0, hi = num_indices > 0 ? index(0) : -1;
        for (int64_t k = 1; k < num_indices; ++k) {
          const int64_t c = index(k);
          lo = c < lo ? c : lo;
          hi = c > hi ? c : hi;
        }
        return std::pair<int64_t, int64_t>{lo, hi};
      });
}

}  // namespace Impl
}  // namespace Sprocket
