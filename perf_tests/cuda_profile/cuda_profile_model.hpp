#pragma once
// What sprocket-cuda-profile makes of a recorded apply (cuda_profile.hpp): the apply's counts as a
// GPU profiler names them, the theoretical occupancy of each launch on an H100 / H200, and an
// H100 time estimate whose constants are fitted on recorded H100 runs (--validate).
//
// The time model, per launch (docs/cuda-profile.md says what it leaves out):
//   t = launch + (streaming^p + critical^p)^(1/p)
//   streaming  = max(dram, l2, throughput), the whole grid's traffic:
//     dram       = DRAM bytes / dram_gbps: the launch's footprint (distinct sectors) once, plus the
//                  re-references that miss a 50 MB L2 (hit ratio min(1, L2 / footprint));
//     l2         = sectors * 32 / l2_gbps: every sector a request fetches goes through L2 (the L1
//                  is not modelled);
//     throughput = (request_us * requests + sector_us * sectors + warp_us * warps
//                   + shared_us * shared wavefronts + sync_us * synchronizations) / slots: every
//                  resident warp issues its requests one after another, a request's sectors pass
//                  the L1 one after another, every warp costs its start and index arithmetic,
//                  shared memory costs its wavefronts, and reductions their shuffles and barriers
//                  (a barrier counted once per warp of its block) (slots = multiprocessors *
//                  resident warps per multiprocessor at the launch's theoretical occupancy);
//   critical   = request_us * busiest warp's requests + sector_us * most sectors of one warp: the
//                warp the grid waits for;
//   p (overlap >= 1) from a sum (the critical warp runs after the rest) to the larger of the two
//   (it runs beside them).
// An apply's time is the sum over its launches.
#include <map>
#include <string>
#include <vector>

#include "cuda_profile.hpp"

namespace Sprocket {
namespace cuda_profile {

/// What bounds a launch's theoretical occupancy.
struct Card {
  std::string name;
  int multiprocessors;
  int max_warps_per_multiprocessor;
  int max_blocks_per_multiprocessor;
  int64_t shared_bytes_per_multiprocessor;  // usable by blocks
  int64_t shared_bytes_reserved_per_block;  // the runtime's 1 KiB per resident block
  int64_t registers_per_multiprocessor;
  double l2_bytes;
};
Card h100_card();  // H100 SXM5: 132 SMs, 64 warps, 32 blocks, 228 KiB shared, 64K registers, 50 MB L2
Card h200_card();  // H200: the same SM, 132 of them, 60 MB L2

/// Static resources of a kernel from the CUDA build: `-Xptxas -v` output or `cuobjdump -res-usage`
/// of an executable (0 when unknown; cuobjdump's LOCAL bytes count as spills).
struct KernelResources {
  bool known = false;
  int registers = 0;
  int spill_store_bytes = 0, spill_load_bytes = 0;
  int static_shared_bytes = 0;
  int stack_frame_bytes = 0;
};
/// Reads a ptxas -v log or cuobjdump -res-usage output; the key is the kernel's unqualified name
/// ("spmv_subvector_kernel"); over several instantiations the most registers / spills are kept.
std::map<std::string, KernelResources> read_resource_log(const std::string& path);
/// The resources of the kernel a launch ran (`kernel` as the launcher writes it, `launched_at` the
/// launcher's file:line); unknown (known == false) when the log has none.
const KernelResources& resources_for(const std::map<std::string, KernelResources>& resources,
                                     const std::string& kernel, const std::string& launched_at);
/// "spmv_subvector_kernel<X>" or "Impl::cuda::spmm_aspt_kernel<..., 2>" -> "spmm_aspt_kernel".
std::string kernel_base_name(const std::string& launch_expression);

/// Resident warps per multiprocessor of a launch (blocks of `block` threads, `shared_bytes` of
/// dynamic plus the kernel's static shared memory, its registers when known), and the reason
/// ("warps", "blocks", "shared memory", "registers").
struct Occupancy {
  int resident_warps = 0;
  double fraction = 0;  // resident / maximum warps
  std::string limited_by;
};
Occupancy theoretical_occupancy(const Card& card, unsigned block, size_t shared_bytes, const KernelResources& r);

/// The model's constants (see the header comment).
struct ModelConstants {
  double launch_us = 4.0;
  double dram_gbps = 3000.0;
  double l2_gbps = 8000.0;
  double request_us = 0.3;
  double sector_us = 0.01;
  double overlap = 2.0;
  double warp_us = 0.5;
  double shared_us = 0.01;
  double sync_us = 0.01;
};
/// Fitted on perf_tests/results/gpu-h100-2026-11-26*.jsonl (sprocket-cuda-profile --validate).
ModelConstants h100_constants();

/// A launch as the model reads it, counts scaled to the whole grid when blocks were sampled.
struct LaunchFeatures {
  std::string kernel, launched_at;
  unsigned grid = 0, block = 0;
  size_t shared_bytes = 0;
  double requests = 0, sectors = 0, footprint_sectors = 0, warps = 0;
  double warp_requests_max = 0, warp_sectors_max = 0;
  /// Shared-memory wavefronts, shuffles / ballots / __syncwarp, and __syncthreads (blocks'
  /// barriers, summed).
  double shared_wavefronts = 0, warp_syncs = 0, barriers = 0;
  int resident_warps = 0;  // per multiprocessor (theoretical occupancy)
};
std::vector<LaunchFeatures> features_of(const ApplyProfile& profile, const Card& card,
                                        const std::map<std::string, KernelResources>& resources);

struct LaunchEstimate {
  double dram_ms = 0, l2_ms = 0, throughput_ms = 0, critical_ms = 0, launch_ms = 0, total_ms = 0;
  std::string bound;  // dram | l2 | throughput | critical path | launch
};
LaunchEstimate estimate(const LaunchFeatures& launch, const ModelConstants& c, const Card& card);
double predict_ms(const std::vector<LaunchFeatures>& launches, const ModelConstants& c, const Card& card);

/// The apply-level figures of the JSON line and the table.
struct ApplySummary {
  uint64_t launches = 0;
  double requests = 0, sectors = 0, sectors_per_request = 0;
  double load_efficiency = 0;       // useful / fetched bytes of global loads
  double bank_conflict_ways = 1;    // shared wavefronts / ideal wavefronts (1: none)
  double active_lane_fraction = 0;  // active lanes / (32 * memory instructions)
  double warp_requests_max = 0, warp_requests_mean = 0;
  double atomics = 0, shared_requests = 0;
  double footprint_bytes = 0;
  double warp_syncs = 0, barriers = 0;  // shuffles / ballots / __syncwarp per warp, __syncthreads per block
};
ApplySummary summarize(const ApplyProfile& profile);

/// One recorded GPU case for the fit: the profile's launches and the measured time.
struct FitCase {
  std::vector<LaunchFeatures> launches;
  double measured_ms = 0;
  bool held_out = false;
};
/// Minimizes the mean squared log error of the cases not held out (Nelder-Mead over the log of
/// the nine constants, from `start`).
ModelConstants fit_constants(const std::vector<FitCase>& cases, const Card& card, const ModelConstants& start);

}  // namespace cuda_profile
}  // namespace Sprocket
