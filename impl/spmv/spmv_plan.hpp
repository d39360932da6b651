#pragma once
// SpmvPlan: validation and analysis once at construction (impl/spmv/spmv_analysis.hpp, optional
// autotune: impl/spmv/spmv_autotune.hpp), apply() through impl/spmv/spmv_dispatch.hpp, describe().
// Declared in Sprocket_Spmv.hpp.
//
// Device code lives in free functions (impl/spmv/spmv_kokkos.hpp, host/, cuda/): nvcc refuses
// extended lambdas inside private member functions.
#include <Kokkos_Core.hpp>
#include <memory>
#include <sstream>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Validate.hpp"
#include "impl/spmv/spmv_analysis.hpp"
#include "impl/spmv/spmv_autotune.hpp"
#include "impl/common/plan_copies.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/spmv/spmv_dispatch.hpp"

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

  explicit SpmvPlan(const CrsType& A, const SpmvOptions& options = {})
      : A_(A), options_(options), target_(Impl::spmv_target<execution_space, memory_space>(options.backend)) {
    Sprocket::validate(A_, "SpmvPlan");  // A's structure, once: the kernels index x and y through it unchecked
    row_map_ = Impl::host_row_map(A_);
    schedule_ = Impl::analyze_spmv(A_, row_map_, options_, target_, column_copies_);
    analysis_ = Impl::make_spmv_analysis(A_, schedule_, row_map_, column_copies_);
    if (options_.autotune && options_.kernel == SpmvKernel::automatic) {
      Impl::SpmvAutotuneResult<CrsType> tuned = Impl::spmv_autotune(A_, row_map_, options_, target_, column_copies_);
      schedule_ = std::move(tuned.schedule);
      analysis_ = std::move(tuned.analysis);
      autotune_report_ = std::move(tuned.report);
    }
  }

  /// With an explicit decision (SpmvTuningOptions::decision), for tuning tools.
  explicit SpmvPlan(const CrsType& A, const SpmvTuningOptions& options)
      : A_(A), options_(options), target_(Impl::spmv_target<execution_space, memory_space>(options.backend)) {
    Sprocket::validate(A_, "SpmvPlan");
    row_map_ = Impl::host_row_map(A_);
    schedule_ = options.decision ? Impl::analyze_spmv(A_, row_map_, options_, target_, column_copies_,
                                                      &*options.decision, SpmvDecidedBy::options)
                                 : Impl::analyze_spmv(A_, row_map_, options_, target_, column_copies_);
    analysis_ = Impl::make_spmv_analysis(A_, schedule_, row_map_, column_copies_);
  }

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }

  /// New values: A must have the plan's pattern (InvalidArgument otherwise); the plan reads A's
  /// values View from then on, in both modes (mode T's cached transpose takes them at every
  /// transposed apply). This plan keeps no copy of the values, so values changed in place are
  /// read by the next apply even without this call (Sprocket_Operator.hpp: "Values").
  void update_values(const CrsType& A) { update_values(execution_space(), A); }
  void update_values(const execution_space& space, const CrsType& A) {
    Impl::require_same_crs_pattern(space, "SpmvPlan::update_values", A, A_);
    A_ = A;
    analysis_.A = A;
  }

  /// What the analysis chose and why: backend and target, features, U, bins and their kernels,
  /// column indices and x prefetch, and the autotune measurements when it ran.
  std::string describe() const {
    std::ostringstream os;
    os << "SpmvPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
       << execution_space::name() << "\n"
       << "  backend " << to_string(backend()) << " (" << backend_reason() << ")\n"
       << schedule_.describe();
    if (!autotune_report_.empty()) os << autotune_report_;
    os << "  values: read from A's values View at every apply (no copy), both modes\n";
    return os.str();
  }

  /// The implementation family the plan runs: Backend::native (the host or CUDA kernels) or
  /// Backend::portable (never automatic).
  Backend backend() const {
    return target_ == SpmvTarget::host || target_ == SpmvTarget::cuda ? Backend::native : Backend::portable;
  }
  /// Why that backend: the requested one and what the execution space has.
  std::string backend_reason() const { return Impl::spmv_target_why<execution_space>(options_.backend, target_); }
  /// The kernels chosen, bin by bin, and who decided them (schedule().decided_by_text()).
  const SpmvSchedule& schedule() const { return schedule_; }
  /// The options as requested (what was chosen: backend(), schedule(), target()).
  const SpmvOptions& options() const { return options_; }
  SpmvTarget target() const { return target_; }
  const CrsType& matrix() const { return A_; }
  /// The device-side analysis every backend reads (A's Views and the device schedule).
  const analysis_type& analysis() const { return analysis_; }

 private:
  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x,
                    scalar_type beta, const YView& y) const {
    Impl::spmv_dispatch(space, mode, options_.transpose, analysis_, [this]() -> const transpose_type& {
      return cached_transpose();
    }, alpha, x, beta, y);
  }

  using transpose_type = Impl::SpmvTransposeAnalysis<CrsType>;

  /// A^T's analysis for mode T with SpmvTranspose::cached, built on the first transposed apply
  /// (allocates); the dispatch refreshes its values from A's before every transposed apply.
  const transpose_type& cached_transpose() const {
    if (!transpose_) {
      auto [At, source] = Impl::transpose_with_source(A_);
      SpmvOptions transposed_options = options_;
      transposed_options.autotune = false;
      auto t = std::make_shared<transpose_type>();
      t->analysis = SpmvPlan(At, transposed_options).analysis_;
      t->source = source;
      transpose_ = t;
    }
    return *transpose_;
  }

  CrsType A_;
  SpmvOptions options_;
  SpmvTarget target_;
  std::vector<int64_t> row_map_;
  SpmvSchedule schedule_;
  Impl::SpmvColumnIndexCopies<device_type> column_copies_;
  analysis_type analysis_;
  std::string autotune_report_;
  /// Not shared by copies: the dispatch writes the values of A^T into it at every transposed apply.
  mutable Impl::EmptyOnCopy<std::shared_ptr<const transpose_type>> transpose_;
};

}  // namespace Sprocket
