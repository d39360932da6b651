// Matrix statistics: row lengths from the row map (shared with SpMV analysis), then one pass over
// the entries for bandwidth and diagonal. The variance is the two-pass formula on the row lengths.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "Sprocket_Error.hpp"
#include "Sprocket_MatrixStats.hpp"

namespace Sprocket {

RowLengthStats row_length_stats(const std::vector<int64_t>& row_map) {
  RowLengthStats s;
  s.rows = row_map.empty() ? 0 : static_cast<int64_t>(row_map.size()) - 1;
  if (s.rows == 0) return s;
  s.nnz = row_map.back() - row_map.front();
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  s.min_row = row_map[1] - row_map[0];
  double sum_sq = 0;
  for (int64_t i = 0; i < s.rows; ++i) {
    const int64_t len = row_map[i + 1] - row_map[i];
    SPROCKET_REQUIRE(len >= 0, "row_length_stats: the row map decreases at row ", i, " (", row_map[i], " > ",
                     row_map[i + 1], ")");
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
    sum_sq += (len - s.avg_row) * (len - s.avg_row);
    size_t bucket = 0;
    while ((int64_t{1} << bucket) <= len) ++bucket;  // len in [2^(bucket-1), 2^bucket)
    if (s.histogram.size() <= bucket) s.histogram.resize(bucket + 1, 0);
    ++s.histogram[bucket];
  }
  s.var_row = sum_sq / static_cast<double>(s.rows);
  return s;
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
