#pragma once
// SpmmPlan: the ASpT analysis (impl/spmm/aspt_analysis.cpp) and kernel choice at construction, a
// reordered copy of A and the tile metadata on the plan's device; apply() dispatches
// (impl/spmm/spmm_dispatch.hpp). Declared in Sprocket_Spmm.hpp. Device code lives in free
// functions (nvcc refuses extended lambdas in private member functions).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_Spmv.hpp"
#include "impl/common/host_analysis.hpp"
#include "impl/spmm/aspt_layout.hpp"
#include "impl/spmm/cuda/spmm_cuda_limits.hpp"
#include "impl/spmm/spmm_dispatch.hpp"

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
  using layout_type = Impl::AsptDeviceLayout<scalar_type, ordinal_type, offset_type, device_type>;

  explicit SpmmPlan(const CrsType& A, const SpmmOptions& options = {}) : A_(A), options_(options) {
    constexpr bool host = Impl::is_host_space_v<execution_space>;
    constexpr bool cuda = Impl::is_cuda_space_v<execution_space>;
    SPROCKET_REQUIRE(options.kernel == SpmmKernel::automatic ||
                         (static_cast<int>(options.kernel) >= 0 && static_cast<int>(options.kernel) < num_spmm_kernels),
                     "SpmmPlan: SpmmOptions::kernel = ", static_cast<int>(options.kernel), " is not an SpmmKernel");
    SPROCKET_REQUIRE(options.backend == Backend::automatic || options.backend == Backend::portable,
                     "SpmmPlan: SpmmOptions::backend = ", static_cast<int>(options.backend), " is not a Backend");
    const bool forced_native = options.kernel == SpmmKernel::aspt || options.kernel == SpmmKernel::csr_rows;
    SPROCKET_REQUIRE(!(options.backend == Backend::portable && forced_native),
                     "SpmmPlan: Backend::portable conflicts with forced kernel ", to_string(options.kernel));
    SPROCKET_REQUIRE(!forced_native || host || cuda, "SpmmPlan: kernel ", to_string(options.kernel),
                     " runs on host (OpenMP, Serial) and CUDA execution spaces, not on ", execution_space::name(),
                     "; use SpmmKernel::portable");
    if (options.backend == Backend::portable || options.kernel == SpmmKernel::portable || !(host || cuda))
      target_ = SpmmTarget::portable;
    else
      target_ = cuda ? SpmmTarget::cuda : SpmmTarget::host;
    tiling_ = resolve_spmm_tiling(options.tiling, target_);
    if (target_ == SpmmTarget::cuda) apply_cuda_limits();

    const auto t0 = std::chrono::steady_clock::now();
    row_map_ = Impl::host_row_map(A_);
    Impl::AsptHostLayout host_layout = analyse();
    if (target_ == SpmmTarget::portable)
      kernel_ = SpmmKernel::portable;
    else if (options.kernel != SpmmKernel::automatic)
      kernel_ = options.kernel;
    else
      kernel_ = host_layout.heavy_nnz > 0 && heavy_fraction() >= tiling_.min_heavy_fraction ? SpmmKernel::aspt
                                                                                            : SpmmKernel::csr_rows;
    upload(host_layout);
    if (host && kernel_ != SpmmKernel::portable) build_parts(host_layout);
    execution_space().fence();
    stats_.analysis_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  int64_t num_rows() const { return A_.numRows(); }
  int64_t num_cols() const { return A_.numCols(); }
  int64_t nnz() const { return row_map_.back(); }

  /// The kernel mode "N" runs (never automatic).
  SpmmKernel kernel() const { return kernel_; }
  /// Whose defaults and which analysis variant (cuda: conflict-free slots) the plan used.
  SpmmTarget target() const { return target_; }
  /// The tiling the analysis used: the options with defaults filled in.
  const SpmmTiling& tiling() const { return tiling_; }
  const SpmmTilingStats& stats() const { return stats_; }
  const SpmmOptions& options() const { return options_; }
  /// Fraction of the nonzeros in heavy tiles (0 for an empty matrix).
  double heavy_fraction() const {
    return nnz() > 0 ? static_cast<double>(stats_.heavy_nnz) / static_cast<double>(nnz()) : 0.0;
  }
  const CrsType& matrix() const { return A_; }
  /// A with every row's entries reordered (heavy tile by tile, then light), column indices kept:
  /// a valid unordered CSR equal to A, sharing A's row_map. Mode "N" reads it.
  const CrsType& reordered_matrix() const { return reordered_; }
  /// The tile layout as the kernels receive it.
  const layout_type& layout() const { return layout_; }

  /// Re-gathers the reordered copy's values from A's current values (A's pattern must not have
  /// changed). Call after changing A's values: mode "N" reads the copy; mode "T" reads A.
  void update_values() {
    Impl::spmm_gather_values(execution_space(), values_, A_.values, permutation_);
    execution_space().fence();
  }

  std::string describe() const {
    std::ostringstream os;
    const bool automatic = options_.kernel == SpmmKernel::automatic && options_.backend == Backend::automatic;
    os << "SpmmPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
       << execution_space::name() << "\n  " << num_rows() << " x " << num_cols() << ", nnz " << nnz() << ", target "
       << to_string(target_) << "\n  kernel " << to_string(kernel_);
    if (target_ == SpmmTarget::portable)
      os << (options_.backend == Backend::portable ? " (Backend::portable)"
             : options_.kernel == SpmmKernel::portable ? " (forced)"
                                                       : " (no native kernels on this space)");
    else if (!automatic)
      os << " (forced)";
    else
      os << " (automatic: " << std::fixed << std::setprecision(1) << 100.0 * heavy_fraction()
         << "% of the nonzeros in heavy tiles, " << (kernel_ == SpmmKernel::aspt ? ">= " : "< ")
         << 100.0 * tiling_.min_heavy_fraction << "% needed for aspt)";
    os << "\n  tiling: panel_rows " << tiling_.panel_rows << ", tile_cols " << tiling_.tile_cols
       << ", heavy_threshold " << tiling_.heavy_threshold
       << (target_ == SpmmTarget::cuda ? ", conflict-free slots col % tile_cols" : "") << "\n  "
       << stats_.num_panels << " panels, " << stats_.num_heavy_tiles << " heavy tiles";
    if (stats_.num_heavy_tiles > 0)
      os << " (" << std::fixed << std::setprecision(1)
         << static_cast<double>(num_tile_columns_) / static_cast<double>(stats_.num_heavy_tiles) << " columns each)";
    os << ", heavy nnz " << stats_.heavy_nnz << " (" << std::fixed << std::setprecision(1)
       << 100.0 * heavy_fraction() << "%), light nnz " << stats_.light_nnz << ", moved to light "
       << stats_.moved_to_light << "\n  analysis " << std::setprecision(2) << stats_.analysis_seconds * 1e3 << " ms";
    if (num_parts_ > 0) {
      const bool avx2 = Impl::host_has_avx2_fma();
      const int vector_bytes = avx2 ? 32 : Impl::host::spmm_vector_bytes;
      os << ", " << num_parts_ << " host parts balanced by nnz\n  host kernels: "
         << (avx2 ? "AVX2 + FMA (chosen at run time)" : vector_bytes == 64 ? "AVX-512" : vector_bytes == 32 ? "AVX" : "SSE2")
         << ", K in register chunks of " << 8 * vector_bytes / static_cast<int>(sizeof(scalar_type))
         << " scalars; LayoutLeft B copied row-major from K = " << Impl::host::spmm_host_pack_columns;
    }
    os << "\n  mode T: SpmvPlan's transpose, column by column\n";
    return os.str();
  }

 private:
  // The CUDA ASpT kernel stages a tile's rows of B (one 32-column K-slice) in shared memory and
  // keeps a panel's rows in registers (impl/spmm/cuda/spmm_cuda_limits.hpp): a requested
  // tile_cols beyond what fits is an error; the calibrated defaults are capped to fit, and the
  // default panel to one pass of the kernel.
  void apply_cuda_limits() {
    const int64_t max_cols = Impl::cuda::spmm_cuda_max_tile_cols(Impl::cuda::spmm_cuda_min_k_slice, sizeof(scalar_type));
    SPROCKET_REQUIRE(options_.tiling.tile_cols <= max_cols, "SpmmPlan: SpmmTiling::tile_cols = ",
                     options_.tiling.tile_cols, " exceeds the ", max_cols,
                     " shared-memory slots the CUDA kernel can stage for this scalar type");
    tiling_.tile_cols = std::min(tiling_.tile_cols, max_cols);
    if (options_.tiling.panel_rows == 0)
      tiling_.panel_rows = std::min(tiling_.panel_rows, Impl::cuda::spmm_cuda_max_panel_rows(sizeof(scalar_type)));
  }

  // The analysis reads A's columns where they are (host spaces) and writes the permutation and
  // the reordered columns straight into the plan's arrays (through host mirrors on a GPU).
  Impl::AsptHostLayout analyse() {
    const int64_t count = nnz();
    permutation_ = Kokkos::View<offset_type*, device_type>(
        Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::permutation"), count);
    entries_ = Kokkos::View<ordinal_type*, device_type>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::entries"),
                                                        count);
    const auto a_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A_.graph.entries);
    const auto permutation_h = Kokkos::create_mirror_view(permutation_);
    const auto entries_h = Kokkos::create_mirror_view(entries_);
    Impl::AsptParams params;
    params.panel_rows = tiling_.panel_rows;
    params.tile_cols = tiling_.tile_cols;
    params.heavy_threshold = tiling_.heavy_threshold;
    params.modulo_slots = target_ == SpmmTarget::cuda;
    // A GPU tile costs a staging round and two block-wide barriers whatever its width; one with
    // fewer than 1/16 of its slots filled saves less than that (section 4.3.1: thin tiles go to
    // the light tile). The host has no staging cost: every heavy column stays heavy.
    params.min_tile_cols = params.modulo_slots ? std::max<int64_t>(1, params.tile_cols / 16) : 1;
    Impl::AsptHostLayout L = Impl::build_aspt_layout_into(row_map_, a_entries.data(), A_.numCols(), params,
                                                          permutation_h.data(), entries_h.data());
    Kokkos::deep_copy(permutation_, permutation_h);  // no-ops on host spaces
    Kokkos::deep_copy(entries_, entries_h);
    stats_.num_panels = L.num_panels;
    stats_.num_heavy_tiles = L.num_heavy_tiles();
    stats_.heavy_nnz = L.heavy_nnz;
    stats_.light_nnz = L.light_nnz;
    stats_.moved_to_light = L.moved_to_light;
    num_tile_columns_ = static_cast<int64_t>(L.tile_cols.size());
    for (int64_t g = 0; g < L.num_heavy_tiles(); ++g)
      widest_tile_ = std::max(widest_tile_, L.tile_col_ptr[g + 1] - L.tile_col_ptr[g]);
    return L;
  }

  void upload(const Impl::AsptHostLayout& L) {
    values_ = Kokkos::View<scalar_type*, device_type>(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spmm::values"),
                                                      nnz());
    update_values();
    reordered_ = CrsType("Sprocket::spmm::reordered", A_.numRows(), A_.numCols(), static_cast<offset_type>(nnz()),
                         values_, A_.graph.row_map, entries_);
    layout_.num_rows = L.num_rows;
    layout_.num_cols = L.num_cols;
    layout_.panel_rows = L.panel_rows;
    layout_.tile_cols_max = L.tile_cols_max;
    layout_.num_panels = L.num_panels;
    layout_.row_map = A_.graph.row_map;
    layout_.entries = entries_;
    layout_.values = values_;
    layout_.panel_ptr = Impl::to_device_view<int64_t, device_type>(L.panel_ptr, "Sprocket::spmm::panel_ptr");
    layout_.tile_row_end = Impl::to_device_view<int64_t, device_type>(L.tile_row_end, "Sprocket::spmm::tile_row_end");
    layout_.tile_col_ptr = Impl::to_device_view<int64_t, device_type>(L.tile_col_ptr, "Sprocket::spmm::tile_col_ptr");
    layout_.tile_cols = Impl::to_device_view<ordinal_type, device_type>(L.tile_cols, "Sprocket::spmm::tile_cols");
  }

  // Host kernels: contiguous parts of rows (csr_rows) or row panels (aspt) with about equal
  // work (entries plus one per row for its stores), one per host thread.
  void build_parts(const Impl::AsptHostLayout& L) {
    const int64_t n = num_rows();
    std::vector<int64_t> cost;
    if (kernel_ == SpmmKernel::aspt) {
      cost.assign(L.num_panels + 1, 0);
      for (int64_t p = 0; p < L.num_panels; ++p) {
        const int64_t r0 = p * L.panel_rows, r1 = std::min(n, r0 + L.panel_rows);
        cost[p + 1] = cost[p] + (row_map_[r1] - row_map_[r0]) + (r1 - r0);
      }
    } else {
      cost.assign(n + 1, 0);
      for (int64_t r = 0; r < n; ++r) cost[r + 1] = cost[r] + (row_map_[r + 1] - row_map_[r]) + 1;
    }
    num_parts_ = std::max(1, execution_space().concurrency());
    parts_ = Impl::to_device_view<int64_t, device_type>(Impl::balanced_parts(cost, num_parts_), "Sprocket::spmm::parts");
  }

  SpmvPlan<CrsType>& transpose_plan() const {
    if (!transpose_) {
      SpmvOptions o;
      o.backend = options_.backend;
      transpose_ = std::make_shared<SpmvPlan<CrsType>>(A_, o);
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
    if (C.extent(0) == 0 || C.extent(1) == 0) return;
    if (mode == Mode::T) {
      // The transposed product is a scatter; SpmvPlan's cached transpose turns it into a gather.
      transpose_plan().apply(space, "T", alpha, B, beta, C);
      return;
    }
    if (alpha == scalar_type(0) || nnz() == 0) {
      Impl::spmm_scale_only(space, beta, C);
      return;
    }
    Impl::spmm_dispatch(space, kernel_, layout_, parts_, widest_tile_, workspace_, alpha, B, beta, C);
  }

  template <class XView, class YView>
  void apply_vector(const execution_space& space, Mode mode, scalar_type alpha, const XView& x, scalar_type beta,
                    const YView& y) const {
    if (mode == Mode::T) {
      if (y.extent(0) > 0) transpose_plan().apply(space, "T", alpha, x, beta, y);
      return;
    }
    // K = 1: the same kernels over x and y seen as one-column strided matrices.
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    using X2 = Kokkos::View<const scalar_type**, Kokkos::LayoutStride, device_type, Unmanaged>;
    using Y2 = Kokkos::View<scalar_type**, Kokkos::LayoutStride, device_type, Unmanaged>;
    const X2 x2(x.data(), Kokkos::LayoutStride(x.extent(0), x.stride(0), 1, 1));
    const Y2 y2(y.data(), Kokkos::LayoutStride(y.extent(0), y.stride(0), 1, 1));
    apply_multivector(space, mode, alpha, x2, beta, y2);
  }

  CrsType A_;
  SpmmOptions options_;
  SpmmTarget target_ = SpmmTarget::host;
  SpmmKernel kernel_ = SpmmKernel::portable;
  SpmmTiling tiling_;
  SpmmTilingStats stats_;
  int64_t num_tile_columns_ = 0;
  int64_t widest_tile_ = 0;
  std::vector<int64_t> row_map_;
  Kokkos::View<offset_type*, device_type> permutation_;  ///< reordered entry -> A's entry
  Kokkos::View<ordinal_type*, device_type> entries_;     ///< reordered columns
  Kokkos::View<scalar_type*, device_type> values_;       ///< reordered values
  CrsType reordered_;
  layout_type layout_;
  int num_parts_ = 0;  ///< host kernels: parts_ holds num_parts_ + 1 boundaries
  Kokkos::View<int64_t*, device_type> parts_;
  mutable std::shared_ptr<SpmvPlan<CrsType>> transpose_;  ///< built on the first transposed apply
  /// Host kernels: row-major copy of LayoutLeft B, aspt panel scratch for LayoutLeft C; grown by
  /// the first apply that needs them.
  mutable Impl::host::SpmmWorkspace<scalar_type, device_type> workspace_;
};

}  // namespace Sprocket
