#pragma once
// SpmvPlan (declared in Sprocket_Spmv.hpp): the class. Its members that analyse or run kernels
// are defined in impl/spmv/spmv_plan_def.hpp (validation and analysis once at construction,
// impl/spmv/spmv_analysis.hpp, optional autotune: impl/spmv/spmv_autotune.hpp; apply through
// impl/spmv/spmv_dispatch.hpp) and compiled once by the library for the combinations of
// impl/common/eti.hpp (impl/spmv/eti/), which this header declares extern.
//
// apply() routes x and y of any layout to one of two View pairs per plan (contiguous, strided:
// apply_compiled, through Impl::LinearOperator), so each plan type compiles its kernels twice, not
// once per caller's View type; Views of another value type or memory space take apply_vector,
// instantiated from the headers.
//
// Device code lives in free functions (impl/spmv/spmv_kokkos.hpp, host/, cuda/): nvcc refuses
// extended lambdas inside private member functions.
#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "impl/common/eti.hpp"
#include "impl/common/plan_copies.hpp"
#include "impl/spmv/spmv_analysis.hpp"

namespace Sprocket {

template <class CrsType>
class SpmvPlan : public Impl::LinearOperator<SpmvPlan<CrsType>, typename CrsType::execution_space,
                                             typename CrsType::non_const_value_type> {
  static_assert(is_crs_matrix_v<CrsType>, "SpmvPlan: the matrix must be a KokkosSparse::CrsMatrix");
  friend class Impl::LinearOperator<SpmvPlan<CrsType>, typename CrsType::execution_space,
                                    typename CrsType::non_const_value_type>;

 public:
  static constexpr const char* operator_name = "SpmvPlan::apply";
  using matrix_type = CrsType;
  using scalar_type = typename CrsType::non_const_value_type;
  using ordinal_type = typename CrsType::non_const_ordinal_type;
  using execution_space = typename CrsType::execution_space;
  using memory_space = typename CrsType::memory_space;
  using device_type = typename CrsType::device_type;
  using analysis_type = Impl::SpmvAnalysis<CrsType>;

  explicit SpmvPlan(const CrsType& A, const SpmvOptions& options = {});
  /// With an explicit decision (SpmvTuningOptions::decision), for tuning tools.
  explicit SpmvPlan(const CrsType& A, const SpmvTuningOptions& options);

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }

  /// New values: A must have the plan's pattern (InvalidArgument otherwise); the plan reads A's
  /// values View from then on, in both modes (mode T's cached transpose takes them at every
  /// transposed apply). This plan keeps no copy of the values, so values changed in place are
  /// read by the next apply even without this call (Sprocket_Operator.hpp: "Values").
  void update_values(const CrsType& A) { update_values(execution_space(), A); }
  void update_values(const execution_space& space, const CrsType& A);

  /// What the analysis chose and why: backend and target, features, U, bins and their kernels,
  /// column indices and x prefetch, and the autotune measurements when it ran.
  std::string describe() const;

  /// The implementation family the plan runs: Backend::native (the host or CUDA kernels) or
  /// Backend::portable (never automatic).
  Backend backend() const {
    return target_ == SpmvTarget::host || target_ == SpmvTarget::cuda ? Backend::native : Backend::portable;
  }
  /// Why that backend: the requested one and what the execution space has.
  std::string backend_reason() const;
  /// The kernels chosen, bin by bin, and who decided them (schedule().decided_by_text()).
  const SpmvSchedule& schedule() const { return schedule_; }
  /// The options as requested (what was chosen: backend(), schedule(), target()).
  const SpmvOptions& options() const { return options_; }
  SpmvTarget target() const { return target_; }
  const CrsType& matrix() const { return A_; }
  /// The device-side analysis every backend reads (A's Views and the device schedule).
  const analysis_type& analysis() const { return analysis_; }
  /// Where the construction's time went, phase by phase (seconds, one measurement each).
  const SpmvAnalysisSeconds& analysis_seconds() const { return analysis_seconds_; }

 private:
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

  /// Both constructors' analysis, each phase timed into analysis_seconds_: `decision` nullptr
  /// for the model's; `autotune` measures the candidates afterwards (SpmvOptions::autotune).
  void analyse(const SpmvDecision* decision, bool autotune);

  using transpose_type = Impl::SpmvTransposeAnalysis<CrsType>;

  /// A^T's analysis for mode T with SpmvTranspose::cached, built on the first transposed apply
  /// (allocates); the dispatch refreshes its values from A's before every transposed apply.
  const transpose_type& cached_transpose() const;

  CrsType A_;
  SpmvOptions options_;
  SpmvTarget target_;
  std::vector<int64_t> row_map_;
  SpmvSchedule schedule_;
  Impl::SpmvColumnIndexCopies<device_type> column_copies_;
  analysis_type analysis_;
  std::string autotune_report_;
  SpmvAnalysisSeconds analysis_seconds_;
  /// Not shared by copies: the dispatch writes the values of A^T into it at every transposed apply.
  mutable Impl::EmptyOnCopy<std::shared_ptr<const transpose_type>> transpose_;
};

#ifdef SPROCKET_ETI
#define SPROCKET_SPMV_PLAN_EXTERN(Scalar, Offset, ExecSpace) \
  extern template class SpmvPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_EACH(SPROCKET_SPMV_PLAN_EXTERN)
#undef SPROCKET_SPMV_PLAN_EXTERN
#endif

}  // namespace Sprocket

#include "impl/spmv/spmv_plan_def.hpp"
