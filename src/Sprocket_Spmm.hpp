#pragma once
/// \file Sprocket_Spmm.hpp
/// SpMM with Adaptive Sparse Tiling (paper: aspt-spmm-sddmm, Hong et al., sections 3-4):
/// C = alpha * op(A) * B + beta * C, A sparse (CSR), B and C dense with K columns.
///
///   Sprocket::SpmmPlan<Crs> plan(A);               // analysis: panels, heavy tiles, reordering
///   plan.apply("N", alpha, B, beta, C);             // B, C rank-2 Views (LayoutRight or LayoutLeft)
///   std::cout << plan.describe();
///
/// Analysis cuts A into row panels of `panel_rows` rows. Inside a panel, a column whose segment
/// holds at least `heavy_threshold` nonzeros is heavy; heavy columns are grouped, in column order,
/// into 2-D tiles of at most `tile_cols` columns (their rows of B fit in cache on the host, in
/// shared memory on the GPU); everything else is the panel's light tile, run as plain CSR. The
/// plan keeps a copy of A whose nonzeros are reordered *within each row*: the row's entries of
/// heavy tile 0, then tile 1, ..., then its light entries. Column indices keep their values, so
/// reordered_matrix() is a valid unordered CSR matrix equal to A, and every other Sprocket
/// operator works on it. On the GPU a column of a heavy tile lives in shared-memory slot
/// `col % tile_cols`; columns that would collide with a slot already taken (or tiles too thin
/// to pay for staging) go to the light tile (section 4.3.1), so the kernel needs no indirection.
///
/// When tiling does not pay (few heavy segments) the analysis picks the untiled CSR SpMM kernel
/// family instead and says so in describe(). Threshold and tile sizes default to the values the
/// calibration tool (perf_tests/spmm_calibrate.cpp) measured per backend and wrote into
/// impl/spmm/spmm_defaults_generated.hpp; SpmmOptions overrides them. On CUDA, tile_cols may not
/// exceed the shared-memory slots the kernel stages (256 for double, 512 for float); the defaults
/// are capped to that and the panel to one pass of the kernel (160 / 256 rows).
///
/// Selection (impl/spmm/spmm_dispatch.hpp shows every case): SpmmOptions::backend picks the
/// implementation family: Backend::native runs the execution space's own kernels (host: OpenMP,
/// Serial; CUDA: float and double) and throws InvalidArgument elsewhere, Backend::portable the
/// portable Kokkos implementation (teams over rows, vector lanes along K) on any space, and
/// Backend::automatic the native kernels where they exist, else the portable ones.
/// SpmmOptions::kernel picks the algorithm: csr_rows (rows spread over threads, each row's K
/// results accumulated in registers chunk by chunk; every backend has it) or aspt (panel by panel,
/// heavy tile by heavy tile, then the light entries; native only: forcing it on the portable
/// backend throws InvalidArgument), or automatic (aspt when enough nonzeros land in heavy tiles).
/// The host kernels run nnz-balanced parts, several per thread, taken dynamically, prefetch the
/// rows of B ahead of use (csr_rows: across rows too), use AVX2 + FMA when the CPU has them (even
/// in a build for the x86-64 baseline), and write a large C (beta == 0) with non-temporal stores.
/// LayoutLeft B with 4 or more columns is first copied into a row-major workspace kept by the
/// plan (allocated on the first such apply): reading a row of B is then K contiguous loads
/// instead of K scattered ones; except under csr_rows with LayoutLeft C too on a matrix whose
/// rows slide one column per row (stencils, banded), which reads B in place, runs of sliding rows
/// a SIMD register of rows at a time, their values transposed into a workspace of the plan.
/// describe() says which backend and kernel the plan chose and why.
///
/// Semantics as KokkosSparse::spmv: beta == 0 overwrites C without reading it (NaN in C does
/// not propagate); alpha == 0 only scales C. B and C must not overlap. Rank-1 x and y work too
/// (K = 1); any K >= 1 and any layout (LayoutRight, LayoutLeft, strided) of B and C, with the
/// matrix's scalar type. Mode "T" runs through an SpmvPlan's cached transpose of the reordered
/// copy (built on the first transposed apply), column by column. Both modes read the plan's
/// reordered copy of A's values: after changing them, call update_values(A) (same pattern,
/// checked; Sprocket_Operator.hpp: "Values").
///
/// Thread safety: applies on one plan must not run concurrently when they may use the plan's
/// workspaces (native host kernels with LayoutLeft B and K >= 2 or, for aspt, LayoutLeft C; the
/// CUDA csr_rows kernel with a column-major B or C and K >= 2; mode "T", whose SpmvPlan is built
/// on first use); other applies are const and may. (The workspaces
/// are part of the plan's analysis, Impl::SpmmAnalysis, and grown by the apply that needs them.)
/// A copy of the plan has workspaces of its own: one copy per thread (Sprocket_Operator.hpp,
/// "Copies").

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"

namespace Sprocket {

/// The SpMM algorithm; where it runs is SpmmOptions::backend.
enum class SpmmKernel : int {
  csr_rows = 0,  ///< untiled: rows spread over threads (host) / warps (GPU) / teams (portable), along K in registers
  aspt,          ///< adaptive sparse tiling: heavy tiles cached / staged in shared memory, light as CSR (native only)
  automatic = -1,  ///< aspt when enough nonzeros land in heavy tiles, else csr_rows (options only)
};
inline constexpr int num_spmm_kernels = 2;  ///< number of SpmmKernel values other than automatic

const char* to_string(SpmmKernel kernel);  ///< the kernel's name ("automatic" for automatic)
/// Parses the names printed by to_string ("auto" for automatic); throws InvalidArgument listing
/// the valid names (the portable implementation is Backend::portable, not a kernel name).
SpmmKernel spmm_kernel_from_string(const std::string& name);

/// Whose calibrated defaults a plan uses and which analysis variant (cuda: the conflict-free
/// shared-memory slot mapping of section 4.3.1): cuda and host for Backend::native on those
/// spaces, portable for Backend::portable.
enum class SpmmTarget { host, cuda, portable };
const char* to_string(SpmmTarget target);  ///< the target's name: "host", "cuda" or "portable"

/// ASpT parameters. Zero means "the calibrated default for the target".
struct SpmmTiling {
  int64_t panel_rows = 0;       ///< rows per row panel (T_M)
  int64_t tile_cols = 0;        ///< max columns per heavy tile (T_N); GPU: shared-memory slots
  int64_t heavy_threshold = 0;  ///< nonzeros a column segment needs to be heavy
  /// The analysis picks the aspt kernel when at least this fraction of the nonzeros lands in
  /// heavy tiles; < 0: the calibrated default.
  double min_heavy_fraction = -1;
};

/// The calibrated defaults of a target (impl/spmm/spmm_defaults_generated.hpp), every field set.
SpmmTiling spmm_default_tiling(SpmmTarget target);

/// `requested` with its zero (or, for min_heavy_fraction, negative) fields replaced by the
/// target's defaults. Throws InvalidArgument on negative sizes or a fraction above 1.
SpmmTiling resolve_spmm_tiling(const SpmmTiling& requested, SpmmTarget target);
/// Options of an SpmmPlan: kernel, backend and ASpT tiling.
struct SpmmOptions {
  SpmmKernel kernel = SpmmKernel::automatic;  ///< the SpMM algorithm
  Backend backend = Backend::automatic;  ///< the implementation family
  SpmmTiling tiling;  ///< ASpT parameters (zeros: the calibrated defaults)
};

/// What the ASpT analysis found (also filled when the untiled kernel was chosen).
struct SpmmTilingStats {
  int64_t num_panels = 0;  ///< row panels
  int64_t num_heavy_tiles = 0;  ///< heavy tiles, over all panels
  int64_t heavy_nnz = 0;            ///< nonzeros inside heavy tiles
  int64_t light_nnz = 0;  ///< nonzeros in the light tiles (run as CSR)
  int64_t moved_to_light = 0;       ///< heavy-column nonzeros moved to light (GPU slot conflicts, thin tiles)
  double analysis_seconds = 0;      ///< wall time of the analysis (host)
};

}  // namespace Sprocket

#include "impl/spmm/spmm_plan.hpp"
