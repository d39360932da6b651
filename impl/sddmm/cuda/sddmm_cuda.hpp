#pragma once
// CUDA SDDMM kernels, Backend::native on Kokkos::Cuda (entry point sddmm_apply at the end):
// out(k) = alpha * w(k) * <A(row(k), :), B(col(k), :)> + beta * out(k) for S's entries in S's
// order, w = S's values (SddmmForm::scaled) or 1 (pattern). Hand-written kernels
// (impl/sddmm/cuda/sddmm_cuda_kernels.cuh) launched on the execution-space instance's stream;
// the functions return without waiting for the GPU.
//
// As for SpMM, every launch decision is a plain host function (sddmm_tiles_launch,
// sddmm_aspt_launch, sddmm_vector_rows) and every launch goes through SPROCKET_CUDA_LAUNCH, so
// the test-only CPU emulation (unit_tests/sddmm/test_sddmm_cuda_emulated.cpp) runs this same
// launcher: the entry points are templates over the execution space (Kokkos::Cuda or the
// emulated device), which they ask only for stream_of, multiprocessor_count and grid_limit.
//
// nonzero_tiles: PRedS (paper preds-sddmm, section III)
//   VCT: S's entries in S's order, in tiles of Ts = analysis tile_nonzeros consecutive entries
//   (a multiple of 4). A lane group of L lanes takes a quad of 4 consecutive entries at a time
//   (the paper's vec_size): its column indices (and COO row indices) in one 16-byte load each
//   when the index arrays are aligned, the rows of CSR entries from the tile's first row
//   (analysis tile_first_row) by a search over the tile's rows. Lane q covers V consecutive
//   columns of K (V = 16 bytes: 4 float, 2 double), loaded as one vector from A's and from B's row
//   when the operand allows it (sddmm_vector_rows: unit column stride, 16-byte aligned data and
//   row stride, decided here at run time per operand) and the chunk lies inside K; otherwise
//   scalar loads (strided or misaligned operands, and the chunk crossing K: the K residue).
//   Residue handler for the entries: only the matrix's last quad can be partial (tiles are whole
//   quads); it, and quads whose index arrays are misaligned, load their entries one by one.
//   IIR, K <= 32: L = the smallest power of two with L * V >= K (about K / V lanes: at most 8
//   for float, 16 for double), 32 / L groups per warp, each reducing its quad's four sums; the
//   groups of a warp shuffle together (sddmm_reduce_quad).
//   WMT, K > 32: L = 32 (the group is the warp); the warp walks K in ceil(K / (32 V)) slices,
//   accumulating its four sums in registers, and reduces once at the end: no shared memory, no
//   inter-warp atomics.
//   Blocks: 4 to 8 warps; a block works on a range of tiles_per_block whole tiles (as many as
//   its groups cover in one round, at least one; a tile with more quads than the block has
//   groups takes several rounds), ranges grid-stride.
//
// aspt: ASpT SDDMM (paper aspt-spmm-sddmm, section 5) over the SpMM analysis's layout, which must
//   come from the GPU analysis (SpmmTarget::cuda: heavy tiles whose columns have distinct slots
//   c % W, W = tile_cols_max). One block per row panel at a time (grid-stride), min(16, P) warps,
//   a warp per row, lanes along a 32-column K-slice with A(row, slice) in a register; per slice
//   the block stages every heavy tile's rows of B into shared memory (W * 32 scalars; W <= 512
//   float / 256 double fits the 64 KiB budget of spmm_cuda_limits.hpp, the same limit the
//   analysis caps the tiling to) between barriers, then the light entries read B from global
//   memory. A dot product of K > 32 sums slice by slice through the analysis's workspace
//   (partial, nnz scalars in the layout's order, grown here when too small); the last slice
//   writes out(permutation(k)) with w = values(permutation(k)): the layout's own copy of the
//   values is not used, since S's values may have changed since the analysis.
//
// Choices where the papers leave room (see the kernels for the details):
//   - Reductions: a group's four sums are halved across the lanes in the first two butterfly
//     steps (each lane keeps half and ships half), so four dot products take log2(L) + 1
//     shuffles (L >= 4) instead of 4 log2(L), and each total ends in its own lane, which stores
//     it. Algorithm 1's leader-lane vector store of the quad becomes four lanes storing
//     adjacent scalars (one or two 32-byte sectors either way). aspt uses the same reduction on batches of
//     four entries of a row (Listing 5 has a full tree per entry).
//   - Blocks are 4 to 8 warps holding whole tiles, not one warp per tile as in Algorithm 1 with
//     Ts = 16: a 32-thread block would cap an SM at its resident-block limit (half the warps of
//     an sm_80/sm_90 SM); consecutive tiles in one block only add to the L1 reuse VCT is after.
//   - aspt keeps K-slices of 32 columns for every K (the automatic choice takes aspt only from
//     K = 32 on; forced with a smaller K it is correct with idle lanes), and loops over slices
//     inside the block instead of one block per (panel, slice), so partial sums need no
//     atomics: the same lane adds to the same entry in every slice.
//
// Resources: every kernel compiles without spills for sm_80 and sm_90 (float and double, int and
// size_t offsets; ptxas -v with CUDA 13) within the 64 registers its __launch_bounds__ allow.
//
// Semantics: beta == 0 overwrites out without reading it (NaN in out does not propagate).
// alpha == 0 and K == 0 never reach these kernels (the dispatch only scales out), nor an S
// without entries. out must be contiguous and must not overlap A or B. Scalars: float and double.
#include <Kokkos_Core.hpp>

#include "Sprocket_Error.hpp"
#include "impl/common/cuda/cuda_launch.hpp"
#include "impl/sddmm/sddmm_analysis.hpp"
#include "impl/spmm/cuda/spmm_cuda_limits.hpp"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "impl/sddmm/cuda/sddmm_cuda_kernels.cuh"

namespace Sprocket {
namespace Impl {
namespace cuda {

/// True when a dense operand's rows can be read as 16-byte vectors: unit column stride, the
/// data and every row start 16-byte aligned (so is every chunk of V columns starting at a
/// multiple of V). A LayoutRight View of K columns qualifies when K * sizeof(Scalar) is a
/// multiple of 16; a subview starting at an odd column or a LayoutLeft View does not.
inline bool sddmm_vector_rows(const void* data, int64_t row_stride, int64_t col_stride, int scalar_bytes) {
  return col_stride == 1 && reinterpret_cast<uintptr_t>(data) % sddmm_vector_bytes == 0 &&
         (row_stride * scalar_bytes) % sddmm_vector_bytes == 0;
}

/// True when quads of indices can be loaded as 16-byte vectors: 4- or 8-byte indices and a
/// 16-byte aligned array (quads start at multiples of 4 entries).
inline bool sddmm_vector_indices(const void* data, int index_bytes) {
  return (index_bytes == 4 || index_bytes == 8) && reinterpret_cast<uintptr_t>(data) % sddmm_vector_bytes == 0;
}

/// The nonzero_tiles launch: lane group L, IIR (merged false) or WMT (merged true, L = 32) and
/// its K-slices, tiles per block range, ranges, and the launch (grid-stride over the ranges).
struct SddmmTilesLaunch {
  int lanes = 1;
  bool merged = false;
  int64_t num_slices = 1;
  int64_t tiles_per_block = 1;
  int64_t block_nonzeros = 0;
  int64_t rounds = 1;  ///< rounds of the block's groups over a full range
  int64_t num_ranges = 0;
  KernelLaunch launch;
};

inline int64_t sddmm_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// For K columns, Ts = tile_nonzeros, nnz entries of scalar_bytes-byte scalars, at most `limit`
/// blocks: L from K (IIR: the smallest power of two covering K with V columns per lane; WMT for
/// K > 32: 32 and ceil(K / (32 V)) slices); blocks of one tile's groups (Ts / 4 groups of L
/// lanes) rounded up to whole warps, at least 4 warps and at most 8; as many whole tiles per
/// block as one round of the block's groups covers, at least one.
inline SddmmTilesLaunch sddmm_tiles_launch(int64_t K, int64_t tile_nonzeros, int64_t nnz, int scalar_bytes,
                                           int64_t limit) {
  SPROCKET_REQUIRE(K >= 1 && tile_nonzeros >= sddmm_quad && tile_nonzeros % sddmm_quad == 0 &&
                       (scalar_bytes == 4 || scalar_bytes == 8),
                   "Sprocket::sddmm (CUDA, nonzero_tiles): K = ", K, ", tile_nonzeros = ", tile_nonzeros,
                   " (a multiple of 4 needed), scalar of ", scalar_bytes, " bytes");
  SddmmTilesLaunch s;
  const int64_t V = sddmm_vector_bytes / scalar_bytes;
  s.merged = K > sddmm_warp_size;
  if (s.merged) {
    s.lanes = sddmm_warp_size;
  } else {
    while (int64_t{s.lanes} * V < K) s.lanes *= 2;
  }
  s.num_slices = sddmm_ceil_div(K, int64_t{s.lanes} * V);
  const int64_t team = tile_nonzeros / sddmm_quad * s.lanes;
  const int64_t block =
      std::min<int64_t>(sddmm_tiles_max_threads, std::max<int64_t>(4 * sddmm_warp_size, sddmm_ceil_div(team, sddmm_warp_size) * sddmm_warp_size));
  const int64_t round_nonzeros = block / s.lanes * sddmm_quad;
  s.tiles_per_block = std::max<int64_t>(1, round_nonzeros / tile_nonzeros);
  s.block_nonzeros = s.tiles_per_block * tile_nonzeros;
  s.rounds = sddmm_ceil_div(s.block_nonzeros, round_nonzeros);
  s.num_ranges = sddmm_ceil_div(nnz, s.block_nonzeros);
  s.launch.block = static_cast<unsigned>(block);
  s.launch.grid = grid_blocks(s.num_ranges, 1, limit);
  s.launch.shared_bytes = 0;
  s.launch.launch_bound = sddmm_tiles_max_threads;
  return s;
}

/// The aspt launch.
struct SddmmAsptLaunch {
  int64_t num_slices = 1;  ///< 32-column K-slices; > 1: partial sums go through the workspace
  int warps = 1;
  KernelLaunch launch;
};

/// For K columns, panels of P rows, tiles of W slots (has_tiles: the layout has any heavy tile),
/// num_panels panels, scalar_bytes-byte scalars, at most `limit` blocks: min(16, P) warps, W *
/// 32 scalars of shared memory (none without tiles), grid-stride over the panels. Throws
/// InvalidArgument when the staged tile exceeds the shared-memory budget (a layout not built
/// for CUDA).
inline SddmmAsptLaunch sddmm_aspt_launch(int64_t K, int64_t P, int64_t W, int64_t num_panels, bool has_tiles,
                                         int scalar_bytes, int64_t limit) {
  SddmmAsptLaunch s;
  s.num_slices = sddmm_ceil_div(K, sddmm_aspt_slice);
  s.warps = static_cast<int>(std::min<int64_t>(sddmm_aspt_max_warps, std::max<int64_t>(1, P)));
  const int64_t shared = has_tiles ? W * sddmm_aspt_slice * scalar_bytes : 0;
  SPROCKET_REQUIRE(shared <= spmm_cuda_shared_budget_bytes, "Sprocket::sddmm (CUDA, aspt): tiles of ", W,
                   " columns need ", shared, " bytes of shared memory for a K-slice of ", sddmm_aspt_slice,
                   " columns; the budget is ", spmm_cuda_shared_budget_bytes, " bytes (tile_cols at most ",
                   spmm_cuda_max_tile_cols(sddmm_aspt_slice, scalar_bytes), " for ", scalar_bytes,
                   "-byte scalars: build the analysis for SpmmTarget::cuda)");
  s.launch.block = static_cast<unsigned>(s.warps * sddmm_warp_size);
  s.launch.grid = grid_blocks(num_panels, 1, limit);
  s.launch.shared_bytes = static_cast<size_t>(shared);
  s.launch.launch_bound = sddmm_aspt_max_threads;
  return s;
}

/// Calls launch(integral_constant<L>) for the compiled lane groups L in {1, 2, 4, 8, 16, 32}.
template <class Launch>
void sddmm_with_lanes(int lanes, Launch&& launch) {
  using std::integral_constant;
  switch (lanes) {
    case 1: return launch(integral_constant<int, 1>{});
    case 2: return launch(integral_constant<int, 2>{});
    case 4: return launch(integral_constant<int, 4>{});
    case 8: return launch(integral_constant<int, 8>{});
    case 16: return launch(integral_constant<int, 16>{});
    case 32: return launch(integral_constant<int, 32>{});
    default: break;
  }
  throw Error("Sprocket::sddmm (CUDA): no nonzero_tiles kernel compiled for lane groups of " +
              std::to_string(lanes));
}

/// A dense operand of the kernels from a rank-2 View (any layout).
template <class Scalar, class View>
SddmmDense<Scalar> sddmm_dense(const View& v) {
  static_assert(View::rank == 2, "Sprocket::sddmm (CUDA): A and B must be rank 2");
  SddmmDense<Scalar> d;
  d.data = v.data();
  d.row_stride = static_cast<int64_t>(v.stride(0));
  d.col_stride = static_cast<int64_t>(v.stride(1));
  d.vector = sddmm_vector_rows(d.data, d.row_stride, d.col_stride, static_cast<int>(sizeof(Scalar)));
  return d;
}

/// PRedS nonzero_tiles (see the top of this file), CSR or COO.
template <class Space, class Scalar, class Ordinal, class Offset, class Device, class AView, class BView,
          class OutView>
void sddmm_nonzero_tiles(const Space& space, const SddmmAnalysis<Scalar, Ordinal, Offset, Device>& an, SddmmForm form,
                         Scalar alpha, const AView& A, const BView& B, Scalar beta, const OutView& out) {
  ProfilingRegion region("Sprocket::sddmm::cuda::nonzero_tiles");
  const int64_t K = A.extent(1);
  SPROCKET_REQUIRE(an.coo ? static_cast<int64_t>(an.row_indices.extent(0)) == an.nnz
                          : static_cast<int64_t>(an.tile_first_row.extent(0)) == an.num_tiles + 1,
                   "Sprocket::sddmm (CUDA, nonzero_tiles): the analysis has ", an.row_indices.extent(0),
                   " row indices and ", an.tile_first_row.extent(0), " tile rows for ", an.nnz, " entries in ",
                   an.num_tiles, " tiles");
  const SddmmTilesLaunch shape =
      sddmm_tiles_launch(K, an.tile_nonzeros, an.nnz, static_cast<int>(sizeof(Scalar)), grid_limit(space));
  SddmmTilesArgs<Scalar, Ordinal, Offset> a{};
  a.row_map = an.coo ? nullptr : an.row_map.data();
  a.row_indices = an.coo ? an.row_indices.data() : nullptr;
  a.entries = an.entries.data();
  a.values = form == SddmmForm::scaled ? an.values.data() : nullptr;
  a.tile_first_row = an.coo ? nullptr : an.tile_first_row.data();
  a.num_rows = an.num_rows;
  a.nnz = an.nnz;
  a.tile_nonzeros = an.tile_nonzeros;
  a.block_nonzeros = shape.block_nonzeros;
  a.num_ranges = shape.num_ranges;
  a.num_slices = shape.num_slices;
  a.quad_indices = sddmm_vector_indices(a.entries, static_cast<int>(sizeof(Ordinal))) &&
                   (!an.coo || sddmm_vector_indices(a.row_indices, static_cast<int>(sizeof(Ordinal))));
  a.K = K;
  a.A = sddmm_dense<Scalar>(A);
  a.B = sddmm_dense<Scalar>(B);
  a.alpha = alpha;
  a.beta = beta;
  a.out = out.data();
  const cudaStream_t stream = stream_of(space);
  const KernelLaunch launch = shape.launch;
  const SddmmTilesArgs<Scalar, Ordinal, Offset> args = a;
  sddmm_with_lanes(shape.lanes, [&](auto lanes) {
    constexpr int L = decltype(lanes)::value;
    SPROCKET_CUDA_LAUNCH(launch, stream, sddmm_tiles_kernel<L, Scalar, Ordinal, Offset>)(args);
    check_launch("Sprocket::sddmm", "sddmm_tiles_kernel");
  });
}

/// ASpT SDDMM (see the top of this file), CSR with the analysis's GPU tile layout.
template <class Space, class Scalar, class Ordinal, class Offset, class Device, class AView, class BView,
          class OutView>
void sddmm_aspt(const Space& space, const SddmmAnalysis<Scalar, Ordinal, Offset, Device>& an, SddmmForm form,
                Scalar alpha, const AView& A, const BView& B, Scalar beta, const OutView& out) {
  ProfilingRegion region("Sprocket::sddmm::cuda::aspt");
  SPROCKET_REQUIRE(an.has_tiles && !an.coo, "Sprocket::sddmm (CUDA, aspt): needs a CSR S with an ASpT analysis");
  const auto& L = an.tiles;
  const int64_t K = A.extent(1), P = L.panel_rows, W = L.tile_cols_max;
  const int64_t num_tiles = L.tile_col_ptr.extent(0) > 0 ? static_cast<int64_t>(L.tile_col_ptr.extent(0)) - 1 : 0;
  const bool has_tiles = num_tiles > 0;
  SPROCKET_REQUIRE(P >= 1 && L.num_panels == sddmm_ceil_div(an.num_rows, P) &&
                       static_cast<int64_t>(L.panel_ptr.extent(0)) == L.num_panels + 1 &&
                       static_cast<int64_t>(L.permutation.extent(0)) == an.nnz &&
                       static_cast<int64_t>(L.entries.extent(0)) == an.nnz,
                   "Sprocket::sddmm (CUDA, aspt): layout with ", L.num_panels, " panels of ", P, " rows and ",
                   L.permutation.extent(0), " entries for ", an.num_rows, " rows and ", an.nnz, " entries");
  SPROCKET_REQUIRE(!has_tiles || (static_cast<int64_t>(L.tile_row_end.extent(0)) == num_tiles * P && W >= 1 &&
                                  W <= int64_t{INT32_MAX}),
                   "Sprocket::sddmm (CUDA, aspt): layout with ", num_tiles, " heavy tiles of width ", W, " has ",
                   L.tile_row_end.extent(0), " tile_row_end entries (expected ", num_tiles * P, ")");
  const SddmmAsptLaunch shape = sddmm_aspt_launch(K, P, W, L.num_panels, has_tiles, static_cast<int>(sizeof(Scalar)),
                                                  grid_limit(space));
  // The workspace of the plan (mutable): grown once, kept for later applies.
  if (shape.num_slices > 1 && static_cast<int64_t>(an.workspace.partial.extent(0)) < an.nnz)
    an.workspace.partial = Kokkos::View<Scalar*, Device>(
        Kokkos::ViewAllocateWithoutInitializing("Sprocket::sddmm::partial"), an.nnz);

  SddmmAsptArgs<Scalar, Ordinal, Offset> a{};
  a.row_map = an.row_map.data();
  a.entries = L.entries.data();
  a.permutation = L.permutation.data();
  a.values = form == SddmmForm::scaled ? an.values.data() : nullptr;
  a.panel_ptr = L.panel_ptr.data();
  a.tile_row_end = L.tile_row_end.data();
  a.tile_col_ptr = L.tile_col_ptr.data();
  a.tile_cols = L.tile_cols.data();
  a.num_rows = an.num_rows;
  a.panel_rows = P;
  a.num_panels = L.num_panels;
  a.slots = spmm_slot_divisor(has_tiles ? static_cast<uint32_t>(W) : 1u);
  a.K = K;
  a.num_slices = shape.num_slices;
  a.A = sddmm_dense<Scalar>(A);
  a.B = sddmm_dense<Scalar>(B);
  a.alpha = alpha;
  a.beta = beta;
  a.out = out.data();
  a.partial = shape.num_slices > 1 ? an.workspace.partial.data() : nullptr;
  const cudaStream_t stream = stream_of(space);
  const KernelLaunch launch = shape.launch;
  const SddmmAsptArgs<Scalar, Ordinal, Offset> args = a;
  void (*aspt_kernel)(SddmmAsptArgs<Scalar, Ordinal, Offset>) = sddmm_aspt_kernel<Scalar, Ordinal, Offset>;
  // Above the default 48 KiB of dynamic shared memory per block a kernel must opt in; always to
  // the whole budget, so concurrent applies cannot shrink it under each other (as SpMM does).
  if (launch.shared_bytes > 48 * 1024) {
    const cudaError_t err = cudaFuncSetAttribute(aspt_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(spmm_cuda_shared_budget_bytes));
    if (err != cudaSuccess)
      throw Error(std::string("Sprocket::sddmm (CUDA): allowing ") + std::to_string(spmm_cuda_shared_budget_bytes) +
                  " bytes of shared memory for sddmm_aspt_kernel failed: " + cudaGetErrorName(err) + ": " +
                  cudaGetErrorString(err));
  }
  SPROCKET_CUDA_LAUNCH(launch, stream, sddmm_aspt_kernel<Scalar, Ordinal, Offset>)(args);
  check_launch("Sprocket::sddmm", "sddmm_aspt_kernel");
}

/// The CUDA entry point (impl/sddmm/sddmm_dispatch.hpp): out = alpha * w o (A B^T)[S] + beta * out
/// with `kernel` (nonzero_tiles or aspt, already chosen), on `space` (Kokkos::Cuda; the emulated
/// device in the emulated tests). Scalar float or double; A, B and out of that scalar type.
template <class Space, class Scalar, class Ordinal, class Offset, class Device, class AView, class BView,
          class OutView>
void sddmm_apply(const Space& space, const SddmmAnalysis<Scalar, Ordinal, Offset, Device>& an, SddmmKernel kernel,
                 SddmmForm form, Scalar alpha, const AView& A, const BView& B, Scalar beta, const OutView& out) {
  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "Sprocket::sddmm (CUDA): the kernels take float and double; route other types to the portable "
                "kernel");
  static_assert(std::is_same_v<typename AView::non_const_value_type, Scalar> &&
                    std::is_same_v<typename BView::non_const_value_type, Scalar> &&
                    std::is_same_v<typename OutView::value_type, Scalar>,
                "Sprocket::sddmm (CUDA): A, B and (non-const) out must hold the matrix's scalar type");
  static_assert(Kokkos::SpaceAccessibility<typename Space::memory_space, typename AView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<typename Space::memory_space, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<typename Space::memory_space, typename OutView::memory_space>::accessible,
                "Sprocket::sddmm (CUDA): A, B and out must be accessible from the execution space");
  static_assert(OutView::rank == 1, "Sprocket::sddmm (CUDA): out is rank 1 (S's entries)");
  SPROCKET_REQUIRE(static_cast<int64_t>(A.extent(0)) == an.num_rows && static_cast<int64_t>(B.extent(0)) == an.num_cols &&
                       A.extent(1) == B.extent(1) && static_cast<int64_t>(out.extent(0)) == an.nnz &&
                       (out.extent(0) <= 1 || out.stride(0) == 1),
                   "Sprocket::sddmm (CUDA): A is ", A.extent(0), " x ", A.extent(1), ", B is ", B.extent(0), " x ",
                   B.extent(1), ", out holds ", out.extent(0), " values (stride ", out.stride(0), "); S is ",
                   an.num_rows, " x ", an.num_cols, " with ", an.nnz, " entries");
  if (an.nnz == 0 || A.extent(1) == 0) return;
  if (kernel == SddmmKernel::aspt) return sddmm_aspt(space, an, form, alpha, A, B, beta, out);
  sddmm_nonzero_tiles(space, an, form, alpha, A, B, beta, out);
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
