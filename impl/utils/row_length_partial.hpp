#pragma once
// row_length_stats (src/Sprocket_MatrixStats.hpp) in parts: the sums of a contiguous run of rows,
// merged in any order, then finished into RowLengthStats. SpMV's analysis folds the runs on the
// host threads (impl/spmv/spmv_analysis.cpp); row_length_stats itself is one run.
#include <cstdint>
#include <vector>

#include "Sprocket_MatrixStats.hpp"

namespace Sprocket {
namespace Impl {

/// The sums over rows [begin, end) of a row map (lengths row_map[i + 1] - row_map[i]).
struct RowLengthPartial {
  static constexpr int buckets = 65;  ///< bit widths 0..64 (64 only for a negative length)
  int64_t rows = 0, min_row = 0, max_row = 0, empty_rows = 0;
  int64_t first_decrease = -1;  ///< the first row whose length is negative, -1 when none
  unsigned __int128 sum_sq = 0;
  int64_t count[buckets] = {};
};

/// The sums over rows [begin, end) of `row_map` (row_map[end] must exist).
RowLengthPartial row_length_partial(const std::vector<int64_t>& row_map, int64_t begin, int64_t end);
/// `into` += `part`, part holding rows after into's.
void merge_row_length_partial(RowLengthPartial& into, const RowLengthPartial& part);
/// The statistics of all rows of `row_map` from their merged sums; throws InvalidArgument at the
/// first decrease.
RowLengthStats finish_row_length_stats(const std::vector<int64_t>& row_map, const RowLengthPartial& all);

}  // namespace Impl
}  // namespace Sprocket
