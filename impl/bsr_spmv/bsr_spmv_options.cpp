// BSR SpMV kernel names, defaults, which backend has which kernel, and option validation.
#include "Sprocket_BsrSpmv.hpp"

namespace Sprocket {

namespace {
constexpr const char* bsr_kernel_names[num_bsr_kernels] = {"block_row", "padded",    "symmetric",
                                                           "by_block",  "by_column", "row_per_thread"};
}

const char* to_string(BsrKernel kernel) {
  if (kernel == BsrKernel::automatic) return "automatic";
  const int k = static_cast<int>(kernel);
  return k >= 0 && k < num_bsr_kernels ? bsr_kernel_names[k] : "invalid";
}

BsrKernel bsr_kernel_from_string(const std::string& name) {
  if (name == "auto" || name == "automatic") return BsrKernel::automatic;
  std::string valid = "auto, automatic";
  for (int k = 0; k < num_bsr_kernels; ++k) {
    if (name == bsr_kernel_names[k]) return static_cast<BsrKernel>(k);
    valid += std::string(", ") + bsr_kernel_names[k];
  }
  throw InvalidArgument("unknown BSR kernel \"" + name + "\" (valid: " + valid + ")");
}

BsrKernel bsr_default_kernel(bool cuda, bool host, int block_size) {
  if (cuda) {
    // The paper's crossovers on GPUs: by-block wins for small blocks (x coalesced for b = 2,
    // partly beyond), by-column up to 15, row-per-thread with x staged in shared memory from 16.
    if (block_size <= 4) return BsrKernel::by_block;
    if (block_size < 16) return BsrKernel::by_column;
    return BsrKernel::row_per_thread;
  }
  return host ? BsrKernel::block_row : BsrKernel::row_per_thread;
}

bool bsr_kernel_supports(BsrKernel kernel, int block_size) {
  if (block_size < 1 || block_size > max_bsr_block_size) return false;
  switch (kernel) {
    case BsrKernel::by_block: return block_size <= 8;  // a block's b*b entries fit in two warps' lanes
    default: return true;
  }
}

bool bsr_backend_has_kernel(Backend backend, bool cuda, bool host, BsrKernel kernel) {
  if (backend == Backend::automatic) backend = cuda || host ? Backend::native : Backend::portable;
  if (backend == Backend::portable) return kernel == BsrKernel::row_per_thread;
  if (backend != Backend::native) return false;
  if (host)
    return kernel == BsrKernel::block_row || kernel == BsrKernel::padded || kernel == BsrKernel::symmetric;
  if (cuda)
    return kernel == BsrKernel::by_block || kernel == BsrKernel::by_column || kernel == BsrKernel::row_per_thread;
  return false;
}

namespace Impl {

void check_bsr_spmv_options(const BsrSpmvOptions& options) {
  SPROCKET_REQUIRE(options.kernel == BsrKernel::automatic ||
                       (static_cast<int>(options.kernel) >= 0 && static_cast<int>(options.kernel) < num_bsr_kernels),
                   "BsrSpmvPlan: BsrSpmvOptions::kernel = ", static_cast<int>(options.kernel), " is not a BsrKernel");
  SPROCKET_REQUIRE(options.backend == Backend::automatic || options.backend == Backend::portable ||
                       options.backend == Backend::native,
                   "BsrSpmvPlan: BsrSpmvOptions::backend = ", static_cast<int>(options.backend), " is not a Backend");
  SPROCKET_REQUIRE(options.host_parts >= 0, "BsrSpmvPlan: BsrSpmvOptions::host_parts = ", options.host_parts,
                   " (0 for one part per thread, or a positive count)");
}

}  // namespace Impl
}  // namespace Sprocket
