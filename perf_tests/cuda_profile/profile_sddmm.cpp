// sprocket-cuda-profile --kernel sddmm: the pattern form out = (A B^T) o spy(S) (alpha 1, beta 0)
// as sprocket-bench runs it, A rows x K and B cols x K in the requested layout, with the analysis
// SddmmPlan builds on Kokkos::Cuda (tiles of Ts nonzeros; for aspt, build_tiles and from_spmm the
// SpMM analysis for target cuda), the kernel chosen for K, run by Impl::cuda::sddmm_apply.
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Sddmm.hpp"
#include "impl/sddmm/cuda/sddmm_cuda.hpp"
#include "impl/sddmm/sddmm_analysis.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "profile_driver.hpp"

namespace Sprocket {
namespace cuda_profile {

namespace {
using SddmmProfileAnalysis = Impl::SddmmAnalysis<double, int, int, HostDevice>;

/// sprocket-bench's sddmm variants: the plan's options, and whether the ASpT analysis comes from
/// an SpmmPlan (from_spmm) rather than the plan's own.
struct SddmmVariant {
  SddmmOptions options;
  bool from_spmm = false;
};

/// portable launches no kernel of ours that the emulation can run (Kokkos' own parallel_for).
SddmmVariant sddmm_variant_for(const std::string& variant) {
  if (variant == "portable")
    throw NotProfilable("sddmm variant portable runs no hand-written CUDA kernel the emulation can record (Kokkos' "
                        "own kernel)");
  SddmmVariant v;
  if (variant == "build_tiles") v.options.build_tiles = true;
  else if (variant == "from_spmm") v.from_spmm = true;
  else v.options.kernel = sddmm_kernel_from_string(variant);  // "auto": automatic
  return v;
}

/// What SddmmPlan(S, options) on Kokkos::Cuda builds, or SddmmPlan(SpmmPlan(S)) for from_spmm,
/// in host memory. Both take the ASpT tiles from spmm_analyse for target cuda with the tiling of
/// spmm_plan_tiling (an SpmmPlan with default options has the same tiling as the SddmmPlan's
/// own), so only tiles_shared tells them apart.
SddmmProfileAnalysis sddmm_cuda_analysis(const ProfileCrs& S, const SddmmVariant& variant) {
  using HostSpace = HostDevice::execution_space;
  const SddmmOptions& options = variant.options;
  SddmmProfileAnalysis an;
  an.backend = Backend::native;
  an.requested = options.kernel;
  an.aspt_min_k = options.aspt_min_k >= 0 ? options.aspt_min_k : sddmm_default_aspt_min_k;
  an.num_rows = S.numRows();
  an.num_cols = S.numCols();
  an.nnz = S.nnz();
  an.row_map = S.graph.row_map;
  an.entries = S.graph.entries;
  an.values = S.values;
  if (variant.from_spmm || options.kernel == SddmmKernel::aspt || options.build_tiles) {
    const SpmmTiling requested = variant.from_spmm ? SpmmOptions{}.tiling : options.tiling;
    const SpmmTiling tiling = Impl::spmm_plan_tiling(requested, SpmmTarget::cuda, sizeof(double));
    Impl::SpmmAnalysisReport report;
    const auto tiles = Impl::spmm_analyse(S, Backend::native, SpmmKernel::automatic, SpmmTarget::cuda, tiling, &report);
    // The host panel parts this fills in are read by the host kernels only.
    Impl::sddmm_adopt_tiles<HostSpace>(an, tiles, tiling, report.stats.heavy_nnz, variant.from_spmm);
  }
  Impl::sddmm_analyse_nonzeros<HostSpace>(an, options);
  return an;
}

template <class Layout>
void run_sddmm(const ProfileRequest& request, ApplyProfile& out, const HostCsr& host,
               const SddmmProfileAnalysis& analysis, SddmmKernel kernel) {
  using Mat = Kokkos::View<double**, Layout, HostDevice>;
  Mat A("A", host.num_rows, request.k), B("B", host.num_cols, request.k);
  Kokkos::deep_copy(A, 1.0);
  Kokkos::deep_copy(B, 1.0);
  Kokkos::View<double*, HostDevice> result("out", host.nnz());
  const cuda_emulation::Device device = h100_emulated_device();
  record_apply(request, out, [&] {
    Impl::cuda::sddmm_apply(device, analysis, kernel, SddmmForm::pattern, 1.0, A, B, 0.0, result);
  });
}
}  // namespace

ApplyProfile profile_sddmm(const ProfileRequest& request, const HostCsr& host) {
  ApplyProfile out = start_profile(request, host);
  const SddmmVariant variant = sddmm_variant_for(request.variant);
  if (request.layout != "right" && request.layout != "left")
    throw NotProfilable("sddmm layout '" + request.layout + "': right or left");
  // The dispatch only scales out (Kokkos' kernel) for K = 0 and launches nothing without entries.
  if (request.k < 1)
    throw NotProfilable("sddmm with K = " + std::to_string(request.k) + " launches no hand-written CUDA kernel");
  if (host.nnz() == 0) throw NotProfilable("sddmm on a matrix without entries launches nothing");
  const ProfileCrs S = to_crs<ProfileCrs>(host);
  const SddmmProfileAnalysis analysis = sddmm_cuda_analysis(S, variant);
  const SddmmKernel kernel = Impl::sddmm_choose_kernel(analysis, request.k);
  out.chosen = to_string(kernel);
  if (request.layout == "right") run_sddmm<Kokkos::LayoutRight>(request, out, host, analysis, kernel);
  else run_sddmm<Kokkos::LayoutLeft>(request, out, host, analysis, kernel);
  return out;
}

}  // namespace cuda_profile
}  // namespace Sprocket
