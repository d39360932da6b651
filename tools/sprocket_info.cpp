// sprocket-info: statistics of a matrix file or generator, optional conversion to Matrix Market.
//
//   sprocket-info <file.mtx[.gz] | gen:...> [--json] [--write out.mtx[.gz]] [--symmetric]
//                 [--block-size]
//
// Exits 0 on success, 1 with the reader's message on bad input, 2 on bad usage.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_MatrixStats.hpp"

namespace {

void usage(std::ostream& os) {
  os << "usage: sprocket-info <file.mtx[.gz] | gen:<name>:<key>=<value>,...> [--json]\n"
        "                     [--write out.mtx[.gz]] [--symmetric] [--block-size]\n"
        "  --json        one JSON object (rows, cols, nnz, min_row, max_row, avg_row, ...)\n"
        "  --write F     write the matrix as Matrix Market coordinate real general\n"
        "  --symmetric   with --write: write it as symmetric (lower triangle)\n"
        "  --block-size  also detect the best BSR block size (adds block_size, bsr_fill_ratio)\n"
        "generators: gen:poisson2d:n=N  gen:poisson3d:n=N[,points=27]  gen:elasticity:n=N,dof=D\n"
        "            gen:banded:n=N,bw=B  gen:uniform:n=N,avg=A  gen:rmat:scale=S,ef=E,seed=K\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, write_path;
  bool json = false, symmetric = false, block_size = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") json = true;
    else if (arg == "--symmetric") symmetric = true;
    else if (arg == "--block-size") block_size = true;
    else if (arg == "--write" && i + 1 < argc) write_path = argv[++i];
    else if (arg == "-h" || arg == "--help") { usage(std::cout); return 0; }
    else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "sprocket-info: unknown option " << arg << "\n";
      usage(std::cerr);
      return 2;
    } else if (input.empty()) input = arg;
    else {
      std::cerr << "sprocket-info: more than one input (" << input << ", " << arg << ")\n";
      return 2;
    }
  }
  if (input.empty()) {
    usage(std::cerr);
    return 2;
  }
  try {
    const Sprocket::HostCsr A = Sprocket::load_matrix(input);
    const Sprocket::MatrixStats stats = Sprocket::compute_stats(A);
    int b = 1;
    Sprocket::BsrConversionInfo info;
    if (block_size) {
      b = Sprocket::detect_block_size(A);
      Sprocket::csr_to_host_bsr(A, b, &info);
    }
    if (json) {
      std::string object = stats.to_json();
      object.pop_back();  // reopen the object to add fields
      std::string escaped;
      for (char c : input) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
      }
      object += ",\"matrix\":\"" + escaped + "\"";
      if (block_size)
        object += ",\"block_size\":" + std::to_string(b) +
                  ",\"bsr_fill_ratio\":" + std::to_string(info.fill_ratio);
      std::cout << object << "}\n";
    } else {
      std::cout << "matrix           " << input << "\n" << stats.to_text();
      if (block_size)
        std::cout << "BSR block size   " << b << " (fill ratio " << info.fill_ratio << ", "
                  << info.num_blocks << " blocks)\n";
    }
    if (!write_path.empty()) {
      Sprocket::write_matrix_market(write_path, A,
                                    symmetric ? Sprocket::MatrixMarketSymmetry::symmetric
                                              : Sprocket::MatrixMarketSymmetry::general);
      if (!json) std::cout << "written          " << write_path << "\n";
    }
  } catch (const Sprocket::Error& e) {
    std::cerr << "sprocket-info: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "sprocket-info: unexpected error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
