#pragma once
// SpmmPlan (declared in Sprocket_Spmm.hpp): at construction the backend resolution
// (impl/spmm/spmm_dispatch.hpp) and the analysis (impl/spmm/spmm_analysis.hpp: tile layout,
// reordered copy of A, kernel choice, host parts), kept in one Impl::SpmmAnalysis; apply() hands
// it to the dispatch with the operands (mode T, shortcuts and the backend files are routed
// there). Device code lives in free functions (nvcc refuses extended lambdas in private member
// functions).
#include <Kokkos_Core.hpp>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>

#include "Sprocket_Spmv.hpp"
#include "Sprocket_Validate.hpp"
#include "impl/common/plan_copies.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "impl/spmm/spmm_dispatch.hpp"
#include "impl/utils/host_isa.hpp"

namespace Sprocket {

template <class CrsType>
class SpmmPlan : public Impl::LinearOperator<SpmmPlan<CrsType>, typename CrsType::execution_space,
                                             typename CrsType::non_const_value_type> {
  static_assert(is_crs_matrix_v<CrsType>, "SpmmPlan: the matrix must be a KokkosSparse::CrsMatrix");
  friend class Impl::LinearOperator<SpmmPlan<CrsType>, typename CrsType::execution_space,
                                    typename CrsType::non_const_value_type>;

 public:
  static constexpr const char* operator_name = "SpmmPlan::apply";
  /// Rank-2 B and C go to the SpMM kernels whole (not column by column).
  static constexpr bool native_multivector = true;
  using matrix_type = CrsType;
  using scalar_type = typename CrsType::non_const_value_type;
  using ordinal_type = typename CrsType::non_const_ordinal_type;
  using offset_type = typename CrsType::non_const_size_type;
  using execution_space = typename CrsType::execution_space;
  using memory_space = typename CrsType::memory_space;
  using device_type = typename CrsType::device_type;
  using analysis_type = Impl::SpmmAnalysis<scalar_type, ordinal_type, offset_type, device_type>;

  /// Resolves the backend and checks the kernel (spmm_dispatch.hpp), fills in the tiling, then
  /// runs the analysis (spmm_analysis.hpp) that builds everything apply() reads.
  explicit SpmmPlan(const CrsType& A, const SpmmOptions& options = {}) : A_(A), options_(options) {
    Sprocket::validate(A_, "SpmmPlan");  // A's structure, once: the analysis and the kernels index through it
    const Backend backend =
        Impl::spmm_resolve_backend<execution_space, scalar_type>(options.backend, &backend_reason_);
    Impl::spmm_check_kernel<execution_space>(options.kernel, options.backend, backend);
    target_ = Impl::spmm_target<execution_space>(backend);
    tiling_ = Impl::spmm_plan_tiling(options.tiling, target_, sizeof(scalar_type));
    analysis_ = Impl::spmm_analyse(A_, backend, options.kernel, target_, tiling_, &report_);
    reordered_ = CrsType("Sprocket::spmm::reordered", A_.numRows(), A_.numCols(), static_cast<offset_type>(nnz()),
                         analysis_.values, A_.graph.row_map, analysis_.entries);
  }

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }
  int64_t nnz() const { return analysis_.nnz; }

  /// The kernel mode "N" runs (never automatic).
  SpmmKernel kernel() const { return analysis_.kernel; }
  /// The implementation family mode "N" runs: Backend::native or Backend::portable (never
  /// automatic).
  Backend backend() const { return analysis_.backend; }
  /// Whose defaults and which analysis variant (cuda: conflict-free slots) the plan used.
  SpmmTarget target() const { return target_; }
  /// The tiling the analysis used: the options with defaults filled in.
  const SpmmTiling& tiling() const { return tiling_; }
  const SpmmTilingStats& stats() const { return report_.stats; }
  /// The options as requested (what was chosen: backend(), kernel(), tiling()).
  const SpmmOptions& options() const { return options_; }
  /// Why backend(): the requested one and what the execution space has.
  const std::string& backend_reason() const { return backend_reason_; }
  /// Why kernel(): "forced", or the automatic rule with the numbers it compared.
  const std::string& kernel_reason() const { return report_.kernel_reason; }
  /// Fraction of the nonzeros in heavy tiles (0 for an empty matrix).
  double heavy_fraction() const {
    return nnz() > 0 ? static_cast<double>(stats().heavy_nnz) / static_cast<double>(nnz()) : 0.0;
  }
  const CrsType& matrix() const { return A_; }
  /// A with every row's entries reordered (heavy tile by tile, then light), column indices kept:
  /// a valid unordered CSR equal to A, sharing A's row_map. Mode "N" reads it.
  const CrsType& reordered_matrix() const { return reordered_; }
  /// What the analysis computed, as every backend receives it (tile layout, reordered copy, host
  /// parts and workspace).
  const analysis_type& analysis() const { return analysis_; }

  /// New values: A must have the plan's pattern (InvalidArgument otherwise). Both modes read the
  /// plan's reordered copy of the values (mode T through a transposed SpMV plan over that copy),
  /// which this gathers from A's values; values changed in place reach no apply before this call
  /// (Sprocket_Operator.hpp: "Values").
  void update_values(const CrsType& A) { update_values(execution_space(), A); }
  void update_values(const execution_space& space, const CrsType& A) {
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
  /// The values of the matrix the plan was built on (or last updated with), re-read.
  [[deprecated("call update_values(A): the same for every plan")]] void update_values() { update_values(A_); }

  /// What the plan chose and why: backend (requested or automatic, and what decided), kernel
  /// (forced, or the automatic rule with the numbers it compared), tiling and its counts.
  std::string describe() const {
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
         << " scalars; LayoutLeft B copied row-major from K = " << Impl::host::spmm_host_pack_columns;
    }
    os << "\n  mode T: SpmvPlan's transpose of the reordered copy, column by column"
       << "\n  values: the plan's reordered copy, both modes; refreshed by update_values(A)\n";
    return os.str();
  }

 private:
  /// Mode T's plan, built on the first transposed apply over the reordered copy (A with each
  /// row's entries permuted): it reads the same values as mode N, so the two modes never see
  /// different values of A.
  SpmvPlan<CrsType>& transpose_plan() const {
    if (!transpose_) {
      SpmvOptions o;
      o.backend = analysis_.backend;
      transpose_ = std::make_shared<SpmvPlan<CrsType>>(reordered_, o);
    }
    return *transpose_;
  }

  template <class BView, class CView>
  void apply_multivector(const execution_space& space, Mode mode, scalar_type alpha, const BView& B,
                         scalar_type beta, const CView& C) const {
    static_assert(std::is_same_v<typename BView::non_const_value_type, scalar_type> &&
                      std::is_same_v<typename CView::non_const_value_type, scalar_type>,
                  "SpmmPlan::apply: B and C must hold the matrix's scalar type");
    static_assert(Kokkos::SpaceAccessibility<execution_space, typename BView::memory_space>::accessible &&
                      Kokkos::SpaceAccessibility<execution_space, typename CView::memory_space>::accessible,
                  "SpmmPlan::apply: B and C must be accessible from the matrix's execution space");
    Impl::spmm_apply(space, analysis_, mode, [this]() -> SpmvPlan<CrsType>& { return transpose_plan(); }, alpha, B,
                     beta, C);
  }

  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const {
    Impl::spmm_apply(space, analysis_, mode, [this]() -> SpmvPlan<CrsType>& { return transpose_plan(); }, alpha, x,
                     beta, y);
  }

  CrsType A_;
  SpmmOptions options_;
  std::string backend_reason_;  ///< why the backend (describe())
  SpmmTarget target_ = SpmmTarget::host;
  SpmmTiling tiling_;
  analysis_type analysis_;
  Impl::SpmmAnalysisReport report_;
  CrsType reordered_;
  /// Built on the first transposed apply; not shared by copies (each copy has its own values).
  mutable Impl::EmptyOnCopy<std::shared_ptr<SpmvPlan<CrsType>>> transpose_;
};

}  // namespace Sprocket
