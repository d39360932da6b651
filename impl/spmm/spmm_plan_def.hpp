#pragma once
// SpmmPlan's members that analyse and run kernels (the class: impl/spmm/spmm_plan.hpp). The
// library compiles them once for the combinations of impl/common/eti.hpp (impl/spmm/eti/); other
// matrix types instantiate them here. Non-inline on purpose: `extern template` does not hold
// back the instantiation of inline members.
#include <Kokkos_Core.hpp>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

#include "Sprocket_Validate.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "impl/spmm/spmm_dispatch.hpp"
#include "impl/spmm/spmm_plan.hpp"
#include "impl/utils/host_isa.hpp"

namespace Sprocket {

template <class CrsType>
SpmmPlan<CrsType>::SpmmPlan(const CrsType& A, const SpmmOptions& options) : A_(A), options_(options) {
  Sprocket::validate(A_, "SpmmPlan");  // A's structure, once: the analysis and the kernels index through it
  const Backend backend = Impl::spmm_resolve_backend<execution_space, scalar_type>(options.backend, &backend_reason_);
  Impl::spmm_check_kernel<execution_space>(options.kernel, options.backend, backend);
  target_ = Impl::spmm_target<execution_space>(backend);
  tiling_ = Impl::spmm_plan_tiling(options.tiling, target_, sizeof(scalar_type));
  analysis_ = Impl::spmm_analyse(A_, backend, options.kernel, target_, tiling_, &report_);
  reordered_ = CrsType("Sprocket::spmm::reordered", A_.numRows(), A_.numCols(), static_cast<offset_type>(nnz()),
                       analysis_.values, A_.graph.row_map, analysis_.entries);
}

template <class CrsType>
void SpmmPlan<CrsType>::update_values(const execution_space& space, const CrsType& A) {
  Impl::require_same_crs_pattern(space, "SpmmPlan::update_values", A, A_);
  // Gathered into a new View, not the old one: copies of this plan share the old one and must
  // keep their values (Sprocket_Operator.hpp, "Copies").
  Kokkos::View<scalar_type*, device_type> values(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::values"),
                                                 analysis_.values.extent(0));
  Impl::spmm_gather_values(space, values, A.values, analysis_.permutation);
  space.fence();
  A_ = A;
  analysis_.values = values;
  reordered_ = CrsType("Sprocket::spmm::reordered", A_.numRows(), A_.numCols(), static_cast<offset_type>(nnz()),
                       analysis_.values, A_.graph.row_map, analysis_.entries);
  if (transpose_) transpose_->update_values(space, reordered_);
}

template <class CrsType>
std::string SpmmPlan<CrsType>::describe() const {
  std::ostringstream os;
  const SpmmTilingStats& st = stats();
  os << "SpmmPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
     << execution_space::name() << "\n  " << num_rows() << " x " << num_cols() << ", nnz " << nnz() << ", target "
     << to_string(target_) << "\n  backend " << to_string(backend()) << " (" << backend_reason_ << ")"
     << "\n  kernel " << to_string(kernel()) << " (" << report_.kernel_reason << ")";
  os << "\n  tiling: panel_rows " << tiling_.panel_rows << ", tile_cols " << tiling_.tile_cols
     << ", heavy_threshold " << tiling_.heavy_threshold
     << (target_ == SpmmTarget::cuda ? ", conflict-free slots col % tile_cols" : "") << "\n  "
     << st.num_panels << " panels, " << st.num_heavy_tiles << " heavy tiles";
  if (st.num_heavy_tiles > 0)
    os << " (" << std::fixed << std::setprecision(1)
       << static_cast<double>(report_.num_tile_columns) / static_cast<double>(st.num_heavy_tiles) << " columns each)";
  os << ", heavy nnz " << st.heavy_nnz << " (" << std::fixed << std::setprecision(1) << 100.0 * heavy_fraction()
     << "%), light nnz " << st.light_nnz << ", moved to light " << st.moved_to_light << "\n  analysis "
     << std::setprecision(2) << st.analysis_seconds * 1e3 << " ms";
  if (analysis_.num_parts > 0) {
    const bool avx2 = Impl::host_has_avx2_fma();
    const int vector_bytes = avx2 ? 32 : Impl::host::spmm_vector_bytes;
    os << ", " << analysis_.num_parts << " host parts balanced by nnz\n  host kernels: "
       << (avx2 ? "AVX2 + FMA (chosen at run time)" : vector_bytes == 64 ? "AVX-512" : vector_bytes == 32 ? "AVX" : "SSE2")
       << ", K in register chunks of " << 8 * vector_bytes / static_cast<int>(sizeof(scalar_type))
       << " scalars; ";
    if (analysis_.column_groups)
      os << "LayoutLeft B and C: column groups of " << Impl::host::spmm_column_width
         << " in place, sliding rows "
         << (Impl::host::HostSimd<16, scalar_type>::lanes > 1
                 ? vector_bytes / static_cast<int>(sizeof(scalar_type))
                 : 1)
         << " at a time ("
         << std::setprecision(2) << analysis_.next_row_shift_fraction
         << " of the entries have a partner one column on in the next row); else ";
    os << "LayoutLeft B copied row-major from K = " << Impl::host::spmm_host_pack_columns;
  }
  os << "\n  mode T: SpmvPlan's transpose of the reordered copy, column by column"
     << "\n  values: the plan's reordered copy, both modes; refreshed by update_values(A)\n";
  return os.str();
}

template <class CrsType>
SpmvPlan<CrsType>& SpmmPlan<CrsType>::transpose_plan() const {
  if (!transpose_) {
    SpmvOptions o;
    o.backend = analysis_.backend;
    transpose_ = std::make_shared<SpmvPlan<CrsType>>(reordered_, o);
  }
  return *transpose_;
}

template <class CrsType>
void SpmmPlan<CrsType>::apply_dense(const execution_space& space, Mode mode, scalar_type alpha, const const_dense& B,
                                    scalar_type beta, const dense& C) const {
  Impl::spmm_apply(space, analysis_, mode, [this]() -> SpmvPlan<CrsType>& { return transpose_plan(); }, alpha, B,
                   beta, C);
}

}  // namespace Sprocket
