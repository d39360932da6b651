// A downstream program: generate a matrix, move it to a CrsMatrix, check one SpMV entry.
#include <Kokkos_Core.hpp>
#include <iostream>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Reference.hpp"

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int status = 1;
  {
    using Matrix = KokkosSparse::CrsMatrix<double, int, Kokkos::DefaultExecutionSpace::device_type>;
    Sprocket::HostCsr host = Sprocket::gen::poisson2d(4);
    Matrix A = Sprocket::to_crs<Matrix>(host);
    std::vector<double> x(host.num_cols, 1.0), y(host.num_rows, 0.0);
    Sprocket::reference::spmv("N", 1.0, host, x, 0.0, y);
    // Corner row of the 5-point Laplacian: 4 - 1 - 1 = 2; interior row 5: 4 - 4 = 0.
    if (A.numRows() == 16 && y[0] == 2.0 && y[5] == 0.0) {
      std::cout << "consumer ok\n";
      status = 0;
    }
  }
  Kokkos::finalize();
  return status;
}
