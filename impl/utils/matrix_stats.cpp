// Matrix statistics: row lengths from the row map (shared with SpMV analysis), then one pass over
// the entries for bandwidth and diagonal. The variance comes from exact integer sums of the row
// lengths and their squares.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "Sprocket_Error.hpp"
#include "Sprocket_MatrixStats.hpp"
#include "impl/utils/row_length_partial.hpp"

namespace Sprocket {

namespace Impl {

RowLengthPartial row_length_partial(const std::vector<int64_t>& row_map, int64_t begin, int64_t end) {
  RowLengthPartial p;
  p.rows = std::max<int64_t>(0, end - begin);
  if (p.rows == 0) return p;
  // One pass whose steps depend on no data (SpMV's analysis reads every row here: a branch and a
  // loop per row cost more than the rest of the schedule): the bucket from the length's bit
  // width, two histograms for alternate rows (consecutive rows mostly share a bucket, and one
  // counter would serialise on it), the sum of squares exact in 128 bits. A decreasing row map is
  // looked for afterwards, at its first row.
  int64_t count[2][RowLengthPartial::buckets] = {};
  int64_t min_row = row_map[begin + 1] - row_map[begin], max_row = min_row;
  int64_t empty_rows = 0;
  bool decreases = false;
  unsigned __int128 sum_sq = 0;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t len = row_map[i + 1] - row_map[i];
    decreases |= len < 0;
    min_row = std::min(min_row, len);
    max_row = std::max(max_row, len);
    empty_rows += len == 0;
    const uint64_t u = static_cast<uint64_t>(len);
    sum_sq += static_cast<unsigned __int128>(u) * u;
    const int bucket = u == 0 ? 0 : 64 - __builtin_clzll(u);  // len in [2^(bucket-1), 2^bucket)
    ++count[i & 1][bucket];
  }
  for (int64_t i = begin; i < end && decreases && p.first_decrease < 0; ++i)
    if (row_map[i] > row_map[i + 1]) p.first_decrease = i;
  p.min_row = min_row;
  p.max_row = max_row;
  p.empty_rows = empty_rows;
  p.sum_sq = sum_sq;
  for (int b = 0; b < RowLengthPartial::buckets; ++b) p.count[b] = count[0][b] + count[1][b];
  return p;
}

void merge_row_length_partial(RowLengthPartial& into, const RowLengthPartial& part) {
  if (part.rows == 0) return;
  if (into.rows == 0) {
    into = part;
    return;
  }
  into.rows += part.rows;
  into.min_row = std::min(into.min_row, part.min_row);
  into.max_row = std::max(into.max_row, part.max_row);
  into.empty_rows += part.empty_rows;
  if (into.first_decrease < 0) into.first_decrease = part.first_decrease;
  into.sum_sq += part.sum_sq;
  for (int b = 0; b < RowLengthPartial::buckets; ++b) into.count[b] += part.count[b];
}

RowLengthStats finish_row_length_stats(const std::vector<int64_t>& row_map, const RowLengthPartial& all) {
  RowLengthStats s;
  s.rows = row_map.empty() ? 0 : static_cast<int64_t>(row_map.size()) - 1;
  if (s.rows == 0) return s;
  const int64_t i = all.first_decrease;
  SPROCKET_REQUIRE(i < 0, "row_length_stats: the row map decreases at row ", i, " (", row_map[i], " > ",
                   row_map[i + 1], ")");
  s.nnz = row_map.back() - row_map.front();
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  s.min_row = all.min_row;
  s.max_row = all.max_row;
  s.empty_rows = all.empty_rows;
  int top = 0;
  for (int b = 0; b < RowLengthPartial::buckets; ++b)
    if (all.count[b] > 0) top = b;
  s.histogram.assign(all.count, all.count + top + 1);
  // sum (len - avg)^2 = sum len^2 - nnz^2 / rows, from exact integers.
  const unsigned __int128 rows = static_cast<uint64_t>(s.rows), nnz = static_cast<uint64_t>(s.nnz);
  const unsigned __int128 spread = rows * all.sum_sq - nnz * nnz;  // rows^2 * variance, >= 0
  s.var_row = static_cast<double>(spread) / (static_cast<double>(s.rows) * static_cast<double>(s.rows));
  return s;
}

}  // namespace Impl

RowLengthStats row_length_stats(const std::vector<int64_t>& row_map) {
  const int64_t rows = row_map.empty() ? 0 : static_cast<int64_t>(row_map.size()) - 1;
  return Impl::finish_row_length_stats(row_map, Impl::row_length_partial(row_map, 0, rows));
}

MatrixStats compute_stats(const HostCsr& A) {
  A.validate();
  const RowLengthStats r = row_length_stats(A.row_map);
  MatrixStats s;
  s.rows = A.num_rows;
  s.cols = A.num_cols;
  s.nnz = A.nnz();
  s.min_row = r.min_row;
  s.max_row = r.max_row;
  s.avg_row = r.avg_row;
  s.var_row = r.var_row;
  s.empty_rows = r.empty_rows;
  s.histogram = r.histogram;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    bool has_diagonal = false;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      s.lower_bandwidth = std::max(s.lower_bandwidth, i - j);
      s.upper_bandwidth = std::max(s.upper_bandwidth, j - i);
      has_diagonal |= j == i;
    }
    s.diagonal_count += has_diagonal;
  }
  return s;
}

namespace {
std::string number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}
}  // namespace

std::string MatrixStats::to_text() const {
  std::ostringstream os;
  os << "rows             " << rows << "\n"
     << "cols             " << cols << "\n"
     << "nnz              " << nnz << "\n"
     << "row length       min " << min_row << "  avg " << number(avg_row) << "  max " << max_row
     << "  variance " << number(var_row) << "\n"
     << "empty rows       " << empty_rows << "\n"
     << "bandwidth        " << bandwidth() << " (lower " << lower_bandwidth << ", upper "
     << upper_bandwidth << ")\n"
     << "diagonal entries " << diagonal_count << "\n"
     << "row-length histogram (log2 buckets):\n";
  for (size_t k = 0; k < histogram.size(); ++k) {
    if (histogram[k] == 0) continue;
    if (k == 0)
      os << "  [0]             " << histogram[k] << "\n";
    else {
      std::ostringstream range;
      range << "[" << (int64_t{1} << (k - 1)) << ", " << (int64_t{1} << k) << ")";
      std::string label = range.str();
      label.resize(std::max<size_t>(label.size(), 15), ' ');
      os << "  " << label << " " << histogram[k] << "\n";
    }
  }
  return os.str();
}

std::string MatrixStats::to_json() const {
  std::ostringstream os;
  os << "{\"rows\":" << rows << ",\"cols\":" << cols << ",\"nnz\":" << nnz
     << ",\"min_row\":" << min_row << ",\"max_row\":" << max_row
     << ",\"avg_row\":" << number(avg_row) << ",\"var_row\":" << number(var_row)
     << ",\"empty_rows\":" << empty_rows << ",\"bandwidth\":" << bandwidth()
     << ",\"lower_bandwidth\":" << lower_bandwidth << ",\"upper_bandwidth\":" << upper_bandwidth
     << ",\"diagonal_count\":" << diagonal_count << ",\"histogram\":[";
  for (size_t k = 0; k < histogram.size(); ++k) os << (k ? "," : "") << histogram[k];
  os << "]}";
  return os.str();
}

}  // namespace Sprocket
