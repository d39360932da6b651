#pragma once
// Small host-side pieces every operator's analysis uses: a CSR row map read back to the host,
// copying a host vector into a View on the operator's device, and cutting a run of work items
// into contiguous parts of equal cost.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "impl/common/huge_pages.hpp"

namespace Sprocket {
namespace Impl {

/// A's row map on the host, as int64_t (num_rows + 1 offsets; all zero for a matrix without a
/// row map, such as a default-constructed one).
template <class CrsType>
std::vector<int64_t> host_row_map(const CrsType& A) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  const size_t n = static_cast<size_t>(A.numRows()) + 1;
  std::vector<int64_t> row_map;
  reserve_with_huge_pages(row_map, n);
  if (h.extent(0) > 0)
    row_map.insert(row_map.end(), h.data(), h.data() + n);  // each offset written once, widened
  else
    row_map.assign(n, 0);
  return row_map;
}

/// A new View<T*, Device> holding v (converted element by element to T).
template <class T, class Device, class U>
Kokkos::View<T*, Device> to_device_view(const std::vector<U>& v, const std::string& label) {
  Kokkos::View<T*, Device> out(Kokkos::ViewAllocateWithoutInitializing(label), v.size());
  auto h = Kokkos::create_mirror_view(out);
  advise_huge_pages(h);
  for (size_t i = 0; i < v.size(); ++i) h(i) = static_cast<T>(v[i]);
  Kokkos::deep_copy(out, h);
  return out;
}

/// How many contiguous parts the host kernels of SpMV, BSR and SpMM cut their work into: up to
/// host_parts_per_thread per thread, each costing at least host_min_part_cost (at least one part
/// per thread). The kernels take the parts dynamically (host_dynamic_policy): on a VM or beside a
/// busy process the threads do not run evenly, and with one part per thread the slowest thread
/// set the time of the whole apply (perf_tests/results/host-compare-2026-12-07.md, busy
/// neighbour, where Kokkos Kernels' dynamic schedule was up to 1.6x faster). Kokkos' OpenMP
/// backend starts each thread on its own contiguous run of parts and steals at the end, so a
/// quiet machine keeps the static order.
/// Eight measured faster than one, and as fast as 32, on Poisson, elasticity, R-MAT and bcsstk16
/// (2 threads, quiet; beside a busy core 2.7x on gen:poisson3d:n=100). A part costs at least
/// host_min_part_cost (entries plus rows): taking a part costs one atomic.
inline constexpr int host_parts_per_thread = 8;
inline constexpr int64_t host_min_part_cost = 2048;
inline int host_dynamic_parts(int threads, int64_t total_cost) {
  const int64_t t = std::max(1, threads);
  const int64_t by_cost = total_cost / host_min_part_cost;
  return static_cast<int>(std::max<int64_t>(t, std::min<int64_t>(t * host_parts_per_thread, by_cost)));
}

/// A host kernel's loop over its parts: dynamic, one part at a time (see host_dynamic_parts).
template <class ExecSpace>
Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> host_dynamic_policy(const ExecSpace& space,
                                                                                      int64_t num_parts) {
  return Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, num_parts, Kokkos::ChunkSize(1));
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
