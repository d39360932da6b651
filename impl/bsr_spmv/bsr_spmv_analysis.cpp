// BSR SpMV analysis: the kernel choice and the reason describe() prints
// (impl/bsr_spmv/bsr_spmv_analysis.hpp).
#include "Sprocket_BsrSpmv.hpp"  // first: it includes the plan, which includes the analysis

#include <cstdio>
#include <string>

namespace Sprocket {
namespace Impl {

namespace {

/// "118 MB", "2.6 MB", "3.5 kB" (decimal units, as the benchmark prints them).
std::string megabytes(int64_t bytes) {
  char text[32];
  const double mb = static_cast<double>(bytes) / 1e6;
  if (mb < 0.1)
    std::snprintf(text, sizeof text, "%.1f kB", static_cast<double>(bytes) / 1e3);
  else
    std::snprintf(text, sizeof text, mb < 10 ? "%.1f MB" : "%.0f MB", mb);
  return text;
}

std::string kernels_of(Backend backend, const BsrSpmvTarget& t) {
  std::string out;
  for (int k = 0; k < num_bsr_kernels; ++k)
    if (bsr_backend_has_kernel(backend, t.cuda, t.host, static_cast<BsrKernel>(k)))
      out += std::string(out.empty() ? "" : ", ") + to_string(static_cast<BsrKernel>(k));
  return out.empty() ? "none" : out;
}

}  // namespace

BsrSpmvChoice bsr_spmv_choose(const BsrSpmvOptions& options, Backend backend, const BsrSpmvTarget& t) {
  BsrSpmvChoice choice;
  choice.backend = backend;
  const bool native_host = backend == Backend::native && t.host;
  const bool native_cuda = backend == Backend::native && t.cuda;
  std::string why;
  if (options.kernel != BsrKernel::automatic) {
    SPROCKET_REQUIRE(bsr_backend_has_kernel(backend, t.cuda, t.host, options.kernel), "BsrSpmvPlan: kernel ",
                     to_string(options.kernel), " is not a kernel of backend ", to_string(backend), " on ",
                     t.space_name, " (its kernels: ", kernels_of(backend, t), ")");
    choice.kernel = options.kernel;
    why = "forced by BsrSpmvOptions::kernel";
  } else if (native_host) {
    choice.kernel = bsr_default_kernel(false, true, t.block_size);
    why = "automatic for a host space; block size " + std::to_string(t.block_size);
    if (options.symmetric) {
      const std::string threshold = std::to_string(bsr_symmetric_min_bytes >> 20) + " MiB";
      if (t.value_bytes >= bsr_symmetric_min_bytes) {
        choice.kernel = BsrKernel::symmetric;
        why += "; declared symmetric, values " + megabytes(t.value_bytes) +
               " >= bsr_symmetric_min_bytes (" + threshold + "): symmetric";
      } else {
        why += "; declared symmetric but values " + megabytes(t.value_bytes) + " < " + threshold + ": " +
               to_string(choice.kernel);
      }
    }
  } else if (native_cuda) {
    choice.kernel = bsr_default_kernel(true, false, t.block_size);
    why = "automatic for a CUDA space; block size " + std::to_string(t.block_size) +
          " (by_block up to 4, by_column up to 15, row_per_thread from 16)";
  } else {
    choice.kernel = BsrKernel::row_per_thread;
    why = "automatic: the portable backend's one kernel";
  }
  if (options.backend == Backend::portable)
    why += "; Backend::portable";
  else if (options.backend == Backend::native)
    why += "; Backend::native";
  else if (backend == Backend::portable)
    why += std::string("; Backend::automatic: ") + t.space_name + " has no native BSR kernels";
  SPROCKET_REQUIRE(bsr_kernel_supports(choice.kernel, t.block_size), "BsrSpmvPlan: kernel ", to_string(choice.kernel),
                   " does not support block size ", t.block_size);
  SPROCKET_REQUIRE(choice.kernel != BsrKernel::symmetric || options.symmetric,
                   "BsrSpmvPlan: kernel symmetric needs BsrSpmvOptions::symmetric = true (the promise that "
                   "A == A^T, checked at analysis)");
  choice.why = why;
  return choice;
}

}  // namespace Impl
}  // namespace Sprocket
