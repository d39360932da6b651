#pragma once
/// \file lobpcg_kernels.hpp
/// The one device kernel only LOBPCG needs: the residual block AX - MX diag(lambda) with its
/// column norms, fused into one pass. Everything else LOBPCG does on n-long blocks (Gram
/// matrices, block updates, gathers, random fill, finiteness scan) is in impl/blocks/block_ops.hpp.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "impl/blocks/block_ops.hpp"

namespace Sprocket {
namespace Impl {
namespace lobpcg {

using blocks::Workspace;

/// R(:, j) = AX(:, j) - lambda_j MX(:, j) for every column j, in one pass that also returns
/// the squared 2-norms of R's and X's columns (in that order, 2q values), accumulated in double.
template <class Device, class XView, class RView>
std::vector<double> residuals_and_norms(const Workspace<Device>& ws, const XView& X, const XView& AX, const XView& MX,
                                        const std::vector<double>& lambda, const RView& R) {
  const int64_t n = static_cast<int64_t>(X.extent(0));
  const int q = static_cast<int>(X.extent(1));
  std::vector<double> norms(2 * q, 0.0);
  if (n == 0 || q == 0) return norms;
  for (int j = 0; j < q; ++j) ws.coefficients_host(j) = lambda[j];
  Kokkos::deep_copy(ws.space, Kokkos::subview(ws.coefficients, std::make_pair(0, q)),
                    Kokkos::subview(ws.coefficients_host, std::make_pair(0, q)));
  ws.space.fence();  // the host array is rewritten by the next call
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
        "Sprocket::lobpcg::residuals", ws.range(0, chunks), KOKKOS_LAMBDA(const int64_t c) {
          const int64_t begin = blocks::smaller(n, c * chunk_rows), end = blocks::smaller(n, begin + chunk_rows);
          for (int j = 0; j < q; ++j) column(c, j, begin, end, 1);
        });
  } else {
    Kokkos::parallel_for(
        "Sprocket::lobpcg::residuals", ws.range(0, chunks * q), KOKKOS_LAMBDA(const int64_t item) {
          column(item % chunks, static_cast<int>(item / chunks), item % chunks, n, chunks);
        });
  }
  blocks::reduce_partials(ws, 2 * q);
  for (int e = 0; e < 2 * q; ++e) norms[e] = ws.reduced_host(e);
  return norms;
}

}  // namespace lobpcg
}  // namespace Impl
}  // namespace Sprocket
