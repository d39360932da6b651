// sprocket-cuda-profile --kernel spgemm: C = A * A (A * A^T for a rectangular A) as
// sprocket-bench --kernel spgemm times it on the GPU: its `seconds` is a full product, the plan's
// construction (row analysis, symbolic pass, the numeric pass's schedule) and the first numeric
// pass, so both are recorded, through the real launchers (Impl::cuda::spgemm_symbolic,
// spgemm_numeric_schedule, spgemm_numeric<true>) on the emulated H100, with the analysis
// SpgemmPlan builds on Kokkos::Cuda (Backend::native, the CUDA thresholds, the memory limit from
// the device's free bytes), in host memory. With --sample the symbolic pass is sampled too: C's
// row map, which the numeric pass writes by, then comes from the host (exact_row_map).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Spgemm.hpp"  // first: the public header includes the analysis in order
#include "impl/spgemm/cuda/spgemm_cuda.hpp"
#include "profile_driver.hpp"

namespace Sprocket {
namespace cuda_profile {

namespace {

using ProfileAnalysis = Impl::SpgemmAnalysis<double, int, int, HostDevice>;

std::string spgemm_variant_names() {
  std::string names = "auto";
  for (int a = 0; a < num_spgemm_accumulators; ++a)
    names += std::string(", ") + to_string(static_cast<SpgemmAccumulator>(a));
  return names + ", uniform, binned, unsorted, portable";
}

/// sprocket-bench's spgemm variants as options (its options_for). portable runs Kokkos' own
/// kernels, which the emulation cannot run.
SpgemmOptions spgemm_options_for(const std::string& variant) {
  SpgemmOptions o;
  if (variant == "auto") return o;
  if (variant == "portable")
    throw NotProfilable("spgemm variant portable runs the portable backend (Kokkos' own kernels), no hand-written "
                        "CUDA kernel the emulation can record");
  if (variant == "unsorted") {
    o.sorted = false;
    return o;
  }
  if (variant == "uniform" || variant == "binned") {
    o.symbolic_balance = o.numeric_balance = spgemm_balance_from_string(variant);
    return o;
  }
  try {
    o.accumulator = spgemm_accumulator_from_string(variant);
  } catch (const InvalidArgument&) {
    throw NotProfilable("unknown spgemm variant '" + variant + "' (" + spgemm_variant_names() + ")");
  }
  return o;
}

/// C's row map from A's and B's patterns (distinct columns per row), what the symbolic pass
/// counts, into the analysis. A sampled run needs it: the blocks the recorder skips count nothing,
/// and the numeric kernels would write those rows outside C.
void exact_row_map(const HostCsr& a, const HostCsr& b, ProfileAnalysis& an) {
  std::vector<int64_t> seen_in_row(b.num_cols, -1);
  int64_t nnz = 0, longest = 0;
  an.row_map_c(0) = 0;
  for (int64_t i = 0; i < a.num_rows; ++i) {
    int64_t length = 0;
    for (int64_t k = a.row_map[i]; k < a.row_map[i + 1]; ++k) {
      const int64_t j = a.entries[k];
      for (int64_t l = b.row_map[j]; l < b.row_map[j + 1]; ++l)
        if (seen_in_row[b.entries[l]] != i) {
          seen_in_row[b.entries[l]] = i;
          ++length;
        }
    }
    nnz += length;
    longest = std::max(longest, length);
    an.row_map_c(i + 1) = static_cast<int>(nnz);
  }
  Impl::spgemm_check_offset<int>(nnz, "nnz(C)");
  an.nnz_c = nnz;
  an.max_row_nnz = longest;
}

/// What SpgemmPlan's constructor does on Kokkos::Cuda (impl/spgemm/spgemm_plan.hpp, the CUDA
/// branch of impl/spgemm/spgemm_dispatch.hpp): the row analysis (Kokkos kernels on the GPU; here
/// on the host space), the symbolic pass and the numeric pass's schedule on `device`, and the
/// plan's memory checks. `sampled`: the symbolic pass's row counts are replaced by the exact ones.
void construct_plan(const cuda_emulation::Device& device, const HostCsr& host_a, const HostCsr& host_b,
                    const ProfileCrs& A, const ProfileCrs& B, const SpgemmOptions& options, bool sampled,
                    ProfileAnalysis& an) {
  Impl::spgemm_check_options(options);
  an.backend = Backend::native;
  an.options = options;
  an.options.symbolic_thresholds =
      Impl::spgemm_resolve_thresholds(options.symbolic_thresholds, Impl::spgemm_cuda_symbolic_thresholds);
  an.options.numeric_thresholds =
      Impl::spgemm_resolve_thresholds(options.numeric_thresholds, Impl::spgemm_cuda_numeric_thresholds);
  an.memory.limit_bytes =
      Impl::spgemm_memory_limit(options.memory_limit_bytes, Impl::cuda::spgemm_device_free_bytes(device));
  const int64_t M = A.numRows();
  Impl::spgemm_analyse(Kokkos::DefaultHostExecutionSpace(), A, B, an, true);  // as on Kokkos::Cuda
  Impl::cuda::spgemm_symbolic(device, A, B, an);
  if (sampled) exact_row_map(host_a, host_b, an);
  const int64_t output_held =
      an.memory.analysis_bytes + Impl::spgemm_bytes<int>(an.nnz_c) + Impl::spgemm_bytes<double>(an.nnz_c);
  Impl::cuda::spgemm_numeric_schedule(device, A, an, output_held);
  an.symbolic_done = true;
  an.memory.output_bytes =
      Impl::spgemm_bytes<int>(M + 1) + Impl::spgemm_bytes<int>(an.nnz_c) + Impl::spgemm_bytes<double>(an.nnz_c);
  Impl::spgemm_require_memory(an.memory, an.memory.analysis_bytes + an.memory.workspace_bytes,
                              an.memory.output_bytes - Impl::spgemm_bytes<int>(M + 1) + an.memory.numeric_bytes,
                              "C's columns and values and the numeric pass");
  Impl::spgemm_update_peak(an.memory);
}

/// SpgemmPlan::numeric(A, B): C's columns and values into a new C.
ProfileCrs first_numeric(const cuda_emulation::Device& device, const ProfileCrs& A, const ProfileCrs& B,
                         const ProfileAnalysis& an) {
  using Entries = ProfileCrs::staticcrsgraph_type::entries_type::non_const_type;
  using Values = ProfileCrs::values_type::non_const_type;
  Entries entries(Kokkos::ViewAllocateWithoutInitializing("C::entries"), an.nnz_c);
  Values values(Kokkos::ViewAllocateWithoutInitializing("C::values"), an.nnz_c);
  const ProfileCrs C("C", static_cast<int>(an.num_rows), static_cast<int>(an.num_cols), static_cast<int>(an.nnz_c),
                     values, an.row_map_c, entries);
  if (an.nnz_c > 0) Impl::cuda::spgemm_numeric<true>(device, A, B, an, C);
  return C;
}

/// "launches 3-7", "launch 3", "no launch" (1-based, [first, last]).
std::string launch_range(size_t first, size_t last) {
  if (last < first) return "no launch";
  if (last == first) return "launch " + std::to_string(first);
  return "launches " + std::to_string(first) + "-" + std::to_string(last);
}

}  // namespace

ApplyProfile profile_spgemm(const ProfileRequest& request, const HostCsr& host) {
  ApplyProfile out = start_profile(request, host);
  const SpgemmOptions options = spgemm_options_for(request.variant);
  // The bench's operands: B = A for a square A, else A^T (built once, outside the time).
  const bool square = host.num_rows == host.num_cols;
  const HostCsr host_b = square ? HostCsr() : transpose(host);
  const HostCsr& b = square ? host : host_b;
  const ProfileCrs A = to_crs<ProfileCrs>(host);
  const ProfileCrs B = square ? A : to_crs<ProfileCrs>(b);
  const cuda_emulation::Device device = h100_emulated_device();
  const bool sampled = request.sample_every > 1;
  ProfileAnalysis an;
  ProfileCrs C;
  size_t plan_launches = 0;
  if (request.phase == "numeric") {
    // The plan, its first numeric pass and one re-run unrecorded (a re-run by position records
    // the products' positions the first time: the bench's median re-run reads them), then the
    // re-run the bench times as numeric_seconds: numeric<false> into the existing C (no sort).
    construct_plan(device, host, b, A, B, options, sampled, an);
    C = first_numeric(device, A, B, an);
    if (an.nnz_c > 0) Impl::cuda::spgemm_numeric<false>(device, A, B, an, C);
    record_apply(request, out, [&] {
      if (an.nnz_c > 0) Impl::cuda::spgemm_numeric<false>(device, A, B, an, C);
    });
    out.chosen = std::string("symbolic ") + to_string(an.symbolic_balance) + ", numeric " +
                 to_string(an.numeric_balance);
    out.note += "recorded: the numeric re-run on the plan's structure (sprocket-bench's numeric_seconds); " +
                an.schedule_summary + "; ";
    return out;
  }
  if (!request.phase.empty())
    throw NotProfilable("spgemm phase '" + request.phase + "': empty (plan and first numeric pass) or numeric");
  record_apply(request, out, [&] {
    construct_plan(device, host, b, A, B, options, sampled, an);
    plan_launches = device.stream.history.size();
    C = first_numeric(device, A, B, an);
  });
  // The bench's plan keys for spgemm: each pass's load balancing.
  out.chosen = std::string("symbolic ") + to_string(an.symbolic_balance) + ", numeric " + to_string(an.numeric_balance);
  out.note += std::string(square ? "C = A*A" : "C = A*A^T") + ", nnz(C) " + std::to_string(an.nnz_c) +
              "; recorded: what sprocket-bench's seconds covers, the plan (symbolic pass and the numeric pass's "
              "bins: " + launch_range(1, plan_launches) + ") and the first numeric pass (C's columns and values: " +
              launch_range(plan_launches + 1, out.launches.size()) +
              "); not recorded: the row analysis, reductions, prefix sums, fills and read-backs (Kokkos' own kernels "
              "and copies; " + std::to_string(an.host_reads) + " read-backs, each a wait for the device), allocations; "
              "numeric_seconds (the re-run) is numeric<false>, without the sort; " +
              (sampled ? "sampled: C's row map computed on the host in place of the sampled symbolic pass's counts; "
                       : "") +
              an.schedule_summary + "; ";
  return out;
}

}  // namespace cuda_profile
}  // namespace Sprocket
