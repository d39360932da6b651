#pragma once
// CUDA SpMM kernels, Backend::native on Kokkos::Cuda (entry point spmm_apply at the end):
// C = alpha * A * B + beta * C over the analysis's reordered CSR (paper:
// aspt-spmm-sddmm, Hong et al., section 4.3, Listings 2 and 3). Hand-written kernels
// (impl/spmm/cuda/spmm_cuda_kernels.cuh) launched on the execution-space instance's stream; the
// functions return without waiting for the GPU (launch errors are checked with cudaGetLastError,
// which does not block).
//
// Every launch decision (shape G x CF, grid, block, shared bytes) is a plain host function
// (spmm_scale_launch, spmm_aspt_launch, spmm_csr_rows_launch) and every launch goes through
// SPROCKET_CUDA_LAUNCH, so the test-only CPU emulation of the kernels (SPROCKET_CUDA_EMULATION,
// unit_tests/spmm/test_spmm_cuda_emulated.cpp) runs this same launcher: the entry points are
// templates over the execution space (Kokkos::Cuda, or the emulated device), which they ask only
// for stream_of, multiprocessor_count and grid_limit.
//
// Mapping (both kernels)
//   K is cut into K-slices of SW = G * CF columns of B and C. A group of G lanes (G = 32 for
//   K >= 32, else the next power of two >= K, so that small K does not leave most lanes idle)
//   owns one row at a time; lane q of the group accumulates columns k0 + q + j * G, j < CF, in
//   registers (thread coarsening along K: the row's entry index and value are fetched and
//   broadcast once for CF columns). For LayoutRight the G lanes read G consecutive scalars of a
//   row of B (coalesced) and write G consecutive scalars of C. Lanes whose column is >= K are
//   masked. The group loads G entries of the row at once, one per lane (coalesced), and
//   broadcasts each (column, value) pair by group-masked shuffles (groups of a warp diverge).
//   (Each lane loading every entry itself, one broadcast transaction per entry and no shuffles,
//   was measured on an H200, 2026-11-28: faster on gen:poisson3d:n=80 with K = 32, 0.32 against
//   0.37 ms, slower on R-MAT, K = 128 and the real matrices, e.g. gen:rmat:scale=18,ef=16 K = 32
//   0.37 against 0.31 ms. perf_tests/results/gpu-h200-2026-11-28.md.)
//
// spmm_aspt: one thread block per (row panel, K-slice): num_panels * num_slices blocks of
//   min(16, ceil(P / (32 / G))) warps. The panel's rows are split into contiguous runs, one per
//   group, of at most R rows, R = 16 (float) / 10 (double) at CF = 1, 12 / 5 at CF = 2
//   (spmm_rows_per_group: the accumulators R * CF take at most 24 / 20 registers). For every
//   heavy tile the whole block stages the tile's rows of B (the block's K-slice) into dynamic
//   shared memory, column c at slot c % W (section 4.3.1: the analysis makes the slots of a
//   tile distinct, so no indirection array; the modulo is a multiply and a shift), between two
//   barriers; then each group adds its rows' entries of that tile, read from shared memory (a
//   warp reads SW consecutive scalars of one slot row: conflict-free; staging writes
//   consecutive addresses: conflict-free), into per-row register accumulators. After the
//   tiles the accumulators go to the freed tile buffer, and each group walks its rows' light
//   entries against B in global memory (__ldg, four loads in flight per lane) and writes each
//   row of C once. Unlike Listing 2, C is not read and written back per tile, and the light
//   part needs no second kernel. A panel of more than num_groups * R rows takes several passes
//   that restage the tiles: correct, slower.
// spmm_csr_rows: plain CSR over row_map / entries / values (tiles ignored): one group per
//   (row, K-slice), 256-thread blocks, grid-stride; the same inner loop as the light part. Rows
//   longer than the analysis's split_entries (twice the average row, at least 32) run as
//   chunks of that many entries, work items ahead of the rows that add into C atomically, after
//   a launch that scales those rows by beta: one hub row no longer holds one group for the
//   whole kernel (R-MAT, K = 32 on the H100: 0.11x cuSPARSE before).
//
// Launch-time choices. G from K. For G = 32, CF = the smallest power of two with 32 * CF >= K,
// at most 2 (aspt) or 4 (csr_rows), halved while the aspt block's shared memory would exceed
// the budget or its panel would need more than one pass, or while the grid would drop below 2
// blocks (aspt) or 64 warps (csr_rows) per SM. K-slices = ceil(K / SW).
//
// Resources: every kernel compiles without spills for sm_80 and sm_90 (float and double, int
// and size_t offsets; ptxas -v with CUDA 13): aspt <= 64 registers under
// __launch_bounds__(512, 2), i.e. two 16-warp blocks per SM; csr_rows <= 59 registers with the
// split rows' chunks (double, int offsets: cuobjdump -res-usage of the 2026-11-28 build), the
// transpose copies 32.
//
// Limits (the analysis must respect them; spmm_cuda_limits.hpp):
//   - shared memory per block: max(W, rows of one pass) * SW * sizeof(Scalar) <=
//     spmm_cuda_shared_budget_bytes (64 KiB; the rows of a pass never need more than 48 KiB).
//     With the narrowest slice for K >= 32 (SW = 32) that is W <=
//     spmm_cuda_max_tile_cols(spmm_cuda_min_k_slice, sizeof(Scalar)) = 512 (float) / 256
//     (double); a wider W throws InvalidArgument here.
//   - panel rows: P <= spmm_cuda_max_panel_rows(sizeof(Scalar)) = 256 (float) / 160 (double)
//     is one pass; a larger P is correct but restages every tile once per pass.
//   - the layout must come from the GPU analysis (AsptParams::modulo_slots): with colliding
//     slots a tile's staged rows overwrite each other and the result is wrong.
//
// LayoutLeft B and C: the same kernels with strides. The shared-memory part of a heavy tile is
// layout-independent; staging, light entries and the C writes then touch one sector per lane
// instead of one per 8 (float) or 4 (double) lanes. With a small heavy fraction, a row-major
// copy of B is the faster route for LayoutLeft.
//
// Semantics: C = alpha * A * B + beta * C; beta == 0 overwrites C without reading it (NaN in C
// does not propagate); alpha == 0 only scales C (A and B are not read). B and C must not
// overlap. Rank-1 B and C are one column (K = 1). Scalars: float and double, with B, C and the
// layout's values of that same type (spmm_cuda_supported_v); anything else is the dispatch's to
// send to the portable kernel.
#include <Kokkos_Core.hpp>

#include "Sprocket_Error.hpp"
#include "impl/spmm/spmm_analysis.hpp"
#include "impl/spmm/spmm_kokkos.hpp"
#include "impl/spmm/cuda/spmm_cuda_limits.hpp"

#include "impl/common/cuda/cuda_launch.hpp"

#if defined(KOKKOS_ENABLE_CUDA) || defined(SPROCKET_CUDA_EMULATION)
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "impl/spmm/cuda/spmm_cuda_kernels.cuh"

namespace Sprocket {
namespace Impl {
namespace cuda {

/// True when the CUDA kernels take these types: Scalar float or double, and B's, C's and the
/// layout's values all of type Scalar (C not const).
template <class Layout, class BView, class CView, class Scalar>
inline constexpr bool spmm_cuda_supported_v =
    raw_kernel_supported_v<Scalar, typename CView::value_type> &&
    std::is_same_v<typename BView::non_const_value_type, Scalar> &&
    std::is_same_v<typename decltype(Layout::values)::non_const_value_type, Scalar>;

/// A dense operand as pointer, extents and strides: element (i, k) at data[i * row_stride +
/// k * col_stride]. Rank-1 Views are one column.
template <class Value>
struct SpmmDense {
  Value* data;
  int64_t rows, cols, row_stride, col_stride;
};

template <class Value, class View>
SpmmDense<Value> spmm_dense(const View& v) {
  static_assert(View::rank == 1 || View::rank == 2, "Sprocket::spmm (CUDA): B and C must be rank 1 or 2");
  if constexpr (View::rank == 1)
    return {v.data(), static_cast<int64_t>(v.extent(0)), 1, static_cast<int64_t>(v.stride(0)), 0};
  else
    return {v.data(), static_cast<int64_t>(v.extent(0)), static_cast<int64_t>(v.extent(1)),
            static_cast<int64_t>(v.stride(0)), static_cast<int64_t>(v.stride(1))};
}

/// Lanes per group (G), coarsening (CF) and the resulting slices of one launch.
struct SpmmCudaShape {
  int lanes = 1;
  int coarsening = 1;
  int64_t num_slices = 1;
};

/// G: 32 for K >= 32, else the next power of two >= K.
inline int spmm_lanes_for(int64_t K) {
  int lanes = 1;
  while (lanes < K && lanes < spmm_warp_size) lanes *= 2;
  return lanes;
}

/// The smallest power-of-two CF <= max_coarsening whose slice of 32 lanes covers K (K beyond
/// 32 * max_coarsening takes several slices).
inline int spmm_covering_coarsening(int64_t K, int max_coarsening) {
  int cf = 1;
  while (cf < max_coarsening && int64_t{spmm_warp_size} * cf < K) cf *= 2;
  return cf;
}

inline int64_t spmm_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// CF (and slices) for K: the covering CF (at most max_coarsening) when G = 32, halved until
/// `accept(cf)` holds (CF = 1 is always taken).
template <class Accept>
SpmmCudaShape spmm_choose_shape(int64_t K, int max_coarsening, Accept&& accept) {
  SpmmCudaShape shape;
  shape.lanes = spmm_lanes_for(K);
  if (shape.lanes == spmm_warp_size) {
    int cf = spmm_covering_coarsening(K, max_coarsening);
    while (cf > 1 && !accept(cf)) cf /= 2;
    shape.coarsening = cf;
  }
  shape.num_slices = spmm_ceil_div(K, int64_t{shape.lanes} * shape.coarsening);
  return shape;
}

/// Calls launch(integral_constant<G>, integral_constant<CF>) for the compiled shapes: G in
/// {1, 2, 4, 8, 16} with CF = 1, G = 32 with CF in {1, 2, 4}.
template <class Launch>
void spmm_with_shape(const SpmmCudaShape& shape, Launch&& launch) {
  using std::integral_constant;
  switch (shape.lanes) {
    case 1: return launch(integral_constant<int, 1>{}, integral_constant<int, 1>{});
    case 2: return launch(integral_constant<int, 2>{}, integral_constant<int, 1>{});
    case 4: return launch(integral_constant<int, 4>{}, integral_constant<int, 1>{});
    case 8: return launch(integral_constant<int, 8>{}, integral_constant<int, 1>{});
    case 16: return launch(integral_constant<int, 16>{}, integral_constant<int, 1>{});
    case 32:
      switch (shape.coarsening) {
        case 1: return launch(integral_constant<int, 32>{}, integral_constant<int, 1>{});
        case 2: return launch(integral_constant<int, 32>{}, integral_constant<int, 2>{});
        case 4: return launch(integral_constant<int, 32>{}, integral_constant<int, 4>{});
        default: break;
      }
      break;
    default: break;
  }
  throw Error("Sprocket::spmm (CUDA): no kernel compiled for " + std::to_string(shape.lanes) + " lanes x " +
              std::to_string(shape.coarsening) + " columns per lane");
}

/// A shape with its launch: what a launcher decided for one apply.
struct SpmmLaunchChoice {
  SpmmCudaShape shape;
  KernelLaunch launch;
};

/// The scale kernel's launch for `elements` scalars of C: 256-thread blocks, grid-stride, at
/// most `limit` blocks (grid_limit of the space).
inline KernelLaunch spmm_scale_launch(int64_t elements, int64_t limit) {
  KernelLaunch launch;
  launch.block = spmm_scale_block_threads;
  launch.grid = grid_blocks(elements, spmm_scale_block_threads, limit);
  launch.shared_bytes = 0;
  launch.launch_bound = spmm_scale_block_threads;
  return launch;
}

/// C = beta * C over the whole of C (alpha == 0); nothing to do when beta == 1.
template <class Scalar>
void spmm_scale(cudaStream_t stream, int64_t limit, const SpmmDense<Scalar>& c, Scalar beta) {
  if (beta == Scalar(1) || c.rows == 0 || c.cols == 0) return;
  // The unit-stride dimension inner, so that consecutive threads touch consecutive scalars.
  const bool rows_inner = c.cols > 1 && c.row_stride < c.col_stride;
  const int64_t outer = rows_inner ? c.cols : c.rows, inner = rows_inner ? c.rows : c.cols;
  const int64_t outer_stride = rows_inner ? c.col_stride : c.row_stride;
  const int64_t inner_stride = rows_inner ? c.row_stride : c.col_stride;
  const KernelLaunch launch = spmm_scale_launch(outer * inner, limit);
  SPROCKET_CUDA_LAUNCH(launch, stream, spmm_scale_kernel<Scalar>)(c.data, outer, outer_stride, inner, inner_stride,
                                                                  beta);
  check_launch("Sprocket::spmm", "spmm_scale_kernel");
}

/// The ASpT launch for a layout of num_panels panels of P rows, heavy tiles of W slots (has_tiles:
/// the layout has any), K columns of scalar_bytes-byte scalars, on num_sms multiprocessors: the
/// shape (G from K; for G = 32 the covering CF <= spmm_aspt_max_coarsening, halved while the
/// shared memory would exceed the budget, the panel would need more than one pass, or the grid
/// would drop below 2 blocks per SM), one block per (panel, K-slice) (no grid-stride loop, so no
/// grid clamp), min(16, ceil(P / (32 / G))) warps, and max(W, rows of one pass) * SW scalars of
/// shared memory (0 without tiles). Throws InvalidArgument when a K-slice's tile does not fit
/// the budget or the grid exceeds 2^31 - 1 blocks.
inline SpmmLaunchChoice spmm_aspt_launch(int64_t K, int64_t P, int64_t W, int64_t num_panels, bool has_tiles,
                                         int scalar_bytes, int num_sms) {
  // Scalars of shared memory per slice column: the staged tile (W slots) or, after the tiles,
  // the heavy sums of one pass's rows, whichever is larger; nothing when no panel has tiles.
  const auto shared_rows = [&](int lanes, int cf) -> int64_t {
    if (!has_tiles) return 0;
    const int64_t warps = std::min<int64_t>(spmm_aspt_max_warps, spmm_ceil_div(P, spmm_warp_size / lanes));
    const int64_t pass_rows = warps * (spmm_warp_size / lanes) * spmm_rows_per_group(lanes, cf, scalar_bytes);
    return std::max(W, std::min(P, pass_rows));
  };
  SpmmLaunchChoice choice;
  choice.shape = spmm_choose_shape(K, spmm_aspt_max_coarsening, [&](int cf) {
    const bool fits =
        shared_rows(spmm_warp_size, cf) * spmm_warp_size * cf * scalar_bytes <= spmm_cuda_shared_budget_bytes;
    const bool one_pass = P <= int64_t{spmm_aspt_max_warps} * spmm_rows_per_group(spmm_warp_size, cf, scalar_bytes);
    const bool enough_blocks = num_panels * spmm_ceil_div(K, int64_t{spmm_warp_size} * cf) >= int64_t{2} * num_sms;
    return fits && one_pass && enough_blocks;
  });
  const SpmmCudaShape& shape = choice.shape;
  const int64_t slice = int64_t{shape.lanes} * shape.coarsening;
  const int64_t shared_bytes = shared_rows(shape.lanes, shape.coarsening) * slice * scalar_bytes;
  SPROCKET_REQUIRE(shared_bytes <= spmm_cuda_shared_budget_bytes, "Sprocket::spmm (CUDA, aspt): tiles of ", W,
                   " columns need ", shared_bytes, " bytes of shared memory for a K-slice of ", slice,
                   " columns; the budget is ", spmm_cuda_shared_budget_bytes, " bytes (tile_cols at most ",
                   spmm_cuda_max_tile_cols(slice, scalar_bytes), " for ", scalar_bytes, "-byte scalars)");
  const int64_t num_blocks = num_panels * shape.num_slices;
  SPROCKET_REQUIRE(num_blocks <= int64_t{INT32_MAX}, "Sprocket::spmm (CUDA, aspt): ", num_panels, " panels x ",
                   shape.num_slices, " K-slices exceed the grid limit of 2^31 - 1 blocks");
  const int64_t warps = std::min<int64_t>(spmm_aspt_max_warps, spmm_ceil_div(P, spmm_warp_size / shape.lanes));
  choice.launch.grid = static_cast<unsigned>(num_blocks);
  choice.launch.block = static_cast<unsigned>(warps * spmm_warp_size);
  choice.launch.shared_bytes = static_cast<size_t>(shared_bytes);
  choice.launch.launch_bound = spmm_aspt_max_threads;
  return choice;
}

/// The csr_rows launch for num_rows rows and K columns on num_sms multiprocessors: the shape
/// (G from K; for G = 32 the covering CF <= spmm_csr_max_coarsening, halved while the (row,
/// K-slice) groups would not fill 64 warps per SM, as many as a full sm_80/sm_90 SM holds),
/// 256-thread blocks, one group per work item (a row, or a chunk of a split row: num_chunks of
/// them), at most `limit` blocks (grid-stride).
inline SpmmLaunchChoice spmm_csr_rows_launch(int64_t num_rows, int64_t K, int num_sms, int64_t limit,
                                             int64_t num_chunks = 0) {
  SpmmLaunchChoice choice;
  const int64_t items = num_rows + num_chunks;
  choice.shape = spmm_choose_shape(K, spmm_csr_max_coarsening, [&](int cf) {
    return items * spmm_ceil_div(K, int64_t{spmm_warp_size} * cf) >= int64_t{64} * num_sms;
  });
  const int64_t groups_per_block = spmm_csr_block_threads / choice.shape.lanes;
  choice.launch.grid = grid_blocks(items * choice.shape.num_slices, groups_per_block, limit);
  choice.launch.block = spmm_csr_block_threads;
  choice.launch.shared_bytes = 0;
  choice.launch.launch_bound = spmm_csr_block_threads;
  return choice;
}

/// Shared state of one apply: checks the operands against the layout's shape, fills the CSR
/// and dense fields of the kernel arguments.
template <class Space, class Layout, class BView, class CView, class Scalar>
auto spmm_cuda_args(const char* kernel, const Layout& L, Scalar alpha, const BView& B, Scalar beta,
                    const CView& C) {
  using Ordinal = typename decltype(Layout::entries)::non_const_value_type;
  using Offset = typename decltype(Layout::row_map)::non_const_value_type;
  static_assert(spmm_cuda_supported_v<Layout, BView, CView, Scalar>,
                "Sprocket::spmm (CUDA): the raw kernels take float or double with B, C and the matrix values all "
                "of that type (C not const); route other types to the portable kernel");
  static_assert(Kokkos::SpaceAccessibility<typename Space::memory_space, typename BView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<typename Space::memory_space, typename CView::memory_space>::accessible,
                "Sprocket::spmm (CUDA): B and C must be accessible from the execution space (Kokkos::Cuda)");
  const SpmmDense<const Scalar> b = spmm_dense<const Scalar>(B);
  const SpmmDense<Scalar> c = spmm_dense<Scalar>(C);
  SPROCKET_REQUIRE(b.rows == L.num_cols && c.rows == L.num_rows && b.cols == c.cols, "Sprocket::spmm (CUDA, ",
                   kernel, "): A is ", L.num_rows, " x ", L.num_cols, ", B is ", b.rows, " x ", b.cols, ", C is ",
                   c.rows, " x ", c.cols);
  SPROCKET_REQUIRE(static_cast<int64_t>(L.row_map.extent(0)) == L.num_rows + 1, "Sprocket::spmm (CUDA, ", kernel,
                   "): row_map has ", L.row_map.extent(0), " entries for ", L.num_rows, " rows");
  SpmmCudaArgs<Scalar, Ordinal, Offset> a{};
  a.row_map = L.row_map.data();
  a.entries = L.entries.data();
  a.values = L.values.data();
  a.num_rows = L.num_rows;
  a.K = c.cols;
  a.alpha = alpha;
  a.beta = beta;
  a.B = b.data;
  a.b_row_stride = b.row_stride;
  a.b_col_stride = b.col_stride;
  a.C = c.data;
  a.c_row_stride = c.row_stride;
  a.c_col_stride = c.col_stride;
  return std::make_pair(a, c);
}

/// ASpT SpMM (see the top of this file): C = alpha * A * B + beta * C with A given by the GPU
/// tile layout L (an SpmmAnalysis built with modulo_slots, i.e. for SpmmTarget::cuda).
template <class Space, class Layout, class BView, class CView, class Scalar>
void spmm_aspt(const Space& space, const Layout& L, Scalar alpha, const BView& B, Scalar beta, const CView& C) {
  using Ordinal = typename decltype(Layout::entries)::non_const_value_type;
  using Offset = typename decltype(Layout::row_map)::non_const_value_type;
  const auto prepared = spmm_cuda_args<Space>("aspt", L, alpha, B, beta, C);
  SpmmCudaArgs<Scalar, Ordinal, Offset> a = prepared.first;
  const SpmmDense<Scalar> c = prepared.second;
  if (L.num_rows == 0 || a.K == 0) return;
  ProfilingRegion region("Sprocket::spmm::cuda::aspt");
  const cudaStream_t stream = stream_of(space);
  if (alpha == Scalar(0)) return spmm_scale(stream, grid_limit(space), c, beta);

  const int64_t P = L.panel_rows, W = L.tile_cols_max, num_panels = L.num_panels;
  const int64_t num_tiles = L.tile_col_ptr.extent(0) > 0 ? static_cast<int64_t>(L.tile_col_ptr.extent(0)) - 1 : 0;
  const bool has_tiles = num_tiles > 0;
  SPROCKET_REQUIRE(P >= 1 && P <= int64_t{INT32_MAX} && num_panels == spmm_ceil_div(L.num_rows, P) &&
                       static_cast<int64_t>(L.panel_ptr.extent(0)) == num_panels + 1,
                   "Sprocket::spmm (CUDA, aspt): layout with ", num_panels, " panels of ", P, " rows (",
                   L.panel_ptr.extent(0), " panel_ptr entries) for ", L.num_rows, " rows");
  SPROCKET_REQUIRE(!has_tiles || (static_cast<int64_t>(L.tile_row_end.extent(0)) == num_tiles * P && W >= 1 &&
                                  W <= int64_t{INT32_MAX}),
                   "Sprocket::spmm (CUDA, aspt): layout with ", num_tiles, " heavy tiles of width ", W, " has ",
                   L.tile_row_end.extent(0), " tile_row_end entries (expected ", num_tiles * P, ")");

  const SpmmLaunchChoice choice = spmm_aspt_launch(a.K, P, W, num_panels, has_tiles, static_cast<int>(sizeof(Scalar)),
                                                   multiprocessor_count(space));
  a.panel_ptr = L.panel_ptr.data();
  a.tile_row_end = L.tile_row_end.data();
  a.tile_col_ptr = L.tile_col_ptr.data();
  a.tile_cols = L.tile_cols.data();
  a.panel_rows = P;
  a.slots = spmm_slot_divisor(has_tiles ? static_cast<uint32_t>(W) : 1u);
  a.num_slices = choice.shape.num_slices;
  const SpmmCudaArgs<Scalar, Ordinal, Offset> args = a;
  const KernelLaunch launch = choice.launch;
  spmm_with_shape(choice.shape, [&](auto lanes, auto coarsening) {
    constexpr int G = decltype(lanes)::value, CF = decltype(coarsening)::value;
    if constexpr (CF <= spmm_aspt_max_coarsening) {
      void (*aspt_kernel)(SpmmCudaArgs<Scalar, Ordinal, Offset>) = spmm_aspt_kernel<G, CF, Scalar, Ordinal, Offset>;
      // Above the default 48 KiB of dynamic shared memory per block a kernel must opt in; the
      // attribute is set to the whole budget (the same value every time, whatever this launch
      // needs), so concurrent applies cannot shrink it under each other.
      if (launch.shared_bytes > 48 * 1024) {
        const cudaError_t err = cudaFuncSetAttribute(aspt_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(spmm_cuda_shared_budget_bytes));
        if (err != cudaSuccess)
          throw Error(std::string("Sprocket::spmm (CUDA): allowing ") +
                      std::to_string(spmm_cuda_shared_budget_bytes) +
                      " bytes of shared memory for spmm_aspt_kernel failed: " + cudaGetErrorName(err) + ": " +
                      cudaGetErrorString(err));
      }
      SPROCKET_CUDA_LAUNCH(launch, stream, spmm_aspt_kernel<G, CF, Scalar, Ordinal, Offset>)(args);
      check_launch("Sprocket::spmm", "spmm_aspt_kernel");
    } else {
      throw Error("Sprocket::spmm (CUDA): the ASpT kernel is not compiled for " + std::to_string(CF) +
                  " columns per lane");
    }
  });
}

/// The transpose kernel's launch for a rows x cols block: one 256-thread block per 32 x 32 tile,
/// at most `limit` blocks (grid-stride).
inline KernelLaunch spmm_transpose_launch(int64_t rows, int64_t cols, int64_t limit) {
  KernelLaunch launch;
  launch.block = spmm_scale_block_threads;
  launch.grid = grid_blocks(spmm_ceil_div(rows, spmm_transpose_tile) * spmm_ceil_div(cols, spmm_transpose_tile), 1,
                            limit);
  launch.shared_bytes = 0;
  launch.launch_bound = spmm_scale_block_threads;
  return launch;
}

/// Whether a dense operand is column-major with more than one column (unit row stride): csr_rows
/// then works on a row-major copy, since its lanes take consecutive columns of a row.
template <class Value>
bool spmm_column_major(const SpmmDense<Value>& d) {
  return d.cols > 1 && d.rows > 0 && d.row_stride == 1 && d.col_stride != 1;
}

/// Untiled CSR SpMM over L.row_map / entries / values (the plan's reordered copy of A; the
/// tiles are ignored): C = alpha * A * B + beta * C. A column-major B is first copied row-major
/// into the analysis's workspace (packed), and a column-major C is computed row-major into the
/// workspace (scratch, as alpha * A * B) and added in by a transposing copy: both layouts then
/// read and write whole sectors (a lane per column of a column-major B would read one sector per
/// scalar). The workspace grows on first use: such applies on one plan must not run
/// concurrently (Sprocket_Spmm.hpp, "Thread safety").
template <class Space, class Layout, class BView, class CView, class Scalar>
void spmm_csr_rows(const Space& space, const Layout& L, Scalar alpha, const BView& B, Scalar beta, const CView& C) {
  using Ordinal = typename decltype(Layout::entries)::non_const_value_type;
  using Offset = typename decltype(Layout::row_map)::non_const_value_type;
  const auto prepared = spmm_cuda_args<Space>("csr_rows", L, alpha, B, beta, C);
  SpmmCudaArgs<Scalar, Ordinal, Offset> a = prepared.first;
  const SpmmDense<Scalar> c = prepared.second;
  if (L.num_rows == 0 || a.K == 0) return;
  ProfilingRegion region("Sprocket::spmm::cuda::csr_rows");
  const cudaStream_t stream = stream_of(space);
  if (alpha == Scalar(0)) return spmm_scale(stream, grid_limit(space), c, beta);

  const int64_t K = a.K;
  const SpmmDense<const Scalar> b{a.B, L.num_cols, K, a.b_row_stride, a.b_col_stride};
  const bool c_column_major = spmm_column_major(c);
  if (spmm_column_major(b)) {
    a.B = L.workspace.at_least(L.workspace.packed, b.rows * K, "Sprocket::spmm::row_major_B");
    const KernelLaunch t = spmm_transpose_launch(b.rows, K, grid_limit(space));
    SPROCKET_CUDA_LAUNCH(t, stream, spmm_transpose_kernel<true, Scalar>)(b.data, L.workspace.packed.data(), b.rows, K,
                                                                        b.col_stride, Scalar(0));
    check_launch("Sprocket::spmm", "spmm_transpose_kernel");
    a.b_row_stride = K;
    a.b_col_stride = 1;
  }
  if (c_column_major) {
    a.C = L.workspace.at_least(L.workspace.scratch, c.rows * K, "Sprocket::spmm::row_major_C");
    a.c_row_stride = K;
    a.c_col_stride = 1;
    a.beta = Scalar(0);  // beta * C is added by the copy back
  }
  if (L.num_split_rows > 0 && a.beta != Scalar(1)) {
    // The split rows' chunks add into C: scale those rows by beta first.
    const KernelLaunch scale = spmm_scale_launch(L.num_split_rows * K, grid_limit(space));
    SPROCKET_CUDA_LAUNCH(scale, stream, spmm_scale_rows_kernel<Scalar, Ordinal>)(
        a.C, L.split_rows.data(), L.num_split_rows, K, a.c_row_stride, a.c_col_stride, a.beta);
    check_launch("Sprocket::spmm", "spmm_scale_rows_kernel");
  }
  const SpmmLaunchChoice choice =
      spmm_csr_rows_launch(L.num_rows, a.K, multiprocessor_count(space), grid_limit(space), L.num_chunks);
  a.split_entries = L.split_entries;
  a.num_chunks = L.num_chunks;
  a.chunk_row = L.chunk_row.data();
  a.chunk_begin = L.chunk_begin.data();
  a.num_slices = choice.shape.num_slices;
  const SpmmCudaArgs<Scalar, Ordinal, Offset> args = a;
  const KernelLaunch launch = choice.launch;
  spmm_with_shape(choice.shape, [&](auto lanes, auto coarsening) {
    constexpr int G = decltype(lanes)::value, CF = decltype(coarsening)::value;
    SPROCKET_CUDA_LAUNCH(launch, stream, spmm_csr_rows_kernel<G, CF, Scalar, Ordinal, Offset>)(args);
    check_launch("Sprocket::spmm", "spmm_csr_rows_kernel");
  });
  if (c_column_major) {
    const KernelLaunch t = spmm_transpose_launch(c.rows, K, grid_limit(space));
    SPROCKET_CUDA_LAUNCH(t, stream, spmm_transpose_kernel<false, Scalar>)(L.workspace.scratch.data(), c.data, c.rows, K,
                                                                         c.col_stride, beta);
    check_launch("Sprocket::spmm", "spmm_transpose_kernel");
  }
}

/// The CUDA entry point: C = alpha * A * B + beta * C with the analysis's kernel (or the portable
/// kernel where SpmmAnalysis::warp_rows_for_row_major says so), on `space` (Kokkos::Cuda; the
/// emulated device in the emulated tests). Only for the types
/// spmm_cuda_supported_v accepts (spmm_dispatch.hpp routes the others to the portable backend
/// when it resolves the backend).
template <class Space, class Scalar, class Ordinal, class Offset, class Device, class BView, class CView>
void spmm_apply(const Space& space, const SpmmAnalysis<Scalar, Ordinal, Offset, Device>& analysis, Scalar alpha,
                const BView& B, Scalar beta, const CView& C) {
  if (analysis.kernel == SpmmKernel::aspt) return spmm_aspt(space, analysis, alpha, B, beta, C);
  const int64_t K = static_cast<int64_t>(C.extent(1));
  if (analysis.warp_rows_for_row_major && K >= spmm_cuda_warp_rows_min_k && K <= spmm_cuda_warp_rows_max_k &&
      (B.extent(0) < 2 || B.stride(1) == 1) && (C.extent(0) < 2 || C.stride(1) == 1)) {
    // Kokkos::Cuda itself; the emulated device's host space in the emulated tests.
    if constexpr (std::is_same_v<typename Space::execution_space, Space>)
      return kokkos::spmm_apply(space, analysis, alpha, B, beta, C);
    else
      return kokkos::spmm_apply(typename Space::execution_space(), analysis, alpha, B, beta, C);
  }
  spmm_csr_rows(space, analysis, alpha, B, beta, C);
}

}  // namespace cuda
}  // namespace Impl
}  // namespace Sprocket
#endif  // KOKKOS_ENABLE_CUDA || SPROCKET_CUDA_EMULATION
