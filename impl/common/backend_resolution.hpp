#pragma once
// The backend resolution of operators whose native kernels are the host kernels (any scalar) and
// CUDA kernels for float and double (defined in backend.cpp).
#include <string>

#include "Sprocket_Operator.hpp"

namespace Sprocket {
namespace Impl {

/// The backend a plan runs (native or portable, never automatic) when the space has native
/// kernels (has_native) or not; *why says what decided it (for describe()). Throws
/// InvalidArgument naming `plan`, the space and what is missing for Backend::native without
/// native kernels. cuda: the space is Kokkos::Cuda (whose kernels take float and double only).
Backend resolve_backend(const char* plan, Backend requested, bool has_native, bool cuda, const std::string& space,
                        std::string* why);

}  // namespace Impl
}  // namespace Sprocket
