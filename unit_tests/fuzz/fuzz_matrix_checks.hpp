#pragma once
// What the fuzz targets require of a matrix they were given: a reader or generator that accepted
// its input must have built a structurally valid CSR, and the Matrix Market writer must give it
// back unchanged. A violation is a finding: the target prints why and aborts, so libFuzzer keeps
// the input. (validate() throws InvalidArgument, a Sprocket::Error: caught together with the
// parse errors, it would pass for a refusal.)
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MatrixMarket.hpp"

namespace sprocket_fuzz {

[[noreturn]] inline void finding(const std::string& why) {
  std::fprintf(stderr, "sprocket fuzz finding: %s\n", why.c_str());
  std::fflush(stderr);
  std::abort();
}

/// A is what `who` accepted: it must pass validate().
inline void require_valid(const Sprocket::HostCsr& A, const char* who) {
  try {
    A.validate();
  } catch (const std::exception& e) {
    finding(std::string(who) + " accepted its input but built an invalid CSR: " + e.what());
  }
}

/// A scratch file of this process in $TMPDIR (run_fuzz.sh points it at memory), named `suffix`.
inline std::string scratch_file(const char* suffix) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/sprocket-fuzz-" + std::to_string(getpid()) + suffix;
}

/// Equal as the writer promises ("%.17g" reads back bit-exact): the same bits, or both NaN (the
/// text "nan" does not keep a payload).
inline bool same_value(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
}

/// Value of row i, column j of a matrix with sorted, unique columns per row (0 when not stored),
/// walking the row from position k on (k advanced past j).
inline double value_at(const Sprocket::HostCsr& M, int64_t i, int64_t j, int64_t& k) {
  while (k < M.row_map[i + 1] && M.entries[k] < j) ++k;
  return k < M.row_map[i + 1] && M.entries[k] == j ? M.values[k] : 0.0;
}

/// A (valid, sorted, unique columns: what the reader builds) written as `coordinate real general`
/// to `path` and read back must be A again: the same pattern, every value bit-exact. When A is
/// square and the writer accepts it as symmetric, the symmetric file must read back to A's
/// values at every position (an explicit zero above the diagonal is not written: it compares as
/// the 0 it stands for).
inline void require_round_trip(const Sprocket::HostCsr& A, const std::string& path) {
  Sprocket::HostCsr back;
  try {
    Sprocket::write_matrix_market(path, A);
    back = Sprocket::read_matrix_market(path);
  } catch (const std::exception& e) {
    finding(std::string("round trip through ") + path + " failed: " + e.what());
  }
  if (back.num_rows != A.num_rows || back.num_cols != A.num_cols || back.row_map != A.row_map ||
      back.entries != A.entries || back.values.size() != A.values.size())
    finding("the general round trip changed the pattern (" + std::to_string(A.num_rows) + " x " +
            std::to_string(A.num_cols) + ", " + std::to_string(A.nnz()) + " entries -> " +
            std::to_string(back.num_rows) + " x " + std::to_string(back.num_cols) + ", " +
            std::to_string(back.nnz()) + ")");
  for (size_t k = 0; k < A.values.size(); ++k)
    if (!same_value(A.values[k], back.values[k]))
      finding("the general round trip changed entry " + std::to_string(k) + ": " + std::to_string(A.values[k]) +
              " -> " + std::to_string(back.values[k]));
  if (A.num_rows != A.num_cols) return;
  try {
    Sprocket::write_matrix_market(path, A, Sprocket::MatrixMarketSymmetry::symmetric);
  } catch (const Sprocket::InvalidArgument&) {
    return;  // not numerically symmetric: refused, as documented
  }
  try {
    back = Sprocket::read_matrix_market(path);
  } catch (const std::exception& e) {
    finding(std::string("reading back the symmetric file failed: ") + e.what());
  }
  require_valid(back, "reading back the symmetric file");
  if (back.num_rows != A.num_rows || back.num_cols != A.num_cols) finding("the symmetric round trip changed the size");
  for (int64_t i = 0; i < A.num_rows; ++i) {
    // Every position stored on either side: A's value there equals the read-back value.
    int64_t ka = A.row_map[i], kb = back.row_map[i];
    int64_t wa = A.row_map[i], wb = back.row_map[i];
    while (wa < A.row_map[i + 1] || wb < back.row_map[i + 1]) {
      const int64_t ja = wa < A.row_map[i + 1] ? A.entries[wa] : INT64_MAX;
      const int64_t jb = wb < back.row_map[i + 1] ? back.entries[wb] : INT64_MAX;
      const int64_t j = ja < jb ? ja : jb;
      if (!same_value(value_at(A, i, j, ka), value_at(back, i, j, kb)) &&
          !(value_at(A, i, j, ka) == 0 && value_at(back, i, j, kb) == 0))
        finding("the symmetric round trip changed A(" + std::to_string(i) + ", " + std::to_string(j) + ")");
      if (ja == j) ++wa;
      if (jb == j) ++wb;
    }
  }
}

}  // namespace sprocket_fuzz
