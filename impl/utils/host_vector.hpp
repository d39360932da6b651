#pragma once
// A rank-1 View as the host kernels see it: a pointer, a stride and an extent. A View's type names
// its execution space, and the library compiles every plan for OpenMP and Serial in one
// translation unit (impl/common/eti.hpp): kernels typed on the Views were compiled twice over,
// AVX2 clones included, for the same loads and the same code (SpMV's and BSR SpMV's host kernels).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace Sprocket {
namespace Impl {
namespace host {

/// x or y as a pointer and a stride: Stride 1 (contiguous, known at compile time) or 0 (the
/// run-time `stride`, for LayoutStride Views: the plan's strided View pair). `n` is the extent.
template <class T, int Stride>
struct HostVector {
  static constexpr bool contiguous = Stride == 1;
  T* data;
  int64_t stride;
  int64_t n;
  KOKKOS_FORCEINLINE_FUNCTION T& operator()(int64_t i) const { return data[Stride == 1 ? i : i * stride]; }
  KOKKOS_FORCEINLINE_FUNCTION int64_t extent(int) const { return n; }
};

/// The HostVector of a rank-1 View: contiguous unless the View is LayoutStride. ReadOnly makes the
/// element const, so that x gives the kernels one type whether the caller's View is const or not
/// (a second copy of every part kernel otherwise).
template <bool ReadOnly = false, class View>
auto host_vector(const View& v) {
  using Element = std::remove_reference_t<typename View::reference_type>;
  using T = std::conditional_t<ReadOnly, const Element, Element>;
  constexpr int stride = std::is_same_v<typename View::array_layout, Kokkos::LayoutStride> ? 0 : 1;
  return HostVector<T, stride>{v.data(), static_cast<int64_t>(v.stride(0)), static_cast<int64_t>(v.extent(0))};
}

/// The same vector read as contiguous (for a strided one whose stride is 1).
template <class T, int Stride>
HostVector<T, 1> as_contiguous(const HostVector<T, Stride>& v) {
  return {v.data, 1, v.n};
}

}  // namespace host
}  // namespace Impl
}  // namespace Sprocket
