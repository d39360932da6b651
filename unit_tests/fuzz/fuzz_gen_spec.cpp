// Fuzz target: the generator spec parser (gen:<name>:<key>=<value>,...) with the generation it
// starts. Sizes that cannot exist or do not fit the memory ceiling must be refused before
// anything is allocated; what is generated must validate (a matrix that does not is a finding,
// not a refusal).
#include <cstdint>
#include <string>

#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "fuzz_common.hpp"
#include "fuzz_matrix_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  const std::string spec(reinterpret_cast<const char*>(data), size);
  Sprocket::HostCsr A;
  try {
    A = Sprocket::gen::from_spec(spec);
  } catch (const Sprocket::Error&) {
    return 0;  // refused: a bad spec, or a size over the ceiling
  }
  sprocket_fuzz::require_valid(A, "gen::from_spec");
  return 0;
}
