// Host CSR utilities. Sorting uses a per-row permutation so values move with their columns;
// transpose is the classic two-pass counting sort, which produces sorted rows for free.
#include <algorithm>
#include <numeric>

#include "Sprocket_CsrUtils.hpp"

namespace Sprocket {

void sort_rows(HostCsr& A) {
  A.validate();
  std::vector<int64_t> order;
  std::vector<int> cols;
  std::vector<double> vals;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    const int64_t begin = A.row_map[i], len = A.row_length(i);
    bool sorted = true;
    for (int64_t k = begin + 1; k < begin + len && sorted; ++k) sorted = A.entries[k - 1] <= A.entries[k];
    if (sorted) continue;
    order.resize(len);
    std::iota(order.begin(), order.end(), begin);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return A.entries[a] < A.entries[b]; });
    cols.resize(len);
    vals.resize(len);
    for (int64_t k = 0; k < len; ++k) {
      cols[k] = A.entries[order[k]];
      vals[k] = A.values[order[k]];
    }
    std::copy(cols.begin(), cols.end(), A.entries.begin() + begin);
    std::copy(vals.begin(), vals.end(), A.values.begin() + begin);
  }
}

void sum_duplicates(HostCsr& A) {
  sort_rows(A);
  int64_t out = 0;
  int64_t row_begin = 0;
  for (int64_t i = 0; i < A.num_rows; ++i) {
    const int64_t row_end = A.row_map[i + 1];
    const int64_t out_begin = out;
    for (int64_t k = row_begin; k < row_end; ++k) {
      if (out > out_begin && A.entries[out - 1] == A.entries[k]) {
        A.values[out - 1] += A.values[k];
      } else {
        A.entries[out] = A.entries[k];
        A.values[out] = A.values[k];
        ++out;
      }
    }
    row_begin = row_end;
    A.row_map[i + 1] = out;
  }
  A.entries.resize(out);
  A.values.resize(out);
}

HostCsr transpose(const HostCsr& A) {
  A.validate();
  HostCsr T;
  T.num_rows = A.num_cols;
  T.num_cols = A.num_rows;
  T.row_map.assign(T.num_rows + 1, 0);
  for (int c : A.entries) ++T.row_map[c + 1];
  std::partial_sum(T.row_map.begin(), T.row_map.end(), T.row_map.begin());
  T.entries.resize(A.nnz());
  T.values.resize(A.nnz());
  std::vector<int64_t> next(T.row_map.begin(), T.row_map.end() - 1);
  // Rows of A are visited in increasing order, so each row of T receives increasing columns.
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t dst = next[A.entries[k]]++;
      T.entries[dst] = static_cast<int>(i);
      T.values[dst] = A.values[k];
    }
  return T;
}

}  // namespace Sprocket
