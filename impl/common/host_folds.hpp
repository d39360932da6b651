#pragma once
// Folds over a host array an analysis reads whole (a row map, a matrix's column indices), run on
// the host threads in contiguous chunks. Each chunk's loop works in the array's own element type
// and without a data-dependent branch, so the compiler vectorizes it; the checks that used a
// per-element callable returning int64_t ran serially and unvectorized (6 ms for the 6.9 M
// indices of gen:poisson3d:n=100, a quarter of the SpMV plan's analysis).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "impl/common/host_analysis.hpp"

namespace Sprocket {
namespace Impl {

/// Chunks of at least this many elements: below it one thread folds the whole array (starting
/// the host threads costs more than the fold).
inline constexpr int64_t host_fold_min_chunk = int64_t{1} << 16;
/// At most this many chunks (the folds keep one result per chunk on the stack).
inline constexpr int64_t host_fold_max_chunks = 256;

/// How many chunks host_chunked cuts [0, n) into: a few per host thread, taken dynamically (a
/// thread slowed by a neighbour hands work on), each at least host_fold_min_chunk long.
inline int64_t host_chunk_count(int64_t n) {
  const int64_t threads = std::max(1, Kokkos::DefaultHostExecutionSpace().concurrency());
  return std::max<int64_t>(1, std::min({4 * threads, n / host_fold_min_chunk, host_fold_max_chunks}));
}

/// Runs item(c) for c in [0, count) on the host threads, taken dynamically (host_dynamic_policy),
/// and returns when all are done; a single item runs on the calling thread.
template <class Item>
void host_for_each(const char* label, int64_t count, const Item& item) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  if (count <= 1) {
    if (count == 1) item(int64_t{0});
    return;
  }
  Kokkos::parallel_for(label, host_dynamic_policy(Host(), count), [&](const int64_t c) { item(c); });
  Host().fence();
}

/// Runs chunk(begin, end, c) over the host_chunk_count(n) contiguous chunks c of [0, n) on the
/// host threads and returns their number (results indexed by c are the caller's).
template <class Chunk>
int64_t host_chunked(int64_t n, const Chunk& chunk) {
  const int64_t chunks = host_chunk_count(n);
  host_for_each("Sprocket::host_chunked", chunks,
                [&](int64_t c) { chunk(n * c / chunks, n * (c + 1) / chunks, c); });
  return chunks;
}

/// Minimum and maximum of p[0, n) as int64_t; {0, -1} when n == 0.
template <class T>
std::pair<int64_t, int64_t> host_value_range(const T* p, int64_t n) {
  static_assert(std::is_integral_v<T>, "host_value_range: integer arrays");
  if (n <= 0) return {0, -1};
  T lo[host_fold_max_chunks], hi[host_fold_max_chunks];
  const int64_t used = host_chunked(n, [&](int64_t begin, int64_t end, int64_t c) {
    T l = std::numeric_limits<T>::max(), h = std::numeric_limits<T>::lowest();
    for (int64_t k = begin; k < end; ++k) {
      l = p[k] < l ? p[k] : l;
      h = p[k] > h ? p[k] : h;
    }
    lo[c] = l;
    hi[c] = h;
  });
  const T l = *std::min_element(lo, lo + used), h = *std::max_element(hi, hi + used);
  return {static_cast<int64_t>(l), static_cast<int64_t>(h)};
}

/// Whether p[0] <= p[1] <= ... <= p[n - 1].
template <class T>
bool host_nondecreasing(const T* p, int64_t n) {
  if (n <= 1) return true;
  int decreases[host_fold_max_chunks];
  // Chunks over the n - 1 neighbouring pairs; pair i is (p[i], p[i + 1]).
  const int64_t used = host_chunked(n - 1, [&](int64_t begin, int64_t end, int64_t c) {
    int d = 0;
    for (int64_t i = begin; i < end; ++i) d |= p[i] > p[i + 1];
    decreases[c] = d;
  });
  return std::none_of(decreases, decreases + used, [](int d) { return d != 0; });
}

}  // namespace Impl
}  // namespace Sprocket
