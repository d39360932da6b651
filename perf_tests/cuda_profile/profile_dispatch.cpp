// sprocket-cuda-profile: the request's kernel to its driver (not instrumented: the drivers are).
#include "Sprocket_Generators.hpp"
#include "cuda_profile.hpp"

namespace Sprocket {
namespace cuda_profile {

namespace {
ApplyProfile run_driver(const ProfileRequest& request, const HostCsr& A) {
  if (request.kernel == "spmv") return profile_spmv(request, A);
  if (request.kernel == "bsr") return profile_bsr(request, A);
  if (request.kernel == "spmm") return profile_spmm(request, A);
  if (request.kernel == "sddmm") return profile_sddmm(request, A);
  if (request.kernel == "spgemm") return profile_spgemm(request, A);
  throw NotProfilable("unknown kernel '" + request.kernel + "' (spmv, bsr, spmm, sddmm or spgemm)");
}
}  // namespace

ApplyProfile profile(const ProfileRequest& request) {
  if (!request.phase.empty() && request.kernel != "spgemm")
    throw NotProfilable("--phase is spgemm's (numeric: the numeric re-run only)");
  const HostCsr A = load_matrix(request.matrix);
  ApplyProfile p = run_driver(request, A);
  // Kokkos' own kernels and copies are not recorded: with no launch of ours an apply's zero counts
  // would measure nothing.
  if (p.launches.empty() && p.not_profiled.empty())
    p.not_profiled = "no hand-written CUDA kernel was launched, so nothing was recorded";
  if (!p.not_profiled.empty())
    p.note += "not profiled: " + p.not_profiled + "; launches, counts and the time estimate are not measured; ";
  return p;
}

}  // namespace cuda_profile
}  // namespace Sprocket
