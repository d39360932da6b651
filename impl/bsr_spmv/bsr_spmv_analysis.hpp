#pragma once
// BSR SpMV analysis: what BsrSpmvPlan computes once, on the host.
//
//  1. The choice (impl/bsr_spmv/bsr_spmv_analysis.cpp, bsr_spmv_choose): the kernel from the
//     options, the backend already resolved by the dispatch, the space, the block size and a
//     symmetric declaration, with the reason describe() prints. Forced kernels the backend lacks,
//     block sizes a kernel cannot take and the symmetric kernel without the declaration throw here.
//  2. The symmetry check behind BsrSpmvOptions::symmetric: the promise that A == A^T is checked
//     exactly before any kernel relies on it, and the symmetric kernel's packed copy of the
//     diagonal and upper blocks is built. The copy, not A's own arrays, is what the kernel reads:
//     skipping the lower blocks inside A's arrays leaves gaps in the value stream that stop the
//     hardware prefetcher (perf_tests/results/bsr-host-2026-11-21.md, "Declared-symmetric
//     matrices"). Runs on host mirrors (no copy for host matrices): O(stored blocks * b^2) plus a
//     binary search in the mirror block row per off-diagonal block.
//  3. The device-side analysis every backend reads, BsrSpmvAnalysis: A's Views, the choice, the
//     host kernels' block-row parts, padded's padded copy, symmetric's packed copy and its spill
//     layout. make_bsr_spmv_analysis only builds what the choice asks for; the layouts follow
//     from A (and the packed copy) by fixed rules.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_BsrSpmv.hpp"
#include "Sprocket_Error.hpp"
#include "impl/common/host_analysis.hpp"

namespace Sprocket {
namespace Impl {

/// Throws InvalidArgument naming the first bad option (impl/bsr_spmv/bsr_spmv_options.cpp).
void check_bsr_spmv_options(const BsrSpmvOptions& options);

/// What the plan runs and why (describe() prints it).
struct BsrSpmvChoice {
  BsrKernel kernel = BsrKernel::row_per_thread;
  Backend backend = Backend::portable;  ///< resolved: native or portable
  std::string why;
};

/// The kind of space and matrix the choice depends on.
struct BsrSpmvTarget {
  bool host = false, cuda = false;
  const char* space_name = "";
  int block_size = 1;
  int64_t value_bytes = 0;  ///< A's values: stored scalars * sizeof(Scalar)
};

/// The kernel for `options` on a resolved backend (bsr_spmv_resolve_backend) and target; throws
/// InvalidArgument for a forced kernel the backend lacks (naming kernel, backend and space), a
/// block size the kernel cannot take, or the symmetric kernel without BsrSpmvOptions::symmetric.
BsrSpmvChoice bsr_spmv_choose(const BsrSpmvOptions& options, Backend backend, const BsrSpmvTarget& target);

/// The device-side analysis every backend's bsr_spmv_apply reads.
template <class BsrType>
struct BsrSpmvAnalysis {
  using scalar_type = typename BsrType::value_type;
  using ordinal_type = typename BsrType::ordinal_type;
  using device_type = typename BsrType::device_type;

  BsrType A;                                      ///< A's Views (no copy)
  BsrKernel kernel = BsrKernel::row_per_thread;   ///< the choice's kernel
  Backend backend = Backend::portable;            ///< the choice's resolved backend
  bool symmetric = false;                         ///< declared and checked: mode T runs the mode N kernel
  int num_parts = 0;                              ///< host kernels: parts holds num_parts + 1 boundaries
  Kokkos::View<int64_t*, device_type> parts;      ///< part p: block rows [parts(p), parts(p + 1))
  Kokkos::View<scalar_type*, device_type> padded; ///< padded: the padded copy of the values
  /// symmetric: a packed copy of each block row's diagonal block and the blocks right of it
  /// (BSR arrays over the same block rows).
  Kokkos::View<int64_t*, device_type> upper_row_map;
  Kokkos::View<ordinal_type*, device_type> upper_entries;
  Kokkos::View<scalar_type*, device_type> upper_values;
  Kokkos::View<int64_t*, device_type> reach;         ///< symmetric: part p spills into [parts(p+1), reach(p))
  Kokkos::View<int64_t*, device_type> spill_offset;  ///< symmetric: part p's spill at spill(spill_offset(p))
  /// symmetric: scalars of spill per apply (b per spilled block row), allocated by each apply so
  /// that applies on one plan may run concurrently
  int64_t spill_size = 0;
};

/// For a BsrMatrix A that must equal its transpose: throws InvalidArgument (naming `who`) when A
/// is not square, when a block row's block columns do not ascend (duplicates allowed), or when an
/// entry differs from its mirror entry. Duplicate blocks count as their sum and a block missing
/// from the pattern as zeros, so the check is on the matrix A represents, which is what the
/// kernels multiply by. Returns upper[I] = the position of block row I's first block with
/// column >= I.
template <class BsrType>
std::vector<int64_t> bsr_check_symmetric(const BsrType& A, const char* who) {
  const int64_t n = A.num_block_rows(), b = A.block_size(), bb = b * b;
  SPROCKET_REQUIRE(A.num_block_rows() == A.num_block_cols(), who,
                   ": BsrSpmvOptions::symmetric needs a square matrix, not ", A.num_block_rows(), " x ",
                   A.num_block_cols(), " blocks");
  std::vector<int64_t> upper(n, 0);
  if (n == 0) return upper;
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.entries);
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  for (int64_t I = 0; I < n; ++I) {
    const int64_t begin = row_map(I), end = row_map(I + 1);
    for (int64_t k = begin + 1; k < end; ++k)
      SPROCKET_REQUIRE(entries(k - 1) <= entries(k), who,
                       ": BsrSpmvOptions::symmetric needs ascending block columns in every block row; block row ",
                       I, " has block column ", entries(k), " after ", entries(k - 1));
    upper[I] = std::lower_bound(entries.data() + begin, entries.data() + end, I) - entries.data();
  }

  // The stored blocks [first, last) of block row I with block column J (a run: columns ascend).
  auto run_of = [&](int64_t I, int64_t J) {
    const auto range = std::equal_range(entries.data() + row_map(I), entries.data() + row_map(I + 1), J);
    return std::pair<int64_t, int64_t>(range.first - entries.data(), range.second - entries.data());
  };
  // Entry (r, c) of the sum of the blocks [first, last).
  auto entry = [&](std::pair<int64_t, int64_t> run, int64_t r, int64_t c) {
    double sum = 0;
    for (int64_t k = run.first; k < run.second; ++k) sum += static_cast<double>(values(k * bb + r * b + c));
    return sum;
  };
  auto same = [](double a, double m) { return a == m || (std::isnan(a) && std::isnan(m)); };
  auto compare = [&](int64_t I, int64_t J, std::pair<int64_t, int64_t> run, std::pair<int64_t, int64_t> mirror) {
    if (run.second - run.first == 1 && mirror.second - mirror.first == 1) {  // the common case, without sums
      const auto* a = values.data() + run.first * bb;
      const auto* m = values.data() + mirror.first * bb;
      bool equal = true;
      for (int64_t r = 0; r < b; ++r)
        for (int64_t c = 0; c < b; ++c) equal &= a[r * b + c] == m[c * b + r];
      if (equal) return;  // otherwise (a difference, or NaNs) the loop below decides and names the entry
    }
    for (int64_t r = 0; r < b; ++r)
      for (int64_t c = 0; c < b; ++c) {
        const double a = entry(run, r, c), m = entry(mirror, c, r);
        SPROCKET_REQUIRE(same(a, m), who, ": BsrSpmvOptions::symmetric promises A == A^T, but A(", I * b + r, ", ",
                         J * b + c, ") = ", a, " (block (", I, ", ", J, "), entry (", r, ", ", c, ")) while A(",
                         J * b + c, ", ", I * b + r, ") = ", m,
                         mirror.first == mirror.second ? " (block not stored)" : "");
      }
  };
  for (int64_t I = 0; I < n; ++I)
    for (int64_t k = row_map(I); k < int64_t(row_map(I + 1));) {
      const int64_t J = entries(k);
      std::pair<int64_t, int64_t> run(k, k + 1);
      while (run.second < int64_t(row_map(I + 1)) && entries(run.second) == J) ++run.second;
      k = run.second;
      if (J == I) {
        compare(I, I, run, run);
      } else {
        const auto mirror = run_of(J, I);
        // A stored pair is compared once, from the upper side; a lower block without a mirror
        // must be zeros.
        if (J > I || mirror.first == mirror.second) compare(I, J, run, mirror);
      }
    }
  return upper;
}

/// Block row I's blocks [upper[I], row_map(I + 1)) of A (the diagonal block and the blocks right of
/// it, from bsr_check_symmetric), packed contiguously as BSR arrays over the same block rows.
template <class Ordinal, class Scalar>
struct BsrUpperPart {
  std::vector<int64_t> row_map;
  std::vector<Ordinal> entries;
  std::vector<Scalar> values;
};

template <class BsrType>
BsrUpperPart<typename BsrType::ordinal_type, typename BsrType::value_type> bsr_pack_upper(
    const BsrType& A, const std::vector<int64_t>& upper) {
  const int64_t n = A.num_block_rows(), bb = int64_t{A.block_size()} * A.block_size();
  BsrUpperPart<typename BsrType::ordinal_type, typename BsrType::value_type> part;
  part.row_map.assign(n + 1, 0);
  if (n == 0) return part;
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.entries);
  const auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  for (int64_t I = 0; I < n; ++I) part.row_map[I + 1] = part.row_map[I] + int64_t(row_map(I + 1)) - upper[I];
  part.entries.resize(part.row_map[n]);
  part.values.resize(part.row_map[n] * bb);
  for (int64_t I = 0; I < n; ++I) {
    const int64_t count = part.row_map[I + 1] - part.row_map[I];
    std::copy_n(entries.data() + upper[I], count, part.entries.data() + part.row_map[I]);
    std::copy_n(values.data() + upper[I] * bb, count * bb, part.values.data() + part.row_map[I] * bb);
  }
  return part;
}

/// Copies A's values into blocks whose rows are padded to a multiple of 8 scalars (zeros).
template <class ExecSpace, class Padded, class Values>
void bsr_pad_values(const ExecSpace& space, const Padded& padded, const Values& values, int64_t b) {
  const int64_t row_stride = (b + 7) / 8 * 8;
  Kokkos::parallel_for(
      "Sprocket::bsr_spmv::pad_values", Kokkos::RangePolicy<ExecSpace>(space, 0, padded.extent(0)),
      KOKKOS_LAMBDA(const int64_t i) {
        const int64_t row = i / row_stride, c = i % row_stride;  // row = block * b + r
        padded(i) = c < b ? values(row * b + c) : typename Padded::non_const_value_type(0);
      });
}

/// The symmetric kernel's packed copy of the diagonal and upper blocks (upper: from the check).
template <class BsrType>
void bsr_refresh_upper_part(BsrSpmvAnalysis<BsrType>& an, const std::vector<int64_t>& upper) {
  using Device = typename BsrType::device_type;
  const auto part = bsr_pack_upper(an.A, upper);
  an.upper_row_map = to_device_view<int64_t, Device>(part.row_map, "Sprocket::bsr_spmv::upper_row_map");
  an.upper_entries =
      to_device_view<typename BsrType::ordinal_type, Device>(part.entries, "Sprocket::bsr_spmv::upper_entries");
  an.upper_values =
      to_device_view<typename BsrType::value_type, Device>(part.values, "Sprocket::bsr_spmv::upper_values");
}

/// padded's copy of A's values, in a new View each time: copies of a plan share the old one and
/// keep their values (Sprocket_Operator.hpp, "Copies").
template <class BsrType>
void bsr_refresh_padded(BsrSpmvAnalysis<BsrType>& an) {
  using execution_space = typename BsrType::execution_space;
  const int64_t b = an.A.block_size();
  const int64_t size = static_cast<int64_t>(an.A.num_blocks()) * b * ((b + 7) / 8 * 8);
  const Kokkos::View<typename BsrType::value_type*, typename BsrType::device_type> padded(
      Kokkos::ViewAllocateWithoutInitializing("Sprocket::bsr_spmv::padded_values"), size);
  bsr_pad_values(execution_space(), padded, an.A.values, b);
  execution_space().fence();
  an.padded = padded;
}

/// Contiguous block-row ranges with about equal stored blocks (+ 1 per block row), several per
/// host thread (host_dynamic_parts; the kernels take them dynamically) unless host_parts says
/// how many. The symmetric kernel (whose packed copy is built
/// first) counts the blocks of its copy and sizes each part's spill: the block rows past the part
/// that its blocks reach.
template <class BsrType>
void bsr_build_parts(BsrSpmvAnalysis<BsrType>& an, int host_parts) {
  using Device = typename BsrType::device_type;
  using execution_space = typename BsrType::execution_space;
  const bool symmetric = an.kernel == BsrKernel::symmetric;
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), an.A.row_map);
  const auto upper_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), an.upper_row_map);
  const int64_t n = an.A.num_block_rows();
  std::vector<int64_t> cost(n + 1, 0);
  for (int64_t I = 0; I < n; ++I)
    cost[I + 1] = cost[I] + 1 +
                  (symmetric ? upper_row_map(I + 1) - upper_row_map(I) : int64_t(row_map(I + 1) - row_map(I)));
  an.num_parts = host_parts > 0 ? host_parts : host_dynamic_parts(execution_space().concurrency(), cost[n]);
  const std::vector<int64_t> parts = balanced_parts(cost, an.num_parts);
  an.parts = to_device_view<int64_t, Device>(parts, "Sprocket::bsr_spmv::parts");
  if (!symmetric) return;
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), an.upper_entries);
  std::vector<int64_t> reach(an.num_parts), spill_offset(an.num_parts + 1, 0);
  for (int p = 0; p < an.num_parts; ++p) {
    reach[p] = parts[p + 1];
    for (int64_t I = parts[p]; I < parts[p + 1]; ++I)
      if (upper_row_map(I + 1) > upper_row_map(I))  // ascending columns: the last block reaches furthest
        reach[p] = std::max(reach[p], int64_t(entries(upper_row_map(I + 1) - 1)) + 1);
    spill_offset[p + 1] = spill_offset[p] + (reach[p] - parts[p + 1]) * an.A.block_size();
  }
  an.reach = to_device_view<int64_t, Device>(reach, "Sprocket::bsr_spmv::reach");
  an.spill_offset = to_device_view<int64_t, Device>(spill_offset, "Sprocket::bsr_spmv::spill_offset");
  an.spill_size = spill_offset[an.num_parts];
}

/// Builds what `choice` needs: checks a symmetric declaration, then the packed copy (symmetric),
/// the parts (host kernels) and the padded copy (padded). A pure consequence of the choice.
template <class BsrType>
BsrSpmvAnalysis<BsrType> make_bsr_spmv_analysis(const BsrType& A, const BsrSpmvChoice& choice,
                                                const BsrSpmvOptions& options) {
  BsrSpmvAnalysis<BsrType> an;
  an.A = A;
  an.kernel = choice.kernel;
  an.backend = choice.backend;
  an.symmetric = options.symmetric;
  if (options.symmetric) {
    const std::vector<int64_t> upper = bsr_check_symmetric(an.A, "BsrSpmvPlan");
    if (an.kernel == BsrKernel::symmetric) bsr_refresh_upper_part(an, upper);
  }
  const bool host_kernel =
      an.kernel == BsrKernel::block_row || an.kernel == BsrKernel::padded || an.kernel == BsrKernel::symmetric;
  if (host_kernel) bsr_build_parts(an, options.host_parts);
  if (an.kernel == BsrKernel::padded) bsr_refresh_padded(an);
  return an;
}

/// After A's values changed (same pattern): checks a symmetric declaration again and refreshes
/// the copies the padded and symmetric kernels read.
template <class BsrType>
void bsr_spmv_update_values(BsrSpmvAnalysis<BsrType>& an, const BsrType& A) {
  // The symmetry check throws before the plan takes A: a refused update leaves the plan as it was.
  std::vector<int64_t> upper;
  if (an.symmetric) upper = bsr_check_symmetric(A, "BsrSpmvPlan::update_values");
  an.A = A;
  if (an.symmetric && an.kernel == BsrKernel::symmetric) bsr_refresh_upper_part(an, upper);
  if (an.kernel == BsrKernel::padded) bsr_refresh_padded(an);
}

}  // namespace Impl
}  // namespace Sprocket
