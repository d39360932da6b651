#pragma once
/// \file block_gmres_kernels.hpp
/// Device kernels of block GMRES: the two tall-and-skinny products of block Gram-Schmidt
/// (G = X^T Y and Y += alpha X G), column norms, gathers and scatters of the active right-hand
/// sides, a finiteness scan and a reproducible random fill. Free functions (nvcc refuses
/// extended lambdas in private member functions).
///
/// Why our own X^T Y instead of KokkosBlas::gemm("T", "N"): the output is tiny (at most
/// (m+1)s x s) and the inner dimension is n. A gemm that parallelizes over output tiles gets a
/// handful of teams, each streaming whole columns; here every team owns a chunk of rows and
/// computes all output entries for it (double partial sums), and a second pass adds the chunks in
/// a fixed order, so results do not depend on scheduling. On the host an entry index runs over
/// Y's columns fastest, so a chunk of X's column stays in cache while it meets every column of Y.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "Sprocket_Operator.hpp"

namespace Sprocket {
namespace Impl {
namespace gmres {

/// GPU-like execution space (CUDA, HIP, SYCL): one that cannot run on host memory, even when its
/// default memory is host-accessible (UVM).
template <class ExecSpace>
inline constexpr bool is_device_space_v =
    is_cuda_space_v<ExecSpace> || !Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

/// Scratch for inner_products: per-team partial sums and the reduced result.
template <class Device>
struct InnerProductWorkspace {
  using execution_space = typename Device::execution_space;
  Kokkos::View<double*, Device> partial;  // max_league x max_entries
  Kokkos::View<double*, Device> result;   // max_entries
  typename Kokkos::View<double*, Device>::HostMirror result_host;
  int64_t max_league = 1;
  int64_t max_entries = 0;
  int vector_length = 1;
  /// Rows per team (device) or per chunk (host) at least: below this the setup of a team, or
  /// the pass over all output entries, dominates the chunk's work.
  static constexpr int64_t min_rows_per_team = 512;

  InnerProductWorkspace() = default;
  explicit InnerProductWorkspace(int64_t num_entries) : max_entries(std::max<int64_t>(num_entries, 1)) {
    constexpr bool device = is_device_space_v<execution_space>;
    const int64_t concurrency = std::max<int64_t>(1, execution_space().concurrency());
    // Host: a few teams per thread for load balance. Device: one team per 256 resident threads
    // (a team of AUTO size x 32 lanes fills that), enough to occupy every multiprocessor.
    max_league = device ? std::max<int64_t>(1, concurrency / 256) : 4 * concurrency;
    vector_length = device ? 32 : 1;
    partial = Kokkos::View<double*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::partial"),
                                            max_league * max_entries);
    result = Kokkos::View<double*, Device>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::block_gmres::dots"),
                                           max_entries);
    result_host = Kokkos::create_mirror_view(result);
  }
};

/// out = X^T Y (column-major, X.extent(1) x Y.extent(1)), or only its diagonal (length
/// Y.extent(1), requires X.extent(1) >= Y.extent(1)) when diagonal_only: accumulated in double.
template <class Device, class XView, class YView>
void inner_products(const InnerProductWorkspace<Device>& ws, const XView& X, const YView& Y,
                    bool diagonal_only, double* out) {
  using ExecSpace = typename Device::execution_space;
  const int64_t n = static_cast<int64_t>(X.extent(0));
  const int64_t na = static_cast<int64_t>(X.extent(1)), nb = static_cast<int64_t>(Y.extent(1));
  const int64_t entries = diagonal_only ? nb : na * nb;
  if (entries == 0) return;
  SPROCKET_REQUIRE(entries <= ws.max_entries, "block_gmres: ", entries, " inner products exceed the workspace (",
                   ws.max_entries, ")");
  if (n == 0) {
    std::fill(out, out + entries, 0.0);
    return;
  }
  int64_t league = std::min<int64_t>(ws.max_league, (n + ws.min_rows_per_team - 1) / ws.min_rows_per_team);
  league = std::max<int64_t>(league, 1);
  const int64_t chunk = (n + league - 1) / league;
  league = (n + chunk - 1) / chunk;
  const auto partial = ws.partial;
  if constexpr (is_device_space_v<ExecSpace>) {
    // A team per row chunk; its threads take output entries, each reduced over the chunk by the
    // vector lanes (coalesced reads of both columns).
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Member = typename Policy::member_type;
    Kokkos::parallel_for(
        "Sprocket::block_gmres::inner_products", Policy(league, Kokkos::AUTO, ws.vector_length),
        KOKKOS_LAMBDA(const Member& member) {
          const int64_t l = member.league_rank();
          const int64_t begin = l * chunk, end = begin + chunk < n ? begin + chunk : n;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, entries), [&](const int64_t e) {
            const int64_t a = diagonal_only ? e : e / nb, b = diagonal_only ? e : e % nb;
            double sum = 0;
            Kokkos::parallel_reduce(
                Kokkos::ThreadVectorRange(member, begin, end),
                [&](const int64_t i, double& s) { s += static_cast<double>(X(i, a)) * static_cast<double>(Y(i, b)); },
                sum);
            Kokkos::single(Kokkos::PerThread(member), [&]() { partial(l * entries + e) = sum; });
          });
        });
  } else {
    // A thread per row chunk computes every entry for it: contiguous dot products with four
    // independent sums (the compiler may not reorder a floating-point reduction itself), X's
    // column chunk reused from L1 across Y's columns.
    Kokkos::parallel_for(
        "Sprocket::block_gmres::inner_products", Kokkos::RangePolicy<ExecSpace>(0, league),
        KOKKOS_LAMBDA(const int64_t l) {
          const int64_t begin = l * chunk, end = begin + chunk < n ? begin + chunk : n;
          for (int64_t e = 0; e < entries; ++e) {
            const int64_t a = diagonal_only ? e : e / nb, b = diagonal_only ? e : e % nb;
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            int64_t i = begin;
            for (; i + 3 < end; i += 4) {
              s0 += static_cast<double>(X(i, a)) * static_cast<double>(Y(i, b));
              s1 += static_cast<double>(X(i + 1, a)) * static_cast<double>(Y(i + 1, b));
              s2 += static_cast<double>(X(i + 2, a)) * static_cast<double>(Y(i + 2, b));
              s3 += static_cast<double>(X(i + 3, a)) * static_cast<double>(Y(i + 3, b));
            }
            for (; i < end; ++i) s0 += static_cast<double>(X(i, a)) * static_cast<double>(Y(i, b));
            partial(l * entries + e) = (s0 + s1) + (s2 + s3);
          }
        });
  }
  const auto result = ws.result;
  Kokkos::parallel_for(
      "Sprocket::block_gmres::inner_products_reduce", Kokkos::RangePolicy<ExecSpace>(0, entries),
      KOKKOS_LAMBDA(const int64_t e) {
        double sum = 0;
        for (int64_t t = 0; t < league; ++t) sum += partial(t * entries + e);
        result(e) = sum;
      });
  Kokkos::deep_copy(Kokkos::subview(ws.result_host, Kokkos::pair<int64_t, int64_t>(0, entries)),
                    Kokkos::subview(result, Kokkos::pair<int64_t, int64_t>(0, entries)));
  for (int64_t e = 0; e < entries; ++e) {
    if (diagonal_only) {
      out[e] = ws.result_host(e);
    } else {
      const int64_t a = e / nb, b = e % nb;
      out[a + na * b] = ws.result_host(e);
    }
  }
}

/// Y(:, b) = beta * Y(:, b) + alpha * sum_a X(:, a) G(a, b), G column-major with leading
/// dimension X.extent(1), on the device (double). beta == 0 overwrites Y without reading it.
/// Y may not overlap X.
template <class XView, class GView, class YView>
void block_update(double alpha, const XView& X, const GView& G, double beta, const YView& Y) {
  using ExecSpace = typename YView::execution_space;
  using Value = typename YView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(Y.extent(0));
  const int64_t na = static_cast<int64_t>(X.extent(1)), nb = static_cast<int64_t>(Y.extent(1));
  if constexpr (is_device_space_v<ExecSpace>) {
    // A thread per row: coalesced over rows, G read through the cache by every thread.
    Kokkos::parallel_for(
        "Sprocket::block_gmres::block_update", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(const int64_t i) {
          for (int64_t b = 0; b < nb; ++b) {
            double sum = 0;
            for (int64_t a = 0; a < na; ++a) sum += static_cast<double>(X(i, a)) * G(a + na * b);
            const double old = beta == 0.0 ? 0.0 : beta * static_cast<double>(Y(i, b));
            Y(i, b) = static_cast<Value>(old + alpha * sum);
          }
        });
  } else {
    // A thread per chunk of rows small enough for Y's chunk to stay in L1: column axpys with a
    // contiguous, vectorizable inner loop; each column chunk of X is read once.
    constexpr int64_t chunk = 256;
    const int64_t chunks = (n + chunk - 1) / chunk;
    Kokkos::parallel_for(
        "Sprocket::block_gmres::block_update", Kokkos::RangePolicy<ExecSpace>(0, chunks),
        KOKKOS_LAMBDA(const int64_t t) {
          const int64_t begin = t * chunk, end = begin + chunk < n ? begin + chunk : n;
          double acc[chunk];
          for (int64_t b = 0; b < nb; ++b) {
            for (int64_t i = begin; i < end; ++i) acc[i - begin] = 0;
            for (int64_t a = 0; a < na; ++a) {
              const double g = G(a + na * b);
              if (g == 0.0) continue;
              for (int64_t i = begin; i < end; ++i) acc[i - begin] += g * static_cast<double>(X(i, a));
            }
            for (int64_t i = begin; i < end; ++i) {
              const double old = beta == 0.0 ? 0.0 : beta * static_cast<double>(Y(i, b));
              Y(i, b) = static_cast<Value>(old + alpha * acc[i - begin]);
            }
          }
        });
  }
}

/// dst(:, d) = factor * src(:, s) (columns of LayoutLeft multivectors).
template <class SrcView, class DstView>
void scaled_column_copy(const SrcView& src, int64_t s, double factor, const DstView& dst, int64_t d) {
  using ExecSpace = typename DstView::execution_space;
  using Value = typename DstView::non_const_value_type;
  Kokkos::parallel_for(
      "Sprocket::block_gmres::scaled_column_copy", Kokkos::RangePolicy<ExecSpace>(0, dst.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { dst(i, d) = static_cast<Value>(factor * static_cast<double>(src(i, s))); });
}

/// out(:, q) = in(:, cols(q)) for q < cols.extent(0).
template <class InView, class OutView, class Cols>
void gather_columns(const InView& in, const Cols& cols, const OutView& out) {
  using ExecSpace = typename OutView::execution_space;
  const int64_t n = static_cast<int64_t>(out.extent(0)), k = static_cast<int64_t>(cols.extent(0));
  Kokkos::parallel_for(
      "Sprocket::block_gmres::gather_columns", Kokkos::RangePolicy<ExecSpace>(0, n * k),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        out(i, q) = in(i, cols(q));
      });
}

/// R(:, q) = B(:, cols(q)) - R(:, q): turns A X(:, cols) held in R into the residual.
template <class BView, class RView, class Cols>
void residual_from_product(const BView& B, const Cols& cols, const RView& R) {
  using ExecSpace = typename RView::execution_space;
  const int64_t n = static_cast<int64_t>(R.extent(0)), k = static_cast<int64_t>(cols.extent(0));
  Kokkos::parallel_for(
      "Sprocket::block_gmres::residual", Kokkos::RangePolicy<ExecSpace>(0, n * k),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        R(i, q) = B(i, cols(q)) - R(i, q);
      });
}

/// X(:, cols(q)) += D(:, q).
template <class DView, class XView, class Cols>
void scatter_add_columns(const DView& D, const Cols& cols, const XView& X) {
  using ExecSpace = typename XView::execution_space;
  const int64_t n = static_cast<int64_t>(X.extent(0)), k = static_cast<int64_t>(cols.extent(0));
  Kokkos::parallel_for(
      "Sprocket::block_gmres::scatter_add", Kokkos::RangePolicy<ExecSpace>(0, n * k),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        X(i, cols(q)) += D(i, q);
      });
}

/// Column of the first NaN or Inf in X (column-major scan), or -1 when every entry is finite.
template <class XView>
int64_t first_nonfinite_column(const XView& X) {
  using ExecSpace = typename XView::execution_space;
  const int64_t n = static_cast<int64_t>(X.extent(0)), p = static_cast<int64_t>(X.extent(1));
  if (n * p == 0) return -1;
  int64_t first = n * p;
  Kokkos::parallel_reduce(
      "Sprocket::block_gmres::nonfinite_scan", Kokkos::RangePolicy<ExecSpace>(0, n * p),
      KOKKOS_LAMBDA(const int64_t t, int64_t& m) {
        const double v = static_cast<double>(X(t % n, t / n));
        if (!(v - v == 0.0) && t < m) m = t;  // v - v is NaN for NaN and for +-Inf
      },
      Kokkos::Min<int64_t>(first));
  return first < n * p ? first / n : -1;
}

/// Fills X with values uniform in [-1, 1) hashed from (seed, entry): the same on every backend.
template <class XView>
void fill_random(const XView& X, uint64_t seed) {
  using ExecSpace = typename XView::execution_space;
  using Value = typename XView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(X.extent(0)), p = static_cast<int64_t>(X.extent(1));
  Kokkos::parallel_for(
      "Sprocket::block_gmres::fill_random", Kokkos::RangePolicy<ExecSpace>(0, n * p),
      KOKKOS_LAMBDA(const int64_t t) {
        // splitmix64 finalizer of (seed, t)
        uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        X(t % n, t / n) = static_cast<Value>(2.0 * (static_cast<double>(z >> 11) * 0x1.0p-53) - 1.0);
      });
}

}  // namespace gmres
}  // namespace Impl
}  // namespace Sprocket
