#pragma once
/// \file Sprocket_Memory.hpp
/// The host memory ceiling that readers, generators and converters check a size against before
/// they allocate from it: a file may declare any size, but memory follows what can exist.
///
///   Sprocket::set_host_memory_limit(8LL << 30);  // at most 8 GiB per allocation plan (0: none)
///   // or, without code: SPROCKET_MEMORY_LIMIT=8G sprocket-info big.mtx
///
/// The ceiling is the smallest of the limit (set_host_memory_limit, else the environment variable
/// SPROCKET_MEMORY_LIMIT: bytes, or a number with a K, M or G suffix, powers of 1024) and the room
/// the system leaves, each less headroom of an eighth (at least 64 MiB: taking all of it is never
/// safe): the host's available memory (MemAvailable of /proc/meminfo), the process' own limits
/// (RLIMIT_AS, `ulimit -v`, less what it maps; RLIMIT_DATA, `ulimit -d`, less its data) and its
/// memory cgroup's limit (memory.max, or v1's memory.limit_in_bytes, of its cgroup and every
/// parent, less their usage without reclaimable file pages). What would pass it throws
/// Sprocket::ResourceError naming the bytes needed, the ceiling and what set it, before anything
/// is allocated. Every stage that allocates from a size it was given checks: the CSR built from
/// entries (readers, generators), conversions (BSR, block-size detection), the device copy
/// (to_crs), the solvers' workspaces.
#include <cstdint>
#include <string>

namespace Sprocket {

/// 0: no limit of the caller's (the host's available memory still applies). Negative throws
/// InvalidArgument. Thread-safe; applies to later checks.
void set_host_memory_limit(int64_t bytes);
/// The limit in force: set_host_memory_limit's, else SPROCKET_MEMORY_LIMIT's, else 0.
int64_t host_memory_limit();
/// The host's available memory (MemAvailable; free pages where /proc/meminfo is missing). Reading
/// /proc/meminfo costs about as much as a small SpGEMM, so a reading is reused for 200 ms unless
/// `fresh`. Thread-safe.
int64_t host_available_bytes(bool fresh = false);
/// The ceiling now (see above), in bytes. The system's part is read from /proc and /sys, and a
/// reading is reused for 200 ms unless `fresh`. Thread-safe.
int64_t host_memory_ceiling(bool fresh = false);
/// Throws ResourceError("<what>: needs N bytes, more than the C bytes allowed (<what set C>)")
/// when bytes exceeds the ceiling (a refusal is decided on a fresh reading, never on a reused
/// one, and so is every request of 64 MiB or more).
void require_host_memory(int64_t bytes, const std::string& what);

}  // namespace Sprocket
