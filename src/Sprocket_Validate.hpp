#pragma once
/// \file Sprocket_Validate.hpp
/// Sprocket::validate(A): the structural check of a KokkosSparse::CrsMatrix that the error policy
/// offers users (the readers and converters check their HostCsr results the same way,
/// HostCsr::validate). Its own header so that adding checks does not touch Sprocket_Crs.hpp,
/// which nearly every file includes.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"

namespace Sprocket {

/// Checks a CrsMatrix's structure (on a host copy: an analysis-time check, not for hot paths)
/// and throws InvalidArgument naming the first violation with its sizes: row map extent not
/// rows + 1 (a default-constructed 0 x 0 matrix may have none), row_map(0) != 0, a decreasing
/// row map, row_map(rows) != the extents of entries and values, a column outside [0, cols).
/// Sortedness and duplicates are allowed (every Sprocket kernel accepts them).
template <class CrsType>
void validate(const CrsType& A) {
  static_assert(is_crs_matrix_v<CrsType>, "validate: argument must be a KokkosSparse::CrsMatrix");
  const int64_t rows = A.numRows(), cols = A.numCols();
  SPROCKET_REQUIRE(rows >= 0 && cols >= 0, "validate: negative dimensions ", rows, " x ", cols);
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  const int64_t n_entries = static_cast<int64_t>(entries.extent(0)), n_values = static_cast<int64_t>(A.values.extent(0));
  if (row_map.extent(0) == 0) {
    SPROCKET_REQUIRE(rows == 0 && n_entries == 0 && n_values == 0, "validate: the row map is empty but A is ", rows,
                     " x ", cols, " with ", n_entries, " column indices and ", n_values, " values");
    return;
  }
  SPROCKET_REQUIRE(static_cast<int64_t>(row_map.extent(0)) == rows + 1, "validate: the row map has ", row_map.extent(0),
                   " entries, expected rows + 1 = ", rows + 1);
  SPROCKET_REQUIRE(row_map(0) == 0, "validate: row_map(0) = ", static_cast<int64_t>(row_map(0)), ", expected 0");
  for (int64_t i = 0; i < rows; ++i)
    SPROCKET_REQUIRE(row_map(i) <= row_map(i + 1), "validate: the row map decreases at row ", i, " (",
                     static_cast<int64_t>(row_map(i)), " > ", static_cast<int64_t>(row_map(i + 1)), ")");
  const int64_t nnz = static_cast<int64_t>(row_map(rows));
  SPROCKET_REQUIRE(nnz == n_entries && nnz == n_values, "validate: row_map(", rows, ") = ", nnz, " but there are ",
                   n_entries, " column indices and ", n_values, " values");
  for (int64_t k = 0; k < nnz; ++k)
    SPROCKET_REQUIRE(entries(k) >= 0 && entries(k) < cols, "validate: column index ", static_cast<int64_t>(entries(k)),
                     " at position ", k, " outside [0, ", cols, ")");
}

}  // namespace Sprocket
