#pragma once
// update_values(A)'s check, the same in every plan: A must have the pattern the plan analysed
// (SpgemmPlan::numeric checks both of its operands, A and B, the same way).
// Dimensions and entry counts are compared on the host; the row map and the column indices are
// compared element by element on the plan's device (one pass over nnz), unless they are the very
// Views the plan holds, which costs nothing (the common case: values changed in place).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "Sprocket_Error.hpp"

namespace Sprocket {
namespace Impl {

/// Whether two rank-1 Views hold the same integers (the same View: true at once).
template <class ExecSpace, class ViewA, class ViewB>
bool same_indices(const ExecSpace& space, const ViewA& a, const ViewB& b) {
  if (a.extent(0) != b.extent(0)) return false;
  if (static_cast<const void*>(a.data()) == static_cast<const void*>(b.data()) || a.extent(0) == 0) return true;
  int64_t differ = 0;
  Kokkos::parallel_reduce(
      "Sprocket::same_pattern", Kokkos::RangePolicy<ExecSpace>(space, 0, a.extent(0)),
      KOKKOS_LAMBDA(const int64_t i, int64_t& count) { count += static_cast<int64_t>(a(i)) != static_cast<int64_t>(b(i)); },
      differ);
  return differ == 0;
}

/// Throws InvalidArgument, naming `who`, the operand (`operand`: "A", "B", "S") and both shapes,
/// unless the compressed structure (rows x cols, row_map, entries) equals the plan's.
template <class ExecSpace, class RowMapA, class EntriesA, class RowMapP, class EntriesP>
void require_same_pattern(const ExecSpace& space, const char* who, int64_t rows, int64_t cols, const RowMapA& row_map,
                          const EntriesA& entries, int64_t plan_rows, int64_t plan_cols, const RowMapP& plan_row_map,
                          const EntriesP& plan_entries, const char* unit = "entries", const char* operand = "A") {
  const int64_t nnz = static_cast<int64_t>(entries.extent(0)), plan_nnz = static_cast<int64_t>(plan_entries.extent(0));
  SPROCKET_REQUIRE(rows == plan_rows && cols == plan_cols && nnz == plan_nnz, who, ": ", operand, " is ", rows, " x ",
                   cols, " with ", nnz, " ", unit, " but the plan was built for ", plan_rows, " x ", plan_cols,
                   " with ", plan_nnz, ": build a new plan for a new pattern");
  SPROCKET_REQUIRE(same_indices(space, row_map, plan_row_map), who, ": ", operand, "'s row map differs from the ",
                   "pattern the plan analysed (", rows, " x ", cols, ", ", nnz, " ", unit,
                   "): build a new plan for a new pattern");
  SPROCKET_REQUIRE(same_indices(space, entries, plan_entries), who, ": ", operand, "'s column indices differ from the ",
                   "pattern the plan analysed (", rows, " x ", cols, ", ", nnz, " ", unit,
                   "; the same order is required): build a new plan for a new pattern");
}

/// The same for two KokkosSparse::CrsMatrix objects, values count included.
template <class ExecSpace, class CrsType>
void require_same_crs_pattern(const ExecSpace& space, const char* who, const CrsType& A, const CrsType& plan_matrix) {
  require_same_pattern(space, who, A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries, plan_matrix.numRows(),
                       plan_matrix.numCols(), plan_matrix.graph.row_map, plan_matrix.graph.entries);
  SPROCKET_REQUIRE(A.values.extent(0) == A.graph.entries.extent(0), who, ": A has ", A.values.extent(0),
                   " values for ", A.graph.entries.extent(0), " column indices");
}

}  // namespace Impl
}  // namespace Sprocket
