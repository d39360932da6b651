#pragma once
// SpGEMM dispatch: every routing decision of SpgemmPlan. The plan and the backend files call no
// backend directly.
//
//   At construction (spgemm_resolve_backend, spgemm_check_options):
//     Backend::automatic + Kokkos::OpenMP / Serial           -> native (host)
//     Backend::automatic + Kokkos::Cuda, float or double     -> native (CUDA)
//     Backend::automatic + any other space or scalar type    -> portable
//     Backend::native    + a space / scalar without kernels  -> InvalidArgument
//     Backend::portable                                      -> portable
//     an accumulator or balance that is not one of the enums, threads_per_b_row not a power of two
//     in [1, 1024], a negative memory limit                  -> InvalidArgument
//     thresholds: zero fields take the backend's defaults (spgemm_defaults.hpp: host ours, CUDA
//     the paper's Table 2; the portable backend has no global load balancing)
//     memory limit: min(SpgemmOptions::memory_limit_bytes, the device's available memory:
//     host MemAvailable, CUDA cudaMemGetInfo's free bytes)
//   Then, in this order (spgemm_symbolic):
//     row analysis (every backend)                  -> spgemm_analysis.hpp   spgemm_analyse_rows
//     native + OpenMP / Serial                      -> host/spgemm_host.hpp  host::spgemm_symbolic,
//                                                      host::spgemm_numeric_schedule
//     native + Kokkos::Cuda                         -> cuda/spgemm_cuda.hpp  cuda::spgemm_symbolic,
//                                                      cuda::spgemm_numeric_schedule
//     portable                                      -> spgemm_kokkos.hpp     kokkos::spgemm_symbolic
//   numeric (spgemm_numeric), first (C's columns too) or re-run (values only):
//     C without entries                             -> nothing to do
//     native + OpenMP / Serial                      -> host::spgemm_numeric<first>
//     native + Kokkos::Cuda                         -> cuda::spgemm_numeric<first>
//     portable (first and re-run alike)             -> kokkos::spgemm_numeric
// The plan checks shapes and that a re-run's C is its own output.
#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"
#include "Sprocket_Spgemm.hpp"
#include "impl/common/backend_resolution.hpp"
#include "impl/spgemm/host/spgemm_host.hpp"
#include "impl/spgemm/spgemm_analysis.hpp"
#include "impl/spgemm/spgemm_kokkos.hpp"
#ifdef KOKKOS_ENABLE_CUDA
#include "impl/spgemm/cuda/spgemm_cuda.hpp"
#endif

namespace Sprocket {
namespace Impl {

/// True when ExecSpace has native SpGEMM kernels for Scalar: the host kernels (any scalar), the
/// CUDA kernels (float and double).
template <class ExecSpace, class Scalar>
inline constexpr bool spgemm_has_native_v =
    is_host_space_v<ExecSpace> ||
    (is_cuda_space_v<ExecSpace> && (std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>));

template <class ExecSpace, class Scalar>
Backend spgemm_resolve_backend(Backend requested, std::string* why) {
  return resolve_backend("SpgemmPlan", requested, spgemm_has_native_v<ExecSpace, Scalar>, is_cuda_space_v<ExecSpace>,
                         ExecSpace::name(), why);
}

/// Throws InvalidArgument for option values outside their enums and ranges.
inline void spgemm_check_options(const SpgemmOptions& o) {
  const auto in_enum = [](int v, int n) { return v == -1 || (v >= 0 && v < n); };
  SPROCKET_REQUIRE(in_enum(static_cast<int>(o.accumulator), num_spgemm_accumulators),
                   "SpgemmPlan: SpgemmOptions::accumulator = ", static_cast<int>(o.accumulator),
                   " is not an SpgemmAccumulator");
  SPROCKET_REQUIRE(in_enum(static_cast<int>(o.symbolic_balance), 2) && in_enum(static_cast<int>(o.numeric_balance), 2),
                   "SpgemmPlan: SpgemmOptions::symbolic_balance = ", static_cast<int>(o.symbolic_balance),
                   ", numeric_balance = ", static_cast<int>(o.numeric_balance), ": each must be an SpgemmBalance");
  const int g = o.threads_per_b_row;
  SPROCKET_REQUIRE(g == 0 || (g >= 1 && g <= 1024 && (g & (g - 1)) == 0),
                   "SpgemmPlan: SpgemmOptions::threads_per_b_row = ", g,
                   " must be 0 (automatic) or a power of two in [1, 1024]");
  SPROCKET_REQUIRE(o.memory_limit_bytes >= 0, "SpgemmPlan: SpgemmOptions::memory_limit_bytes = ",
                   o.memory_limit_bytes, " must be >= 0 (0: the device's available memory)");
}

/// What the device can still allocate: the host memory ceiling (Sprocket_Memory.hpp: available
/// memory, process and cgroup limits, less headroom), the GPU's free memory.
template <class ExecSpace>
int64_t spgemm_device_available_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (is_cuda_space_v<ExecSpace>) return cuda::spgemm_device_free_bytes(ExecSpace());
#endif
  return host_memory_ceiling();
}

/// Options with the backend's default thresholds filled in.
template <class ExecSpace>
SpgemmOptions spgemm_resolve_options(const SpgemmOptions& given, Backend backend) {
  SpgemmOptions o = given;
  const bool cuda = is_cuda_space_v<ExecSpace> && backend == Backend::native;
  o.symbolic_thresholds = spgemm_resolve_thresholds(
      given.symbolic_thresholds, cuda ? spgemm_cuda_symbolic_thresholds : spgemm_host_symbolic_thresholds);
  o.numeric_thresholds = spgemm_resolve_thresholds(
      given.numeric_thresholds, cuda ? spgemm_cuda_numeric_thresholds : spgemm_host_numeric_thresholds);
  return o;
}

/// The symbolic pass and the numeric pass's schedule on the analysed rows.
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_symbolic(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an) {
  using Scalar = typename CrsType::non_const_value_type;
  // What the numeric pass will need besides its temporaries: the analysis and C.
  const auto output_held = [&] {
    return an.memory.analysis_bytes + spgemm_bytes<typename CrsType::non_const_ordinal_type>(an.nnz_c) +
           spgemm_bytes<Scalar>(an.nnz_c);
  };
  if (an.backend == Backend::native) {
    if constexpr (is_host_space_v<ExecSpace>) {
      host::spgemm_symbolic(space, A, B, an);
      host::spgemm_numeric_schedule(space, A, B, an, output_held());
      return;
    }
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (is_cuda_space_v<ExecSpace> && spgemm_has_native_v<ExecSpace, Scalar>) {
      cuda::spgemm_symbolic(space, A, B, an);
      cuda::spgemm_numeric_schedule(space, A, an, output_held());
      return;
    }
#endif
  }
  kokkos::spgemm_symbolic(space, A, B, an);
}

/// C's columns (first) and values from A and B.
template <bool first, class ExecSpace, class CrsType, class Analysis>
void spgemm_numeric(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an, const CrsType& C) {
  if (an.nnz_c == 0) return;
  if (an.backend == Backend::native) {
    if constexpr (is_host_space_v<ExecSpace>) {
      host::ensure_workspace<typename CrsType::non_const_value_type>(an);
      return host::spgemm_numeric<first>(space, A, B, an, C);
    }
#ifdef KOKKOS_ENABLE_CUDA
    if constexpr (is_cuda_space_v<ExecSpace> &&
                  spgemm_has_native_v<ExecSpace, typename CrsType::non_const_value_type>)
      return cuda::spgemm_numeric<first>(space, A, B, an, C);
#endif
  }
  kokkos::spgemm_numeric(space, A, B, an, C);
}

}  // namespace Impl
}  // namespace Sprocket
