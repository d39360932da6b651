// sprocket-demo: the foundation demo (replaced by the solver demo later). Reads a matrix (a
// Matrix Market file or a gen: specification), prints its statistics, runs one SpMV through
// Kokkos Kernels on the default execution space and one through Sprocket's serial reference, and
// prints their relative difference. Exits non-zero when they disagree.
//
//   sprocket-demo [file.mtx[.gz] | gen:...]      (default: gen:poisson3d:n=40)
// Kokkos Kernels 3.4 headers assume Kokkos_Core.hpp was included first.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_spmv.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_MatrixStats.hpp"
#include "Sprocket_Reference.hpp"

namespace {

using Device = Kokkos::DefaultExecutionSpace::device_type;
using Matrix = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using Vector = Kokkos::View<double*, Device>;

int run(const std::string& input) {
  const auto t0 = std::chrono::steady_clock::now();
  const Sprocket::HostCsr host = Sprocket::load_matrix(input);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "Sprocket demo on " << Kokkos::DefaultExecutionSpace::name() << "\n"
            << "matrix           " << input << " (loaded in " << load_s << " s)\n"
            << Sprocket::compute_stats(host).to_text();

  // x_j = 1 + (j mod 7) / 7: deterministic, not constant, so column order matters.
  std::vector<double> x(host.num_cols), y_ref(host.num_rows, 0.0);
  for (int64_t j = 0; j < host.num_cols; ++j) x[j] = 1.0 + static_cast<double>(j % 7) / 7.0;
  Sprocket::reference::spmv("N", 1.0, host, x, 0.0, y_ref);

  const Matrix A = Sprocket::to_crs<Matrix>(host);
  Vector x_d("x", host.num_cols), y_d("y", host.num_rows);
  auto x_h = Kokkos::create_mirror_view(x_d);
  for (int64_t j = 0; j < host.num_cols; ++j) x_h(j) = x[j];
  Kokkos::deep_copy(x_d, x_h);
  KokkosSparse::spmv("N", 1.0, A, x_d, 0.0, y_d);  // warm-up
  Kokkos::fence();
  const auto t1 = std::chrono::steady_clock::now();
  KokkosSparse::spmv("N", 1.0, A, x_d, 0.0, y_d);
  Kokkos::fence();
  const double spmv_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  auto y_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y_d);

  double diff2 = 0, ref2 = 0;
  for (int64_t i = 0; i < host.num_rows; ++i) {
    diff2 += (y_h(i) - y_ref[i]) * (y_h(i) - y_ref[i]);
    ref2 += y_ref[i] * y_ref[i];
  }
  const double relative = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  std::printf("SpMV y = A x    Kokkos Kernels %.3g s (one apply), vs Sprocket reference:\n", spmv_s);
  std::printf("relative difference ||y_kk - y_ref|| / ||y_ref|| = %.3e  %s\n", relative,
              relative <= 1e-12 ? "OK" : "MISMATCH");
  return relative <= 1e-12 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int status = 0;
  try {
    status = run(argc > 1 ? argv[1] : "gen:poisson3d:n=40");
  } catch (const std::exception& e) {
    std::cerr << "sprocket-demo: " << e.what() << "\n";
    status = 1;
  }
  Kokkos::finalize();
  return status;
}
