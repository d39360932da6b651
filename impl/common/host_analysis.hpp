#pragma once
// Small host-side pieces every operator's analysis uses: a CSR row map read back to the host,
// copying a host vector into a View on the operator's device, and cutting a run of work items
// into contiguous parts of equal cost.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace Sprocket {
namespace Impl {

/// A's row map on the host, as int64_t (num_rows + 1 offsets; all zero for a matrix without a
/// row map, such as a default-constructed one).
template <class CrsType>
std::vector<int64_t> host_row_map(const CrsType& A) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  std::vector<int64_t> row_map(A.numRows() + 1, 0);
  if (h.extent(0) > 0)
    for (size_t i = 0; i < row_map.size(); ++i) row_map[i] = static_cast<int64_t>(h(i));
  return row_map;
}

/// A new View<T*, Device> holding v (converted element by element to T).
template <class T, class Device, class U>
Kokkos::View<T*, Device> to_device_view(const std::vector<U>& v, const std::string& label) {
  Kokkos::View<T*, Device> out(Kokkos::ViewAllocateWithoutInitializing(label), v.size());
  auto h = Kokkos::create_mirror_view(out);
  for (size_t i = 0; i < v.size(); ++i) h(i) = static_cast<T>(v[i]);
  Kokkos::deep_copy(out, h);
  return out;
}

/// cost_prefix[i] = cost of items [0, i) (size n + 1). Returns parts + 1 boundaries: part p holds
/// items [b[p], b[p+1]), contiguous, each about cost_prefix[n] / parts.
inline std::vector<int64_t> balanced_parts(const std::vector<int64_t>& cost_prefix, int parts) {
  const int64_t n = static_cast<int64_t>(cost_prefix.size()) - 1;
  std::vector<int64_t> bounds(parts + 1, n);
  bounds[0] = 0;
  for (int p = 1; p < parts; ++p) {
    const int64_t target = cost_prefix[n] * p / parts;
    bounds[p] = std::max(bounds[p - 1], int64_t(std::lower_bound(cost_prefix.begin(), cost_prefix.end(), target) -
                                                cost_prefix.begin()));
  }
  return bounds;
}

}  // namespace Impl
}  // namespace Sprocket
