#pragma once
/// \file Sprocket_Operator.hpp
/// The pattern every Sprocket operator follows (SpMV, BSR SpMV, SpMM, SDDMM, SpGEMM):
///
///   auto op = Sprocket::SpmvPlan<Crs>(A, options);     // analysis: once per sparsity pattern;
///                                                     //   may allocate, reorder, choose kernels
///   op.apply("N", alpha, X, beta, Y);                 // apply: allocation-free, repeatable;
///   op.apply(space, "N", alpha, X, beta, Y);          //   optionally on an execution-space instance
///   op.update_values(A2);                             // A2: A's pattern, new values
///   op.update_values(space, A2);
///   std::cout << op.describe();                       // what the analysis chose, human-readable
///
/// Values. update_values(A) (SpmvPlan, BsrSpmvPlan, SpmmPlan, SddmmPlan, PlanOperator and every
/// preconditioner) takes A's values: A must have the pattern the plan analysed (dimensions, entry
/// count, row map and column indices in the same order; compared on the device unless they are
/// the plan's own Views), otherwise it throws InvalidArgument; every later apply, in every mode,
/// uses A's values. Between an in-place change of the values and that call a plan uses either
/// the new values or those of its last update_values (or construction), and always the same
/// ones in every mode: a plan that reads A's values View at apply sees the change at once
/// (SpmvPlan, SddmmPlan, BsrSpmvPlan's row kernels), a plan that keeps a copy of its own sees it
/// after update_values (SpmmPlan's reordered copy, BsrSpmvPlan's padded and symmetric copies,
/// every preconditioner's factors); describe() says which ("values: ..."). Code that calls
/// update_values(A) after every change of values does not need to know. SpgemmPlan takes its
/// operands at every numeric(A, B) call, which checks their shapes and entry counts.
///
/// Accessors. Every plan has describe(); backend(), the implementation family it runs (native or
/// portable, never automatic); backend_reason(), why (the request and what the execution space
/// has), which describe() prints; options(), the options as requested (automatic stays
/// automatic). What the analysis chose, with why, has the plan's own names: kernel() and
/// kernel_reason() (SpmmPlan, BsrSpmvPlan), schedule() (SpmvPlan: per bin), kernel_for(K, &why)
/// (SddmmPlan: per K), symbolic_balance(&why), numeric_balance(&why) and resolved_options()
/// (SpgemmPlan).
///
/// Copies. A copy of a plan is independent of the original: it shares what the analysis
/// computed and never changes (read-only Views), and has its own of everything an apply,
/// numeric pass or update_values writes (workspaces and cached transposes start empty in a copy
/// and are built by its first call that needs them; update_values writes new Views, never the
/// ones a copy may share). Copies may be applied concurrently, each from its own host thread, as
/// separate plans may. Preconditioners and other MultiVectorOperators are not copyable (held by
/// std::shared_ptr): build a second one with the factory.
///
/// apply() validates its arguments (mode, ranks, extents) and throws InvalidArgument naming the
/// sizes; the implementation behind it is chosen per execution space by the kernel's
/// `impl/<kernel>/<kernel>_dispatch.hpp`: a CUDA specialization (`impl/<kernel>/cuda/`) for
/// Kokkos::Cuda, a host specialization (`impl/<kernel>/host/`) for OpenMP and Serial, and the
/// portable Kokkos implementation (`impl/<kernel>/<kernel>_kokkos.hpp`) for every other space or
/// when `Backend::portable` is forced.

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include "Sprocket_Error.hpp"

namespace Sprocket {

/// op(A): "N" = A, "T" = A^T. Conjugate modes are not supported (real scalars only).
enum class Mode { N, T };
/// Parses "N" or "n" as Mode::N and "T" or "t" as Mode::T; throws InvalidArgument for anything else.
inline Mode parse_mode(const char* mode) {
  const std::string m = mode ? mode : "";
  if (m == "N" || m == "n") return Mode::N;
  if (m == "T" || m == "t") return Mode::T;
  throw InvalidArgument("Sprocket: mode \"" + m + "\" is not supported (use \"N\" or \"T\")");
}
/// The mode's name: "N" or "T".
inline const char* to_string(Mode mode) { return mode == Mode::N ? "N" : "T"; }

/// Which implementation family an operator uses. Every operator selects its implementation by a
/// Backend plus its own kernel enum (SpmvKernel, BsrKernel, SpmmKernel), whose names say what the
/// kernel does, never where it runs; the module's `impl/<kernel>/<kernel>_dispatch.hpp` shows every
/// routing decision.
enum class Backend {
  automatic,  ///< the execution space's native specialization where one exists, else portable
  portable,   ///< the portable Kokkos implementation, on any space (for tests and comparisons)
  native,     ///< the execution space's specialization (`impl/<kernel>/host/` or `cuda/`); throws
              ///< InvalidArgument on a space that has none
};
const char* to_string(Backend backend);  ///< the backend's name: "automatic", "portable" or "native"
/// Parses "automatic" (or "auto"), "portable", "native"; throws InvalidArgument naming them.
Backend backend_from_string(const std::string& name);

namespace Impl {

template <class ExecSpace>
inline constexpr bool is_cuda_space_v =
#ifdef KOKKOS_ENABLE_CUDA
    std::is_same_v<ExecSpace, Kokkos::Cuda>;
#else
    false;
#endif

template <class ExecSpace>
inline constexpr bool is_host_space_v =
#ifdef KOKKOS_ENABLE_OPENMP
    std::is_same_v<ExecSpace, Kokkos::OpenMP> ||
#endif
#ifdef KOKKOS_ENABLE_SERIAL
    std::is_same_v<ExecSpace, Kokkos::Serial> ||
#endif
    false;

/// Extents check shared by every operator's apply: y = op(A) x with A rows x cols.
template <class XView, class YView>
void check_apply_extents(const char* who, Mode mode, int64_t rows, int64_t cols, const XView& x,
                         const YView& y) {
  static_assert(Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value,
                "Sprocket: X and Y must be Kokkos::Views");
  static_assert(int(XView::rank) == int(YView::rank), "Sprocket: X and Y must have the same rank");
  static_assert(XView::rank == 1 || XView::rank == 2, "Sprocket: X and Y must be rank 1 or 2");
  static_assert(!std::is_const_v<typename YView::value_type>, "Sprocket: Y must not be const");
  const int64_t in = mode == Mode::N ? cols : rows, out = mode == Mode::N ? rows : cols;
  SPROCKET_REQUIRE(static_cast<int64_t>(x.extent(0)) == in && static_cast<int64_t>(y.extent(0)) == out,
                   who, ": op(A) is ", out, " x ", in, " (mode ", to_string(mode), ", A is ", rows,
                   " x ", cols, ") but x has ", x.extent(0), " rows and y has ", y.extent(0));
  if constexpr (XView::rank == 2)
    SPROCKET_REQUIRE(x.extent(1) == y.extent(1), who, ": x has ", x.extent(1), " columns but y has ",
                     y.extent(1));
}

/// The rank-1 View types an operator compiled once by the library (impl/common/eti.hpp) is
/// compiled for: x and y unmanaged, contiguous or strided, in Device's memory space.
template <class Scalar, class Device>
struct CompiledVectors {
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using const_contiguous = Kokkos::View<const Scalar*, Kokkos::LayoutLeft, Device, unmanaged>;
  using contiguous = Kokkos::View<Scalar*, Kokkos::LayoutLeft, Device, unmanaged>;
  using const_strided = Kokkos::View<const Scalar*, Kokkos::LayoutStride, Device, unmanaged>;
  using strided = Kokkos::View<Scalar*, Kokkos::LayoutStride, Device, unmanaged>;
};

/// Whether rank-1 x and y can be seen as CompiledVectors<Scalar, Device>: Scalar values (y not
/// const) in Device's memory space. Other Views take an operator's generic route.
template <class Scalar, class Device, class XView, class YView>
inline constexpr bool compiled_vectors_fit_v =
    std::is_same_v<typename XView::non_const_value_type, Scalar> && std::is_same_v<typename YView::value_type, Scalar> &&
    std::is_same_v<typename XView::memory_space, typename Device::memory_space> &&
    std::is_same_v<typename YView::memory_space, typename Device::memory_space>;

/// f(x, y) with x and y as the contiguous CompiledVectors when both have unit stride, else as the
/// strided ones (a caller's layout then never multiplies the instantiations of f's target).
template <class Scalar, class Device, class XView, class YView, class F>
void with_compiled_vectors(const XView& x, const YView& y, F&& f) {
  using V = CompiledVectors<Scalar, Device>;
  const auto unit = [](const auto& v) { return v.extent(0) <= 1 || v.stride(0) == 1; };
  if (unit(x) && unit(y))
    return f(typename V::const_contiguous(x.data(), x.extent(0)), typename V::contiguous(y.data(), y.extent(0)));
  f(typename V::const_strided(x.data(), Kokkos::LayoutStride(x.extent(0), x.stride(0))),
    typename V::strided(y.data(), Kokkos::LayoutStride(y.extent(0), y.stride(0))));
}

/// Writes an operator's public apply() once for all operators (CRTP). apply() parses the mode,
/// checks ranks and extents (InvalidArgument naming the sizes), applies rank-2 Views column by
/// column and hands each vector to Derived::apply_vector(space, mode, alpha, x, beta, y).
/// Derived provides num_rows(), num_cols(), a static `operator_name` for messages, and
/// apply_vector (private is fine: befriend LinearOperator). An operator whose kernel handles
/// several vectors at once (SpMM) sets `static constexpr bool native_multivector = true` and
/// provides apply_multivector(space, mode, alpha, X, beta, Y) for rank-2 Views instead of the
/// column-by-column loop; the others inherit native_multivector = false from here. An operator
/// the library compiles once (impl/common/eti.hpp) sets `static constexpr bool
/// compiled_vectors = true` and provides apply_compiled(space, mode, alpha, x, beta, y) for the
/// two CompiledVectors<Scalar, Derived::device_type> pairs: vectors that fit them go there
/// (whatever the caller's layout), the others to apply_vector.
template <class Derived, class ExecSpace, class Scalar>
class LinearOperator {
 public:
  static constexpr bool native_multivector = false;
  static constexpr bool compiled_vectors = false;

  /// y = alpha * op(A) * x + beta * y on a default instance of the execution space.
  template <class XView, class YView>
  void apply(const char mode[], Scalar alpha, const XView& x, Scalar beta, const YView& y) const {
    apply(ExecSpace(), mode, alpha, x, beta, y);
  }

  /// The same on a given execution-space instance (CUDA kernels run on its stream).
  template <class XView, class YView>
  void apply(const ExecSpace& space, const char mode[], Scalar alpha, const XView& x, Scalar beta,
             const YView& y) const {
    const Mode m = parse_mode(mode);
    const Derived& self = static_cast<const Derived&>(*this);
    check_apply_extents(Derived::operator_name, m, self.num_rows(), self.num_cols(), x, y);
    if constexpr (XView::rank == 2 && Derived::native_multivector) {
      // Operators with a true multi-vector kernel (SpMM) take the whole block at once.
      self.apply_multivector(space, m, alpha, x, beta, y);
    } else if constexpr (XView::rank == 2) {
      for (size_t j = 0; j < x.extent(1); ++j)
        apply_one(self, space, m, alpha, Kokkos::subview(x, Kokkos::ALL(), j), beta,
                  Kokkos::subview(y, Kokkos::ALL(), j));
    } else {
      apply_one(self, space, m, alpha, x, beta, y);
    }
  }

 private:
  template <class XView, class YView>
  static void apply_one(const Derived& self, const ExecSpace& space, Mode m, Scalar alpha, const XView& x,
                        Scalar beta, const YView& y) {
    // apply_vector in the else branch: a statement after an `if constexpr` block that returns is
    // still instantiated, and would compile every kernel of the operator again in the caller's
    // translation unit for View types that never reach it.
    if constexpr (fits_compiled_vectors<XView, YView>()) {
      with_compiled_vectors<Scalar, typename Derived::device_type>(
          x, y, [&](const auto& xc, const auto& yc) { self.apply_compiled(space, m, alpha, xc, beta, yc); });
    } else {
      self.apply_vector(space, m, alpha, x, beta, y);
    }
  }

  /// Whether x and y go to Derived::apply_compiled (never for an operator without compiled_vectors).
  template <class XView, class YView>
  static constexpr bool fits_compiled_vectors() {
    if constexpr (Derived::compiled_vectors)
      return compiled_vectors_fit_v<Scalar, typename Derived::device_type, XView, YView>;
    else
      return false;
  }
};

}  // namespace Impl
}  // namespace Sprocket
