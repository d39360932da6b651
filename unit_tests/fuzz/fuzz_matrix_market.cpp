// Fuzz target: the Matrix Market reader on text (read_matrix_market_string). Every input either
// gives a CSR that passes validate() and matches its own round trip through the writer, or ends
// in one of Sprocket's exceptions.
#include <cstdint>
#include <string>

#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "fuzz_common.hpp"
#include "fuzz_matrix_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  const std::string text(reinterpret_cast<const char*>(data), size);
  Sprocket::HostCsr A;
  try {
    A = Sprocket::read_matrix_market_string(text, "fuzz.mtx");
  } catch (const Sprocket::Error&) {
    return 0;
  }
  sprocket_fuzz::require_valid(A, "read_matrix_market_string");
  static const std::string written = sprocket_fuzz::scratch_file("-written.mtx");
  sprocket_fuzz::require_round_trip(A, written);
  return 0;
}
