// A downstream program: generate a matrix, move it to a CrsMatrix, check one SpMV entry; and
// solve with the host factorizations behind make_cholesky / make_lu, so the package must carry
// SuiteSparse CHOLMOD and UMFPACK in its link interface (its headers must not need theirs).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Reference.hpp"
#include "impl/precond/direct_factorization.hpp"

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
    // (A + I) z = A 1 + 1 = y + 1 has z = 1 whichever factorization solves it.
    using Factorization = Sprocket::Impl::precond::DirectFactorization;
    std::vector<double> b(y), z(host.num_rows);
    for (double& v : b) v += 1.0;
    double worst = 0;
    for (auto method : {Factorization::Method::cholesky, Factorization::Method::lu}) {
      Factorization f(method, host, -1.0, 1e-14, "consumer");
      f.solve(1, b.data(), z.data());
      // Not std::max(worst, error), which drops a NaN error: an unwritten z would pass.
      for (double v : z) {
        const double error = std::fabs(v - 1.0);
        worst = std::isnan(worst) || std::isnan(error) ? error + worst : std::max(worst, error);
      }
    }
    if (A.numRows() == 16 && y[0] == 2.0 && y[5] == 0.0 && worst < 1e-12) {
      std::cout << "consumer ok\n";
      status = 0;
    }
  }
  Kokkos::finalize();
  return status;
}
