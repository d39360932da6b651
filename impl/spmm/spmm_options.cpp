// SpMM kernel and target names, calibrated defaults and option resolution (the tiling a plan
// uses, with the CUDA kernel's limits).
#include <algorithm>
#include <string>

#include "Sprocket_Spmm.hpp"
#include "impl/spmm/cuda/spmm_cuda_limits.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "impl/spmm/spmm_defaults_generated.hpp"

namespace Sprocket {

namespace {
constexpr const char* spmm_kernel_names[num_spmm_kernels] = {"csr_rows", "aspt"};

SpmmTiling from_calibrated(const Impl::SpmmCalibratedDefaults& d) {
  SpmmTiling t;
  t.panel_rows = d.panel_rows;
  t.tile_cols = d.tile_cols;
  t.heavy_threshold = d.heavy_threshold;
  t.min_heavy_fraction = d.min_heavy_fraction;
  return t;
}
}  // namespace

const char* to_string(SpmmKernel kernel) {
  if (kernel == SpmmKernel::automatic) return "automatic";
  const int k = static_cast<int>(kernel);
  return k >= 0 && k < num_spmm_kernels ? spmm_kernel_names[k] : "invalid";
}

SpmmKernel spmm_kernel_from_string(const std::string& name) {
  if (name == "auto" || name == "automatic") return SpmmKernel::automatic;
  std::string valid = "auto";
  for (int k = 0; k < num_spmm_kernels; ++k) {
    if (name == spmm_kernel_names[k]) return static_cast<SpmmKernel>(k);
    valid += std::string(", ") + spmm_kernel_names[k];
  }
  throw InvalidArgument("unknown SpMM kernel \"" + name + "\" (valid: " + valid +
                        "; the portable implementation is chosen by Backend::portable, not by a kernel name)");
}

const char* to_string(SpmmTarget target) {
  switch (target) {
    case SpmmTarget::host: return "host";
    case SpmmTarget::cuda: return "cuda";
    case SpmmTarget::portable: return "portable";
  }
  return "invalid";
}

SpmmTiling spmm_default_tiling(SpmmTarget target) {
  switch (target) {
    case SpmmTarget::host: return from_calibrated(Impl::spmm_defaults_host);
    case SpmmTarget::cuda: return from_calibrated(Impl::spmm_defaults_cuda);
    case SpmmTarget::portable: return from_calibrated(Impl::spmm_defaults_portable);
  }
  throw InvalidArgument("spmm_default_tiling: invalid SpmmTarget " + std::to_string(static_cast<int>(target)));
}

SpmmTiling resolve_spmm_tiling(const SpmmTiling& requested, SpmmTarget target) {
  SPROCKET_REQUIRE(requested.panel_rows >= 0, "SpmmTiling::panel_rows = ", requested.panel_rows,
                   " is negative (0 = the calibrated default)");
  SPROCKET_REQUIRE(requested.tile_cols >= 0, "SpmmTiling::tile_cols = ", requested.tile_cols,
                   " is negative (0 = the calibrated default)");
  SPROCKET_REQUIRE(requested.heavy_threshold >= 0, "SpmmTiling::heavy_threshold = ", requested.heavy_threshold,
                   " is negative (0 = the calibrated default)");
  SPROCKET_REQUIRE(requested.min_heavy_fraction <= 1.0, "SpmmTiling::min_heavy_fraction = ",
                   requested.min_heavy_fraction, " is above 1 (negative = the calibrated default)");
  const SpmmTiling d = spmm_default_tiling(target);
  SpmmTiling t = requested;
  if (t.panel_rows == 0) t.panel_rows = d.panel_rows;
  if (t.tile_cols == 0) t.tile_cols = d.tile_cols;
  if (t.heavy_threshold == 0) t.heavy_threshold = d.heavy_threshold;
  if (t.min_heavy_fraction < 0) t.min_heavy_fraction = d.min_heavy_fraction;
  return t;
}

namespace Impl {

SpmmTiling spmm_plan_tiling(const SpmmTiling& requested, SpmmTarget target, int64_t scalar_bytes) {
  SpmmTiling t = resolve_spmm_tiling(requested, target);
  if (target != SpmmTarget::cuda) return t;
  // The CUDA ASpT kernel stages a tile's rows of B (one 32-column K-slice) in shared memory and
  // keeps a panel's rows in registers (impl/spmm/cuda/spmm_cuda_limits.hpp): a requested
  // tile_cols beyond what fits is an error; the calibrated defaults are capped to fit, and the
  // default panel to one pass of the kernel.
  const int64_t max_cols = cuda::spmm_cuda_max_tile_cols(cuda::spmm_cuda_min_k_slice, scalar_bytes);
  SPROCKET_REQUIRE(requested.tile_cols <= max_cols, "SpmmPlan: SpmmTiling::tile_cols = ", requested.tile_cols,
                   " exceeds the ", max_cols, " shared-memory slots the CUDA kernel can stage for this scalar type");
  t.tile_cols = std::min(t.tile_cols, max_cols);
  if (requested.panel_rows == 0) t.panel_rows = std::min(t.panel_rows, cuda::spmm_cuda_max_panel_rows(scalar_bytes));
  return t;
}

}  // namespace Impl
}  // namespace Sprocket
