#pragma once
// What the fuzz targets share: the exceptions a target may end with (Sprocket's documented ones;
// anything else escaping is a finding, and libFuzzer reports the abort), argv built from the
// input, and a memory ceiling small enough that refused sizes are refused quickly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"

namespace sprocket_fuzz {

/// Sprocket's host memory ceiling inside the targets: large enough for every seed, small enough
/// that an input claiming more is refused (ResourceError) instead of being allocated.
inline void limit_memory() {
  static const bool once = [] {
    Sprocket::set_host_memory_limit(int64_t{16} << 20);
    return true;
  }();
  (void)once;
}

/// Arguments after the program name: the input split at '\n' and '\0' (empty pieces kept, so a
/// flag's value may be empty).
inline std::vector<std::string> split_arguments(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      args.emplace_back();
    } else {
      args.back() += c;
    }
  }
  if (size == 0) args.clear();
  return args;
}

/// argv of a program named `program` with `args`: pointers into args, argv[argc] == nullptr.
inline std::vector<char*> make_argv(const char* program, std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program));
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

}  // namespace sprocket_fuzz
