// HostCsr construction and validation, HostBsr validation. from_triplets is a counting sort by row
// followed by a sort of each row by column, O(nnz + rows) plus the per-row sorts, so that
// generators producing tens of millions of entries (R-MAT) stay fast.
#include "Sprocket_HostMatrix.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"
#include "impl/common/structure_check.hpp"

namespace Sprocket {

void HostCsr::validate() const {
  Impl::check_compressed_rows(
      "HostCsr", num_rows, num_cols, static_cast<int64_t>(row_map.size()), [&](int64_t i) { return row_map[i]; },
      nnz(), [&](int64_t k) { return int64_t{entries[k]}; }, static_cast<int64_t>(values.size()));
}

void HostBsr::validate(const char* who) const {
  SPROCKET_REQUIRE(block_size >= 1, who, ": block size ", block_size, " (must be >= 1)");
  Impl::check_compressed_rows(
      who, num_block_rows, num_block_cols, static_cast<int64_t>(row_map.size()),
      [&](int64_t i) { return row_map[i]; }, num_blocks(), [&](int64_t k) { return int64_t{entries[k]}; },
      static_cast<int64_t>(values.size()), block_size);
}

bool HostCsr::is_sorted_and_unique() const {
  for (int64_t i = 0; i < num_rows; ++i)
    for (int64_t k = row_map[i] + 1; k < row_map[i + 1]; ++k)
      if (entries[k - 1] >= entries[k]) return false;
  return true;
}

HostCsr HostCsr::from_triplets(int64_t num_rows, int64_t num_cols,
                               std::vector<Triplet> triplets) {
  SPROCKET_REQUIRE(num_rows >= 0 && num_cols >= 0, "from_triplets: negative dimensions ",
                   num_rows, " x ", num_cols);
  SPROCKET_REQUIRE(num_rows < std::numeric_limits<int>::max() &&
                       num_cols < std::numeric_limits<int>::max(),
                   "from_triplets: ", num_rows, " x ", num_cols,
                   " does not fit 32-bit ordinals");
  // What this builds at its peak, checked before any of it is allocated: a declared size (a
  // Matrix Market header, a generator's parameters) may ask for far more than the entries need.
  const int64_t nnz = static_cast<int64_t>(triplets.size());
  const int64_t peak = (num_rows + 1) * 3 * static_cast<int64_t>(sizeof(int64_t)) +
                       nnz * static_cast<int64_t>(sizeof(std::pair<int, double>) + sizeof(int) + sizeof(double));
  require_host_memory(peak, "from_triplets: a " + std::to_string(num_rows) + " x " + std::to_string(num_cols) +
                                " matrix with " + std::to_string(nnz) + " entries");
  HostCsr csr;
  csr.num_rows = num_rows;
  csr.num_cols = num_cols;
  std::vector<int64_t> count(num_rows + 1, 0);
  for (const Triplet& t : triplets) {
    SPROCKET_REQUIRE(t.row >= 0 && t.row < num_rows && t.col >= 0 && t.col < num_cols,
                     "from_triplets: entry (", t.row, ", ", t.col, ") outside ", num_rows, " x ",
                     num_cols);
    ++count[t.row + 1];
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<std::pair<int, double>> sorted(triplets.size());
  std::vector<int64_t> next(count.begin(), count.end() - 1);
  for (const Triplet& t : triplets) sorted[next[t.row]++] = {static_cast<int>(t.col), t.value};
  triplets.clear();
  triplets.shrink_to_fit();

  csr.row_map.assign(num_rows + 1, 0);
  csr.entries.reserve(sorted.size());
  csr.values.reserve(sorted.size());
  for (int64_t i = 0; i < num_rows; ++i) {
    auto first = sorted.begin() + count[i], last = sorted.begin() + count[i + 1];
    std::stable_sort(first, last, [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = first; it != last; ++it) {
      if (static_cast<int64_t>(csr.entries.size()) > csr.row_map[i] &&
          csr.entries.back() == it->first)
        csr.values.back() += it->second;  // duplicate: summed
      else {
        csr.entries.push_back(it->first);
        csr.values.push_back(it->second);
      }
    }
    csr.row_map[i + 1] = static_cast<int64_t>(csr.entries.size());
  }
  return csr;
}

}  // namespace Sprocket
