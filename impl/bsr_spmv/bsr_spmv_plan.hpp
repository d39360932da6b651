#pragma once
// BsrSpmvPlan (declared in Sprocket_BsrSpmv.hpp): validates the options, resolves the backend and
// runs the analysis once at construction (impl/bsr_spmv/bsr_spmv_analysis.hpp); apply() hands
// every vector to the dispatch (impl/bsr_spmv/bsr_spmv_dispatch.hpp), which makes every routing
// decision. Those members are defined in impl/bsr_spmv/bsr_spmv_plan_def.hpp and compiled once by
// the library for the combinations of impl/common/eti.hpp (impl/bsr_spmv/eti/), which this header
// declares extern; apply() routes x and y of any layout to one of two View pairs first. Device
// code lives in free functions (nvcc refuses extended lambdas in private member functions).
#include <Kokkos_Core.hpp>
#include <sstream>
#include <string>
#include <type_traits>

#include "impl/bsr_spmv/bsr_spmv_analysis.hpp"
#include "impl/common/eti.hpp"

namespace Sprocket {

template <class BsrType>
class BsrSpmvPlan : public Impl::LinearOperator<BsrSpmvPlan<BsrType>, typename BsrType::execution_space,
                                                typename BsrType::value_type> {
  static_assert(is_bsr_matrix_v<BsrType>, "BsrSpmvPlan: the matrix must be a Sprocket::BsrMatrix");
  friend class Impl::LinearOperator<BsrSpmvPlan<BsrType>, typename BsrType::execution_space,
                                    typename BsrType::value_type>;

 public:
  static constexpr const char* operator_name = "BsrSpmvPlan::apply";
  using matrix_type = BsrType;
  using scalar_type = typename BsrType::value_type;
  using ordinal_type = typename BsrType::ordinal_type;
  using execution_space = typename BsrType::execution_space;
  using device_type = typename BsrType::device_type;

  explicit BsrSpmvPlan(const BsrType& A, const BsrSpmvOptions& options = {});

  /// New values: A must have the plan's block size and block pattern (InvalidArgument otherwise).
  /// Checks a matrix declared symmetric again (InvalidArgument if it no longer is) and refreshes
  /// the copies the padded and symmetric kernels read. Which values an apply reads between an
  /// in-place change and this call depends on the kernel, never on the mode (describe() says it;
  /// Sprocket_Operator.hpp: "Values").
  void update_values(const BsrType& A) { update_values(execution_space(), A); }
  void update_values(const execution_space& space, const BsrType& A);
  /// The values of the matrix the plan was built on (or last updated with), re-read.
  [[deprecated("call update_values(A): the same for every plan")]] void update_values() { update_values(analysis_.A); }

  int64_t num_rows() const { return analysis_.A.numRows(); }
  int64_t num_cols() const { return analysis_.A.numCols(); }

  /// The kernel every apply runs (never automatic).
  BsrKernel kernel() const { return choice_.kernel; }
  /// The resolved backend: Backend::native or Backend::portable.
  Backend backend() const { return choice_.backend; }
  /// Why backend() and kernel(): forced, or the automatic rule and what it compared.
  const std::string& backend_reason() const { return choice_.why; }
  const std::string& kernel_reason() const { return choice_.why; }
  /// The options as requested (what was chosen: backend(), kernel()).
  const BsrSpmvOptions& options() const { return options_; }
  const BsrType& matrix() const { return analysis_.A; }
  /// The device-side analysis every backend reads (A, host parts, padded or packed copies).
  const Impl::BsrSpmvAnalysis<BsrType>& analysis() const { return analysis_; }

  std::string describe() const;

 private:
  static Impl::BsrSpmvChoice choose(const BsrType& A, const BsrSpmvOptions& options);

  /// x and y of the plan's scalar type in its memory space reach apply_compiled, as one of two
  /// View pairs (contiguous, strided) whatever their layout; others reach apply_vector.
  static constexpr bool compiled_vectors = true;
  using vectors = Impl::CompiledVectors<scalar_type, device_type>;
  void apply_compiled(const execution_space& space, Mode mode, scalar_type alpha,
                      const typename vectors::const_contiguous& x, scalar_type beta,
                      const typename vectors::contiguous& y) const;
  void apply_compiled(const execution_space& space, Mode mode, scalar_type alpha,
                      const typename vectors::const_strided& x, scalar_type beta,
                      const typename vectors::strided& y) const;
  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const;

  BsrSpmvOptions options_;
  Impl::BsrSpmvChoice choice_;
  Impl::BsrSpmvAnalysis<BsrType> analysis_;
};

namespace Impl {
/// The block matrix of one listed combination (impl/common/eti.hpp).
template <class Scalar, class Offset, class ExecSpace>
using EtiBsr = BsrMatrix<Scalar, int, Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, Offset>;
}  // namespace Impl

#ifdef SPROCKET_ETI
#define SPROCKET_BSR_SPMV_PLAN_EXTERN(Scalar, Offset, ExecSpace) \
  extern template class BsrSpmvPlan<Impl::EtiBsr<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_EACH(SPROCKET_BSR_SPMV_PLAN_EXTERN)
#undef SPROCKET_BSR_SPMV_PLAN_EXTERN
#endif

}  // namespace Sprocket

#include "impl/bsr_spmv/bsr_spmv_plan_def.hpp"
