// Fuzz target: sprocket-solve's argument parser (example/solve_args.hpp), arguments split at
// newlines. Every argument list is either accepted, with values inside the documented ranges, or
// refused with InvalidArgument.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "example/solve_args.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args = sprocket_fuzz::split_arguments(data, size);
  std::vector<char*> argv = sprocket_fuzz::make_argv("sprocket-solve", args);
  try {
    const Sprocket::tools::SolveArgs a = Sprocket::tools::parse_solve_args(static_cast<int>(argv.size() - 1), argv.data());
    if (a.block < 1 || a.nev < 1 || !(a.tol > 0) || a.restart < 1 || a.ilu_level < 0 || !(a.ilut_fill > 0) ||
        !(a.ilut_pivot >= 0 && a.ilut_pivot <= 1) || !std::isfinite(a.shift) || !std::isfinite(a.shift_invert))
      __builtin_trap();
  } catch (const Sprocket::InvalidArgument&) {
  }
  return 0;
}
