// BSR SpMV kernel names, defaults and limits.
#include "Sprocket_BsrSpmv.hpp"

namespace Sprocket {

namespace {
constexpr const char* bsr_kernel_names[num_bsr_kernels] = {
    "host_block_row", "host_padded", "host_symmetric", "cuda_by_block", "cuda_by_column", "cuda_row_per_thread", "portable"};
}

const char* to_string(BsrKernel kernel) {
  if (kernel == BsrKernel::automatic) return "automatic";
  const int k = static_cast<int>(kernel);
  return k >= 0 && k < num_bsr_kernels ? bsr_kernel_names[k] : "invalid";
}

BsrKernel bsr_kernel_from_string(const std::string& name) {
  if (name == "auto" || name == "automatic") return BsrKernel::automatic;
  std::string valid = "auto";
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
    if (block_size <= 4) return BsrKernel::cuda_by_block;
    if (block_size < 16) return BsrKernel::cuda_by_column;
    return BsrKernel::cuda_row_per_thread;
  }
  return host ? BsrKernel::host_block_row : BsrKernel::portable;
}

bool bsr_kernel_supports(BsrKernel kernel, int block_size) {
  if (block_size < 1 || block_size > max_bsr_block_size) return false;
  switch (kernel) {
    case BsrKernel::cuda_by_block: return block_size <= 8;  // a block's b*b entries fit in two warps' lanes
    default: return true;
  }
}

}  // namespace Sprocket
