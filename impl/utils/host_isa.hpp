#pragma once
/// \file host_isa.hpp
/// Run-time choice of AVX2 + FMA for host kernels. The project builds for baseline x86-64 (so
/// the library runs on any x86-64 CPU), which leaves the compiler SSE2 and separate multiplies
/// and adds. Kernels that gain from wider vectors and FMA compile one extra copy of their inner
/// loop with __attribute__((target("avx2,fma"))) and pick it at run time when the CPU has both.
/// Only for GCC / Clang host compilation of x86-64 without -mavx2 already (then the plain copy is
/// the AVX2 one); never inside nvcc's host pass, which does not take the target attribute.
///
/// The environment variable SPROCKET_HOST_ISA overrides the choice for the whole process (read
/// once, at the first kernel that asks): `baseline` runs the baseline copies even where the CPU
/// has AVX2 + FMA (how benchmarks compare our algorithms with peers built without them), `auto`
/// (or unset, or empty) detects, `avx2_fma` insists on the AVX2 copies and is an error where the
/// CPU or the build has none.
#include <cstdlib>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(__AVX2__)
#define SPROCKET_HOST_AVX2_CLONE 1
#endif

namespace Sprocket {
namespace Impl {

/// Whether this build carries AVX2 copies and the running CPU has AVX2 and FMA.
inline bool host_cpu_has_avx2_fma() {
#if defined(SPROCKET_HOST_AVX2_CLONE)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

/// The decision for a value of SPROCKET_HOST_ISA (null: unset) on a CPU that has (or lacks) the
/// AVX2 copies: true runs them. Throws std::invalid_argument on an unknown value, or on
/// `avx2_fma` where `cpu_has_avx2_fma` is false.
inline bool host_isa_choice(const char* env, bool cpu_has_avx2_fma) {
  const std::string v = env ? env : "";
  if (v.empty() || v == "auto") return cpu_has_avx2_fma;
  if (v == "baseline") return false;
  if (v == "avx2_fma") {
    if (!cpu_has_avx2_fma)
      throw std::invalid_argument(
          "SPROCKET_HOST_ISA=avx2_fma, but this CPU (or this build: no AVX2 copies in it) has no AVX2 + FMA");
    return true;
  }
  throw std::invalid_argument("SPROCKET_HOST_ISA must be auto, baseline or avx2_fma, not \"" + v + "\"");
}

/// Whether host kernels run their AVX2 + FMA copies: the CPU's answer unless SPROCKET_HOST_ISA
/// says otherwise (decided once per process; a bad value throws at every call).
inline bool host_has_avx2_fma() {
  static const bool has = host_isa_choice(std::getenv("SPROCKET_HOST_ISA"), host_cpu_has_avx2_fma());
  return has;
}

/// "avx2_fma" or "baseline": the copies host kernels run (benchmark records carry it).
inline const char* host_isa_name() { return host_has_avx2_fma() ? "avx2_fma" : "baseline"; }

}  // namespace Impl
}  // namespace Sprocket
