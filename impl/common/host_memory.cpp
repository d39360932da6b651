// The host memory ceiling (src/Sprocket_Memory.hpp): the user's limit, and the room the system
// leaves (available memory, RLIMIT_AS, RLIMIT_DATA, the memory cgroup) less headroom, read from
// /proc and /sys (impl/common/host_memory_room.hpp has the pieces the tests feed directly).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"
#include "impl/common/host_memory_room.hpp"

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

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A "Vm...:" line of /proc/self/status in bytes (0 when it is missing).
int64_t process_status_bytes(const std::string& status, const char* key) {
  const size_t at = status.find(key);
  if (at == std::string::npos) return 0;
  return std::strtoll(status.c_str() + at + std::strlen(key), nullptr, 10) * 1024;
}

int64_t soft_limit(int resource) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY ||
      r.rlim_cur > static_cast<rlim_t>(std::numeric_limits<int64_t>::max()))
    return -1;
  return static_cast<int64_t>(r.rlim_cur);
}

/// The ceiling the system sets (the user's limit aside): the smallest room, less headroom, of
/// the available memory, the process limits and the cgroup, with the source that sets it.
Impl::MemoryRoom read_system_ceiling() {
  Impl::MemoryRoom best;
  const auto consider = [&](const Impl::MemoryRoom& room) {
    const int64_t usable = room.bytes == Impl::MemoryRoom::unlimited_room ? room.bytes : Impl::usable_bytes(room.bytes);
    if (usable < best.bytes) best = {usable, room.source};
  };
  consider({read_host_available_bytes(), "the host's available memory (MemAvailable)"});
  const std::string status = read_file("/proc/self/status");
  consider(Impl::process_limit_room(soft_limit(RLIMIT_AS), process_status_bytes(status, "VmSize:"),
                                    "the address-space limit RLIMIT_AS (ulimit -v) less the process' mappings"));
  consider(Impl::process_limit_room(soft_limit(RLIMIT_DATA), process_status_bytes(status, "VmData:"),
                                    "the data limit RLIMIT_DATA (ulimit -d) less the process' data"));
  consider(Impl::cgroup_memory_room(read_file("/proc/self/cgroup"), "/sys/fs/cgroup"));
  best.source += ", less headroom";
  return best;
}

/// Requests of at least this many bytes are checked on a fresh reading: the process may have
/// allocated that much since the last one, and reading costs nothing next to such an allocation.
constexpr int64_t fresh_reading_bytes = int64_t{64} << 20;

/// The system ceiling, a reading reused for 200 ms unless `fresh`.
Impl::MemoryRoom system_ceiling(bool fresh) {
  using clock = std::chrono::steady_clock;
  static std::mutex mutex;
  static Impl::MemoryRoom ceiling;
  static clock::time_point when;
  static bool read = false;
  std::lock_guard<std::mutex> lock(mutex);
  const clock::time_point now = clock::now();
  if (fresh || !read || now - when > std::chrono::milliseconds(200)) {
    ceiling = read_system_ceiling();
    when = now;
    read = true;
  }
  return ceiling;
}

/// The ceiling in force and its source: the user's limit when it is the smaller.
Impl::MemoryRoom ceiling_in_force(bool fresh) {
  const int64_t limit = host_memory_limit();
  Impl::MemoryRoom system = system_ceiling(fresh);
  if (limit > 0 && limit <= system.bytes)
    return {limit, "the memory limit: set_host_memory_limit or SPROCKET_MEMORY_LIMIT"};
  return system;
}

}  // namespace

namespace Impl {

int64_t usable_bytes(int64_t room) {
  const int64_t headroom = std::max(room / 8, int64_t{64} << 20);
  return room > headroom ? room - headroom : 0;
}

MemoryRoom process_limit_room(int64_t limit, int64_t used, const std::string& source) {
  if (limit < 0) return {MemoryRoom::unlimited_room, source};
  return {std::max<int64_t>(0, limit - std::max<int64_t>(0, used)), source};
}

namespace {

/// A cgroup file's number; "max" (v2) or a value near 2^63 (v1's "no limit") is unlimited, and so
/// is a missing or unreadable file (-1 returned).
int64_t cgroup_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return -1;
  if (word == "max") return MemoryRoom::unlimited_room;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(word.c_str(), &end, 10);
  if (errno != 0 || end == word.c_str() || v < 0) return -1;
  return v >= (int64_t{1} << 62) ? MemoryRoom::unlimited_room : static_cast<int64_t>(v);
}

/// File pages in a cgroup's memory.stat (v1: total_active_file + total_inactive_file, v2:
/// active_file + inactive_file): charged to the cgroup but reclaimable, as MemAvailable counts them.
int64_t cgroup_file_pages(const std::string& dir) {
  std::ifstream stat(dir + "/memory.stat");
  std::string key;
  int64_t value = 0, v1 = 0, v2 = 0;
  while (stat >> key >> value) {
    if (key == "total_active_file" || key == "total_inactive_file") v1 += value;
    if (key == "active_file" || key == "inactive_file") v2 += value;
  }
  return v1 > 0 ? v1 : v2;
}

/// The smallest limit - usage over `dir` and its ancestors up to `root` (both must exist); usage
/// without the reclaimable file pages.
void walk_up(const std::string& root, std::string relative, const char* limit_file, const char* usage_file,
             MemoryRoom& room) {
  while (true) {
    const std::string dir = root + relative;
    const int64_t limit = cgroup_number(dir + "/" + limit_file);
    if (limit >= 0 && limit != MemoryRoom::unlimited_room) {
      const int64_t usage =
          std::max<int64_t>(0, std::max<int64_t>(0, cgroup_number(dir + "/" + usage_file)) - cgroup_file_pages(dir));
      const int64_t left = std::max<int64_t>(0, limit - usage);
      if (left < room.bytes)
        room = {left, std::string("the cgroup memory limit ") + dir + "/" + limit_file + " (" + std::to_string(limit) +
                          " bytes, " + std::to_string(usage) + " in use)"};
    }
    if (relative.empty() || relative == "/") break;
    const size_t slash = relative.find_last_of('/');
    relative = slash == std::string::npos ? std::string() : relative.substr(0, slash);
  }
}

}  // namespace

MemoryRoom cgroup_memory_room(const std::string& proc_self_cgroup, const std::string& cgroup_root) {
  MemoryRoom room;
  room.source = "no cgroup memory limit";
  std::istringstream lines(proc_self_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // hierarchy-ID:controller-list:cgroup-path
    const size_t first = line.find(':'), second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (!path.empty() && path.back() == '/') path.pop_back();
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      for (const std::string mount : {cgroup_root, cgroup_root + "/unified"})
        if (std::ifstream(mount + "/cgroup.controllers")) walk_up(mount, path, "memory.max", "memory.current", room);
    } else {
      std::istringstream list(controllers);
      std::string controller;
      while (std::getline(list, controller, ','))
        if (controller == "memory")
          walk_up(cgroup_root + "/memory", path, "memory.limit_in_bytes", "memory.usage_in_bytes", room);
    }
  }
  return room;
}

}  // namespace Impl

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

int64_t host_memory_ceiling(bool fresh) { return ceiling_in_force(fresh).bytes; }

void require_host_memory(int64_t bytes, const std::string& what) {
  Impl::MemoryRoom ceiling = ceiling_in_force(bytes >= fresh_reading_bytes);
  // A refusal is decided on a fresh reading (a reused one may be stale).
  if (bytes > ceiling.bytes) ceiling = ceiling_in_force(true);
  if (bytes <= ceiling.bytes) return;
  throw ResourceError(what + ": needs " + std::to_string(bytes) + " bytes, more than the " +
                          std::to_string(ceiling.bytes) + " bytes allowed (" + ceiling.source + ")",
                      bytes, ceiling.bytes);
}

}  // namespace Sprocket
