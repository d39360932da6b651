// Names of the shared selection enum (Sprocket_Operator.hpp).
#include "Sprocket_Operator.hpp"

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

}  // namespace Sprocket
