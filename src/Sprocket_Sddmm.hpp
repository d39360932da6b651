#pragma once
/// \file Sprocket_Sddmm.hpp
/// SDDMM, sampled dense-dense matrix multiplication (papers: aspt-spmm-sddmm section 5,
/// preds-sddmm): for every stored entry (i, j) of a sparse S (M x N),
///
///   scaled form  (SddmmForm::scaled):  out_k = alpha * s_k * <A(i, :), B(j, :)> + beta * out_k
///   pattern form (SddmmForm::pattern): out_k = alpha *       <A(i, :), B(j, :)> + beta * out_k
///
/// with A dense M x K, B dense N x K, and out a rank-1 View of nnz(S) values in S's own entry
/// order (the output has S's pattern: pair it with S's row map and columns). The pattern form
/// with beta is cuSPARSE's out = alpha * (A * B^T) o spy(S) + beta * out. Kokkos Kernels,
/// Ginkgo and CuPy offer no SDDMM.
///
///   Sprocket::SddmmPlan<Crs> plan(S);                   // analysis once per pattern
///   plan.apply(SddmmForm::scaled, 1, A, B, 0, out);     // out = S o (A * B^T)
///   plan.apply(SddmmForm::pattern, alpha, A, B, beta, out);  // out = alpha (A * B^T) o spy(S) + beta out
///   plan.apply(space, SddmmForm::pattern, alpha, A, B, beta, out);  // on an execution-space instance
///   Sprocket::SddmmPlan<Crs> same(spmm_plan);           // shares an SpmmPlan's ASpT analysis
///   std::cout << plan.describe();
///
/// S in CSR (a KokkosSparse::CrsMatrix, the plan's CrsType) or in COO: the constructor taking
/// row indices, column indices and values (any order; duplicates and explicit zeros are kept as
/// entries of their own). S's values are read at every apply (change them freely; the pattern
/// must stay), so are A and B: apply as often as needed with new A, B and values.
///
/// Kernels (SddmmOptions::kernel; impl/sddmm/sddmm_dispatch.hpp shows every routing decision):
///  - nonzero_tiles: S's entries in S's order cut into tiles of consecutive nonzeros. CUDA: the
///    PRedS schedule: Ts (tile_nonzeros, default 16) nonzeros per block, 16-byte vector loads of
///    A's and B's rows, a residue handler for the last partial tile; K <= 32 by Integrated
///    Interleaving Reduction (lane groups of about K / V lanes, V = 4 float / 2 double scalars
///    per 16-byte load, several dot products sharing one shuffle tree), K > 32 by Warp-Merged
///    Tiling (the warp walks K in slices, accumulating in registers, one reduction at the end, no
///    inter-warp atomics). Host: nnz-balanced chunks, one
///    per thread, each walking its rows (A's row stays in cache across the row's entries), dot
///    products vectorized along K (AVX2 + FMA picked at run time), the rows of B prefetched ahead.
///    Portable: teams over chunks of nonzeros, vector lanes along K. CSR and COO alike (CSR: the
///    row of a tile's first nonzero is found at analysis, the rest by walking the row map).
///  - aspt: the SpMM analysis's tiling (row panels, heavy column segments grouped into tiles whose
///    rows of B stay in cache / shared memory), so one analysis serves SpMM and SDDMM on the same
///    matrix (paper section 5). Host: panel by panel, heavy tile by heavy tile, then the light
///    entries. CUDA: a warp per row, lanes along K with A(i, :) in registers, heavy tiles' rows of
///    B staged in shared memory, shuffle reductions. Needs CSR (throws InvalidArgument for COO)
///    and a native backend.
///  - automatic: aspt when the plan has an ASpT analysis (constructed from an SpmmPlan, or
///    SddmmOptions::build_tiles), K is at least SddmmOptions::aspt_min_k and enough nonzeros landed
///    in heavy tiles (the tiling's min_heavy_fraction); decided per apply, K being the operands'.
///    nonzero_tiles otherwise. The default aspt_min_k is 32 on CUDA (shared memory turns the tiles
///    into fewer global loads) and "never" on the host, where the row walk of nonzero_tiles already
///    serves a heavy column's rows of B from cache and matched or beat aspt on every matrix measured
///    (perf_tests/results/sddmm-host-2026-11-25.md); set aspt_min_k to let automatic pick it there.
///    describe() prints the rule.
///
/// Backends as SpMM: Backend::native runs the space's own kernels (host: OpenMP, Serial; CUDA:
/// float and double), Backend::portable the portable Kokkos kernel on any space, automatic the
/// native ones where they exist.
///
/// A and B: rank-2 Views of the plan's scalar type, any layout (LayoutRight is read in place;
/// the host kernels copy a LayoutLeft or strided A or B with K >= 4 into a row-major workspace
/// of the plan first; CUDA and portable read any layout in place). K = A.extent(1) =
/// B.extent(1) >= 0 (K = 0: every dot product is 0). beta == 0 overwrites out without reading
/// it (NaN in out does not propagate); alpha == 0 only scales out. out must not overlap A or B.
///
/// Thread safety: applies on one plan that use its workspaces must not overlap, from two host
/// threads or on two streams: host kernels with a non-row-major A or B and K >= 4 (row-major
/// copies), CUDA aspt with K > 32 (per-entry partial sums). Other applies are const and may.
/// A copy of the plan has workspaces of its own: one copy per thread (Sprocket_Operator.hpp,
/// "Copies").

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"
#include "Sprocket_Spmm.hpp"

namespace Sprocket {

/// The SDDMM algorithm; where it runs is SddmmOptions::backend.
enum class SddmmKernel : int {
  nonzero_tiles = 0,  ///< tiles of consecutive nonzeros (PRedS on CUDA, nnz-balanced chunks on the host)
  aspt,               ///< the SpMM analysis's adaptive sparse tiling (native CSR only)
  automatic = -1,  ///< chosen per apply by the rule in the file comment (options only)
};
inline constexpr int num_sddmm_kernels = 2;  ///< number of SddmmKernel values other than automatic

const char* to_string(SddmmKernel kernel);  ///< the kernel's name ("automatic" for automatic)
/// Parses the names printed by to_string ("auto" for automatic); throws InvalidArgument listing
/// the valid names.
SddmmKernel sddmm_kernel_from_string(const std::string& name);

/// Whether S's values scale the dot products (out = S o A B^T) or only its pattern samples them
/// (out = (A B^T) o spy(S), cuSPARSE's form).
enum class SddmmForm { scaled, pattern };
const char* to_string(SddmmForm form);  ///< the form's name: "scaled" or "pattern"
/// Options of an SddmmPlan: kernel, backend, CUDA tile size, ASpT tiling and when automatic uses it.
struct SddmmOptions {
  SddmmKernel kernel = SddmmKernel::automatic;  ///< the SDDMM algorithm
  Backend backend = Backend::automatic;  ///< the implementation family
  /// Nonzeros per tile of the nonzero_tiles kernel on CUDA (the paper's Ts; 0: 16). A multiple
  /// of 4 between 4 and 256.
  int64_t tile_nonzeros = 0;
  /// Build the ASpT analysis for a CSR S even when aspt is not forced, so automatic may pick it
  /// (a plan built from an SpmmPlan has it anyway).
  bool build_tiles = false;
  /// The tiling of a plan that builds its own ASpT analysis (zeros: SpMM's calibrated defaults).
  SpmmTiling tiling;
  /// automatic picks aspt only from this K on (below it a row of B is a cache line or two and
  /// the tiles' reuse does not pay for their extra pass). < 0: the target's default, 32 on CUDA,
  /// never on the host (see automatic above).
  int64_t aspt_min_k = -1;
};
/// Nonzeros per tile of nonzero_tiles on CUDA when SddmmOptions::tile_nonzeros is 0.
inline constexpr int64_t sddmm_default_tile_nonzeros = 16;
/// The default aspt_min_k on CUDA; on the host the default is sddmm_aspt_never.
inline constexpr int64_t sddmm_default_aspt_min_k = 32;
/// The aspt_min_k with which automatic never picks aspt (the host default)
inline constexpr int64_t sddmm_aspt_never = std::numeric_limits<int64_t>::max();

}  // namespace Sprocket

#include "impl/sddmm/sddmm_plan.hpp"
