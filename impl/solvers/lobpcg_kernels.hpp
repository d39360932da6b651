#pragma once
/// \file lobpcg_kernels.hpp
/// Device kernels of LOBPCG on n-long blocks (LayoutLeft, any Kokkos device): the Gram matrix
/// U^T V of two tall-and-skinny blocks, column-wise dot products, the block update
/// Y = U C + beta Y with a small coefficient matrix C, the residual block AX - MX diag(lambda)
/// with its column norms, a column gather, a reproducible random fill and a finiteness scan.
/// Free functions, because nvcc refuses extended lambdas in private member functions. Each
/// kernel is one parallel region (plus, on a device, one reduction kernel): on a busy host every
/// region costs a thread barrier, so steps are fused where it is free.
///
/// Why not KokkosBlas::gemm: the Gram matrices are tiny (at most 3m x 3m) with inner dimension
/// n, and Kokkos Kernels 3.4's native gemm parallelizes over output tiles, which leaves a handful
/// of teams streaming whole columns. Here work is split over row chunks, each computing 4 x 4
/// output tiles in registers (8 loads feed 16 multiply-adds), partial sums in double whatever
/// the Scalar, then a second pass adds the chunks in a fixed order, so the result does not
/// depend on thread scheduling.
///  - Host: a chunk is a contiguous range of rows walked in blocks of 256 rows, all tiles of a
///    block before the next block, so the block's columns stay in cache while every tile reads
///    them.
///  - GPU: work item (chunk c, tile t) takes rows c, c + C, c + 2C, ..., so adjacent threads of a
///    warp (adjacent chunks, same tile) read adjacent rows: coalesced loads.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "impl/solvers/lobpcg_dense.hpp"

namespace Sprocket {
namespace Impl {
namespace lobpcg {

/// True for execution spaces that run on the host (OpenMP, Serial, Threads): they take the
/// contiguous-chunk loop orders above.
template <class ExecSpace>
inline constexpr bool runs_on_host_v = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

KOKKOS_INLINE_FUNCTION int64_t smaller(int64_t a, int64_t b) { return a < b ? a : b; }

/// Scratch of the kernels, sized once for blocks of at most max_cols columns.
template <class Device>
struct Workspace {
  using execution_space = typename Device::execution_space;
  static constexpr bool on_host = runs_on_host_v<execution_space>;
  /// Host: rows per cache block inside a chunk (256 rows x 3m columns of doubles stay in L2).
  static constexpr int64_t host_row_block = 256;
  /// GPU: rows per work item at least, so a thread amortizes its tile setup.
  static constexpr int64_t device_rows_per_item = 32;

  int64_t n = 0;
  int max_cols = 0;
  int64_t num_chunks = 1;
  Kokkos::View<double**, Kokkos::LayoutRight, Device> partial;  // num_chunks x max_cols^2
  Kokkos::View<double*, Device> reduced;                         // max_cols^2
  typename Kokkos::View<double*, Device>::HostMirror reduced_host;
  Kokkos::View<double*, Device> coefficients;  // a small matrix, column-major, max_cols^2 (+ room)
  typename Kokkos::View<double*, Device>::HostMirror coefficients_host;
  Kokkos::View<int*, Device> index;  // gathered column numbers
  typename Kokkos::View<int*, Device>::HostMirror index_host;
  /// Host: rows per staged block of combine, and the staging area (num_chunks x rows * max_cols).
  static constexpr int64_t combine_rows = 64;
  Kokkos::View<double**, Kokkos::LayoutRight, Device> staging;

  Workspace() = default;
  Workspace(int64_t rows, int cols) : n(rows), max_cols(cols) {
    const int64_t concurrency = std::max<int64_t>(1, execution_space().concurrency());
    if (on_host) {
      // A few chunks per thread for balance; no chunk smaller than one cache block.
      num_chunks = std::clamp<int64_t>((n + host_row_block - 1) / host_row_block, 1, 4 * concurrency);
    } else {
      // Enough (chunk, tile) items to fill the device (there are at least max_cols^2 / 32 tiles
      // per Gram matrix), and partial sums of at most 64 MiB.
      const int64_t entries = std::max<int64_t>(1, int64_t{max_cols} * max_cols);
      num_chunks = std::clamp<int64_t>(std::min(n / device_rows_per_item, (int64_t{8} << 20) / entries), 1, 2048);
    }
    const int64_t entries = int64_t{max_cols} * max_cols;
    using Kokkos::view_alloc;
    using Kokkos::WithoutInitializing;
    partial = Kokkos::View<double**, Kokkos::LayoutRight, Device>(
        view_alloc(WithoutInitializing, "Sprocket::lobpcg::partial_sums"), num_chunks, entries);
    reduced = Kokkos::View<double*, Device>(view_alloc(WithoutInitializing, "Sprocket::lobpcg::gram"), entries);
    reduced_host = Kokkos::create_mirror_view(reduced);
    coefficients =
        Kokkos::View<double*, Device>(view_alloc(WithoutInitializing, "Sprocket::lobpcg::coefficients"), entries);
    coefficients_host = Kokkos::create_mirror_view(coefficients);
    index = Kokkos::View<int*, Device>(view_alloc(WithoutInitializing, "Sprocket::lobpcg::index"), max_cols);
    index_host = Kokkos::create_mirror_view(index);
    staging = Kokkos::View<double**, Kokkos::LayoutRight, Device>(
        view_alloc(WithoutInitializing, "Sprocket::lobpcg::staging"), on_host ? num_chunks : 0,
        on_host ? combine_rows * max_cols : 0);
  }
};

/// Sums partial(c, e) over chunks c for e < entries into ws.reduced_host. On the host the few
/// chunks are added right there (one parallel region less per inner product); on a device by a
/// kernel, then copied back.
template <class Device>
void reduce_partials(const Workspace<Device>& ws, int64_t entries) {
  using ExecSpace = typename Device::execution_space;
  if constexpr (Workspace<Device>::on_host) {
    ExecSpace().fence();
    for (int64_t e = 0; e < entries; ++e) ws.reduced_host(e) = 0.0;
    for (int64_t c = 0; c < ws.num_chunks; ++c)
      for (int64_t e = 0; e < entries; ++e) ws.reduced_host(e) += ws.partial(c, e);
    return;
  }
  const auto partial = ws.partial;
  const auto reduced = ws.reduced;
  const int64_t chunks = ws.num_chunks;
  Kokkos::parallel_for(
      "Sprocket::lobpcg::reduce_partials", Kokkos::RangePolicy<ExecSpace>(0, entries), KOKKOS_LAMBDA(const int64_t e) {
        double sum = 0;
        for (int64_t c = 0; c < chunks; ++c) sum += partial(c, e);
        reduced(e) = sum;
      });
  Kokkos::deep_copy(Kokkos::subview(ws.reduced_host, std::make_pair(int64_t{0}, entries)),
                    Kokkos::subview(reduced, std::make_pair(int64_t{0}, entries)));
}

/// G = U^T V (U n x p, V n x q), accumulated in double. With symmetric (p == q, U^T V known to be
/// symmetric in exact arithmetic, e.g. X^T A X) only tiles on and above the diagonal are computed
/// and the upper triangle is mirrored.
template <class Device, class UView, class VView>
SmallMatrix gram(const Workspace<Device>& ws, const UView& U, const VView& V, bool symmetric) {
  using ExecSpace = typename Device::execution_space;
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int p = static_cast<int>(U.extent(1)), q = static_cast<int>(V.extent(1));
  SmallMatrix G(p, q);
  if (p == 0 || q == 0) return G;
  if (n == 0) return G;
  symmetric = symmetric && p == q;
  const int tiles_i = (p + 3) / 4, tiles_j = (q + 3) / 4;
  const int64_t tiles = symmetric ? int64_t{tiles_i} * (tiles_i + 1) / 2 : int64_t{tiles_i} * tiles_j;
  const int64_t chunks = ws.num_chunks;
  const auto partial = ws.partial;
  // Tile t -> (ti, tj). Symmetric: upper tiles listed column by column, tj(tj+1)/2 + ti, ti <= tj.
  const auto tile_of = [=] KOKKOS_FUNCTION(int64_t t, int& ti, int& tj) {
    if (!symmetric) {
      ti = static_cast<int>(t % tiles_i);
      tj = static_cast<int>(t / tiles_i);
      return;
    }
    int j = 0;
    while (t > j) t -= ++j;  // column j of the upper triangle holds j + 1 tiles
    tj = j;
    ti = static_cast<int>(t);
  };
  // Accumulates the 4 x 4 tile (ti, tj) over rows [begin, end) with the given stride into acc.
  const auto accumulate = [=] KOKKOS_FUNCTION(int ti, int tj, int64_t begin, int64_t end, int64_t stride,
                                              double (&acc)[4][4]) {
    int ci[4], cj[4];
    for (int a = 0; a < 4; ++a) {
      ci[a] = 4 * ti + a < p ? 4 * ti + a : p - 1;  // out-of-range columns repeat the last one, unwritten
      cj[a] = 4 * tj + a < q ? 4 * tj + a : q - 1;
    }
    for (int64_t r = begin; r < end; r += stride) {
      double u[4], v[4];
      for (int a = 0; a < 4; ++a) u[a] = static_cast<double>(U(r, ci[a]));
      for (int b = 0; b < 4; ++b) v[b] = static_cast<double>(V(r, cj[b]));
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) acc[a][b] += u[a] * v[b];
    }
  };
  const auto store = [=] KOKKOS_FUNCTION(int64_t c, int ti, int tj, const double (&acc)[4][4], bool add) {
    for (int b = 0; b < 4; ++b)
      for (int a = 0; a < 4; ++a) {
        const int i = 4 * ti + a, j = 4 * tj + b;
        if (i < p && j < q) {
          const int64_t e = i + int64_t{j} * p;
          partial(c, e) = add ? partial(c, e) + acc[a][b] : acc[a][b];
        }
      }
  };
  if constexpr (Workspace<Device>::on_host) {
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    const int64_t block = Workspace<Device>::host_row_block;
    Kokkos::parallel_for(
        "Sprocket::lobpcg::gram", Kokkos::RangePolicy<ExecSpace>(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
          const int64_t begin = smaller(n, c * chunk_rows), end = smaller(n, begin + chunk_rows);
          int64_t b0 = begin;
          do {  // an empty chunk still stores its zeros
            const int64_t b1 = smaller(end, b0 + block);
            for (int64_t t = 0; t < tiles; ++t) {
              int ti, tj;
              tile_of(t, ti, tj);
              double acc[4][4] = {};
              accumulate(ti, tj, b0, b1, 1, acc);
              store(c, ti, tj, acc, b0 != begin);
            }
            b0 = b1;
          } while (b0 < end);
        });
  } else {
    Kokkos::parallel_for(
        "Sprocket::lobpcg::gram", Kokkos::RangePolicy<ExecSpace>(0, chunks * tiles), KOKKOS_LAMBDA(const int64_t item) {
          const int64_t c = item % chunks, t = item / chunks;
          int ti, tj;
          tile_of(t, ti, tj);
          double acc[4][4] = {};
          accumulate(ti, tj, c, n, chunks, acc);
          store(c, ti, tj, acc, false);
        });
  }
  reduce_partials(ws, int64_t{p} * q);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < p; ++i) G(i, j) = ws.reduced_host(i + int64_t{j} * p);
  if (symmetric)
    for (int j = 0; j < q; ++j)
      for (int i = j + 1; i < p; ++i) G(i, j) = G(j, i);
  return G;
}

/// d_j = U(:, j)^T V(:, j) for every column j (U and V n x q), accumulated in double.
template <class Device, class UView, class VView>
std::vector<double> column_dots(const Workspace<Device>& ws, const UView& U, const VView& V) {
  using ExecSpace = typename Device::execution_space;
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int q = static_cast<int>(U.extent(1));
  std::vector<double> d(q, 0.0);
  if (q == 0 || n == 0) return d;
  const int64_t chunks = ws.num_chunks;
  const auto partial = ws.partial;
  if constexpr (Workspace<Device>::on_host) {
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    Kokkos::parallel_for(
        "Sprocket::lobpcg::column_dots", Kokkos::RangePolicy<ExecSpace>(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
          const int64_t begin = smaller(n, c * chunk_rows), end = smaller(n, begin + chunk_rows);
          for (int j = 0; j < q; ++j) {
            double sum = 0;
            for (int64_t r = begin; r < end; ++r) sum += static_cast<double>(U(r, j)) * static_cast<double>(V(r, j));
            partial(c, j) = sum;
          }
        });
  } else {
    Kokkos::parallel_for(
        "Sprocket::lobpcg::column_dots", Kokkos::RangePolicy<ExecSpace>(0, chunks * q), KOKKOS_LAMBDA(const int64_t item) {
          const int64_t c = item % chunks;
          const int j = static_cast<int>(item / chunks);
          double sum = 0;
          for (int64_t r = c; r < n; r += chunks) sum += static_cast<double>(U(r, j)) * static_cast<double>(V(r, j));
          partial(c, j) = sum;
        });
  }
  reduce_partials(ws, q);
  for (int j = 0; j < q; ++j) d[j] = ws.reduced_host(j);
  return d;
}

/// Y = U C + beta Y (U n x k, C k x q on the host, Y n x q), accumulated in double; beta == 0
/// does not read Y. On the host Y may share columns with U (in-place transforms of a block):
/// each chunk stages a block of rows of the result before writing it, and every row depends only
/// on the same row of U. On a device Y must not alias U.
template <class Device, class UView, class YView>
void combine(const Workspace<Device>& ws, const UView& U, const SmallMatrix& C, double beta, const YView& Y) {
  using ExecSpace = typename Device::execution_space;
  using value_type = typename YView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int k = C.rows, q = C.cols;
  if (n == 0 || q == 0) return;
  const int64_t entries = int64_t{k} * q;
  for (int64_t e = 0; e < entries; ++e) ws.coefficients_host(e) = C.data[e];
  if (entries > 0)
    Kokkos::deep_copy(Kokkos::subview(ws.coefficients, std::make_pair(int64_t{0}, entries)),
                      Kokkos::subview(ws.coefficients_host, std::make_pair(int64_t{0}, entries)));
  const auto coeff = ws.coefficients;
  if constexpr (Workspace<Device>::on_host) {
    // Blocks of rows so the innermost loop runs over contiguous rows of a column (vectorizable).
    constexpr int64_t rows = Workspace<Device>::combine_rows;
    const int64_t chunks = ws.num_chunks;
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    const auto staging = ws.staging;
    Kokkos::parallel_for(
        "Sprocket::lobpcg::combine", Kokkos::RangePolicy<ExecSpace>(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
          const int64_t begin = smaller(n, c * chunk_rows), end = smaller(n, begin + chunk_rows);
          double* const out = &staging(c, 0);
          for (int64_t r0 = begin; r0 < end; r0 += rows) {
            const int64_t len = smaller(rows, end - r0);
            // Tiles of 4 rows x 4 output columns held in registers over the whole sum (the
            // compiler pairs adjacent rows into SIMD lanes), the rows left over one by one.
            for (int j0 = 0; j0 < q; j0 += 4) {
              const int width = q - j0 < 4 ? q - j0 : 4;
              int jj[4];
              for (int b = 0; b < 4; ++b) jj[b] = j0 + (b < width ? b : 0);
              int64_t i0 = 0;
              for (; i0 + 4 <= len; i0 += 4) {
                double acc[4][4] = {};
                for (int l = 0; l < k; ++l) {
                  double u[4], cl[4];
                  for (int i = 0; i < 4; ++i) u[i] = static_cast<double>(U(r0 + i0 + i, l));
                  for (int b = 0; b < 4; ++b) cl[b] = coeff(l + int64_t{jj[b]} * k);
                  for (int b = 0; b < 4; ++b)
                    for (int i = 0; i < 4; ++i) acc[b][i] += u[i] * cl[b];
                }
                for (int b = 0; b < width; ++b)
                  for (int i = 0; i < 4; ++i) out[(j0 + b) * rows + i0 + i] = acc[b][i];
              }
              for (; i0 < len; ++i0)
                for (int b = 0; b < width; ++b) {
                  double acc = 0;
                  for (int l = 0; l < k; ++l) acc += static_cast<double>(U(r0 + i0, l)) * coeff(l + int64_t{jj[b]} * k);
                  out[(j0 + b) * rows + i0] = acc;
                }
            }
            for (int j = 0; j < q; ++j)
              for (int64_t i = 0; i < len; ++i) {
                const double prior = beta == 0.0 ? 0.0 : beta * static_cast<double>(Y(r0 + i, j));
                Y(r0 + i, j) = static_cast<value_type>(prior + out[j * rows + i]);
              }
          }
        });
  } else {
    Kokkos::parallel_for(
        "Sprocket::lobpcg::combine", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const int64_t r) {
          for (int j = 0; j < q; ++j) {
            double acc = beta == 0.0 ? 0.0 : beta * static_cast<double>(Y(r, j));
            for (int l = 0; l < k; ++l) acc += static_cast<double>(U(r, l)) * coeff(l + int64_t{j} * k);
            Y(r, j) = static_cast<value_type>(acc);
          }
        });
  }
}

/// R(:, j) = AX(:, j) - lambda_j MX(:, j) for every column j, in one pass that also returns
/// the squared 2-norms of R's and X's columns (in that order, 2q values), accumulated in double.
template <class Device, class XView, class RView>
std::vector<double> residuals_and_norms(const Workspace<Device>& ws, const XView& X, const XView& AX, const XView& MX,
                                        const std::vector<double>& lambda, const RView& R) {
  using ExecSpace = typename Device::execution_space;
  const int64_t n = static_cast<int64_t>(X.extent(0));
  const int q = static_cast<int>(X.extent(1));
  std::vector<double> norms(2 * q, 0.0);
  if (n == 0 || q == 0) return norms;
  for (int j = 0; j < q; ++j) ws.coefficients_host(j) = lambda[j];
  Kokkos::deep_copy(Kokkos::subview(ws.coefficients, std::make_pair(0, q)),
                    Kokkos::subview(ws.coefficients_host, std::make_pair(0, q)));
  const auto shift = ws.coefficients;
  const auto partial = ws.partial;
  const int64_t chunks = ws.num_chunks;
  using value_type = typename RView::non_const_value_type;
  // Rows [begin, end) with stride of column j into partial(c, j) and partial(c, q + j).
  const auto column = [=] KOKKOS_FUNCTION(int64_t c, int j, int64_t begin, int64_t end, int64_t stride) {
    const double s = shift(j);
    double rr = 0, xx = 0;
    for (int64_t r = begin; r < end; r += stride) {
      const value_type v = static_cast<value_type>(static_cast<double>(AX(r, j)) - s * static_cast<double>(MX(r, j)));
      R(r, j) = v;
      rr += static_cast<double>(v) * static_cast<double>(v);
      xx += static_cast<double>(X(r, j)) * static_cast<double>(X(r, j));
    }
    partial(c, j) = rr;
    partial(c, q + j) = xx;
  };
  if constexpr (Workspace<Device>::on_host) {
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    Kokkos::parallel_for(
        "Sprocket::lobpcg::residuals", Kokkos::RangePolicy<ExecSpace>(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
          const int64_t begin = smaller(n, c * chunk_rows), end = smaller(n, begin + chunk_rows);
          for (int j = 0; j < q; ++j) column(c, j, begin, end, 1);
        });
  } else {
    Kokkos::parallel_for(
        "Sprocket::lobpcg::residuals", Kokkos::RangePolicy<ExecSpace>(0, chunks * q), KOKKOS_LAMBDA(const int64_t item) {
          column(item % chunks, static_cast<int>(item / chunks), item % chunks, n, chunks);
        });
  }
  reduce_partials(ws, 2 * q);
  for (int e = 0; e < 2 * q; ++e) norms[e] = ws.reduced_host(e);
  return norms;
}

/// Y(:, c) = U(:, columns[c]).
template <class Device, class UView, class YView>
void gather_columns(const Workspace<Device>& ws, const UView& U, const std::vector<int>& columns, const YView& Y) {
  using ExecSpace = typename Device::execution_space;
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int q = static_cast<int>(columns.size());
  if (n == 0 || q == 0) return;
  for (int c = 0; c < q; ++c) ws.index_host(c) = columns[c];
  Kokkos::deep_copy(Kokkos::subview(ws.index, std::make_pair(0, q)), Kokkos::subview(ws.index_host, std::make_pair(0, q)));
  const auto index = ws.index;
  Kokkos::parallel_for(
      "Sprocket::lobpcg::gather_columns", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const int64_t r) {
        for (int c = 0; c < q; ++c) Y(r, c) = U(r, index(c));
      });
}

/// Uniform values in [-1, 1) from a counter-based hash of (seed, column, row) (splitmix64
/// finalizer), the same on every device and thread count.
template <class ExecSpace, class XView>
void fill_random(const XView& X, uint64_t seed) {
  const int64_t n = static_cast<int64_t>(X.extent(0));
  const int q = static_cast<int>(X.extent(1));
  using value_type = typename XView::non_const_value_type;
  Kokkos::parallel_for(
      "Sprocket::lobpcg::fill_random", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const int64_t r) {
        for (int j = 0; j < q; ++j) {
          uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(j) * static_cast<uint64_t>(n) +
                                                       static_cast<uint64_t>(r) + 1);
          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
          z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
          z ^= z >> 31;
          X(r, j) = static_cast<value_type>(2.0 * (static_cast<double>(z >> 11) * 0x1.0p-53) - 1.0);
        }
      });
}

/// Number of entries of X that are NaN or infinite.
template <class ExecSpace, class XView>
int64_t count_non_finite(const XView& X) {
  const int64_t n = static_cast<int64_t>(X.extent(0));
  const int q = static_cast<int>(X.extent(1));
  int64_t bad = 0;
  if (n == 0 || q == 0) return 0;
  Kokkos::parallel_reduce(
      "Sprocket::lobpcg::count_non_finite", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int64_t r, int64_t& count) {
        for (int j = 0; j < q; ++j) {
          const double v = static_cast<double>(X(r, j));
          if (!(v - v == 0.0)) ++count;  // NaN - NaN and inf - inf are NaN
        }
      },
      bad);
  return bad;
}

}  // namespace lobpcg
}  // namespace Impl
}  // namespace Sprocket
