#pragma once
// The pieces of the host memory ceiling (src/Sprocket_Memory.hpp), each a plain function of what
// it reads so that the tests can feed it: how much room a source leaves (the host's available
// memory, the process' address-space and data limits, its cgroup's memory limit), and how much of
// that room a request may take once headroom is kept back.
#include <cstdint>
#include <string>

namespace Sprocket {
namespace Impl {

/// Room left by one source of limits: `bytes` (unlimited_room when the source sets no limit) and
/// what to call it in a refusal.
struct MemoryRoom {
  static constexpr int64_t unlimited_room = INT64_MAX;
  int64_t bytes = unlimited_room;
  std::string source;
};

/// What a request may take of `room`: the room less headroom of an eighth of it, and at least
/// 64 MiB (the allocator's own overhead, other threads, the page cache the system needs; taking
/// all available memory is never safe). 0 when the room is smaller than that.
int64_t usable_bytes(int64_t room);

/// Room under a process limit of `limit` bytes (RLIM_INFINITY or negative: none) of which `used`
/// are taken already.
MemoryRoom process_limit_room(int64_t limit, int64_t used, const std::string& source);

/// Room under the memory cgroups of a process: `proc_self_cgroup` is the text of
/// /proc/self/cgroup, `cgroup_root` where the cgroup file systems are mounted (/sys/fs/cgroup).
/// cgroup v2 (line "0::<path>"; the unified hierarchy at <root> or <root>/unified): memory.max
/// less memory.current; v1 (a line naming the memory controller; <root>/memory): limit_in_bytes
/// less usage_in_bytes; the usage without its file pages (memory.stat: reclaimable, as
/// MemAvailable counts them). The smallest over the process' cgroup and every ancestor whose files
/// exist (a container sees its own cgroup at the root), so a parent's limit counts too.
MemoryRoom cgroup_memory_room(const std::string& proc_self_cgroup, const std::string& cgroup_root);

}  // namespace Impl
}  // namespace Sprocket
