// sprocket-cuda-profile --kernel spmv: y = A x with the analysis SpmvPlan builds on Kokkos::Cuda
// (target cuda; the model's choice or the forced kernel), run by Impl::cuda::spmv_apply.
#include <algorithm>
#include <string>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/spmv/cuda/spmv_cuda.hpp"
#include "impl/spmv/spmv_analysis.hpp"
#include "profile_driver.hpp"

namespace Sprocket {
namespace cuda_profile {

namespace {
/// sprocket-bench's spmv variants as options (portable and autotune launch no kernel of ours
/// that the emulation can run: Kokkos' own parallel_for, and timings on a GPU).
SpmvOptions spmv_options_for(const std::string& variant) {
  SpmvOptions o;
  if (variant == "auto") return o;
  if (variant == "portable" || variant == "autotune")
    throw NotProfilable("spmv variant " + variant +
                        " runs no hand-written CUDA kernel the emulation can record (portable: Kokkos' own "
                        "kernel; autotune: chosen by timing on the GPU)");
  if (variant == "indices_off")
    o.compress_indices = SpmvOptions::IndexCompression::off;
  else if (variant == "indices_offsets16")
    o.compress_indices = SpmvOptions::IndexCompression::offsets16;
  else if (variant == "indices_row_patterns")
    o.compress_indices = SpmvOptions::IndexCompression::row_patterns;
  else if (variant == "row_blocks")
    o.binning = SpmvBinning::row_blocks;
  else if (variant == "row_blocks_merge")
    o.binning = SpmvBinning::row_blocks_merge;
  else if (variant == "binned")
    o.binning = SpmvBinning::binned;
  else
    o.kernel = spmv_kernel_from_string(variant);
  return o;
}

std::string chosen_kernels(const SpmvSchedule& schedule) {
  if (schedule.row_blocks) {
    const std::string name = schedule.row_block_merge ? "row_blocks_merge" : "row_blocks";
    return schedule.bins.empty() ? name : name + "+split_row";
  }
  std::vector<std::string> kernels;
  for (const auto& bin : schedule.bins) {
    const std::string k = to_string(bin.kernel);
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
  }
  if (kernels.empty()) return "none";
  if (kernels.size() == 1) return kernels.front();
  std::string s = "binned: ";
  for (size_t i = 0; i < kernels.size(); ++i) s += (i ? "+" : "") + kernels[i];
  return s;
}
}  // namespace

ApplyProfile profile_spmv(const ProfileRequest& request, const HostCsr& host) {
  ApplyProfile out = start_profile(request, host);
  const SpmvOptions options = spmv_options_for(request.variant);
  const ProfileCrs A = to_crs<ProfileCrs>(host);
  const std::vector<int64_t> row_map = Impl::host_row_map(A);
  Impl::SpmvColumnIndexCopies<HostDevice> copies;
  const SpmvSchedule schedule = Impl::analyze_spmv(A, row_map, options, SpmvTarget::cuda, copies);
  const auto analysis = Impl::make_spmv_analysis(A, schedule, row_map, copies);
  out.chosen = chosen_kernels(schedule);
  Kokkos::View<double*, HostDevice> x("x", host.num_cols), y("y", host.num_rows);
  Kokkos::deep_copy(x, 1.0);
  const cuda_emulation::Device device = h100_emulated_device();
  record_apply(request, out, [&] { Impl::cuda::spmv_apply(device, analysis, 1.0, x, 0.0, y); });
  return out;
}

}  // namespace cuda_profile
}  // namespace Sprocket
