// sprocket-cuda-profile --kernel bsr: y = A x on A's block-CSR form as sprocket-bench --kernel bsr
// builds it (block size detect_block_size's choice, the bench's --block-size auto, for double
// values, int ordinals and int offsets; csr_to_host_bsr's zero fill), with the analysis
// BsrSpmvPlan builds on Kokkos::Cuda (Backend::native, the CUDA target's kernel choice or the
// forced kernel), run by Impl::cuda::bsr_spmv_apply: one launch.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_BsrConversion.hpp"
#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_BsrSpmv.hpp"
#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/bsr_spmv/cuda/bsr_spmv_cuda.hpp"
#include "profile_driver.hpp"

namespace Sprocket {
namespace cuda_profile {

namespace {

using ProfileBsr = BsrMatrix<double, int, HostDevice, int>;

/// The largest block size the bench's --block-size auto considers (bench_bsr.cpp's
/// auto_max_block_size, detect_block_size's default).
constexpr int auto_max_block_size = 16;

/// The kernels of Backend::native on Kokkos::Cuda: the bench's bsr variants there besides auto
/// and portable.
bool cuda_native_kernel(BsrKernel kernel) {
  return bsr_backend_has_kernel(Backend::native, /*cuda=*/true, /*host=*/false, kernel);
}

std::string cuda_variant_names() {
  std::string names = "auto";
  for (int k = 0; k < num_bsr_kernels; ++k)
    if (cuda_native_kernel(static_cast<BsrKernel>(k)))
      names += std::string(", ") + to_string(static_cast<BsrKernel>(k));
  return names + ", portable";
}

/// sprocket-bench's bsr variants of a CUDA build as options (its options_for): auto, a native
/// CUDA kernel (also under its older name cuda_<kernel>, the bench's alias). portable runs the
/// portable backend, Kokkos' own parallel_for, which the emulation cannot run.
BsrSpmvOptions bsr_options_for(const std::string& variant) {
  BsrSpmvOptions o;
  if (variant == "auto") return o;
  if (variant == "portable")
    throw NotProfilable("bsr variant portable runs the portable backend (Kokkos' own kernel), no hand-written CUDA "
                        "kernel the emulation can record");
  const std::string name = variant.rfind("cuda_", 0) == 0 ? variant.substr(5) : variant;
  BsrKernel kernel = BsrKernel::automatic;
  try {
    kernel = bsr_kernel_from_string(name);
  } catch (const InvalidArgument&) {
    kernel = BsrKernel::automatic;
  }
  if (kernel == BsrKernel::automatic || !cuda_native_kernel(kernel))
    throw NotProfilable("bsr variant '" + variant + "' is not one sprocket-bench runs on Kokkos::Cuda (" +
                        cuda_variant_names() + ")");
  o.kernel = kernel;
  return o;
}

}  // namespace

ApplyProfile profile_bsr(const ProfileRequest& request, const HostCsr& host) {
  ApplyProfile out = start_profile(request, host);
  const BsrSpmvOptions options = bsr_options_for(request.variant);

  // The bench's --block-size auto: the fewest bytes per SpMV with these types.
  const int b = detect_block_size(host, auto_max_block_size, sizeof(double), sizeof(int), sizeof(int));
  if (options.kernel != BsrKernel::automatic && !bsr_kernel_supports(options.kernel, b))
    throw NotProfilable("bsr variant " + request.variant + " does not support block size " + std::to_string(b) +
                        " (sprocket-bench skips it for this matrix)");
  BsrConversionInfo info;
  const ProfileBsr A = to_bsr<ProfileBsr>(csr_to_host_bsr(host, b, &info));

  // What BsrSpmvPlan<BsrMatrix on Kokkos::Cuda> builds (its choose() with the target of a CUDA
  // space), here on host memory.
  Impl::check_bsr_spmv_options(options);
  Impl::BsrSpmvTarget target;
  target.cuda = true;
  target.space_name = "Cuda";
  target.block_size = b;
  target.value_bytes = int64_t(A.values.extent(0)) * int64_t(sizeof(double));
  const Impl::BsrSpmvChoice choice = Impl::bsr_spmv_choose(options, Backend::native, target);
  const auto analysis = Impl::make_bsr_spmv_analysis(A, choice, options);
  out.chosen = to_string(analysis.kernel);
  char fill[32];
  std::snprintf(fill, sizeof fill, "%.3f", info.fill_ratio);
  out.note += "block " + std::to_string(b) + "x" + std::to_string(b) + " (auto), " + std::to_string(info.num_blocks) +
              " blocks, fill " + fill + "; ";

  // The bench's defaults: alpha 1, beta 0 (y written, not read).
  Kokkos::View<double*, HostDevice> x("x", A.numCols()), y("y", A.numRows());
  Kokkos::deep_copy(x, 1.0);
  const cuda_emulation::Device device = h100_emulated_device();
  record_apply(request, out, [&] { Impl::cuda::bsr_spmv_apply(device, analysis, 1.0, x, 0.0, y); });
  return out;
}

}  // namespace cuda_profile
}  // namespace Sprocket
