// SpGEMM accumulator and load-balancing names.
#include <string>

#include "Sprocket_Spgemm.hpp"

namespace Sprocket {

namespace {
constexpr const char* spgemm_accumulator_names[num_spgemm_accumulators] = {"hash", "dense", "global_hash"};
constexpr const char* spgemm_balance_names[2] = {"uniform", "binned"};
}  // namespace

const char* to_string(SpgemmAccumulator accumulator) {
  if (accumulator == SpgemmAccumulator::automatic) return "automatic";
  const int a = static_cast<int>(accumulator);
  return a >= 0 && a < num_spgemm_accumulators ? spgemm_accumulator_names[a] : "invalid";
}

SpgemmAccumulator spgemm_accumulator_from_string(const std::string& name) {
  if (name == "auto" || name == "automatic") return SpgemmAccumulator::automatic;
  std::string valid = "auto";
  for (int a = 0; a < num_spgemm_accumulators; ++a) {
    if (name == spgemm_accumulator_names[a]) return static_cast<SpgemmAccumulator>(a);
    valid += std::string(", ") + spgemm_accumulator_names[a];
  }
  throw InvalidArgument("unknown SpGEMM accumulator \"" + name + "\" (valid: " + valid + ")");
}

const char* to_string(SpgemmBalance balance) {
  if (balance == SpgemmBalance::automatic) return "automatic";
  const int b = static_cast<int>(balance);
  return b >= 0 && b < 2 ? spgemm_balance_names[b] : "invalid";
}

SpgemmBalance spgemm_balance_from_string(const std::string& name) {
  if (name == "auto" || name == "automatic") return SpgemmBalance::automatic;
  for (int b = 0; b < 2; ++b)
    if (name == spgemm_balance_names[b]) return static_cast<SpgemmBalance>(b);
  throw InvalidArgument("unknown SpGEMM load balancing \"" + name + "\" (valid: auto, uniform, binned)");
}

}  // namespace Sprocket
