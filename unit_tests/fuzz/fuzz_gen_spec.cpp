// Fuzz target: the generator spec parser (gen:<name>:<key>=<value>,...) with the generation it
// starts. Sizes that cannot exist or do not fit the memory ceiling must be refused before
// anything is allocated; what is generated must validate.
#include <cstdint>
#include <string>

#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  const std::string spec(reinterpret_cast<const char*>(data), size);
  try {
    const Sprocket::HostCsr A = Sprocket::gen::from_spec(spec);
    A.validate();
  } catch (const Sprocket::Error&) {
  }
  return 0;
}
