// Matrix statistics in one pass over the rows. The variance uses the two-pass formula on the row
// lengths (exact enough: lengths are integers, sums fit double up to 2^53).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "Sprocket_MatrixStats.hpp"

namespace Sprocket {

MatrixStats compute_stats(const HostCsr& A) {
  A.validate();
  MatrixStats s;
  s.rows = A.num_rows;
  s.cols = A.num_cols;
  s.nnz = A.nnz();
  if (A.num_rows == 0) return s;
  s.min_row = A.row_length(0);
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  double sum_sq = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    const int64_t len = A.row_length(i);
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
    sum_sq += (len - s.avg_row) * (len - s.avg_row);
    size_t bucket = 0;
    while ((int64_t{1} << bucket) <= len) ++bucket;  // len in [2^(bucket-1), 2^bucket)
    if (s.histogram.size() <= bucket) s.histogram.resize(bucket + 1, 0);
    ++s.histogram[bucket];
    bool has_diagonal = false;
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t j = A.entries[k];
      s.lower_bandwidth = std::max(s.lower_bandwidth, i - j);
      s.upper_bandwidth = std::max(s.upper_bandwidth, j - i);
      has_diagonal |= j == i;
    }
    s.diagonal_count += has_diagonal;
  }
  s.var_row = sum_sq / static_cast<double>(s.rows);
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
