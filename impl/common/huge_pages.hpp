#pragma once
// Transparent huge pages for the large host buffers an operator's analysis fills once (the row
// map read back to the host, the row patterns, the schedule's arrays). Fresh memory costs a page
// fault per 4 KiB page at its first touch; on a VM that fault is expensive enough (about 11 us on
// our 2-core EPYC VM, perf_tests/results/host-analysis-pages-2026-12-07.md) that filling a new
// 8 MB array took longer than reading the whole matrix. Where the kernel's transparent huge pages
// are in `madvise` mode (Debian cloud images; `always` needs no advice), a 2 MiB page takes one
// fault instead of 512. The advice is only a hint: a kernel without THP ignores it, and the
// memory is never pinned.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace Sprocket {
namespace Impl {

/// A transparent huge page. Buffers under twice this are left alone: their 2 MiB-aligned interior
/// holds at most one.
inline constexpr size_t huge_page_bytes = size_t(2) << 20;

/// Advises huge pages for the 2 MiB-aligned interior of [p, p + bytes) of host memory. Call it
/// before the first write: pages already touched keep their size. Never fails (the advice is
/// dropped where the system refuses it).
inline void advise_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p == nullptr || bytes < 2 * huge_page_bytes) return;
  const uintptr_t mask = huge_page_bytes - 1;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + mask) & ~mask;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~mask;
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/// The same for a View's memory when the host can address it (HostSpace, and CUDA's host-pinned
/// or unified memory is left alone: the driver manages those pages).
template <class View>
void advise_huge_pages(const View& v) {
  if constexpr (std::is_same_v<typename View::memory_space, Kokkos::HostSpace>)
    advise_huge_pages(const_cast<void*>(static_cast<const void*>(v.data())),
                      v.span() * sizeof(typename View::value_type));
  else
    (void)v;
}

/// Reserves room for n elements in an empty vector and advises huge pages for it, before anything
/// is written there (the caller then fills it with resize, assign or push_back).
template <class T>
void reserve_with_huge_pages(std::vector<T>& v, size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace Impl
}  // namespace Sprocket
