#pragma once
// SpmvPlan's members that analyse and run kernels (the class: impl/spmv/spmv_plan.hpp). The
// library compiles them once for the combinations of impl/common/eti.hpp (impl/spmv/eti/); other
// matrix types instantiate them here. Non-inline on purpose: `extern template` does not hold
// back the instantiation of inline members.
#include <Kokkos_Core.hpp>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

#include "Sprocket_CsrUtils.hpp"
#include "Sprocket_Validate.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/spmv/spmv_analysis.hpp"
#include "impl/spmv/spmv_autotune.hpp"
#include "impl/spmv/spmv_dispatch.hpp"
#include "impl/spmv/spmv_plan.hpp"

namespace Sprocket {

namespace Impl {
/// Seconds since `t`, and `t` moved to now.
inline double lap(std::chrono::steady_clock::time_point& t) {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}
}  // namespace Impl

template <class CrsType>
SpmvPlan<CrsType>::SpmvPlan(const CrsType& A, const SpmvOptions& options)
    : A_(A), options_(options), target_(Impl::spmv_target<execution_space, memory_space>(options.backend)) {
  analyse(nullptr, options_.autotune && options_.kernel == SpmvKernel::automatic);
}

template <class CrsType>
SpmvPlan<CrsType>::SpmvPlan(const CrsType& A, const SpmvTuningOptions& options)
    : A_(A), options_(options), target_(Impl::spmv_target<execution_space, memory_space>(options.backend)) {
  analyse(options.decision ? &*options.decision : nullptr, false);
}

template <class CrsType>
void SpmvPlan<CrsType>::analyse(const SpmvDecision* decision, bool autotune) {
  auto t = std::chrono::steady_clock::now();
  Sprocket::validate(A_, "SpmvPlan");  // A's structure, once: the kernels index x and y through it unchecked
  analysis_seconds_.validate = Impl::lap(t);
  row_map_ = Impl::host_row_map(A_);
  analysis_seconds_.row_map = Impl::lap(t);
  schedule_ = Impl::analyze_spmv(A_, row_map_, options_, target_, column_copies_, decision,
                                 decision ? SpmvDecidedBy::options : SpmvDecidedBy::model);
  // The column-index copies the schedule asked for are timed apart (row_patterns, offsets16).
  analysis_seconds_.schedule = Impl::lap(t) - column_copies_.patterns_seconds - column_copies_.offsets_seconds;
  analysis_ = Impl::make_spmv_analysis(A_, schedule_, row_map_, column_copies_);
  analysis_seconds_.device_schedule = Impl::lap(t);
  if (autotune) {
    const double before = column_copies_.patterns_seconds + column_copies_.offsets_seconds;
    Impl::SpmvAutotuneResult<CrsType> tuned = Impl::spmv_autotune(A_, row_map_, options_, target_, column_copies_);
    schedule_ = std::move(tuned.schedule);
    analysis_ = std::move(tuned.analysis);
    autotune_report_ = std::move(tuned.report);
    analysis_seconds_.autotune =
        Impl::lap(t) - (column_copies_.patterns_seconds + column_copies_.offsets_seconds - before);
  }
  analysis_seconds_.row_patterns = column_copies_.patterns_seconds;
  analysis_seconds_.offsets16 = column_copies_.offsets_seconds;
}

template <class CrsType>
void SpmvPlan<CrsType>::update_values(const execution_space& space, const CrsType& A) {
  Impl::require_same_crs_pattern(space, "SpmvPlan::update_values", A, A_);
  A_ = A;
  analysis_.A = A;
}

template <class CrsType>
std::string SpmvPlan<CrsType>::describe() const {
  std::ostringstream os;
  os << "SpmvPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
     << execution_space::name() << "\n"
     << "  backend " << to_string(backend()) << " (" << backend_reason() << ")\n"
     << schedule_.describe();
  if (!autotune_report_.empty()) os << autotune_report_;
  os << "  values: read from A's values View at every apply (no copy), both modes\n";
  return os.str();
}

template <class CrsType>
std::string SpmvPlan<CrsType>::backend_reason() const {
  return Impl::spmv_target_why<execution_space>(options_.backend, target_);
}

template <class CrsType>
void SpmvPlan<CrsType>::apply_compiled(const execution_space& space, Mode mode, scalar_type alpha,
                                       const typename vectors::const_contiguous& x, scalar_type beta,
                                       const typename vectors::contiguous& y) const {
  apply_vector(space, mode, alpha, x, beta, y);
}

template <class CrsType>
void SpmvPlan<CrsType>::apply_compiled(const execution_space& space, Mode mode, scalar_type alpha,
                                       const typename vectors::const_strided& x, scalar_type beta,
                                       const typename vectors::strided& y) const {
  apply_vector(space, mode, alpha, x, beta, y);
}

template <class CrsType>
template <class XView, class YView>
void SpmvPlan<CrsType>::apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x,
                                     scalar_type beta, const YView& y) const {
  Impl::spmv_dispatch(space, mode, options_.transpose, analysis_, [this]() -> const transpose_type& {
    return cached_transpose();
  }, alpha, x, beta, y);
}

template <class CrsType>
auto SpmvPlan<CrsType>::cached_transpose() const -> const transpose_type& {
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

}  // namespace Sprocket
