// The host memory ceiling (src/Sprocket_Memory.hpp).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <string>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"

namespace Sprocket {
namespace {

constexpr int64_t unset = -1;
std::atomic<int64_t> user_limit{unset};

/// SPROCKET_MEMORY_LIMIT: bytes, or a number with K, M or G (powers of 1024). A malformed value
/// throws: a limit the user believes is set must not be silently ignored.
int64_t environment_limit() {
  const char* text = std::getenv("SPROCKET_MEMORY_LIMIT");
  if (!text || !*text) return 0;
  const std::string s(text);
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  double scale = 1;
  if (used + 1 == s.size()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(s[used])));
    scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1024.0 * 1024 : unit == 'G' ? 1024.0 * 1024 * 1024 : -1;
    ++used;
  }
  SPROCKET_REQUIRE(used == s.size() && scale > 0 && value >= 0 && value * scale < 9e18,
                   "SPROCKET_MEMORY_LIMIT = \"", s, "\": expected bytes or a number with K, M or G");
  return static_cast<int64_t>(value * scale);
}

int64_t read_host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  int64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<int64_t>(pages) * page;
  return std::numeric_limits<int64_t>::max() / 4;
}

}  // namespace

void set_host_memory_limit(int64_t bytes) {
  SPROCKET_REQUIRE(bytes >= 0, "set_host_memory_limit: ", bytes, " bytes (0: no limit, else positive)");
  user_limit.store(bytes);
}

int64_t host_memory_limit() {
  const int64_t set = user_limit.load();
  return set != unset ? set : environment_limit();
}

int64_t host_available_bytes(bool fresh) {
  using clock = std::chrono::steady_clock;
  static std::mutex mutex;
  static int64_t bytes = 0;
  static clock::time_point when;
  std::lock_guard<std::mutex> lock(mutex);
  const clock::time_point now = clock::now();
  if (fresh || bytes == 0 || now - when > std::chrono::milliseconds(200)) {
    bytes = read_host_available_bytes();
    when = now;
  }
  return bytes;
}

void require_host_memory(int64_t bytes, const std::string& what) {
  const int64_t limit = host_memory_limit();
  int64_t available = host_available_bytes();
  // A refusal for lack of memory is decided on a fresh reading (the reused one may be stale).
  if (bytes > available && !(limit > 0 && bytes > limit)) available = host_available_bytes(true);
  const int64_t ceiling = limit > 0 && limit < available ? limit : available;
  if (bytes <= ceiling) return;
  const std::string source = limit > 0 && limit < available ? " (the memory limit: set_host_memory_limit or SPROCKET_MEMORY_LIMIT)"
                                                            : " (the host's available memory)";
  throw ResourceError(what + ": needs " + std::to_string(bytes) + " bytes, more than the " + std::to_string(ceiling) +
                          " bytes allowed" + source,
                      bytes, ceiling);
}

}  // namespace Sprocket
