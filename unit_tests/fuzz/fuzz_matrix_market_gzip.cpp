// Fuzz target: the Matrix Market reader on files, through its gzip path. The first byte picks the
// mode: even, the rest of the input is the file's text, gzip-compressed here (the reader's
// streaming decompression and buffer boundaries on arbitrary content); odd, the rest is written
// as the .mtx.gz file as it is (truncated and corrupt gzip streams).
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "fuzz_common.hpp"

namespace {

std::string scratch_path() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/sprocket-fuzz-" + std::to_string(getpid()) + ".mtx.gz";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprocket_fuzz::limit_memory();
  if (size == 0) return 0;
  static const std::string path = scratch_path();
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
  try {
    const Sprocket::HostCsr A = Sprocket::read_matrix_market(path);
    A.validate();
  } catch (const Sprocket::Error&) {
  }
  return 0;
}
