// The huge-page advice the host analysis gives its large fresh arrays (impl/common/huge_pages.hpp):
// the advice lands on the 2 MiB-aligned interior of a large buffer, never outside the buffer and
// never on a small one. Read back from the kernel's own record of the mapping (/proc/self/smaps,
// the `hg` flag that MADV_HUGEPAGE sets), which does not depend on whether huge pages were free.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "impl/common/huge_pages.hpp"

#include <sys/mman.h>

namespace {

/// The VmFlags of the mapping holding `address`, or "" when none does.
std::string vm_flags_at(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
      inside = a >= begin && a < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool advised(const void* address) { return vm_flags_at(address).find(" hg") != std::string::npos; }

/// Whether this kernel keeps MADV_HUGEPAGE at all (built without transparent huge pages it refuses).
bool kernel_takes_the_advice() {
#if defined(MADV_HUGEPAGE)
  const size_t bytes = 4 * Sprocket::Impl::huge_page_bytes;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = madvise(p, bytes, MADV_HUGEPAGE) == 0 && advised(p);
  munmap(p, bytes);
  return ok;
#else
  return false;
#endif
}

constexpr size_t MiB = size_t(1) << 20;

}  // namespace

/// A fresh anonymous mapping of its own (no other buffer shares its pages or its flags).
struct FreshMapping {
  size_t bytes;
  char* p;
  explicit FreshMapping(size_t b)
      : bytes(b), p(static_cast<char*>(mmap(nullptr, b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))) {}
  ~FreshMapping() { munmap(p, bytes); }
};

TEST(HugePages, SmallOrEmptyBuffersAreLeftAlone) {
  Sprocket::Impl::advise_huge_pages(nullptr, 64 * MiB);  // no effect, no crash
  std::vector<char> tiny(100);
  Sprocket::Impl::advise_huge_pages(tiny.data(), tiny.size());
  if (!kernel_takes_the_advice()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  // 3.5 MiB starting on a 2 MiB boundary: below twice a huge page, not advised even though a
  // whole 2 MiB page lies inside.
  FreshMapping m(8 * MiB);
  const uintptr_t mask = Sprocket::Impl::huge_page_bytes - 1;
  char* start = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(m.p) + mask) & ~mask);
  Sprocket::Impl::advise_huge_pages(start, 3 * MiB + 512 * 1024);
  for (size_t offset = 0; offset < 3 * MiB; offset += 256 * 1024)
    EXPECT_FALSE(advised(start + offset)) << "offset " << offset << ": " << vm_flags_at(start + offset);
}

TEST(HugePages, LargeBufferAdvisedOnItsAlignedInteriorOnly) {
  if (!kernel_takes_the_advice()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  // A buffer of 9 MiB + 100 bytes starting 4 KiB + 16 bytes past a 2 MiB boundary, inside a larger
  // mapping: the whole 2 MiB pages inside it are advised, the bytes before and after them are not.
  FreshMapping m(16 * MiB);
  const uintptr_t H = Sprocket::Impl::huge_page_bytes, mask = H - 1;
  char* start = reinterpret_cast<char*>(((reinterpret_cast<uintptr_t>(m.p) + mask) & ~mask) + 4096 + 16);
  const size_t bytes = 9 * MiB + 100;
  Sprocket::Impl::advise_huge_pages(start, bytes);
  const uintptr_t first = (reinterpret_cast<uintptr_t>(start) + mask) & ~mask;
  const uintptr_t last = (reinterpret_cast<uintptr_t>(start) + bytes) & ~mask;  // end of the interior
  ASSERT_EQ(last - first, 3 * H);  // the 2 MiB pages at +2, +4 and +6 MiB from the boundary below start
  EXPECT_FALSE(advised(start)) << vm_flags_at(start);
  EXPECT_FALSE(advised(reinterpret_cast<char*>(first) - 1));
  for (uintptr_t a = first; a < last; a += H / 2)
    EXPECT_TRUE(advised(reinterpret_cast<char*>(a))) << "offset " << a - first << ": " << vm_flags_at(reinterpret_cast<char*>(a));
  EXPECT_FALSE(advised(reinterpret_cast<char*>(last))) << vm_flags_at(reinterpret_cast<char*>(last));
}

TEST(HugePages, ReservedVectorAdvised) {
  if (!kernel_takes_the_advice()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::vector<int64_t> v;
  const size_t n = 16 * MiB / sizeof(int64_t) + 3;
  Sprocket::Impl::reserve_with_huge_pages(v, n);
  ASSERT_GE(v.capacity(), n);
  EXPECT_TRUE(v.empty());
  EXPECT_TRUE(advised(v.data() + n / 2)) << vm_flags_at(v.data() + n / 2);
  v.assign(n, 7);  // still an ordinary vector
  EXPECT_EQ(v[n - 1], 7);
}

TEST(HugePages, HostViewAdvised) {
  if (!kernel_takes_the_advice()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  Kokkos::View<double*, Kokkos::HostSpace> view(Kokkos::ViewAllocateWithoutInitializing("huge_pages_test"),
                                                12 * MiB / sizeof(double));
  Sprocket::Impl::advise_huge_pages(view);
  EXPECT_TRUE(advised(view.data() + view.extent(0) / 2)) << vm_flags_at(view.data() + view.extent(0) / 2);
}
