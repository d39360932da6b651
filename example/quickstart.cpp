// Sprocket quick start: load (or generate) a matrix, analyse it once, apply it, change its
// values, and solve A X = B with block GMRES preconditioned by Jacobi.
//
//   quickstart [matrix]      matrix: a Matrix Market file (.mtx or .mtx.gz) or a gen: spec;
//                            default gen:poisson3d:n=20 (8000 rows)
#include <Kokkos_Core.hpp>
#include <Sprocket_BlockGmres.hpp>
#include <Sprocket_Crs.hpp>
#include <Sprocket_Generators.hpp>
#include <Sprocket_MultiVectorOperator.hpp>
#include <Sprocket_Preconditioners.hpp>
#include <Sprocket_Spmv.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

using Crs = KokkosSparse::CrsMatrix<double, int, Kokkos::DefaultExecutionSpace::device_type, void, int>;
using Vector = Kokkos::View<double*, Crs::device_type>;
using Block = Kokkos::View<double**, Kokkos::LayoutLeft, Crs::device_type>;

int run(const std::string& matrix) {
  // 1. A matrix: read on the host, copied to the default device.
  const Crs A = Sprocket::to_crs<Crs>(Sprocket::load_matrix(matrix));
  std::printf("A: %d x %d, %zu entries\n", A.numRows(), A.numCols(), size_t(A.nnz()));

  // 2. Analyse once, apply many times: y = A x.
  Sprocket::SpmvPlan<Crs> spmv(A);
  std::printf("%s", spmv.describe().c_str());
  Vector x("x", A.numCols()), y("y", A.numRows());
  Kokkos::deep_copy(x, 1.0);
  spmv.apply("N", 1.0, x, 0.0, y);
  double sum = 0;
  Kokkos::parallel_reduce("sum", A.numRows(), KOKKOS_LAMBDA(int i, double& s) { s += y(i); }, sum);
  std::printf("sum of A * ones: %.6g\n", sum);

  // 3. New values, same pattern: scale A in place and tell the plan.
  Kokkos::parallel_for("scale", A.nnz(), KOKKOS_LAMBDA(int k) { A.values(k) *= 2.0; });
  spmv.update_values(A);
  spmv.apply("N", 1.0, x, 0.0, y);
  double doubled = 0;
  Kokkos::parallel_reduce("sum", A.numRows(), KOKKOS_LAMBDA(int i, double& s) { s += y(i); }, doubled);
  std::printf("after doubling the values: %.6g\n", doubled);

  // 4. Solve A X = B for four right-hand sides at once, Jacobi-preconditioned.
  if (A.numRows() != A.numCols()) return 0;
  auto op = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(A));
  auto jacobi = Sprocket::make_jacobi(A);
  Block B("B", A.numRows(), 4), X("X", A.numRows(), 4);
  Kokkos::deep_copy(B, 1.0);
  Sprocket::BlockGmresOptions options;
  options.tol = 1e-8;
  const Sprocket::BlockGmresResult result = Sprocket::block_gmres(*op, B, X, options, jacobi.get());
  std::printf("block GMRES: %s after %d iterations, worst residual %.3e\n", Sprocket::to_string(result.status),
              result.iterations, *std::max_element(result.residuals.begin(), result.residuals.end()));
  return result.status == Sprocket::SolverStatus::converged ? 0 : 1;
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(argc > 1 ? argv[1] : "gen:poisson3d:n=20");
  } catch (const Sprocket::Error& e) {
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return 2;
  }
}
