// Names of the shared selection enum (Sprocket_Operator.hpp) and the backend resolution the
// operators with host and float/double CUDA kernels share.
#include "Sprocket_Operator.hpp"
#include "impl/common/backend_resolution.hpp"

namespace Sprocket {

const char* to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "automatic";
    case Backend::portable: return "portable";
    case Backend::native: return "native";
  }
  return "invalid";
}

Backend backend_from_string(const std::string& name) {
  if (name == "automatic" || name == "auto") return Backend::automatic;
  if (name == "portable") return Backend::portable;
  if (name == "native") return Backend::native;
  throw InvalidArgument("unknown backend \"" + name + "\" (valid: automatic, portable, native)");
}

namespace Impl {

Backend resolve_backend(const char* plan, Backend requested, bool has_native, bool cuda, const std::string& space,
                        std::string* why) {
  const std::string missing = cuda ? "the CUDA kernels take float and double only" : space + " has no native kernels";
  switch (requested) {
    case Backend::portable: *why = "requested"; return Backend::portable;
    case Backend::native:
      SPROCKET_REQUIRE(has_native, plan, ": Backend::native on ", space, ": ", missing,
                       " (use Backend::portable or Backend::automatic)");
      *why = "requested";
      return Backend::native;
    case Backend::automatic:
      *why = has_native ? "automatic: " + space + (cuda ? " has CUDA kernels" : " has host kernels")
                        : "automatic: " + missing;
      return has_native ? Backend::native : Backend::portable;
  }
  throw InvalidArgument(std::string(plan) + ": the options' backend = " + std::to_string(static_cast<int>(requested)) +
                        " is not a Backend");
}

}  // namespace Impl
}  // namespace Sprocket
