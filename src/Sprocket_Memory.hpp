#pragma once
/// \file Sprocket_Memory.hpp
/// The host memory ceiling that readers, generators and converters check a size against before
/// they allocate from it: a file may declare any size, but memory follows what can exist.
///
///   Sprocket::set_host_memory_limit(8LL << 30);  // at most 8 GiB per allocation plan (0: none)
///   // or, without code: SPROCKET_MEMORY_LIMIT=8G sprocket-info big.mtx
///
/// The ceiling is the smaller of the host's available memory (MemAvailable of /proc/meminfo) and
/// the limit (set_host_memory_limit, else the environment variable SPROCKET_MEMORY_LIMIT: bytes,
/// or a number with a K, M or G suffix, powers of 1024). What would pass it throws
/// Sprocket::ResourceError naming the bytes needed and the ceiling, before anything is allocated.
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
/// Throws ResourceError("<what>: needs N bytes, more than ...") when bytes exceeds the ceiling
/// (a refusal is decided on a fresh reading, never on a reused one).
void require_host_memory(int64_t bytes, const std::string& what);

}  // namespace Sprocket
