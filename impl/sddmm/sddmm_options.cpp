// SDDMM kernel and form names.
#include <string>

#include "Sprocket_Sddmm.hpp"

namespace Sprocket {

namespace {
constexpr const char* sddmm_kernel_names[num_sddmm_kernels] = {"nonzero_tiles", "aspt"};
}  // namespace

const char* to_string(SddmmKernel kernel) {
  if (kernel == SddmmKernel::automatic) return "automatic";
  const int k = static_cast<int>(kernel);
  return k >= 0 && k < num_sddmm_kernels ? sddmm_kernel_names[k] : "invalid";
}

SddmmKernel sddmm_kernel_from_string(const std::string& name) {
  if (name == "auto" || name == "automatic") return SddmmKernel::automatic;
  std::string valid = "auto";
  for (int k = 0; k < num_sddmm_kernels; ++k) {
    if (name == sddmm_kernel_names[k]) return static_cast<SddmmKernel>(k);
    valid += std::string(", ") + sddmm_kernel_names[k];
  }
  throw InvalidArgument("unknown SDDMM kernel \"" + name + "\" (valid: " + valid +
                        "; the portable implementation is chosen by Backend::portable, not by a kernel name)");
}

const char* to_string(SddmmForm form) {
  switch (form) {
    case SddmmForm::scaled: return "scaled";
    case SddmmForm::pattern: return "pattern";
  }
  return "invalid";
}

}  // namespace Sprocket
