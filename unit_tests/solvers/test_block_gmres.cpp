#include <gtest/gtest.h>
#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_Preconditioners.hpp"
#include "Sprocket_Spmv.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "sprocket_test_utils.hpp"

using Device = Kokkos::DefaultExecutionSpace::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using MV = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;

TEST(BlockGmres, Smoke) {
  const char* env = std::getenv("GM_MATRICES");
  std::vector<std::string> names = {"sherman5", "orsirr_1", "watt_2", "hor_131"};
  if (env) names = {env};
  const int restart = std::getenv("GM_RESTART") ? std::atoi(std::getenv("GM_RESTART")) : 30;
  const int p = std::getenv("GM_P") ? std::atoi(std::getenv("GM_P")) : 8;
  std::vector<int> ss = {1, 2, 4, 8};
  if (std::getenv("GM_S")) ss = {std::atoi(std::getenv("GM_S"))};
  for (std::string name : names) {
    auto host = Sprocket::load_matrix(std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz");
    Crs A = Sprocket::to_crs<Crs>(host);
    auto op = Sprocket::make_operator(Sprocket::SpmvPlan<Crs>(A));
    auto M = Sprocket::make_jacobi(A);
    for (int s : ss) {
      Sprocket::HostDense B = Sprocket::test::random_dense(host.num_rows, p, 11);
      MV Bd = Sprocket::test::to_view<MV>(B);
      MV X("X", host.num_rows, p);
      Sprocket::BlockGmresOptions o;
      o.block_size = s;
      o.restart = restart;
      Kokkos::Timer t;
      auto r = Sprocket::block_gmres(*op, Bd, X, o, M.get());
      double worst = 0;
      for (double v : r.residuals) worst = std::max(worst, v);
      std::cout << name << " s=" << s << " status " << Sprocket::to_string(r.status) << " it " << r.iterations
                << " worst " << worst << " time " << t.seconds() << " defl " << r.deflated_directions << " op " << r.timings.operator_apply << " prec " << r.timings.preconditioner << " orth " << r.timings.orthogonalization << "\n  " << r.message << "\n";
    }
  }
}
