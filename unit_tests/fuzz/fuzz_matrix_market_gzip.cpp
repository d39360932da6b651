// Fuzz target: the Matrix Market reader on files, through its gzip path. The first byte picks the
// mode: even, the rest of the input is the file's text, gzip-compressed here (the reader's
// streaming decompression and buffer boundaries on arbitrary content); odd, the rest is written
// as the .mtx.gz file as it is (truncated and corrupt gzip streams). What the reader accepts must
// validate and come back unchanged through the gzip writer.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "fuzz_common.hpp"
#include "fuzz_matrix_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  if (size == 0) return 0;
  static const std::string path = sprocket_fuzz::scratch_file(".mtx.gz");
  static const std::string written = sprocket_fuzz::scratch_file("-written.mtx.gz");
  const bool raw = data[0] & 1;
  ++data, --size;
  if (raw) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) __builtin_trap();
    if (size && std::fwrite(data, 1, size, f) != size) __builtin_trap();
    std::fclose(f);
  } else {
    gzFile g = gzopen(path.c_str(), "wb");
    if (!g) __builtin_trap();
    if (size && gzwrite(g, data, static_cast<unsigned>(size)) != static_cast<int>(size)) __builtin_trap();
    gzclose(g);
  }
  Sprocket::HostCsr A;
  try {
    A = Sprocket::read_matrix_market(path);
  } catch (const Sprocket::Error&) {
    return 0;  // refused with one of Sprocket's exceptions
  }
  sprocket_fuzz::require_valid(A, "read_matrix_market");
  sprocket_fuzz::require_round_trip(A, written);
  return 0;
}
