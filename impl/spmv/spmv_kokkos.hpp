#pragma once
// Portable Kokkos implementation of the SpMV kernel family (any execution space): one launch per
// bin, then the split rows, for mode N and rank 1 (spmv_apply); and the two pieces of mode T
// that impl/spmv/spmv_dispatch.hpp routes here on every space: the atomic scatter and the value
// refresh of the cached transpose.
//
//  thread_per_row  RangePolicy over (virtual row, row in it) slots
//  subvectorX      TeamPolicy with vector length X (clamped to what the space allows): a team
//                  thread per row, its vector lanes reduce the row (warp shuffles on GPUs)
//  team_per_row    TeamPolicy, one team per virtual row, TeamThreadRange reduction per row
//  split_row       y(r) scaled by beta first, then one team per chunk adds alpha * partial
//                  atomically
//
// Every kernel writes every row of its virtual rows, empty rows included (y = beta * y).
#include <Kokkos_Core.hpp>

#include "impl/spmv/spmv_analysis.hpp"

namespace Sprocket {
namespace Impl {
namespace kokkos {

/// y(r) = alpha * sum + beta * y(r), with beta == 0 not reading y.
template <class YView, class Scalar>
KOKKOS_INLINE_FUNCTION void spmv_store(const YView& y, int64_t r, Scalar alpha, Scalar sum, Scalar beta) {
  y(r) = beta == Scalar(0) ? alpha * sum : beta * y(r) + alpha * sum;
}

template <class ExecSpace, class AMatrix, class Bin, class Bounds, class XView, class YView, class Scalar>
void spmv_thread_per_row(const ExecSpace& space, const AMatrix& A, const Bin& bin, const Bounds& bounds,
                         Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  const int64_t U = bin.rows_per_vrow;
  const auto vrows = bin.vrows;
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::spmv::thread_per_row", Kokkos::RangePolicy<ExecSpace>(space, 0, bin.num_vrows * U),
      KOKKOS_LAMBDA(const int64_t slot) {
        const auto v = vrows(slot / U);
        const int64_t r = bounds(v) + slot % U;
        if (r >= bounds(v + 1)) return;
        Scalar sum = 0;
        for (auto k = row_map(r); k < row_map(r + 1); ++k) sum += Scalar(values(k)) * Scalar(x(entries(k)));
        spmv_store(y, r, alpha, sum, beta);
      });
}

template <class ExecSpace, class AMatrix, class Bin, class Bounds, class XView, class YView, class Scalar>
void spmv_subvector(const ExecSpace& space, const AMatrix& A, const Bin& bin, const Bounds& bounds,
                    int lanes, Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int vector_length = std::max(1, std::min(lanes, static_cast<int>(Policy::vector_length_max())));
  // About 256 lanes per team on GPUs; on the host a team is one thread's worth of rows.
  const int team_size = Impl::is_host_space_v<ExecSpace> ? 1 : std::max(1, 256 / vector_length);
  const int64_t U = bin.rows_per_vrow;
  const int64_t slots = bin.num_vrows * U;
  const int64_t league = (slots + team_size - 1) / team_size;
  const auto vrows = bin.vrows;
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::spmv::subvector", Policy(space, league, team_size, vector_length),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t slot = team.league_rank() * int64_t(team.team_size()) + team.team_rank();
        if (slot >= slots) return;
        const auto v = vrows(slot / U);
        const int64_t r = bounds(v) + slot % U;
        if (r >= bounds(v + 1)) return;
        const auto begin = row_map(r);
        const int64_t len = row_map(r + 1) - begin;
        Scalar sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, len),
            [&](const int64_t k, Scalar& s) { s += Scalar(values(begin + k)) * Scalar(x(entries(begin + k))); }, sum);
        Kokkos::single(Kokkos::PerThread(team), [&]() { spmv_store(y, r, alpha, sum, beta); });
      });
}

template <class ExecSpace, class AMatrix, class Bin, class Bounds, class XView, class YView, class Scalar>
void spmv_team_per_row(const ExecSpace& space, const AMatrix& A, const Bin& bin, const Bounds& bounds,
                       Scalar alpha, const XView& x, Scalar beta, const YView& y) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int team_size = Impl::is_host_space_v<ExecSpace> ? 1 : 128;
  const auto vrows = bin.vrows;
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::spmv::team_per_row", Policy(space, bin.num_vrows, team_size),
      KOKKOS_LAMBDA(const Member& team) {
        const auto v = vrows(team.league_rank());
        for (int64_t r = bounds(v); r < int64_t(bounds(v + 1)); ++r) {
          const auto begin = row_map(r);
          const int64_t len = row_map(r + 1) - begin;
          Scalar sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, len),
              [&](const int64_t k, Scalar& s) { s += Scalar(values(begin + k)) * Scalar(x(entries(begin + k))); }, sum);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { spmv_store(y, r, alpha, sum, beta); });
          team.team_barrier();
        }
      });
}

/// Split rows: scale y(r) by beta, then every chunk adds alpha * (its partial dot) atomically.
template <class ExecSpace, class AMatrix, class Sched, class XView, class YView, class Scalar>
void spmv_split_rows(const ExecSpace& space, const AMatrix& A, const Sched& s, Scalar alpha,
                     const XView& x, Scalar beta, const YView& y) {
  if (s.num_split_rows == 0) return;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const auto split_rows = s.split_rows;
  const auto chunk_begin = s.split_chunk_begin;
  const auto chunk_index = s.chunk_split_index;
  const int64_t chunk = s.split_chunk;
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::spmv::split_row_scale", Kokkos::RangePolicy<ExecSpace>(space, 0, s.num_split_rows),
      KOKKOS_LAMBDA(const int64_t i) {
        const auto r = split_rows(i);
        y(r) = beta == Scalar(0) ? Scalar(0) : beta * y(r);
      });
  const int team_size = Impl::is_host_space_v<ExecSpace> ? 1 : 256;
  Kokkos::parallel_for(
      "Sprocket::spmv::split_row", Policy(space, s.num_split_chunks, team_size),
      KOKKOS_LAMBDA(const Member& team) {
        const int64_t c = team.league_rank();
        const auto i = chunk_index(c);
        const auto r = split_rows(i);
        const int64_t row_begin = row_map(r), row_end = row_map(r + 1);
        const int64_t begin = row_begin + (c - chunk_begin(i)) * chunk;
        const int64_t end = begin + chunk < row_end ? begin + chunk : row_end;
        Scalar sum = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, begin, end),
            [&](const int64_t k, Scalar& p) { p += Scalar(values(k)) * Scalar(x(entries(k))); }, sum);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&y(r), alpha * sum); });
      });
}

/// y = alpha * A * x + beta * y, every bin then the split rows.
template <class ExecSpace, class CrsType, class XView, class YView, class Scalar>
void spmv_apply(const ExecSpace& space, const SpmvAnalysis<CrsType>& analysis, Scalar alpha, const XView& x,
                Scalar beta, const YView& y) {
  const CrsType& A = analysis.A;
  const auto& s = analysis.schedule;
  for (const auto& bin : s.bins) {
    switch (bin.kernel) {
      case SpmvKernel::thread_per_row:
        spmv_thread_per_row(space, A, bin, s.vrow_bounds, alpha, x, beta, y);
        break;
      case SpmvKernel::subvector2:
      case SpmvKernel::subvector4:
      case SpmvKernel::subvector8:
      case SpmvKernel::subvector16:
      case SpmvKernel::subvector32:
        spmv_subvector(space, A, bin, s.vrow_bounds, spmv_kernel_lanes(bin.kernel), alpha, x, beta, y);
        break;
      case SpmvKernel::team_per_row:
        spmv_team_per_row(space, A, bin, s.vrow_bounds, alpha, x, beta, y);
        break;
      default:
        throw InvalidArgument("Sprocket::spmv: bin with kernel " + std::string(to_string(bin.kernel)) +
                              " reached the per-bin launcher");
    }
  }
  spmv_split_rows(space, A, s, alpha, x, beta, y);
}

/// dst(k) = src(source(k)): refreshes the cached transpose's values from A's current values.
template <class ExecSpace, class Dst, class Src, class Source>
void spmv_gather_values(const ExecSpace& space, const Dst& dst, const Src& src, const Source& source) {
  Kokkos::parallel_for(
      "Sprocket::spmv::transpose_gather", Kokkos::RangePolicy<ExecSpace>(space, 0, dst.extent(0)),
      KOKKOS_LAMBDA(const int64_t k) { dst(k) = src(source(k)); });
}

/// y = alpha * A^T * x + beta * y without forming A^T: scale y, then scatter with atomics.
template <class ExecSpace, class AMatrix, class XView, class YView, class Scalar>
void spmv_transpose_scatter(const ExecSpace& space, const AMatrix& A, Scalar alpha, const XView& x,
                            Scalar beta, const YView& y) {
  Kokkos::parallel_for(
      "Sprocket::spmv::transpose_scale", Kokkos::RangePolicy<ExecSpace>(space, 0, y.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) { y(i) = beta == Scalar(0) ? Scalar(0) : beta * y(i); });
  const auto row_map = A.graph.row_map;
  const auto entries = A.graph.entries;
  const auto values = A.values;
  Kokkos::parallel_for(
      "Sprocket::spmv::transpose_scatter", Kokkos::RangePolicy<ExecSpace>(space, 0, A.numRows()),
      KOKKOS_LAMBDA(const int64_t r) {
        const Scalar xr = alpha * Scalar(x(r));
        for (auto k = row_map(r); k < row_map(r + 1); ++k)
          Kokkos::atomic_add(&y(entries(k)), Scalar(values(k)) * xr);
      });
}

}  // namespace kokkos
}  // namespace Impl
}  // namespace Sprocket
