#pragma once
/// \file Sprocket_Validate.hpp
/// Sprocket::validate(A): the structural check of a KokkosSparse::CrsMatrix or a
/// Sprocket::BsrMatrix that the error policy offers users. The converters, the readers' HostCsr
/// results and the plans' analyses check the same invariants with the same code
/// (impl/common/structure_check.hpp). Its own header so that adding checks does not touch
/// Sprocket_Crs.hpp, which nearly every file includes.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "impl/common/structure_check.hpp"

namespace Sprocket {

/// Checks a CrsMatrix's structure (on a host copy: an analysis-time check, not for hot paths)
/// and throws InvalidArgument naming the first violation with its sizes: row map extent not
/// rows + 1 (a default-constructed 0 x 0 matrix may have none), row_map(0) != 0, a decreasing
/// row map, row_map(rows) != the extents of entries and values, a column outside [0, cols).
/// Sortedness and duplicates are allowed (every Sprocket kernel accepts them). `who` starts the
/// message (the plans pass their own name).
template <class CrsType, std::enable_if_t<is_crs_matrix_v<CrsType>, int> = 0>
void validate(const CrsType& A, const char* who = "validate") {
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  Impl::check_crs_structure(who, A.numRows(), A.numCols(), row_map, entries, static_cast<int64_t>(A.values.extent(0)));
}

/// The same for a BsrMatrix, over block rows and block columns: row map of num_block_rows + 1
/// offsets from 0, non-decreasing, ending at the number of block column indices; b*b values per
/// block; block columns in [0, num_block_cols). (The constructor checks only the extents.)
template <class BsrType, std::enable_if_t<is_bsr_matrix_v<BsrType>, int> = 0>
void validate(const BsrType& A, const char* who = "validate") {
  const int64_t rows = A.num_block_rows(), cols = A.num_block_cols();
  const int b = A.block_size();
  SPROCKET_REQUIRE(b >= 1 && b <= max_bsr_block_size, who, ": block size ", b, " outside [1, ", max_bsr_block_size, "]");
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.entries);
  const int64_t n_entries = static_cast<int64_t>(entries.extent(0)), n_values = static_cast<int64_t>(A.values.extent(0));
  if (row_map.extent(0) == 0) {  // default-constructed: the 0 x 0 matrix
    SPROCKET_REQUIRE(rows == 0 && n_entries == 0 && n_values == 0, who, ": the row map is empty but A has ", rows,
                     " x ", cols, " blocks, ", n_entries, " block column indices and ", n_values, " values");
    return;
  }
  Impl::check_host_compressed_rows(who, rows, cols, row_map, entries, n_values, b);
}

}  // namespace Sprocket
