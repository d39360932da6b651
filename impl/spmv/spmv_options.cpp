// SpMV names and option checks: kernel, target and decided-by names (to_string /
// spmv_kernel_from_string) and the validation of SpmvOptions that every analysis runs first.
#include <string>

#include "Sprocket_Spmv.hpp"
#include "impl/spmv/spmv_analysis.hpp"

namespace Sprocket {

namespace {
constexpr const char* kernel_names[num_spmv_kernels] = {
    "thread_per_row", "subvector2", "subvector4", "subvector8",
    "subvector16",    "subvector32", "team_per_row", "split_row"};
}  // namespace

const char* to_string(SpmvKernel kernel) {
  const int k = static_cast<int>(kernel);
  if (kernel == SpmvKernel::automatic) return "automatic";
  return k >= 0 && k < num_spmv_kernels ? kernel_names[k] : "invalid";
}

SpmvKernel spmv_kernel_from_string(const std::string& name) {
  if (name == "automatic" || name == "auto") return SpmvKernel::automatic;
  std::string valid = "auto";
  for (int k = 0; k < num_spmv_kernels; ++k) {
    if (name == kernel_names[k]) return static_cast<SpmvKernel>(k);
    valid += std::string(", ") + kernel_names[k];
  }
  throw InvalidArgument("unknown SpMV kernel \"" + name + "\" (valid: " + valid + ")");
}

int spmv_kernel_lanes(SpmvKernel kernel) {
  switch (kernel) {
    case SpmvKernel::thread_per_row: return 1;
    case SpmvKernel::subvector2: return 2;
    case SpmvKernel::subvector4: return 4;
    case SpmvKernel::subvector8: return 8;
    case SpmvKernel::subvector16: return 16;
    case SpmvKernel::subvector32: return 32;
    default: return 0;
  }
}

const char* to_string(SpmvTarget target) {
  switch (target) {
    case SpmvTarget::host: return "host";
    case SpmvTarget::cuda: return "cuda";
    case SpmvTarget::portable_cpu: return "portable (cpu)";
    case SpmvTarget::portable_gpu: return "portable (gpu)";
  }
  return "?";
}

const char* to_string(SpmvDecidedBy decided_by) {
  switch (decided_by) {
    case SpmvDecidedBy::model: return "model";
    case SpmvDecidedBy::forced: return "forced";
    case SpmvDecidedBy::autotune: return "autotune";
    case SpmvDecidedBy::options: return "options";
  }
  return "?";
}

namespace Impl {

void check_spmv_options(const SpmvOptions& options) {
  SPROCKET_REQUIRE(options.virtual_row_size >= 0 && options.virtual_row_size <= (1 << 20),
                   "SpmvOptions::virtual_row_size = ", options.virtual_row_size,
                   " outside [0, 2^20] (0 lets the model choose)");
  SPROCKET_REQUIRE(options.split_row_threshold >= 0, "SpmvOptions::split_row_threshold = ",
                   options.split_row_threshold, " is negative");
  SPROCKET_REQUIRE(options.split_chunk >= 0, "SpmvOptions::split_chunk = ", options.split_chunk,
                   " is negative");
  SPROCKET_REQUIRE(!options.autotune || options.autotune_repeats >= 1,
                   "SpmvOptions::autotune_repeats = ", options.autotune_repeats, " must be >= 1");
}

}  // namespace Impl
}  // namespace Sprocket
