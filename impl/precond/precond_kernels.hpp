#pragma once
/// \file precond_kernels.hpp
/// Device kernels of the preconditioners: diagonal and diagonal-block extraction, their
/// application to multivectors, and the Chebyshev recurrence. Free functions (nvcc refuses
/// extended lambdas in private member functions). Multivectors are LayoutLeft: flat loops run
/// the row index fastest, so consecutive threads touch consecutive entries of a column.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>

namespace Sprocket {
namespace Impl {
namespace precond {

/// diag(i) = sum of A's stored entries (i, i) (duplicates add; 0 when none is stored).
template <class CrsType, class DiagView>
void extract_diagonal(const CrsType& A, const DiagView& diag) {
  using ExecSpace = typename CrsType::execution_space;
  using Value = typename DiagView::non_const_value_type;
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::precond::extract_diagonal", Kokkos::RangePolicy<ExecSpace>(0, diag.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) {
        Value sum = 0;
        for (int64_t k = row_map(i); k < static_cast<int64_t>(row_map(i + 1)); ++k)
          if (static_cast<int64_t>(entries(k)) == i) sum += values(k);
        diag(i) = sum;
      });
}

/// blocks(k*b*b + r*b + c) = A(k*b + r, k*b + c) summed over duplicates, for the diagonal
/// blocks of a CRS matrix cut every b rows (the last block may be smaller: its slot keeps zeros
/// outside the leading part). blocks must be zero on entry.
template <class CrsType, class BlockView>
void extract_diagonal_blocks(const CrsType& A, int64_t b, const BlockView& blocks) {
  using ExecSpace = typename CrsType::execution_space;
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  const int64_t n = A.numRows();
  Kokkos::parallel_for(
      "Sprocket::precond::extract_diagonal_blocks", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(const int64_t i) {
        const int64_t block = i / b, r = i % b, first = block * b;
        for (int64_t k = row_map(i); k < static_cast<int64_t>(row_map(i + 1)); ++k) {
          const int64_t c = static_cast<int64_t>(entries(k)) - first;
          if (c >= 0 && c < b && first + c < n) blocks(block * b * b + r * b + c) += values(k);
        }
      });
}

/// The diagonal blocks of a BsrMatrix (row-major inside a block, as the BSR stores them),
/// duplicates summed; a block row without a diagonal block leaves zeros.
template <class BsrType, class BlockView>
void extract_bsr_diagonal_blocks(const BsrType& A, const BlockView& blocks) {
  using ExecSpace = typename BsrType::execution_space;
  const auto row_map = A.row_map;
  const auto entries = A.entries;
  const auto values = A.values;
  const int64_t bb = static_cast<int64_t>(A.block_size()) * A.block_size();
  Kokkos::parallel_for(
      "Sprocket::precond::extract_bsr_diagonal_blocks", Kokkos::RangePolicy<ExecSpace>(0, A.num_block_rows()),
      KOKKOS_LAMBDA(const int64_t I) {
        for (int64_t k = row_map(I); k < static_cast<int64_t>(row_map(I + 1)); ++k)
          if (static_cast<int64_t>(entries(k)) == I)
            for (int64_t e = 0; e < bb; ++e) blocks(I * bb + e) += values(k * bb + e);
      });
}

/// Y(i, q) = d(i) X(i, q).
template <class DiagView, class XView, class YView>
void scale_rows(const DiagView& d, const XView& X, const YView& Y) {
  using ExecSpace = typename YView::execution_space;
  const int64_t n = static_cast<int64_t>(Y.extent(0)), s = static_cast<int64_t>(Y.extent(1));
  Kokkos::parallel_for(
      "Sprocket::precond::jacobi_apply", Kokkos::RangePolicy<ExecSpace>(0, n * s),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        Y(i, q) = d(i) * X(i, q);
      });
}

/// Y(i, q) = sum_c inv(k*b*b + r*b + c) X(k*b + c, q) with k = i / b, r = i % b, over the columns
/// c of i's block (the last block may be smaller than b).
template <class BlockView, class XView, class YView>
void apply_block_diagonal(const BlockView& inv, int64_t b, const XView& X, const YView& Y) {
  using ExecSpace = typename YView::execution_space;
  using Value = typename YView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(Y.extent(0)), s = static_cast<int64_t>(Y.extent(1));
  Kokkos::parallel_for(
      "Sprocket::precond::block_jacobi_apply", Kokkos::RangePolicy<ExecSpace>(0, n * s),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        const int64_t block = i / b, r = i % b, first = block * b;
        const int64_t size = first + b <= n ? b : n - first;
        Value sum = 0;
        for (int64_t c = 0; c < size; ++c) sum += inv(block * b * b + r * b + c) * X(first + c, q);
        Y(i, q) = sum;
      });
}

/// First Chebyshev step from a zero initial guess: R = X, D = (1/theta) D^{-1} X, Y = D.
/// An empty dinv means no scaling (D = I).
template <class DiagView, class XView, class MView>
void chebyshev_first(const DiagView& dinv, const XView& X, double inv_theta, const MView& R, const MView& D,
                     const MView& Y) {
  using ExecSpace = typename MView::execution_space;
  using Value = typename MView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(Y.extent(0)), s = static_cast<int64_t>(Y.extent(1));
  const bool scaled = dinv.extent(0) > 0;
  Kokkos::parallel_for(
      "Sprocket::precond::chebyshev_first", Kokkos::RangePolicy<ExecSpace>(0, n * s),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        const Value x = X(i, q);
        const Value d = static_cast<Value>(inv_theta) * (scaled ? dinv(i) * x : x);
        R(i, q) = x;
        D(i, q) = d;
        Y(i, q) = d;
      });
}

/// Later steps: R -= AD; D = c_old D + c_new D^{-1} R; Y += D.
template <class DiagView, class MView>
void chebyshev_step(const DiagView& dinv, const MView& AD, double c_old, double c_new, const MView& R,
                    const MView& D, const MView& Y) {
  using ExecSpace = typename MView::execution_space;
  using Value = typename MView::non_const_value_type;
  const int64_t n = static_cast<int64_t>(Y.extent(0)), s = static_cast<int64_t>(Y.extent(1));
  const bool scaled = dinv.extent(0) > 0;
  Kokkos::parallel_for(
      "Sprocket::precond::chebyshev_step", Kokkos::RangePolicy<ExecSpace>(0, n * s),
      KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        const Value r = R(i, q) - AD(i, q);
        const Value d = static_cast<Value>(c_old) * D(i, q) + static_cast<Value>(c_new) * (scaled ? dinv(i) * r : r);
        R(i, q) = r;
        D(i, q) = d;
        Y(i, q) += d;
      });
}

/// y(i) = d(i) y(i) (empty d: nothing), then returns ||y||_2 (double accumulation).
template <class DiagView, class YView>
double scale_and_norm(const DiagView& d, const YView& y) {
  using ExecSpace = typename YView::execution_space;
  const bool scaled = d.extent(0) > 0;
  double sum = 0;
  Kokkos::parallel_reduce(
      "Sprocket::precond::scale_and_norm", Kokkos::RangePolicy<ExecSpace>(0, y.extent(0)),
      KOKKOS_LAMBDA(const int64_t i, double& s) {
        if (scaled) y(i, 0) = d(i) * y(i, 0);
        const double v = static_cast<double>(y(i, 0));
        s += v * v;
      },
      sum);
  return std::sqrt(sum);
}

/// x(:, 0) = factor * y(:, 0).
template <class XView, class YView>
void scale_copy(const YView& y, double factor, const XView& x) {
  using ExecSpace = typename XView::execution_space;
  using Value = typename XView::non_const_value_type;
  Kokkos::parallel_for(
      "Sprocket::precond::scale_copy", Kokkos::RangePolicy<ExecSpace>(0, x.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { x(i, 0) = static_cast<Value>(factor * static_cast<double>(y(i, 0))); });
}

/// Z(i, q) = r(i) X(row_perm(i), q).
template <class ExecSpace, class XView, class ZView, class IndexView, class ScaleView>
void gather_scaled_rows(const XView& X, const ZView& Z, const IndexView& row_perm, const ScaleView& r) {
  const int64_t n = static_cast<int64_t>(Z.extent(0)), s = static_cast<int64_t>(Z.extent(1));
  Kokkos::parallel_for(
      "Sprocket::precond::ilu_gather", Kokkos::RangePolicy<ExecSpace>(0, n * s), KOKKOS_LAMBDA(const int64_t t) {
        const int64_t i = t % n, q = t / n;
        Z(i, q) = r(i) * X(row_perm(i), q);
      });
}

/// Y(col_perm(j), q) = c(j) Z(j, q).
template <class ExecSpace, class ZView, class YView, class IndexView, class ScaleView>
void scatter_scaled_rows(const ZView& Z, const YView& Y, const IndexView& col_perm, const ScaleView& c) {
  const int64_t n = static_cast<int64_t>(Z.extent(0)), s = static_cast<int64_t>(Z.extent(1));
  Kokkos::parallel_for(
      "Sprocket::precond::ilu_scatter", Kokkos::RangePolicy<ExecSpace>(0, n * s), KOKKOS_LAMBDA(const int64_t t) {
        const int64_t j = t % n, q = t / n;
        Y(col_perm(j), q) = c(j) * Z(j, q);
      });
}

}  // namespace precond
}  // namespace Impl
}  // namespace Sprocket
