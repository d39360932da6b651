#pragma once
// SddmmPlan (declared in Sprocket_Sddmm.hpp): at construction the backend resolution and kernel
// checks (impl/sddmm/sddmm_dispatch.hpp), the pattern checks and the analysis (tiles of
// consecutive nonzeros, host parts, optionally the ASpT analysis of SpMM, built or shared),
// kept in one Impl::SddmmAnalysis; apply() checks the operands and hands everything to the
// dispatch; apply() turns A and B of any layout into strided Views first. The members that
// analyse and run kernels are defined after the class and compiled once by the library for the
// combinations of impl/common/eti.hpp (impl/sddmm/eti/), declared extern here. Device code lives
// in free functions (nvcc refuses extended lambdas in private member
// functions).
#include <Kokkos_Core.hpp>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>

#include "Sprocket_Spmm.hpp"
#include "impl/common/eti.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/sddmm/sddmm_analysis.hpp"
#include "impl/sddmm/sddmm_dispatch.hpp"
#include "impl/utils/host_isa.hpp"

namespace Sprocket {

namespace Impl {

/// Checks on the host that a pattern is valid: row_map (CSR) of num_rows + 1 non-decreasing
/// offsets from 0 to nnz, or row indices (COO) in [0, num_rows); columns in [0, num_cols).
template <class RowMap, class Rows, class Cols>
void sddmm_check_pattern(const char* who, int64_t num_rows, int64_t num_cols, const RowMap& row_map, const Rows& rows,
                         const Cols& cols, int64_t nnz) {
  SPROCKET_REQUIRE(num_rows >= 0 && num_cols >= 0, who, ": S is ", num_rows, " x ", num_cols);
  SPROCKET_REQUIRE(static_cast<int64_t>(cols.extent(0)) == nnz, who, ": ", cols.extent(0), " column indices for ", nnz,
                   " entries");
  if (row_map.extent(0) > 0 || rows.extent(0) == 0) {
    const auto rm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
    if (nnz > 0 || rm.extent(0) > 0) {
      SPROCKET_REQUIRE(static_cast<int64_t>(rm.extent(0)) == num_rows + 1, who, ": the row map has ", rm.extent(0),
                       " offsets for ", num_rows, " rows");
      SPROCKET_REQUIRE(static_cast<int64_t>(rm(0)) == 0 && static_cast<int64_t>(rm(num_rows)) == nnz, who,
                       ": the row map runs from ", rm(0), " to ", rm(num_rows), ", expected 0 to nnz = ", nnz);
      for (int64_t r = 0; r < num_rows; ++r)
        SPROCKET_REQUIRE(rm(r) <= rm(r + 1), who, ": the row map decreases at row ", r, " (", rm(r), " > ", rm(r + 1),
                         ")");
    }
  } else {
    SPROCKET_REQUIRE(static_cast<int64_t>(rows.extent(0)) == nnz, who, ": ", rows.extent(0), " row indices for ", nnz,
                     " entries");
    const auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
    for (int64_t k = 0; k < nnz; ++k)
      SPROCKET_REQUIRE(rh(k) >= 0 && static_cast<int64_t>(rh(k)) < num_rows, who, ": entry ", k, " has row ", rh(k),
                       " outside [0, ", num_rows, ")");
  }
  const auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cols);
  for (int64_t k = 0; k < nnz; ++k)
    SPROCKET_REQUIRE(ch(k) >= 0 && static_cast<int64_t>(ch(k)) < num_cols, who, ": entry ", k, " has column ", ch(k),
                     " outside [0, ", num_cols, ")");
}

}  // namespace Impl

template <class CrsType>
class SddmmPlan {
  static_assert(is_crs_matrix_v<CrsType>, "SddmmPlan: the matrix type must be a KokkosSparse::CrsMatrix");

 public:
  using matrix_type = CrsType;
  using scalar_type = typename CrsType::non_const_value_type;
  using ordinal_type = typename CrsType::non_const_ordinal_type;
  using offset_type = typename CrsType::non_const_size_type;
  using execution_space = typename CrsType::execution_space;
  using memory_space = typename CrsType::memory_space;
  using device_type = typename CrsType::device_type;
  using analysis_type = Impl::SddmmAnalysis<scalar_type, ordinal_type, offset_type, device_type>;
  /// COO input: row indices, column indices, values (nnz each).
  using index_view = Kokkos::View<const ordinal_type*, device_type>;
  using values_view = Kokkos::View<const scalar_type*, device_type>;

  /// S in CSR. Builds the ASpT analysis when aspt is forced or options.build_tiles.
  explicit SddmmPlan(const CrsType& S, const SddmmOptions& options = {});

  /// S in CSR, sharing the ASpT analysis of an SpmmPlan over S (one analysis for SpMM and SDDMM,
  /// as the paper's section 5); the SpmmPlan may be destroyed afterwards. Its tiling is used when
  /// both plans run native kernels; otherwise this plan builds its own when aspt is forced.
  explicit SddmmPlan(const SpmmPlan<CrsType>& spmm, const SddmmOptions& options = {});

  /// S in COO: nnz row indices, column indices and values, any order (runs nonzero_tiles; aspt
  /// throws InvalidArgument). The plan keeps the Views (their values are read at every apply).
  SddmmPlan(int64_t num_rows, int64_t num_cols, const index_view& row_indices, const index_view& col_indices,
            const values_view& values, const SddmmOptions& options = {});

  int64_t num_rows() const { return analysis_.num_rows; }
  int64_t num_cols() const { return analysis_.num_cols; }
  int64_t nnz() const { return analysis_.nnz; }
  bool is_coo() const { return analysis_.coo; }

  /// New values of S (a CSR plan): S must have the plan's pattern (InvalidArgument otherwise);
  /// the scaled form reads S's values View from then on. The plan keeps no copy of the values, so
  /// values changed in place are read by the next apply even without this call
  /// (Sprocket_Operator.hpp: "Values").
  void update_values(const CrsType& S) { update_values(execution_space(), S); }
  void update_values(const execution_space& space, const CrsType& S);
  /// New values of S (a COO plan): nnz of them, in the order of the plan's entries.
  void update_values(const values_view& values) { update_values(execution_space(), values); }
  void update_values(const execution_space&, const values_view& values) {
    SPROCKET_REQUIRE(analysis_.coo, "SddmmPlan::update_values: the plan was built from a CSR matrix; pass the matrix");
    SPROCKET_REQUIRE(static_cast<int64_t>(values.extent(0)) == nnz(), "SddmmPlan::update_values: ", values.extent(0),
                     " values for ", nnz(), " entries");
    analysis_.values = values;
  }
  /// Backend::native or Backend::portable (never automatic).
  Backend backend() const { return analysis_.backend; }
  /// Whether the plan has an ASpT analysis (built or shared) that aspt can run on.
  bool has_tiles() const { return analysis_.has_tiles; }
  /// The kernel an apply with K columns runs (never automatic); *why: the rule that decided.
  SddmmKernel kernel_for(int64_t K, std::string* why = nullptr) const {
    return Impl::sddmm_choose_kernel(analysis_, K, why);
  }
  /// The options as requested (what was chosen: backend(), kernel_for(K)).
  const SddmmOptions& options() const { return options_; }
  /// Why backend(): the requested one and what the execution space has.
  const std::string& backend_reason() const { return backend_reason_; }
  const analysis_type& analysis() const { return analysis_; }

  /// out = alpha * w o (A * B^T) + beta * out on S's entries, the form named: w = S's values
  /// (SddmmForm::scaled) or 1 (SddmmForm::pattern, cuSPARSE's), on a default instance.
  template <class AView, class BView, class OutView>
  void apply(SddmmForm form, scalar_type alpha, const AView& A, const BView& B, scalar_type beta,
             const OutView& out) const {
    apply(execution_space(), form, alpha, A, B, beta, out);
  }
  /// out = S o (A * B^T): the scaled form with alpha = 1, beta = 0.
  template <class AView, class BView, class OutView>
  [[deprecated("name the form: apply(SddmmForm::scaled, 1, A, B, 0, out)")]] void apply(const AView& A, const BView& B,
                                                                                     const OutView& out) const {
    apply(execution_space(), SddmmForm::scaled, scalar_type(1), A, B, scalar_type(0), out);
  }
  /// out = alpha * (A * B^T) o spy(S) + beta * out: the pattern form.
  template <class AView, class BView, class OutView>
  [[deprecated("name the form: apply(SddmmForm::pattern, alpha, A, B, beta, out)")]] void apply(
      scalar_type alpha, const AView& A, const BView& B, scalar_type beta, const OutView& out) const {
    apply(execution_space(), SddmmForm::pattern, alpha, A, B, beta, out);
  }
  /// Either form on an execution-space instance (the kernels queue on it).
  template <class AView, class BView, class OutView>
  void apply(const execution_space& space, SddmmForm form, scalar_type alpha, const AView& A, const BView& B,
             scalar_type beta, const OutView& out) const {
    static_assert(Kokkos::is_view<AView>::value && Kokkos::is_view<BView>::value && Kokkos::is_view<OutView>::value,
                  "SddmmPlan::apply: A, B and out must be Kokkos::Views");
    static_assert(AView::rank == 2 && BView::rank == 2 && OutView::rank == 1,
                  "SddmmPlan::apply: A and B must be rank 2, out rank 1 (S's values)");
    static_assert(std::is_same_v<typename AView::non_const_value_type, scalar_type> &&
                      std::is_same_v<typename BView::non_const_value_type, scalar_type> &&
                      std::is_same_v<typename OutView::value_type, scalar_type>,
                  "SddmmPlan::apply: A, B and (non-const) out must hold the matrix's scalar type");
    static_assert(Kokkos::SpaceAccessibility<execution_space, typename AView::memory_space>::accessible &&
                      Kokkos::SpaceAccessibility<execution_space, typename BView::memory_space>::accessible &&
                      Kokkos::SpaceAccessibility<execution_space, typename OutView::memory_space>::accessible,
                  "SddmmPlan::apply: A, B and out must be accessible from the matrix's execution space");
    SPROCKET_REQUIRE(form == SddmmForm::scaled || form == SddmmForm::pattern, "SddmmPlan::apply: form ",
                     static_cast<int>(form), " is not an SddmmForm");
    SPROCKET_REQUIRE(static_cast<int64_t>(A.extent(0)) == num_rows() && static_cast<int64_t>(B.extent(0)) == num_cols() &&
                         A.extent(1) == B.extent(1),
                     "SddmmPlan::apply: A is ", A.extent(0), " x ", A.extent(1), " and B is ", B.extent(0), " x ",
                     B.extent(1), "; S is ", num_rows(), " x ", num_cols(), ", so A must be ", num_rows(),
                     " x K and B ", num_cols(), " x K");
    SPROCKET_REQUIRE(static_cast<int64_t>(out.extent(0)) == nnz(), "SddmmPlan::apply: out holds ", out.extent(0),
                     " values, S has ", nnz(), " entries");
    SPROCKET_REQUIRE(out.extent(0) <= 1 || out.stride(0) == 1, "SddmmPlan::apply: out must be contiguous (stride ",
                     out.stride(0), ")");
    const const_dense a(A.data(), Kokkos::LayoutStride(A.extent(0), A.stride(0), A.extent(1), A.stride(1)));
    const const_dense b(B.data(), Kokkos::LayoutStride(B.extent(0), B.stride(0), B.extent(1), B.stride(1)));
    apply_compiled(space, form, alpha, a, b, beta, contiguous_values(out.data(), out.extent(0)));
  }

  /// What the plan chose and why: backend, the kernel rule (K is per apply: the choice at K = 32
  /// and 128 shown), the tiles of nonzeros and, with an ASpT analysis, its tiling and counts.
  std::string describe() const;

 private:
  /// The View types apply() hands A, B and out to the kernels as (any layout of A and B becomes
  /// strided; the kernels read strides at run time), so each plan type compiles them once.
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using const_dense = Kokkos::View<const scalar_type**, Kokkos::LayoutStride, device_type, unmanaged>;
  using contiguous_values = Kokkos::View<scalar_type*, Kokkos::LayoutLeft, device_type, unmanaged>;
  void apply_compiled(const execution_space& space, SddmmForm form, scalar_type alpha, const const_dense& A,
                      const const_dense& B, scalar_type beta, const contiguous_values& out) const;

  void resolve(bool coo) {
    analysis_.backend = Impl::sddmm_resolve_backend<execution_space, scalar_type>(options_.backend, &backend_reason_);
    Impl::sddmm_check_kernel(options_.kernel, analysis_.backend, coo, execution_space::name());
    analysis_.requested = options_.kernel;
    analysis_.aspt_min_k = options_.aspt_min_k >= 0                 ? options_.aspt_min_k
                           : Impl::is_host_space_v<execution_space> ? sddmm_aspt_never
                                                                    : sddmm_default_aspt_min_k;
  }

  void init_csr(const CrsType& S, bool check = true) {
    resolve(false);
    const int64_t nnz = S.nnz();
    if (check) {
      SPROCKET_REQUIRE(static_cast<int64_t>(S.values.extent(0)) == nnz, "SddmmPlan: ", S.values.extent(0),
                       " values for ", nnz, " entries");
      Impl::sddmm_check_pattern("SddmmPlan", S.numRows(), S.numCols(), S.graph.row_map,
                                Kokkos::View<const ordinal_type*, device_type>(), S.graph.entries, nnz);
    }
    analysis_.num_rows = S.numRows();
    analysis_.num_cols = S.numCols();
    analysis_.nnz = nnz;
    analysis_.row_map = S.graph.row_map;
    analysis_.entries = S.graph.entries;
    analysis_.values = S.values;
  }

  void build_tiles(const CrsType& S) {
    const SpmmTarget target = Impl::spmm_target<execution_space>(Backend::native);
    const SpmmTiling tiling = Impl::spmm_plan_tiling(options_.tiling, target, sizeof(scalar_type));
    Impl::SpmmAnalysisReport report;
    const auto tiles = Impl::spmm_analyse(S, Backend::native, SpmmKernel::automatic, target, tiling, &report);
    Impl::sddmm_adopt_tiles<execution_space>(analysis_, tiles, tiling, report.stats.heavy_nnz, false);
    tile_stats_ = report.stats;
  }

  void finish() {
    Impl::sddmm_analyse_nonzeros<execution_space>(analysis_, options_);
    execution_space().fence();
  }

  SddmmOptions options_;
  std::string backend_reason_;
  analysis_type analysis_;
  SpmmTilingStats tile_stats_;
};

// The members that analyse and run kernels, out of the class: non-inline, so that the extern
// declarations below hold back their instantiation (the library compiles them, impl/sddmm/eti/).

template <class CrsType>
SddmmPlan<CrsType>::SddmmPlan(const CrsType& S, const SddmmOptions& options) : options_(options) {
  init_csr(S);
  if (analysis_.backend == Backend::native &&
      (options.kernel == SddmmKernel::aspt || options.build_tiles))
    build_tiles(S);
  finish();
}

template <class CrsType>
SddmmPlan<CrsType>::SddmmPlan(const SpmmPlan<CrsType>& spmm, const SddmmOptions& options) : options_(options) {
  init_csr(spmm.matrix(), /*check=*/false);  // the SpmmPlan's analysis has checked the pattern
  if (analysis_.backend == Backend::native && spmm.backend() == Backend::native) {
    Impl::sddmm_adopt_tiles<execution_space>(analysis_, spmm.analysis(), spmm.tiling(), spmm.stats().heavy_nnz, true);
    tile_stats_ = spmm.stats();
  } else if (analysis_.backend == Backend::native && options.kernel == SddmmKernel::aspt) {
    build_tiles(spmm.matrix());
  }
  finish();
}

template <class CrsType>
SddmmPlan<CrsType>::SddmmPlan(int64_t num_rows, int64_t num_cols, const index_view& row_indices,
                              const index_view& col_indices, const values_view& values, const SddmmOptions& options)
    : options_(options) {
  const int64_t nnz = col_indices.extent(0);
  resolve(true);
  SPROCKET_REQUIRE(static_cast<int64_t>(values.extent(0)) == nnz, "SddmmPlan: ", values.extent(0), " values for ",
                   nnz, " entries");
  SPROCKET_REQUIRE(static_cast<int64_t>(row_indices.extent(0)) == nnz, "SddmmPlan: ", row_indices.extent(0),
                   " row indices for ", nnz, " column indices");
  Impl::sddmm_check_pattern("SddmmPlan", num_rows, num_cols, Kokkos::View<const offset_type*, device_type>(),
                            row_indices, col_indices, nnz);
  analysis_.coo = true;
  analysis_.num_rows = num_rows;
  analysis_.num_cols = num_cols;
  analysis_.nnz = nnz;
  analysis_.row_indices = row_indices;
  analysis_.entries = col_indices;
  analysis_.values = values;
  finish();
}

template <class CrsType>
void SddmmPlan<CrsType>::update_values(const execution_space& space, const CrsType& S) {
  SPROCKET_REQUIRE(!analysis_.coo, "SddmmPlan::update_values: the plan was built from COO arrays; pass new values "
                                   "with update_values(values)");
  Impl::require_same_pattern(space, "SddmmPlan::update_values", S.numRows(), S.numCols(), S.graph.row_map,
                             S.graph.entries, num_rows(), num_cols(), analysis_.row_map, analysis_.entries, "entries",
                             "S");
  SPROCKET_REQUIRE(static_cast<int64_t>(S.values.extent(0)) == nnz(), "SddmmPlan::update_values: S has ",
                   S.values.extent(0), " values for ", nnz(), " entries");
  analysis_.row_map = S.graph.row_map;
  analysis_.entries = S.graph.entries;
  analysis_.values = S.values;
}

template <class CrsType>
std::string SddmmPlan<CrsType>::describe() const {
  std::ostringstream os;
  const analysis_type& a = analysis_;
  os << "SddmmPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
     << execution_space::name() << "\n  " << num_rows() << " x " << num_cols() << ", nnz " << nnz()
     << (a.coo ? " (COO)" : " (CSR)") << "\n  backend " << to_string(backend()) << " (" << backend_reason_ << ")";
  for (int64_t K : {int64_t{32}, int64_t{128}}) {
    std::string why;
    const SddmmKernel k = kernel_for(K, &why);
    os << "\n  kernel at K = " << K << ": " << to_string(k) << " (" << why << ")";
  }
  os << "\n  nonzero_tiles: ";
  if (a.backend == Backend::native && Impl::is_host_space_v<execution_space>) {
    os << a.num_parts << " host parts of about " << (a.num_parts > 0 ? a.nnz / a.num_parts : 0)
       << " entries each, dot products along K with "
       << (Impl::host_has_avx2_fma() ? "AVX2 + FMA (chosen at run time)" : "the build's vector width");
  } else if (a.backend == Backend::native) {
    os << a.num_tiles << " tiles of Ts = " << a.tile_nonzeros
       << " nonzeros (PRedS: integrated interleaving reduction for K <= 32, warp-merged tiling above)";
  } else {
    os << a.num_tiles << " team tiles of " << a.tile_nonzeros << " nonzeros, vector lanes along K";
  }
  if (a.has_tiles) {
    os << "\n  aspt: " << (a.tiles_shared ? "shared with an SpmmPlan" : "built by this plan") << ", panel_rows "
       << a.tiling.panel_rows << ", tile_cols " << a.tiling.tile_cols << ", heavy_threshold "
       << a.tiling.heavy_threshold << "; " << tile_stats_.num_panels << " panels, " << tile_stats_.num_heavy_tiles
       << " heavy tiles, heavy nnz " << tile_stats_.heavy_nnz << " (" << std::fixed << std::setprecision(1)
       << 100.0 * a.heavy_fraction << "%)";
  } else {
    os << "\n  aspt: no ASpT analysis";
  }
  os << "\n  values: read from S's values View at every apply (no copy)\n";
  return os.str();
}

template <class CrsType>
void SddmmPlan<CrsType>::apply_compiled(const execution_space& space, SddmmForm form, scalar_type alpha,
                                        const const_dense& A, const const_dense& B, scalar_type beta,
                                        const contiguous_values& out) const {
  Impl::sddmm_apply(space, analysis_, form, alpha, A, B, beta, out);
}

#ifdef SPROCKET_ETI
#define SPROCKET_SDDMM_PLAN_EXTERN(Scalar, Offset, ExecSpace) \
  extern template class SddmmPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_EACH(SPROCKET_SDDMM_PLAN_EXTERN)
#undef SPROCKET_SDDMM_PLAN_EXTERN
#endif

}  // namespace Sprocket
