#pragma once
// SpmmPlan (declared in Sprocket_Spmm.hpp): the class. At construction the backend resolution
// (impl/spmm/spmm_dispatch.hpp) and the analysis (impl/spmm/spmm_analysis.hpp: tile layout,
// reordered copy of A, kernel choice, host parts), kept in one Impl::SpmmAnalysis; apply() hands
// it to the dispatch with the operands (mode T, shortcuts and the backend files are routed
// there). Those members are defined in impl/spmm/spmm_plan_def.hpp and compiled once by the
// library for the combinations of impl/common/eti.hpp (impl/spmm/eti/), which this header
// declares extern; apply() turns B and C of any layout into strided Views first, so one View
// type per plan is compiled. Device code lives in free functions (nvcc refuses extended lambdas
// in private member functions).
#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <type_traits>

#include "Sprocket_Spmv.hpp"
#include "impl/common/eti.hpp"
#include "impl/common/plan_copies.hpp"
#include "impl/spmm/spmm_analysis.hpp"

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
  explicit SpmmPlan(const CrsType& A, const SpmmOptions& options = {});

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
  void update_values(const execution_space& space, const CrsType& A);
  /// The values of the matrix the plan was built on (or last updated with), re-read.
  [[deprecated("call update_values(A): the same for every plan")]] void update_values() { update_values(A_); }

  /// What the plan chose and why: backend (requested or automatic, and what decided), kernel
  /// (forced, or the automatic rule with the numbers it compared), tiling and its counts.
  std::string describe() const;

 private:
  /// Mode T's plan, built on the first transposed apply over the reordered copy (A with each
  /// row's entries permuted): it reads the same values as mode N, so the two modes never see
  /// different values of A.
  SpmvPlan<CrsType>& transpose_plan() const;

  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using const_dense = Kokkos::View<const scalar_type**, Kokkos::LayoutStride, device_type, unmanaged>;
  using dense = Kokkos::View<scalar_type**, Kokkos::LayoutStride, device_type, unmanaged>;

  template <class BView, class CView>
  static void require_operands() {
    static_assert(std::is_same_v<typename BView::non_const_value_type, scalar_type> &&
                      std::is_same_v<typename CView::non_const_value_type, scalar_type>,
                  "SpmmPlan::apply: B and C must hold the matrix's scalar type");
    static_assert(Kokkos::SpaceAccessibility<execution_space, typename BView::memory_space>::accessible &&
                      Kokkos::SpaceAccessibility<execution_space, typename CView::memory_space>::accessible,
                  "SpmmPlan::apply: B and C must be accessible from the matrix's execution space");
  }

  /// B and C of any layout, as strided Views of the plan's memory space: the kernels read
  /// strides at run time (row-major, column-major and strided B and C take their own paths
  /// there), so one View type per plan is compiled.
  template <class BView, class CView>
  void apply_multivector(const execution_space& space, Mode mode, scalar_type alpha, const BView& B,
                         scalar_type beta, const CView& C) const {
    require_operands<BView, CView>();
    apply_dense(space, mode, alpha,
                const_dense(B.data(), Kokkos::LayoutStride(B.extent(0), B.stride(0), B.extent(1), B.stride(1))), beta,
                dense(C.data(), Kokkos::LayoutStride(C.extent(0), C.stride(0), C.extent(1), C.stride(1))));
  }

  /// Rank 1 (K = 1): x and y as one-column strided matrices.
  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const {
    require_operands<XView, YView>();
    apply_dense(space, mode, alpha, const_dense(x.data(), Kokkos::LayoutStride(x.extent(0), x.stride(0), 1, 1)), beta,
                dense(y.data(), Kokkos::LayoutStride(y.extent(0), y.stride(0), 1, 1)));
  }

  void apply_dense(const execution_space& space, Mode mode, scalar_type alpha, const const_dense& B,
                   scalar_type beta, const dense& C) const;

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

#ifdef SPROCKET_ETI
#define SPROCKET_SPMM_PLAN_EXTERN(Scalar, Offset, ExecSpace) \
  extern template class SpmmPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_EACH(SPROCKET_SPMM_PLAN_EXTERN)
#undef SPROCKET_SPMM_PLAN_EXTERN
#endif

}  // namespace Sprocket

#include "impl/spmm/spmm_plan_def.hpp"
