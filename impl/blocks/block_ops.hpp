#pragma once
/// \file block_ops.hpp
/// Device kernels on tall-and-skinny blocks of vectors (n x k, LayoutLeft, any Kokkos device),
/// shared by block GMRES, LOBPCG and the preconditioners: the Gram matrix U^T V, column-wise
/// dot products, the block update Y = alpha U C + beta Y with a small coefficient matrix C on
/// the host, a column gather, a reproducible random fill and a non-finite scan. Free functions,
/// because nvcc refuses extended lambdas in private member functions. Every kernel runs on the
/// execution-space instance held by the Workspace (or passed in) and fences only that instance.
/// Each kernel is one parallel region (plus, on a device, one reduction kernel): on a busy host
/// every region costs a thread barrier, so steps are fused where it is free.
///
/// Host spaces, double, columns contiguous (LayoutLeft): gram and combine hand each row chunk to
/// the host BLAS (OpenBLAS dgemm) inside their one parallel region when it may be called there
/// (host_blas.hpp says when); the chunks and their fixed-order reduction stay as below. Measured
/// on 2 cores of an AMD EPYC (Zen 4; perf_tests/results/block-ops-2026-11-26.md): 2-11x the
/// GFLOP/s of the own kernels, which are compiled for plain x86-64 where OpenBLAS picks AVX-512
/// kernels at run time. Everything else (float, LayoutRight, devices, another BLAS) runs the own
/// kernels.
///
/// Why not KokkosBlas::gemm: the Gram matrices are tiny (at most a few hundred entries a side)
/// with inner dimension n, and Kokkos Kernels 3.4's native gemm parallelizes over output tiles,
/// which leaves a handful of teams streaming whole columns. Here work is split over row chunks,
/// each computing 4 x 4 output tiles in registers (8 loads feed 16 multiply-adds), partial sums
/// in double whatever the Scalar, then a second pass adds the chunks in a fixed order, so the
/// result does not depend on thread scheduling.
///  - Host: a chunk is a contiguous range of rows walked in blocks of 256 rows, all tiles of a
///    block before the next block, so the block's columns stay in cache while every tile reads
///    them.
///  - GPU: work item (chunk c, tile t) takes rows c, c + C, c + 2C, ..., so adjacent threads of a
///    warp (adjacent chunks, same tile) read adjacent rows: coalesced loads.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "Sprocket_Error.hpp"
#include "impl/blocks/dense_matrix.hpp"
#include "impl/blocks/host_blas.hpp"

namespace Sprocket {
namespace Impl {
namespace blocks {

/// True for execution spaces that run on the host (OpenMP, Serial, Threads): they take the
/// contiguous-chunk loop orders above.
template <class ExecSpace>
inline constexpr bool runs_on_host_v = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

KOKKOS_INLINE_FUNCTION int64_t smaller(int64_t a, int64_t b) { return a < b ? a : b; }

/// Scratch of the kernels for blocks of n rows: outputs of at most max_cols columns (Y of
/// combine, gathered blocks, column dots) and small matrices (Gram matrices, coefficients) of at
/// most max_entries entries. Holds the execution-space instance every kernel runs on.
template <class Device, bool HostKernels = runs_on_host_v<typename Device::execution_space>>
struct Workspace {
  using execution_space = typename Device::execution_space;
  /// Which code paths the kernels take: the host's (contiguous chunks, staging, BLAS) or the
  /// GPU's (a thread per row, tiles). Follows the execution space; HostKernels = false on a host
  /// space runs the GPU paths on the CPU, which is how the tests reach code (the GPU paths'
  /// argument checks among it) that otherwise only nvcc compiles.
  static constexpr bool on_host = HostKernels;
  /// Host: rows per cache block inside a chunk (256 rows x a few dozen columns of doubles stay
  /// in L2).
  static constexpr int64_t host_row_block = 256;
  /// GPU: rows per work item at least, so a thread amortizes its tile setup.
  static constexpr int64_t device_rows_per_item = 32;
  /// Host: rows per staged block of combine (the staging area is num_chunks x rows * max_cols).
  static constexpr int64_t combine_rows = 64;
  /// Host BLAS path: the Gram product of a chunk goes to dgemm in row blocks of about this many
  /// entries of U and V together (rows * (p + q)), so both blocks stay in L2 while dgemm packs
  /// them; one call over a whole chunk (k = n / chunks, m = p, n = q small) runs at a third of
  /// the speed for p, q <= 8 (block-ops results).
  static constexpr int64_t blas_gram_block_entries = 32768;
  /// Host BLAS path, combine with Y overlapping U (in-place transforms): rows per staged block
  /// at most (256-row blocks ran up to 1.3x slower at n = 262144, p <= 8: more, smaller calls).
  static constexpr int64_t blas_combine_rows = 1024;

  execution_space space;
  /// Host, double, contiguous columns: gram and combine call the host BLAS when it may be called
  /// inside a parallel region (host_blas_in_parallel_ok). false: always the own kernels
  /// (benchmarks and tests compare the two).
  bool use_blas = true;
  int64_t n = 0;
  int max_cols = 0;
  int64_t max_entries = 0;
  int64_t num_chunks = 1;
  /// Host: rows of a chunk's staging block, combine_rows <= stage_rows <= blas_combine_rows (no
  /// more than a chunk holds, so the staging area stays about the size of one block column set).
  int64_t stage_rows = combine_rows;
  Kokkos::View<double**, Kokkos::LayoutRight, Device> partial;  // num_chunks x max_entries
  Kokkos::View<double*, Device> reduced;                         // max_entries
  typename Kokkos::View<double*, Device>::HostMirror reduced_host;
  Kokkos::View<double*, Device> coefficients;  // a small matrix, column-major, max_entries
  typename Kokkos::View<double*, Device>::HostMirror coefficients_host;
  Kokkos::View<int*, Device> index;  // gathered column numbers, max_cols
  typename Kokkos::View<int*, Device>::HostMirror index_host;
  Kokkos::View<double**, Kokkos::LayoutRight, Device> staging;

  Workspace() = default;
  Workspace(const execution_space& exec, int64_t rows, int cols, int64_t entries)
      : space(exec), n(rows), max_cols(cols), max_entries(std::max<int64_t>({entries, cols, 1})) {
    const int64_t concurrency = std::max<int64_t>(1, space.concurrency());
    if (on_host) {
      // A few chunks per thread for balance; no chunk smaller than one cache block.
      num_chunks = std::clamp<int64_t>((n + host_row_block - 1) / host_row_block, 1, 4 * concurrency);
    } else {
      // Enough (chunk, tile) items to fill the device (there are at least max_entries / 32
      // tiles per Gram matrix), and partial sums of at most 64 MiB.
      num_chunks = std::clamp<int64_t>(std::min(n / device_rows_per_item, (int64_t{8} << 20) / max_entries), 1, 2048);
    }
    using Kokkos::view_alloc;
    using Kokkos::WithoutInitializing;
    partial = Kokkos::View<double**, Kokkos::LayoutRight, Device>(
        view_alloc(WithoutInitializing, "Sprocket::blocks::partial_sums"), num_chunks, max_entries);
    reduced = Kokkos::View<double*, Device>(view_alloc(WithoutInitializing, "Sprocket::blocks::reduced"), max_entries);
    reduced_host = Kokkos::create_mirror_view(reduced);
    coefficients =
        Kokkos::View<double*, Device>(view_alloc(WithoutInitializing, "Sprocket::blocks::coefficients"), max_entries);
    coefficients_host = Kokkos::create_mirror_view(coefficients);
    index = Kokkos::View<int*, Device>(view_alloc(WithoutInitializing, "Sprocket::blocks::index"), max_cols);
    index_host = Kokkos::create_mirror_view(index);
    stage_rows = std::clamp<int64_t>((n + num_chunks - 1) / num_chunks, combine_rows, blas_combine_rows);
    staging = Kokkos::View<double**, Kokkos::LayoutRight, Device>(
        view_alloc(WithoutInitializing, "Sprocket::blocks::staging"), on_host ? num_chunks : 0,
        on_host ? stage_rows * max_cols : 0);
  }

  Kokkos::RangePolicy<execution_space> range(int64_t begin, int64_t end) const {
    return Kokkos::RangePolicy<execution_space>(space, begin, end);
  }
};

/// Sums partial(c, e) over chunks c for e < entries into ws.reduced_host. On the host the few
/// chunks are added right there (one parallel region less per inner product); on a device by a
/// kernel, then copied back.
template <class Device, bool HostKernels>
void reduce_partials(const Workspace<Device, HostKernels>& ws, int64_t entries) {
  if constexpr (Workspace<Device, HostKernels>::on_host) {
    ws.space.fence();
    for (int64_t e = 0; e < entries; ++e) ws.reduced_host(e) = 0.0;
    for (int64_t c = 0; c < ws.num_chunks; ++c)
      for (int64_t e = 0; e < entries; ++e) ws.reduced_host(e) += ws.partial(c, e);
    return;
  }
  const auto partial = ws.partial;
  const auto reduced = ws.reduced;
  const int64_t chunks = ws.num_chunks;
  Kokkos::parallel_for(
      "Sprocket::blocks::reduce_partials", ws.range(0, entries), KOKKOS_LAMBDA(const int64_t e) {
        double sum = 0;
        for (int64_t c = 0; c < chunks; ++c) sum += partial(c, e);
        reduced(e) = sum;
      });
  Kokkos::deep_copy(ws.space, Kokkos::subview(ws.reduced_host, std::make_pair(int64_t{0}, entries)),
                    Kokkos::subview(reduced, std::make_pair(int64_t{0}, entries)));
  ws.space.fence();
}

// ---- host BLAS path ------------------------------------------------------------------------

/// True when the View can go to BLAS as a column-major double matrix: double values, rank 2,
/// unit row stride, column stride >= rows, extents and strides that fit an int.
template <class View>
bool blas_view(const View& v) {
  if constexpr (std::is_same_v<typename View::non_const_value_type, double> && View::rank == 2) {
    const int64_t rows = static_cast<int64_t>(v.extent(0)), cols = static_cast<int64_t>(v.extent(1));
    if (rows > INT_MAX || cols > INT_MAX) return false;
    if (rows > 1 && v.stride(0) != 1) return false;
    if (cols > 1 && (static_cast<int64_t>(v.stride(1)) < rows || static_cast<int64_t>(v.stride(1)) > INT_MAX))
      return false;
    return true;
  } else {
    (void)v;
    return false;
  }
}

/// BLAS leading dimension of a blas_view.
template <class View>
int blas_ld(const View& v) {
  const int64_t rows = std::max<int64_t>(1, static_cast<int64_t>(v.extent(0)));
  return static_cast<int>(v.extent(1) > 1 ? std::max<int64_t>(rows, static_cast<int64_t>(v.stride(1))) : rows);
}

/// Whether gram / combine on these views take the host BLAS path (host space, ws.use_blas,
/// BLAS-compatible views, a BLAS that may be called inside the parallel region).
template <class Device, bool HostKernels, class... Views>
bool take_blas_path(const Workspace<Device, HostKernels>& ws, const Views&... views) {
  if constexpr (Workspace<Device, HostKernels>::on_host) {
    return ws.use_blas && (blas_view(views) && ...) && host_blas_in_parallel_ok();
  } else {
    (void)ws;
    ((void)views, ...);
    return false;
  }
}

/// Rows per dgemm call of the BLAS Gram product of p + q columns.
inline int64_t blas_gram_block_rows(int p, int q, int64_t entries) {
  return std::max<int64_t>(64, entries / std::max(1, p + q));
}

/// Host BLAS path, one chunk of a Gram product: U(rows)^T V(rows) into partial(c, 0:p*q) (leading
/// dimension p), in row blocks of block_rows. dgemm also for U^T U: dsyrk computes half the
/// products but ran at a third to two thirds of dgemm's speed per chunk (p = 4-24, block-ops
/// results), so it saves nothing. Host-only code: used only for host execution spaces.
template <class Partial>
struct GramChunkBlas {
  const double* u;
  const double* v;
  int ldu, ldv, p, q;
  int64_t n, chunk_rows, block_rows;
  Partial partial;

  void operator()(const int64_t c) const {
    const int64_t begin = std::min(n, c * chunk_rows), end = std::min(n, begin + chunk_rows);
    double* const out = &partial(c, 0);
    if (begin >= end) {  // an empty chunk still stores its zeros
      for (int64_t e = 0; e < int64_t{p} * q; ++e) out[e] = 0.0;
      return;
    }
    for (int64_t r = begin; r < end; r += block_rows) {
      const int rows = static_cast<int>(std::min(block_rows, end - r));
      const double beta = r == begin ? 0.0 : 1.0;
      host_dgemm(true, false, p, q, rows, 1.0, u + r, ldu, v + r, ldv, beta, out, p);
    }
  }
};

/// Host BLAS path, one chunk of Y = alpha U C + beta Y (k >= 1): one dgemm straight into Y when Y
/// does not overlap U, else through the chunk's staging rows (every row of Y depends only on the
/// same row of U). With gram_rows > 0, then also Y(rows)^T Y(rows) into partial(c, :) (leading
/// dimension q), while the chunk's rows are in cache (combine_gram).
template <class Partial, class Staging>
struct CombineChunkBlas {
  const double* u;
  int ldu;
  double* y;
  int ldy;
  const double* coeff;
  int k, q;
  double alpha, beta;
  int64_t n, chunk_rows, stage_rows;
  bool staged;
  Staging staging;
  int64_t gram_rows;
  Partial partial;

  void operator()(const int64_t c) const {
    const int64_t begin = std::min(n, c * chunk_rows), end = std::min(n, begin + chunk_rows);
    if (begin < end && !staged) {
      host_dgemm(false, false, static_cast<int>(end - begin), q, k, alpha, u + begin, ldu, coeff, k, beta, y + begin,
                 ldy);
    } else if (begin < end) {
      double* const out = &staging(c, 0);
      for (int64_t r0 = begin; r0 < end; r0 += stage_rows) {
        const int len = static_cast<int>(std::min(stage_rows, end - r0));
        host_dgemm(false, false, len, q, k, 1.0, u + r0, ldu, coeff, k, 0.0, out, static_cast<int>(stage_rows));
        for (int j = 0; j < q; ++j) {
          double* const yj = y + r0 + int64_t{j} * ldy;
          const double* const oj = out + int64_t{j} * stage_rows;
          if (beta == 0.0)
            for (int i = 0; i < len; ++i) yj[i] = alpha * oj[i];
          else
            for (int i = 0; i < len; ++i) yj[i] = beta * yj[i] + alpha * oj[i];
        }
      }
    }
    if (gram_rows <= 0) return;
    GramChunkBlas<Partial>{y, y, ldy, ldy, q, q, n, chunk_rows, gram_rows, partial}(c);
  }
};

/// True when the memory of views a and b overlaps.
template <class A, class B>
bool views_overlap(const A& a, const B& b) {
  if (a.span() == 0 || b.span() == 0) return false;
  const auto* a0 = reinterpret_cast<const char*>(a.data());
  const auto* b0 = reinterpret_cast<const char*>(b.data());
  const auto* a1 = a0 + a.span() * sizeof(typename A::value_type);
  const auto* b1 = b0 + b.span() * sizeof(typename B::value_type);
  return a0 < b1 && b0 < a1;
}

/// Host BLAS path of gram: fills ws.partial with the chunks' U^T V (leading dimension p) and
/// returns true, or returns false when the call does not qualify (take_blas_path).
template <class Device, bool HostKernels, class UView, class VView>
bool gram_host_blas(const Workspace<Device, HostKernels>& ws, const UView& U, const VView& V) {
  if constexpr (Workspace<Device, HostKernels>::on_host && std::is_same_v<typename UView::non_const_value_type, double> &&
                std::is_same_v<typename VView::non_const_value_type, double>) {
    if (!take_blas_path(ws, U, V)) return false;
    const int64_t n = static_cast<int64_t>(U.extent(0));
    const int p = static_cast<int>(U.extent(1)), q = static_cast<int>(V.extent(1));
    const int64_t chunk_rows = (n + ws.num_chunks - 1) / ws.num_chunks;
    const int64_t rows = blas_gram_block_rows(p, q, Workspace<Device, HostKernels>::blas_gram_block_entries);
    Kokkos::parallel_for("Sprocket::blocks::gram_blas", ws.range(0, ws.num_chunks),
                         GramChunkBlas<decltype(ws.partial)>{U.data(), V.data(), blas_ld(U), blas_ld(V), p, q, n,
                                                             chunk_rows, rows, ws.partial});
    return true;
  } else {
    (void)ws, (void)U, (void)V;
    return false;
  }
}

/// G = U^T V (U n x p, V n x q), accumulated in double. With symmetric (p == q, U^T V known to be
/// symmetric in exact arithmetic, e.g. X^T A X, or U == V) only tiles on and above the diagonal
/// are computed and the upper triangle is mirrored.
template <class Device, bool HostKernels, class UView, class VView>
DenseMatrix gram(const Workspace<Device, HostKernels>& ws, const UView& U, const VView& V, bool symmetric) {
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int p = static_cast<int>(U.extent(1)), q = static_cast<int>(V.extent(1));
  DenseMatrix G(p, q);
  if (p == 0 || q == 0) return G;
  if (n == 0) return G;
  SPROCKET_REQUIRE(int64_t{p} * q <= ws.max_entries, "blocks::gram: ", p, " x ", q,
                   " entries exceed the workspace (", ws.max_entries, ")");
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
                                              double(&acc)[4][4]) {
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
  const auto store = [=] KOKKOS_FUNCTION(int64_t c, int ti, int tj, const double(&acc)[4][4], bool add) {
    for (int b = 0; b < 4; ++b)
      for (int a = 0; a < 4; ++a) {
        const int i = 4 * ti + a, j = 4 * tj + b;
        if (i < p && j < q) {
          const int64_t e = i + int64_t{j} * p;
          partial(c, e) = add ? partial(c, e) + acc[a][b] : acc[a][b];
        }
      }
  };
  if (gram_host_blas(ws, U, V)) {  // (the full product; symmetric mirrors its upper triangle below)
    // partial sums are in ws.partial
  } else if constexpr (Workspace<Device, HostKernels>::on_host) {
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    const int64_t block = Workspace<Device, HostKernels>::host_row_block;
    Kokkos::parallel_for(
        "Sprocket::blocks::gram", ws.range(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
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
        "Sprocket::blocks::gram", ws.range(0, chunks * tiles), KOKKOS_LAMBDA(const int64_t item) {
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
template <class Device, bool HostKernels, class UView, class VView>
std::vector<double> column_dots(const Workspace<Device, HostKernels>& ws, const UView& U, const VView& V) {
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int q = static_cast<int>(U.extent(1));
  std::vector<double> d(q, 0.0);
  if (q == 0 || n == 0) return d;
  SPROCKET_REQUIRE(q <= ws.max_entries, "blocks::column_dots: ", q, " columns exceed the workspace (",
                   ws.max_entries, ")");
  const int64_t chunks = ws.num_chunks;
  const auto partial = ws.partial;
  if constexpr (Workspace<Device, HostKernels>::on_host) {
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    Kokkos::parallel_for(
        "Sprocket::blocks::column_dots", ws.range(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
          const int64_t begin = smaller(n, c * chunk_rows), end = smaller(n, begin + chunk_rows);
          for (int j = 0; j < q; ++j) {
            double sum = 0;
            for (int64_t r = begin; r < end; ++r) sum += static_cast<double>(U(r, j)) * static_cast<double>(V(r, j));
            partial(c, j) = sum;
          }
        });
  } else {
    Kokkos::parallel_for(
        "Sprocket::blocks::column_dots", ws.range(0, chunks * q), KOKKOS_LAMBDA(const int64_t item) {
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

/// Host BLAS path of combine (and of combine_gram with gram_of_result: each chunk's Y^T Y into
/// ws.partial, leading dimension q). Returns false when the call does not
/// qualify (take_blas_path, or C with no rows); the caller has checked the workspace sizes.
template <class Device, bool HostKernels, class UView, class YView>
bool combine_host_blas(const Workspace<Device, HostKernels>& ws, double alpha, const UView& U, const DenseMatrix& C, double beta,
                       const YView& Y, bool gram_of_result) {
  if constexpr (Workspace<Device, HostKernels>::on_host && std::is_same_v<typename UView::non_const_value_type, double> &&
                std::is_same_v<typename YView::value_type, double>) {
    if (C.rows < 1 || !take_blas_path(ws, U, Y)) return false;
    const int64_t n = static_cast<int64_t>(U.extent(0));
    const int64_t chunk_rows = (n + ws.num_chunks - 1) / ws.num_chunks;
    const int64_t gram_rows =
        gram_of_result ? blas_gram_block_rows(C.cols, C.cols, Workspace<Device, HostKernels>::blas_gram_block_entries) : 0;
    using Functor = CombineChunkBlas<decltype(ws.partial), decltype(ws.staging)>;
    Kokkos::parallel_for("Sprocket::blocks::combine_blas", ws.range(0, ws.num_chunks),
                         Functor{U.data(), blas_ld(U), Y.data(), blas_ld(Y), C.data.data(), C.rows, C.cols, alpha,
                                 beta, n, chunk_rows, ws.stage_rows, views_overlap(U, Y),
                                 ws.staging, gram_rows, ws.partial});
    ws.space.fence();  // C lives in the caller
    return true;
  } else {
    (void)ws, (void)alpha, (void)U, (void)C, (void)beta, (void)Y, (void)gram_of_result;
    return false;
  }
}

/// Y = alpha U C + beta Y (U n x k, C k x q on the host, Y n x q), accumulated in double (U C
/// first, then scaled and added); beta == 0 does not read Y. On the host Y may share columns with
/// U (in-place transforms of a block): each chunk stages a block of rows of the result before
/// writing it, and every row depends only on the same row of U. On a device Y must not alias U.
template <class Device, bool HostKernels, class UView, class YView>
void combine(const Workspace<Device, HostKernels>& ws, double alpha, const UView& U, const DenseMatrix& C, double beta,
             const YView& Y) {
  using value_type = typename YView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int k = C.rows, q = C.cols;
  if (n == 0 || q == 0) return;
  if constexpr (!Workspace<Device, HostKernels>::on_host) {
    // Threads of one row read U's row while others write Y's: in place, the result is wrong.
    const auto u_begin = reinterpret_cast<uintptr_t>(U.data()), y_begin = reinterpret_cast<uintptr_t>(Y.data());
    const uintptr_t u_end = u_begin + U.span() * sizeof(typename UView::value_type),
                    y_end = y_begin + Y.span() * sizeof(value_type);
    SPROCKET_REQUIRE(y_end <= u_begin || u_end <= y_begin, "blocks::combine: on a device Y (", Y.extent(0), " x ",
                     Y.extent(1), ") must not overlap U (", U.extent(0), " x ", U.extent(1),
                     "): write the update to a separate block");
  }
  const int64_t entries = int64_t{k} * q;
  SPROCKET_REQUIRE(entries <= ws.max_entries && q <= ws.max_cols, "blocks::combine: a ", k, " x ", q,
                   " coefficient matrix exceeds the workspace (", ws.max_entries, " entries, ", ws.max_cols,
                   " columns)");
  if (combine_host_blas(ws, alpha, U, C, beta, Y, false)) return;
  for (int64_t e = 0; e < entries; ++e) ws.coefficients_host(e) = C.data[e];
  if (entries > 0) {
    Kokkos::deep_copy(ws.space, Kokkos::subview(ws.coefficients, std::make_pair(int64_t{0}, entries)),
                      Kokkos::subview(ws.coefficients_host, std::make_pair(int64_t{0}, entries)));
    ws.space.fence();  // the host array is rewritten by the next call
  }
  const auto coeff = ws.coefficients;
  if constexpr (Workspace<Device, HostKernels>::on_host) {
    // Blocks of rows so the innermost loop runs over contiguous rows of a column (vectorizable).
    constexpr int64_t rows = Workspace<Device, HostKernels>::combine_rows;
    const int64_t chunks = ws.num_chunks;
    const int64_t chunk_rows = (n + chunks - 1) / chunks;
    const auto staging = ws.staging;
    Kokkos::parallel_for(
        "Sprocket::blocks::combine", ws.range(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
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
                Y(r0 + i, j) = static_cast<value_type>(prior + alpha * out[j * rows + i]);
              }
          }
        });
  } else {
    // A thread per row: coalesced over rows, C read through the cache by every thread.
    Kokkos::parallel_for(
        "Sprocket::blocks::combine", ws.range(0, n), KOKKOS_LAMBDA(const int64_t r) {
          for (int j = 0; j < q; ++j) {
            double acc = 0;
            for (int l = 0; l < k; ++l) acc += static_cast<double>(U(r, l)) * coeff(l + int64_t{j} * k);
            const double prior = beta == 0.0 ? 0.0 : beta * static_cast<double>(Y(r, j));
            Y(r, j) = static_cast<value_type>(prior + alpha * acc);
          }
        });
  }
}

/// combine(ws, alpha, U, C, beta, Y), then returns Y^T Y (q x q, symmetric): on the host BLAS
/// path in the same parallel region (each chunk's Gram of the rows it has just written, while
/// they are in cache: one region and one fence less per call), elsewhere as combine + gram.
/// Y may overlap U as for combine.
template <class Device, bool HostKernels, class UView, class YView>
DenseMatrix combine_gram(const Workspace<Device, HostKernels>& ws, double alpha, const UView& U, const DenseMatrix& C, double beta,
                         const YView& Y) {
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int k = C.rows, q = C.cols;
  SPROCKET_REQUIRE(int64_t{k} * q <= ws.max_entries && int64_t{q} * q <= ws.max_entries && q <= ws.max_cols,
                   "blocks::combine_gram: a ", k, " x ", q, " coefficient matrix exceeds the workspace (",
                   ws.max_entries, " entries, ", ws.max_cols, " columns)");
  if (n > 0 && q > 0 && combine_host_blas(ws, alpha, U, C, beta, Y, true)) {
    reduce_partials(ws, int64_t{q} * q);
    DenseMatrix G(q, q);
    for (int j = 0; j < q; ++j)  // the upper triangle, mirrored: exactly symmetric
      for (int i = 0; i <= j; ++i) G(i, j) = G(j, i) = ws.reduced_host(i + int64_t{j} * q);
    return G;
  }
  combine(ws, alpha, U, C, beta, Y);
  return gram(ws, Y, Y, true);
}

/// Copies the column numbers to the device (ws.index) and returns that view, for kernels that
/// address columns by number.
template <class Device, bool HostKernels>
Kokkos::View<int*, Device> upload_columns(const Workspace<Device, HostKernels>& ws, const std::vector<int>& columns) {
  const int q = static_cast<int>(columns.size());
  SPROCKET_REQUIRE(q <= ws.max_cols, "blocks::upload_columns: ", q, " columns exceed the workspace (", ws.max_cols,
                   ")");
  for (int c = 0; c < q; ++c) ws.index_host(c) = columns[c];
  Kokkos::deep_copy(ws.space, Kokkos::subview(ws.index, std::make_pair(0, q)),
                    Kokkos::subview(ws.index_host, std::make_pair(0, q)));
  ws.space.fence();  // the host array is rewritten by the next call
  return Kokkos::subview(ws.index, std::make_pair(0, q));
}

/// Y(:, c) = U(:, index(c)) for c < index.extent(0) (index on the device).
template <class ExecSpace, class UView, class Index, class YView>
void gather_columns(const ExecSpace& space, const UView& U, const Index& index, const YView& Y) {
  const int64_t n = static_cast<int64_t>(U.extent(0));
  const int q = static_cast<int>(index.extent(0));
  if (n == 0 || q == 0) return;
  Kokkos::parallel_for(
      "Sprocket::blocks::gather_columns", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const int64_t r) {
        for (int c = 0; c < q; ++c) Y(r, c) = U(r, index(c));
      });
}

/// Y(:, c) = U(:, columns[c]).
template <class Device, bool HostKernels, class UView, class YView>
void gather_columns(const Workspace<Device, HostKernels>& ws, const UView& U, const std::vector<int>& columns, const YView& Y) {
  if (U.extent(0) == 0 || columns.empty()) return;
  gather_columns(ws.space, U, upload_columns(ws, columns), Y);
}

/// Uniform values in [-1, 1) from a counter-based hash of (seed, column-major entry index)
/// (splitmix64 finalizer), the same on every device and thread count.
template <class ExecSpace, class XView>
void fill_random(const ExecSpace& space, const XView& X, uint64_t seed) {
  const int64_t n = static_cast<int64_t>(X.extent(0));
  const int q = static_cast<int>(X.extent(1));
  using value_type = typename XView::non_const_value_type;
  Kokkos::parallel_for(
      "Sprocket::blocks::fill_random", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const int64_t r) {
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

/// Column of the first NaN or Inf in X (column-major scan), or -1 when every entry is finite.
template <class ExecSpace, class XView>
int64_t first_nonfinite_column(const ExecSpace& space, const XView& X) {
  const int64_t n = static_cast<int64_t>(X.extent(0)), p = static_cast<int64_t>(X.extent(1));
  if (n * p == 0) return -1;
  int64_t first = n * p;
  Kokkos::parallel_reduce(
      "Sprocket::blocks::nonfinite_scan", Kokkos::RangePolicy<ExecSpace>(space, 0, n * p),
      KOKKOS_LAMBDA(const int64_t t, int64_t& m) {
        const double v = static_cast<double>(X(t % n, t / n));
        if (!(v - v == 0.0) && t < m) m = t;  // v - v is NaN for NaN and for +-Inf
      },
      Kokkos::Min<int64_t>(first));
  space.fence();
  return first < n * p ? first / n : -1;
}

}  // namespace blocks
}  // namespace Impl
}  // namespace Sprocket
