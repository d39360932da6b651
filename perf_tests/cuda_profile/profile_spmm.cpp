// sprocket-cuda-profile --kernel spmm: C = A B (alpha 1, beta 0), B cols x K and C rows x K in the
// requested layout, with the analysis SpmmPlan builds on Kokkos::Cuda (target cuda; the tiling of
// spmm_plan_tiling, the automatic choice or the forced kernel), run by Impl::cuda::spmm_apply.
// LayoutLeft B and C go to the kernels as they are, strided: the CUDA dispatch copies nothing.
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Spmm.hpp"
#include "impl/spmm/cuda/spmm_cuda.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "profile_driver.hpp"

namespace Sprocket {
namespace cuda_profile {

namespace {
/// sprocket-bench's spmm variants as options (portable launches no kernel of ours that the
/// emulation can run: Kokkos' own parallel_for).
SpmmOptions spmm_options_for(const std::string& variant) {
  if (variant == "portable")
    throw NotProfilable("spmm variant portable runs no hand-written CUDA kernel the emulation can record (Kokkos' "
                        "own kernel)");
  SpmmOptions o;
  o.kernel = spmm_kernel_from_string(variant);  // "auto": automatic
  return o;
}

template <class Layout>
void run_spmm(const ProfileRequest& request, ApplyProfile& out, const HostCsr& host,
              const Impl::SpmmAnalysis<double, int, int, HostDevice>& analysis) {
  using Mat = Kokkos::View<double**, Layout, HostDevice>;
  Mat B("B", host.num_cols, request.k), C("C", host.num_rows, request.k);
  Kokkos::deep_copy(B, 1.0);
  const cuda_emulation::Device device = h100_emulated_device();
  record_apply(request, out, [&] { Impl::cuda::spmm_apply(device, analysis, 1.0, B, 0.0, C); });
}
}  // namespace

ApplyProfile profile_spmm(const ProfileRequest& request, const HostCsr& host) {
  ApplyProfile out = start_profile(request, host);
  const SpmmOptions options = spmm_options_for(request.variant);
  if (request.layout != "right" && request.layout != "left")
    throw NotProfilable("spmm layout '" + request.layout + "': right or left");
  if (request.k < 1) throw NotProfilable("spmm with K = " + std::to_string(request.k) + ": the plan launches nothing");
  // The dispatch only scales C (Kokkos' kernel) when A has no entries.
  if (host.nnz() == 0) throw NotProfilable("spmm on a matrix without entries launches no hand-written CUDA kernel");
  const ProfileCrs A = to_crs<ProfileCrs>(host);
  const SpmmTiling tiling = Impl::spmm_plan_tiling(options.tiling, SpmmTarget::cuda, sizeof(double));
  Impl::SpmmAnalysisReport report;
  const auto analysis = Impl::spmm_analyse(A, Backend::native, options.kernel, SpmmTarget::cuda, tiling, &report);
  out.chosen = to_string(analysis.kernel);
  if (request.layout == "right") run_spmm<Kokkos::LayoutRight>(request, out, host, analysis);
  else run_spmm<Kokkos::LayoutLeft>(request, out, host, analysis);
  // spmm_apply's one path without a launch of ours: the warp-rows route to the portable kernel
  // (Kokkos' parallel_for, which the emulation neither runs as a CUDA kernel nor records). Decided
  // by what the apply recorded, so that the tool follows the route's conditions as they change.
  if (out.launches.empty() && analysis.warp_rows_for_row_major) {
    out.chosen = "portable";
    out.not_profiled = "the analysis chose csr_rows, but with no row split and row-major B and C of " +
                       std::to_string(Impl::spmm_cuda_warp_rows_min_k) + " to " +
                       std::to_string(Impl::spmm_cuda_warp_rows_max_k) +
                       " columns the CUDA apply runs the portable Kokkos kernel (Sprocket::spmm::portable: a warp per "
                       "row, a lane per column), which the emulation does not profile";
  }
  return out;
}

}  // namespace cuda_profile
}  // namespace Sprocket
