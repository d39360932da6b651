// load_matrix: the one entry point that tools, examples and benchmarks use to obtain a matrix,
// so that anywhere a file name is accepted a "gen:..." specification works too.
#include <string>

#include "Sprocket_Generators.hpp"
#include "Sprocket_MatrixMarket.hpp"

namespace Sprocket {

HostCsr load_matrix(const std::string& file_or_spec) {
  // "gen:" is not a plausible start of a matrix file name, so no escape mechanism is needed.
  if (file_or_spec.rfind("gen:", 0) == 0) return gen::from_spec(file_or_spec);
  return read_matrix_market(file_or_spec);
}

}  // namespace Sprocket
