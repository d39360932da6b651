#pragma once
// The schedule of Sprocket_Spmv.hpp copied to the plan's memory space in the form the executors
// read. Built once at analysis; executors only read it.
//
//  - vrow_bounds: row boundaries of the virtual rows;
//  - bins: one entry per non-split bin, with the list of its virtual rows (GPU and portable
//    executors launch one kernel per bin);
//  - split rows: rows cut into chunks of `split_chunk` entries, each chunk reduced by one team and
//    added into y atomically after y(row) was scaled by beta;
//  - host executor: the kernel of each virtual row and an nnz-balanced cut of the virtual rows
//    into contiguous parts, one per host thread, so each thread streams through its rows in order.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "Sprocket_Spmv.hpp"
#include "impl/common/host_analysis.hpp"

namespace Sprocket {
namespace Impl {

template <class Ordinal, class Device>
struct SpmvBinDevice {
  SpmvKernel kernel = SpmvKernel::thread_per_row;
  int64_t num_vrows = 0;
  int64_t rows_per_vrow = 1;  ///< upper bound: U (1 for split rows)
  int64_t max_row = 0;
  Kokkos::View<Ordinal*, Device> vrows;
};

template <class Ordinal, class Device>
struct SpmvDeviceSchedule {
  using ordinal_view = Kokkos::View<Ordinal*, Device>;
  ordinal_view vrow_bounds;
  std::vector<SpmvBinDevice<Ordinal, Device>> bins;

  int64_t num_split_rows = 0;
  int64_t num_split_chunks = 0;
  int64_t split_chunk = 1;
  ordinal_view split_rows;                        ///< the rows handled by chunks
  Kokkos::View<int64_t*, Device> split_chunk_begin;  ///< first chunk of each split row (n + 1)
  ordinal_view chunk_split_index;                 ///< which split row each chunk belongs to

  /// Host executor: col - row of every entry when SpmvSchedule::compressed_indices, else empty.
  Kokkos::View<int16_t*, Device> col_offsets;
  /// Host executor, SpmvSchedule::row_patterns: pattern of each row, and pattern p's offsets
  /// col - row at pattern_offsets[pattern_begin(p), pattern_begin(p + 1)); else empty.
  Kokkos::View<uint16_t*, Device> row_pattern;
  Kokkos::View<int32_t*, Device> pattern_begin;
  Kokkos::View<int32_t*, Device> pattern_offsets;
  /// Host executor: SpmvSchedule::x_prefetch_distance (0: no x prefetch).
  int64_t x_prefetch_distance = 0;

  // Host executor only.
  Kokkos::View<uint8_t*, Device> vrow_kernel;     ///< SpmvKernel of each virtual row
  int64_t num_parts = 0;                          ///< host threads' parts (0: not built)
  Kokkos::View<int64_t*, Device> part_begin;      ///< part p: virtual rows [part_begin(p), part_begin(p+1))
};

/// Builds the device schedule. `host_parts` > 0 also builds the host executor's partition into
/// that many parts; on the host target team_per_row virtual rows are split across threads, so
/// they join the split rows there.
template <class Ordinal, class Device>
SpmvDeviceSchedule<Ordinal, Device> make_device_schedule(const SpmvSchedule& s,
                                                        const std::vector<int64_t>& row_map,
                                                        int host_parts) {
  using HostSpace = Kokkos::HostSpace;
  SpmvDeviceSchedule<Ordinal, Device> d;
  const bool host_target = s.target == SpmvTarget::host;
  d.vrow_bounds = to_device_view<Ordinal, Device>(s.vrow_bounds, "Sprocket::spmv::vrow_bounds");

  std::vector<int64_t> split_rows;
  std::vector<uint8_t> vrow_kernel(s.num_vrows(), 0);
  for (const auto& bin : s.bins) {
    const bool to_split = bin.kernel == SpmvKernel::split_row ||
                          (host_target && bin.kernel == SpmvKernel::team_per_row);
    for (int64_t v : bin.vrows) vrow_kernel[v] = static_cast<uint8_t>(to_split ? SpmvKernel::split_row : bin.kernel);
    if (to_split) {
      for (int64_t v : bin.vrows)
        for (int64_t r = s.vrow_bounds[v]; r < s.vrow_bounds[v + 1]; ++r) split_rows.push_back(r);
      continue;
    }
    SpmvBinDevice<Ordinal, Device> b;
    b.kernel = bin.kernel;
    b.num_vrows = static_cast<int64_t>(bin.vrows.size());
    b.rows_per_vrow = s.virtual_row_size;
    b.max_row = bin.max_row;
    b.vrows = to_device_view<Ordinal, Device>(bin.vrows, "Sprocket::spmv::bin_vrows");
    d.bins.push_back(b);
  }
  std::sort(split_rows.begin(), split_rows.end());

  d.split_chunk = s.split_chunk > 0 ? s.split_chunk : 4096;
  d.num_split_rows = static_cast<int64_t>(split_rows.size());
  std::vector<int64_t> chunk_begin(split_rows.size() + 1, 0), chunk_index;
  for (size_t i = 0; i < split_rows.size(); ++i) {
    const int64_t len = row_map[split_rows[i] + 1] - row_map[split_rows[i]];
    const int64_t chunks = std::max<int64_t>(1, (len + d.split_chunk - 1) / d.split_chunk);
    chunk_begin[i + 1] = chunk_begin[i] + chunks;
    for (int64_t c = 0; c < chunks; ++c) chunk_index.push_back(static_cast<int64_t>(i));
  }
  d.num_split_chunks = chunk_begin.back();
  d.split_rows = to_device_view<Ordinal, Device>(split_rows, "Sprocket::spmv::split_rows");
  d.chunk_split_index = to_device_view<Ordinal, Device>(chunk_index, "Sprocket::spmv::chunk_split_index");
  d.split_chunk_begin = to_device_view<int64_t, Device>(chunk_begin, "Sprocket::spmv::split_chunk_begin");

  if (host_parts > 0) {
    // nnz-balanced contiguous parts; a row also costs a little (row_map read, y write), counted
    // as 2 entries. Split rows cost nothing here: their chunks are shared by all threads.
    const int64_t nv = s.num_vrows();
    std::vector<int64_t> cost(nv + 1, 0);
    for (int64_t v = 0; v < nv; ++v) {
      const int64_t r0 = s.vrow_bounds[v], r1 = s.vrow_bounds[v + 1];
      const int64_t c = vrow_kernel[v] == static_cast<uint8_t>(SpmvKernel::split_row)
                            ? 0
                            : (row_map[r1] - row_map[r0]) + 2 * (r1 - r0);
      cost[v + 1] = cost[v] + c;
    }
    d.num_parts = host_parts;
    d.part_begin = to_device_view<int64_t, Device>(balanced_parts(cost, host_parts), "Sprocket::spmv::part_begin");
    d.vrow_kernel = to_device_view<uint8_t, Device>(vrow_kernel, "Sprocket::spmv::vrow_kernel");
  }
  return d;
}

}  // namespace Impl
}  // namespace Sprocket
