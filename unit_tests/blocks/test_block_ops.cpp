// The tall-skinny block kernels (impl/blocks/block_ops.hpp) on the host spaces: the host BLAS
// path (double, contiguous columns) against the own Kokkos kernels (Workspace::use_blas = false)
// and a serial reference, for the Gram product (U^T V and U^T U), the block update (separate
// output, in place, alpha / beta), the fused update + Gram, column offsets (leading dimension
// larger than the rows), and the views that must stay on the own kernels (float, LayoutRight).
// Also what host_blas.hpp reports and that BlasThreadScope restores what it changes, and the GPU
// code paths run on the host (Workspace<Device, false>), with combine's overlap refusal.
//
// Host code only (nvcc refuses extended lambdas in gtest's private TestBody): views are filled
// and read through host mirrors.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "impl/blocks/block_ops.hpp"
#include "impl/blocks/host_blas.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using Sprocket::Impl::blocks::DenseMatrix;
using Sprocket::Impl::blocks::Workspace;
namespace blocks = Sprocket::Impl::blocks;
using Sprocket::test::message_of;

template <class Scalar, class Layout, class Device>
using BlockOf = Kokkos::View<Scalar**, Layout, Device>;

double value(int64_t i, int64_t j, uint64_t salt) {
  uint64_t z = (static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(j) << 32) ^ salt;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * (static_cast<double>(z >> 11) * 0x1.0p-53) - 1.0;
}

template <class View>
View filled(const char* name, int64_t n, int cols, uint64_t salt) {
  View v(std::string(name), n, cols);
  auto h = Kokkos::create_mirror_view(v);
  for (int64_t i = 0; i < n; ++i)
    for (int j = 0; j < cols; ++j) h(i, j) = static_cast<typename View::value_type>(value(i, j, salt));
  Kokkos::deep_copy(v, h);
  return v;
}

/// Column-major host copy in double.
template <class View>
std::vector<double> host(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out(h.extent(0) * h.extent(1));
  for (size_t j = 0; j < h.extent(1); ++j)
    for (size_t i = 0; i < h.extent(0); ++i) out[i + j * h.extent(0)] = static_cast<double>(h(i, j));
  return out;
}

DenseMatrix coefficients(int k, int q, uint64_t salt) {
  DenseMatrix C(k, q);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < k; ++i) C(i, j) = value(i, j, salt);
  return C;
}

std::vector<double> reference_gram(const std::vector<double>& u, const std::vector<double>& v, int64_t n, int p,
                                   int q) {
  std::vector<double> g(static_cast<size_t>(p) * q, 0.0);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < p; ++i)
      for (int64_t r = 0; r < n; ++r) g[i + j * p] += u[r + i * n] * v[r + j * n];
  return g;
}

/// alpha U C + beta Y0 (column-major, n rows).
std::vector<double> reference_combine(double alpha, const std::vector<double>& u, const DenseMatrix& C, double beta,
                                      const std::vector<double>& y0, int64_t n) {
  std::vector<double> y(static_cast<size_t>(n) * C.cols, 0.0);
  for (int j = 0; j < C.cols; ++j)
    for (int64_t r = 0; r < n; ++r) {
      double s = 0;
      for (int l = 0; l < C.rows; ++l) s += u[r + l * n] * C(l, j);
      y[r + j * n] = alpha * s + (beta == 0.0 ? 0.0 : beta * y0[r + j * n]);
    }
  return y;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = Sprocket::test::max_keeping_nan(d, std::fabs(a[i] - b[i]));
  return d;
}

/// Whether this process' BLAS takes the BLAS path (OpenBLAS that may be called in a region).
bool blas_expected() { return blocks::host_blas_in_parallel_ok(); }

/// The checks on one host device (OpenMP, or Serial: no parallel region around the calls).
template <class Device>
void check_products(int64_t n) {
  using Block = BlockOf<double, Kokkos::LayoutLeft, Device>;
  typename Device::execution_space space;
  const int p = 5, q = 7;
  Workspace<Device> ws(space, n, 12, 12 * 12);
  Workspace<Device> own(space, n, 12, 12 * 12);
  own.use_blas = false;
  const Block U = filled<Block>("U", n, p, 1), V = filled<Block>("V", n, q, 2);
  const std::vector<double> u = host(U), v = host(V);
  const double tol = 1e-13 * static_cast<double>(n);
  EXPECT_EQ(blocks::take_blas_path(ws, U, V), blas_expected());
  EXPECT_FALSE(blocks::take_blas_path(own, U, V));

  // U^T V and U^T U: both paths agree with the reference; the symmetric one is
  // exactly symmetric.
  const std::vector<double> g_ref = reference_gram(u, v, n, p, q);
  EXPECT_LE(max_difference(blocks::gram(ws, U, V, false).data, g_ref), tol);
  EXPECT_LE(max_difference(blocks::gram(own, U, V, false).data, g_ref), tol);
  const DenseMatrix S = blocks::gram(ws, U, U, true);
  EXPECT_LE(max_difference(S.data, reference_gram(u, u, n, p, p)), tol);
  for (int j = 0; j < p; ++j)
    for (int i = 0; i < p; ++i) EXPECT_EQ(S(i, j), S(j, i));

  // Column offsets: subviews with a leading dimension larger than their rows' count... and a
  // row range that is not the whole block.
  const auto Us = Kokkos::subview(U, std::make_pair(int64_t{3}, n - 2), std::make_pair(1, 4));
  const auto Vs = Kokkos::subview(V, std::make_pair(int64_t{3}, n - 2), std::make_pair(2, 7));
  EXPECT_LE(max_difference(blocks::gram(ws, Us, Vs, false).data, blocks::gram(own, Us, Vs, false).data), tol);

  // Y = alpha U C + beta Y into a separate block.
  const DenseMatrix C = coefficients(p, q, 3);
  for (const double beta : {0.0, 0.5}) {
    Block Y = filled<Block>("Y", n, q, 4), Y2 = filled<Block>("Y2", n, q, 4);
    const std::vector<double> y0 = host(Y);
    blocks::combine(ws, -1.5, U, C, beta, Y);
    blocks::combine(own, -1.5, U, C, beta, Y2);
    const std::vector<double> ref = reference_combine(-1.5, u, C, beta, y0, n);
    EXPECT_LE(max_difference(host(Y), ref), 1e-13) << "beta " << beta;
    EXPECT_LE(max_difference(host(Y2), ref), 1e-13) << "beta " << beta;
  }

  // In place: W(:, 0:q) = W(:, 0:p) C with q <= p columns of the same block, and a block update
  // whose output starts one column into its input (overlapping ranges).
  {
    Block W = filled<Block>("W", n, 8, 5), W2 = filled<Block>("W2", n, 8, 5);
    const std::vector<double> w = host(W);
    const DenseMatrix T = coefficients(8, 6, 6);
    blocks::combine(ws, 1.0, W, T, 0.0, Kokkos::subview(W, Kokkos::ALL, std::make_pair(0, 6)));
    blocks::combine(own, 1.0, W2, T, 0.0, Kokkos::subview(W2, Kokkos::ALL, std::make_pair(0, 6)));
    const std::vector<double> ref = reference_combine(1.0, w, T, 0.0, w, n);
    const std::vector<double> got = host(W), got2 = host(W2);
    EXPECT_LE(max_difference(std::vector<double>(got.begin(), got.begin() + 6 * n), ref), 1e-13);
    EXPECT_LE(max_difference(std::vector<double>(got2.begin(), got2.begin() + 6 * n), ref), 1e-13);
    EXPECT_EQ(std::vector<double>(got.begin() + 6 * n, got.end()), std::vector<double>(w.begin() + 6 * n, w.end()));
  }
  {
    Block W = filled<Block>("W", n, 6, 7);
    const std::vector<double> w = host(W);
    const DenseMatrix T = coefficients(4, 4, 8);  // W(:, 2:6) = W(:, 0:4) T + 0.25 W(:, 2:6)
    blocks::combine(ws, 1.0, Kokkos::subview(W, Kokkos::ALL, std::make_pair(0, 4)), T, 0.25,
                    Kokkos::subview(W, Kokkos::ALL, std::make_pair(2, 6)));
    const std::vector<double> y0(w.begin() + 2 * n, w.end());
    const std::vector<double> ref = reference_combine(1.0, w, T, 0.25, y0, n);
    const std::vector<double> got = host(W);
    EXPECT_LE(max_difference(std::vector<double>(got.begin() + 2 * n, got.end()), ref), 1e-13);
  }

  // Fused update + Gram: the block as combine writes it, its Gram matrix as gram computes it.
  {
    Block W = filled<Block>("W", n, 7, 9), W2 = filled<Block>("W2", n, 7, 9);
    const DenseMatrix T = coefficients(7, 7, 10);
    const DenseMatrix G = blocks::combine_gram(ws, 1.0, W, T, 0.0, W);
    blocks::combine(own, 1.0, W2, T, 0.0, W2);
    const DenseMatrix G2 = blocks::gram(own, W2, W2, true);
    EXPECT_LE(max_difference(host(W), host(W2)), 1e-13);
    EXPECT_LE(max_difference(G.data, G2.data), tol);
    const DenseMatrix G3 = blocks::combine_gram(own, 1.0, W2, DenseMatrix(7, 0), 0.0,
                                                Kokkos::subview(W2, Kokkos::ALL, std::make_pair(0, 0)));
    EXPECT_EQ(G3.rows, 0);
  }
}

TEST(BlockOps, HostBlasPathMatchesOwnKernels) {
  check_products<Kokkos::DefaultHostExecutionSpace::device_type>(1000);
  check_products<Kokkos::DefaultHostExecutionSpace::device_type>(37);  // fewer rows than a chunk
#ifdef KOKKOS_ENABLE_SERIAL
  check_products<Kokkos::Serial::device_type>(1000);
#endif
}

// Float blocks and LayoutRight blocks stay on the own kernels (BLAS would accumulate a float
// Gram matrix in float, and rows are not contiguous columns), and still compute the right thing.
TEST(BlockOps, FloatAndLayoutRightUseOwnKernels) {
  using Device = Kokkos::DefaultHostExecutionSpace::device_type;
  typename Device::execution_space space;
  const int64_t n = 500;
  Workspace<Device> ws(space, n, 8, 64);
  using FloatBlock = BlockOf<float, Kokkos::LayoutLeft, Device>;
  using RightBlock = BlockOf<double, Kokkos::LayoutRight, Device>;
  const FloatBlock Uf = filled<FloatBlock>("Uf", n, 3, 11);
  const RightBlock Ur = filled<RightBlock>("Ur", n, 3, 11);
  EXPECT_FALSE(blocks::take_blas_path(ws, Uf, Uf));
  EXPECT_FALSE(blocks::take_blas_path(ws, Ur, Ur));
  const std::vector<double> uf = host(Uf), ur = host(Ur);
  EXPECT_LE(max_difference(blocks::gram(ws, Uf, Uf, true).data, reference_gram(uf, uf, n, 3, 3)), 1e-10);
  EXPECT_LE(max_difference(blocks::gram(ws, Ur, Ur, true).data, reference_gram(ur, ur, n, 3, 3)), 1e-11);
  const DenseMatrix C = coefficients(3, 2, 12);
  RightBlock Yr("Yr", n, 2);
  blocks::combine(ws, 2.0, Ur, C, 0.0, Yr);
  EXPECT_LE(max_difference(host(Yr), reference_combine(2.0, ur, C, 0.0, {}, n)), 1e-13);
}

// The GPU code paths (a thread per row, strided chunk x tile items, the partial sums reduced by a
// kernel) run on the host space with Workspace<Device, false>: they compute what the serial
// reference computes, and combine refuses an output block that overlaps its input, as it must on
// a GPU (threads of one row would read U while others write Y), while the host paths accept it.
TEST(BlockOps, GpuPathsOnTheHostMatchTheReferenceAndRefuseOverlap) {
  using Device = Kokkos::DefaultHostExecutionSpace::device_type;
  using Block = BlockOf<double, Kokkos::LayoutLeft, Device>;
  typename Device::execution_space space;
  for (const int64_t n : {int64_t{1000}, int64_t{37}}) {
    Workspace<Device, false> gpu(space, n, 12, 12 * 12);
    static_assert(!Workspace<Device, false>::on_host && Workspace<Device>::on_host);
    const int p = 5, q = 7;
    const Block U = filled<Block>("U", n, p, 21), V = filled<Block>("V", n, q, 22);
    const std::vector<double> u = host(U), v = host(V);
    const double tol = 1e-13 * static_cast<double>(n);
    EXPECT_FALSE(blocks::take_blas_path(gpu, U, V));
    EXPECT_LE(max_difference(blocks::gram(gpu, U, V, false).data, reference_gram(u, v, n, p, q)), tol);
    const DenseMatrix S = blocks::gram(gpu, U, U, true);
    EXPECT_LE(max_difference(S.data, reference_gram(u, u, n, p, p)), tol);
    const std::vector<double> dots = blocks::column_dots(gpu, U, Kokkos::subview(V, Kokkos::ALL, std::make_pair(0, p)));
    const std::vector<double> g = reference_gram(u, v, n, p, q);
    for (int j = 0; j < p; ++j) EXPECT_NEAR(dots[j], g[j + j * p], tol) << "column " << j;
    const DenseMatrix C = coefficients(p, q, 23);
    for (const double beta : {0.0, 0.5}) {
      Block Y = filled<Block>("Y", n, q, 24);
      const std::vector<double> y0 = host(Y);
      blocks::combine(gpu, -1.5, U, C, beta, Y);
      EXPECT_LE(max_difference(host(Y), reference_combine(-1.5, u, C, beta, y0, n)), 1e-13) << "beta " << beta;
    }
    {
      Block Y("Y", n, q);
      const DenseMatrix G = blocks::combine_gram(gpu, 2.0, U, C, 0.0, Y);
      const std::vector<double> y = host(Y);
      EXPECT_LE(max_difference(y, reference_combine(2.0, u, C, 0.0, {}, n)), 1e-13);
      EXPECT_LE(max_difference(G.data, reference_gram(y, y, n, q, q)), tol);
    }
    // Overlap: in place, one column into the input, and the same storage under another view; a
    // neighbouring block of the same allocation is not an overlap.
    Block W = filled<Block>("W", n, 8, 25);
    const std::vector<double> w = host(W);
    const DenseMatrix T = coefficients(4, 4, 26);
    const auto first4 = Kokkos::subview(W, Kokkos::ALL, std::make_pair(0, 4));
    for (const auto& output : {Kokkos::subview(W, Kokkos::ALL, std::make_pair(0, 4)),
                               Kokkos::subview(W, Kokkos::ALL, std::make_pair(2, 6)),
                               Kokkos::subview(W, Kokkos::ALL, std::make_pair(3, 7))}) {
      const std::string m = message_of<Sprocket::InvalidArgument>([&] { blocks::combine(gpu, 1.0, first4, T, 0.0, output); });
      EXPECT_NE(m.find("blocks::combine: on a device Y (" + std::to_string(n) + " x 4) must not overlap U (" +
                       std::to_string(n) + " x 4)"),
                std::string::npos)
          << "output from column " << output.data() - W.data() << ": " << m;
      EXPECT_NE(message_of<Sprocket::InvalidArgument>([&] { blocks::combine_gram(gpu, 1.0, first4, T, 0.0, output); }), "");
    }
    EXPECT_EQ(host(W), w) << "a refused combine wrote its output";
    blocks::combine(gpu, 1.0, first4, T, 0.0, Kokkos::subview(W, Kokkos::ALL, std::make_pair(4, 8)));
    const std::vector<double> got = host(W);
    EXPECT_LE(max_difference(std::vector<double>(got.begin() + 4 * n, got.end()), reference_combine(1.0, w, T, 0.0, {}, n)),
              1e-13);
    // The host paths take the same overlapping call (they stage each row block).
    Workspace<Device> cpu(space, n, 12, 12 * 12);
    EXPECT_EQ(message_of<Sprocket::InvalidArgument>([&] {
                blocks::combine(cpu, 1.0, first4, T, 0.0, Kokkos::subview(W, Kokkos::ALL, std::make_pair(2, 6)));
              }),
              "");
  }
}

TEST(BlockOps, HostBlasReportAndThreadScope) {
  const blocks::HostBlasInfo& info = blocks::host_blas_info();
  const std::string description = blocks::host_blas_description();
  EXPECT_FALSE(description.empty());
  if (info.openblas) {
    EXPECT_TRUE(info.threading >= 0 && info.threading <= 2) << info.threading;
    EXPECT_NE(description.find("OpenBLAS"), std::string::npos) << description;
    // Sequential and OpenMP builds may be called inside a parallel region as they are.
    if (info.threading != 1) EXPECT_TRUE(blocks::host_blas_in_parallel_ok());
  } else {
    EXPECT_EQ(info.threading, -1);
    EXPECT_FALSE(blocks::host_blas_in_parallel_ok());
  }
  // A scope holds a pthreads OpenBLAS at one thread and gives the count back.
  const bool before = blocks::host_blas_in_parallel_ok();
  {
    blocks::BlasThreadScope scope(true);
    if (info.openblas) EXPECT_TRUE(blocks::host_blas_in_parallel_ok());
  }
  EXPECT_EQ(blocks::host_blas_in_parallel_ok(), before);
  { blocks::BlasThreadScope inactive(false); }
  EXPECT_EQ(blocks::host_blas_in_parallel_ok(), before);
}

}  // namespace
