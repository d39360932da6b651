#pragma once
/// \file host_isa.hpp
/// Run-time choice of AVX2 + FMA for host kernels. The project builds for baseline x86-64 (so
/// the library runs on any x86-64 CPU), which leaves the compiler SSE2 and separate multiplies
/// and adds. Kernels that gain from wider vectors and FMA compile one extra copy of their inner
/// loop with __attribute__((target("avx2,fma"))) and pick it at run time when the CPU has both.
/// Only for GCC / Clang host compilation of x86-64 without -mavx2 already (then the plain copy is
/// the AVX2 one); never inside nvcc's host pass, which does not take the target attribute.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && !defined(__AVX2__)
#define SPROCKET_HOST_AVX2_CLONE 1
#endif

namespace Sprocket {
namespace Impl {

/// Whether the running CPU has AVX2 and FMA and this build carries the AVX2 copies (checked
/// once).
inline bool host_has_avx2_fma() {
#if defined(SPROCKET_HOST_AVX2_CLONE)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace Impl
}  // namespace Sprocket
