#pragma once
/// \file Sprocket_Spmv.hpp
/// Adaptive CSR SpMV (paper: autotuned-spmv, Hou, Feng and Che).
///
///   Sprocket::SpmvPlan<Crs> plan(A);            // analysis: features, binning, kernel choice
///   plan.apply("N", alpha, x, beta, y);          // y = alpha * op(A) * x + beta * y
///   std::cout << plan.describe();
///
/// Analysis groups U adjacent rows into a "virtual row"; each virtual row falls into a bin by its
/// average row length (log2 classes of the paper's workload / U), and each bin is run by the
/// kernel that suits it: thread-per-row, a sub-vector of X lanes per row (X = 2..32),
/// team-per-row, or split-row for rows too long for one team (rows with 10^5+ entries in
/// power-law graphs). U and the kernel per bin come from a decision model trained offline
/// (perf_tests/spmv_train.cpp, generated into impl/spmv/spmv_model_{cpu,gpu}_generated.cpp), or from a measured
/// autotune at analysis time (SpmvOptions::autotune), or are forced through SpmvOptions.
///
/// Semantics are KokkosSparse::spmv's: beta == 0 overwrites y without reading it (NaN in y does
/// not propagate), alpha == 0 only scales y by beta. Rank-2 x and y (several vectors, any
/// layout) go through the same plan, column by column. Mode "T" uses a cached transpose plan
/// built on the first transposed apply (SpmvTranspose::cached, the default: that first apply
/// allocates; every transposed apply then refreshes A^T's values from A with one O(nnz) gather,
/// so value changes are seen) or scatters with atomics without forming A^T
/// (SpmvTranspose::scatter).
///
/// Thread safety: mode "N" applies are const and may run concurrently on one plan; transposed
/// applies of a cached-transpose plan write the cached A^T and must not overlap each other (a
/// copy of the plan builds its own A^T: one copy per thread; Sprocket_Operator.hpp, "Copies").

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"

namespace Sprocket {

/// The SpMV kernel family. Every kernel computes any set of rows correctly; they differ in how
/// many threads (lanes) cooperate on one row.
enum class SpmvKernel : int {
  thread_per_row = 0,  ///< one thread (GPU) / one accumulator chain (host) per row
  subvector2,          ///< X = 2 lanes per row: GPU sub-warp with shuffles; host: 2 interleaved sums
  subvector4,  ///< X = 4 lanes per row
  subvector8,  ///< X = 8 lanes per row
  subvector16,  ///< X = 16 lanes per row
  subvector32,         ///< a full warp per row on NVIDIA GPUs
  team_per_row,        ///< a team (thread block) per row; on the host, a row split across threads
  split_row,           ///< a row cut into chunks spread over many teams, partial sums added atomically
  automatic = -1,      ///< let the analysis choose (options only)
};
inline constexpr int num_spmv_kernels = 8;  ///< number of SpmvKernel values other than automatic

const char* to_string(SpmvKernel kernel);  ///< the kernel's name ("automatic" for automatic)
/// Parses the names printed by to_string; throws InvalidArgument listing the valid names.
SpmvKernel spmv_kernel_from_string(const std::string& name);
/// Lanes per row of a sub-vector kernel (1 for thread_per_row, 0 for team/split).
int spmv_kernel_lanes(SpmvKernel kernel);
/// Whether analysis bins the virtual rows by length or runs them all as one bin (SpmvOptions::binning).
enum class SpmvBinning {
  automatic,   ///< the model decides between binning and a single bin
  binned,      ///< virtual rows binned by length, one kernel per bin
  single_bin,  ///< every row in one bin (the paper's single-bin strategy)
  /// CUDA target only (a plan on another target throws InvalidArgument): consecutive rows packed
  /// into blocks of at most SpmvSchedule::row_block_entries entries and row_block_rows rows, one
  /// 256-thread block each, in one launch whatever the row lengths. A row longer than
  /// row_block_entries takes a block alone; a row longer than the split threshold (default
  /// 2 * row_block_entries) is cut into chunks (default row_block_entries entries) added
  /// atomically, after one more launch that scales those rows by beta.
  row_blocks,
  /// As row_blocks, but each block sums its rows along the merge path (Merrill and Garland): every
  /// thread takes an equal share of the block's row ends and entries, whatever the row lengths
  /// inside the block, and a segmented scan joins the rows that cross threads. CUDA target only.
  /// Not chosen automatically until a GPU has timed it against row_blocks.
  row_blocks_merge,
};
/// How mode "T" runs: a cached transpose plan (cached) or atomic scatters without forming A^T (scatter).
enum class SpmvTranspose { cached, scatter };

/// Which implementation the analysis targets; decides the model and defaults.
enum class SpmvTarget { host, cuda, portable_cpu, portable_gpu };
const char* to_string(SpmvTarget target);  ///< the target's name ("host", "cuda", "portable (cpu)", "portable (gpu)")
/// Options of an SpmvPlan: kernels and binning, virtual rows, autotuning, transpose, backend, host index forms.
struct SpmvOptions {
  /// Force one kernel for every row (single bin, even for very long rows); automatic: choose.
  SpmvKernel kernel = SpmvKernel::automatic;
  /// Binned or one bin when no kernel is forced; automatic: the model decides
  SpmvBinning binning = SpmvBinning::automatic;
  /// U, rows per virtual row; 0: the model's choice. Must be 0 or in [1, 2^20].
  int virtual_row_size = 0;
  /// Rows longer than this go to the split-row kernel when binning; 0: the target's default.
  int64_t split_row_threshold = 0;
  /// Entries per split-row chunk; 0: the target's default.
  int64_t split_chunk = 0;
  /// Measure the model's choice and its neighbours at analysis time and keep the fastest.
  bool autotune = false;
  int autotune_repeats = 5;  ///< timed applies per autotune candidate, the median decides (>= 1)
  SpmvTranspose transpose = SpmvTranspose::cached;  ///< how mode "T" runs
  /// automatic: the host kernels on OpenMP / Serial, the CUDA kernels on Kokkos::Cuda, the
  /// portable ones elsewhere; native: the same, but throws InvalidArgument on a space with no
  /// specialization; portable: the portable Kokkos kernels on any space. Every SpmvKernel exists
  /// in every backend (impl/spmv/spmv_dispatch.hpp).
  Backend backend = Backend::automatic;
  /// Host target, and the CUDA target's thread_per_row and subvectorX kernels: read the column
  /// indices from a private, smaller copy made at analysis (the values are still read from A, so
  /// value updates stay visible; the pattern must not change).
  ///  - row_patterns: each row's column offsets (col - row, in stored order) as an index into a
  ///    dictionary of the distinct offset sequences, 2 bytes per row instead of 4 per entry.
  ///    Possible when the matrix has at most 65535 distinct row patterns holding at most 16384
  ///    offsets in all (stencils, FEM meshes: 27 patterns for the 7-point Poisson operator).
  ///    Consecutive rows with one pattern are then run 8 at a time, x read as contiguous vectors.
  ///  - offsets16: col - row as int16, 10 bytes per entry instead of 12; possible when every
  ///    |col - row| <= 32767 (bandwidth). Costs 2 bytes per entry of memory.
  /// automatic: on the host target row_patterns when possible, else offsets16 when possible and
  /// rows average at least 16 entries (shorter rows are latency-bound: the saved bytes do not pay
  /// for the extra add); on the CUDA target, for schedules of thread_per_row and subvectorX bins
  /// only (not row blocks), row_patterns when possible, else offsets16 when possible, whatever
  /// the row length; off for other targets.
  enum class IndexCompression { automatic, offsets16, row_patterns, off };
  IndexCompression compress_indices = IndexCompression::automatic;  ///< where the kernels read column indices from
  /// Host target, when the kernels read the matrix's own column indices: while computing entry
  /// k, ask the cache for x(col[k + d]) (d = SpmvSchedule::x_prefetch_distance entries ahead).
  /// Random gathers of an x too large for the caches then overlap with the current work.
  /// automatic: on when x takes more than SpmvSchedule::x_prefetch_min_bytes: an x the caches
  /// hold gains nothing and pays for the extra loads (measurements:
  /// perf_tests/results/spmv-host-2026-11-21.md, "x prefetched through the column indices").
  enum class XPrefetch { automatic, on, off };
  XPrefetch prefetch_x = XPrefetch::automatic;  ///< whether the host kernels prefetch x
};


/// Matrix features the model decides from (Table I of the paper plus the row-length histogram).
struct SpmvFeatures {
  int64_t rows = 0;  ///< rows
  int64_t cols = 0;  ///< columns
  int64_t nnz = 0;  ///< stored entries
  int64_t min_row = 0;  ///< shortest row
  int64_t max_row = 0;  ///< longest row
  double avg_row = 0;  ///< nnz / rows
  double var_row = 0;  ///< population variance of the row lengths
  /// log2 histogram: bucket 0 = empty rows, bucket k = lengths in [2^(k-1), 2^k)
  std::vector<int64_t> histogram;
};

/// Bin classes: class 0 holds virtual rows whose average row length is < 1, class c >= 1 those
/// with average length in [2^(c-1), 2^c).
inline constexpr int num_spmv_classes = 32;

/// The model's answer.
struct SpmvDecision {
  int virtual_row_size = 1;  ///< U, rows per virtual row (>= 1)
  bool single_bin = false;  ///< every row in one bin instead of bins by length
  SpmvKernel single_bin_kernel = SpmvKernel::thread_per_row;  ///< the kernel of the single bin
  std::array<SpmvKernel, num_spmv_classes> kernel_for_class{};  ///< the kernel of each length class when binning
};

/// Options plus an explicit decision, bypassing the model (tuning tools, experiments).
struct SpmvTuningOptions : SpmvOptions {
  std::optional<SpmvDecision> decision;  ///< when set, used instead of the model's decision
};

/// Who decided U, the binning and the kernels of a schedule.
enum class SpmvDecidedBy {
  model,     ///< the trained model (impl/spmv/spmv_model_*_generated.cpp)
  forced,    ///< SpmvOptions::kernel forced one kernel for every row
  autotune,  ///< measured at analysis (SpmvOptions::autotune); decision_detail names the candidate
  options,   ///< an explicit SpmvDecision (SpmvTuningOptions::decision, tuning tools)
};
const char* to_string(SpmvDecidedBy decided_by);  ///< its name: "model", "forced", "autotune" or "options"

/// What analysis produced: the virtual rows, the bins and their kernels, where the host kernels
/// read column indices from and whether they prefetch x. Host-side, inspectable; every decision
/// of the plan is taken here, and describe() says what was chosen and why.
struct SpmvSchedule {
  SpmvTarget target = SpmvTarget::host;  ///< the implementation analysed for
  SpmvFeatures features;  ///< A's features
  int virtual_row_size = 1;  ///< U, rows per virtual row
  bool single_bin = false;  ///< every virtual row in one bin, one kernel for all
  SpmvDecidedBy decided_by = SpmvDecidedBy::model;  ///< who decided U, the binning and the kernels
  /// SpmvBinning::row_blocks: virtual row v is row block v (its rows hold at most
  /// row_block_entries entries together, at most row_block_rows rows; or one longer row), no bins
  /// except a split_row bin for the rows longer than split_row_threshold.
  bool row_blocks = false;
  /// Row blocks (SpmvBinning::row_blocks_merge): a block's rows summed along the merge path, an
  /// equal share of row ends and entries per thread, instead of a group of lanes per row.
  bool row_block_merge = false;
  /// Row blocks: entries staged in shared memory by one block at most.
  static constexpr int64_t row_block_entries = 1024;
  /// Row blocks: rows per block at most (one thread or more per row when the block reduces them).
  static constexpr int64_t row_block_rows = 256;
  /// What else decided: "binning from options", "U from options", the autotune candidate
  /// ("model, U/4", "single bin, subvector8"), or the label of an explicit decision.
  std::string decision_detail;
  /// decided_by and decision_detail as one text: "model, U from options", "autotune: model, U*4".
  std::string decided_by_text() const;
  /// Rows longer than this are split when binning (the options' value or the target's default)
  int64_t split_row_threshold = 0;
  int64_t split_chunk = 0;  ///< entries per split-row chunk (the options' value or the target's default)
  /// Virtual row v covers rows [vrow_bounds[v], vrow_bounds[v+1]): at most U rows, except that
  /// a row longer than split_row_threshold always forms its own virtual row.
  std::vector<int64_t> vrow_bounds{0};
  /// Virtual rows run by one kernel
  struct Bin {
    SpmvKernel kernel = SpmvKernel::thread_per_row;  ///< the kernel
    int class_lo = 0;  ///< lowest class merged into this bin
    int class_hi = 0;  ///< highest class merged into this bin
    std::vector<int64_t> vrows;      ///< virtual rows of this bin, increasing
    int64_t rows = 0;  ///< rows in this bin
    int64_t nnz = 0;  ///< stored entries in this bin
    int64_t max_row = 0;  ///< its longest row
  };
  std::vector<Bin> bins;  ///< the bins, by lowest class
  /// Why the column indices and the x prefetch are what they are (describe() prints them; empty
  /// when not decided: targets other than host, or a schedule built without A's indices).
  std::string column_indices_why, x_prefetch_why;  ///< why x is or is not prefetched
  /// Host target: column indices read as 16-bit offsets from the row (see SpmvOptions).
  bool compressed_indices = false;
  int64_t bandwidth = -1;  ///< max |col - row| when compression was considered, else -1
  /// Host target: column indices read from the row-pattern dictionary (see SpmvOptions).
  bool row_patterns = false;
  /// Distinct row patterns and their offsets in all when they were counted, else -1; counting
  /// stops early at the limits, so a matrix over them reports the count at which it stopped.
  int64_t num_row_patterns = -1, row_pattern_offsets = -1;  ///< offsets in those patterns, else -1
  /// Limits of the row-pattern dictionary: ids are 16-bit; 64 KB of offsets stay in L1/L2.
  static constexpr int64_t max_row_patterns = 65535, max_row_pattern_offsets = 16384;  ///< offsets in all, at most
  /// Host target, matrix's own column indices: entries ahead whose x is prefetched; 0: none.
  int64_t x_prefetch_distance = 0;
  /// SpmvOptions::XPrefetch::automatic prefetches when x is larger than this, and 64 entries
  /// ahead: far enough to cover a gather's memory latency (the sweep over 32, 64 and 128 is in
  /// perf_tests/results/spmv-host-2026-11-21.md).
  static constexpr int64_t x_prefetch_min_bytes = int64_t{4} << 20;
  static constexpr int64_t x_prefetch_default_distance = 64;  ///< how many entries ahead automatic prefetches

  int64_t num_vrows() const { return static_cast<int64_t>(vrow_bounds.size()) - 1; }  ///< virtual rows
  std::string describe() const;  ///< what was chosen and why, human-readable, several lines
};

/// Where SpmvPlan's construction spent its time (SpmvPlan::analysis_seconds()), in seconds: the
/// structure check, A's row map read to the host, the row-pattern dictionary and the 16-bit
/// offsets (each only when a decision asked for it), the rest of the schedule (features, model,
/// bins), the schedule's copy into the plan's memory space (the host threads' parts included) and
/// the autotune trials.
struct SpmvAnalysisSeconds {
  double validate = 0;         ///< Sprocket::validate(A)
  double row_map = 0;          ///< A's row map read to the host as int64_t
  double row_patterns = 0;     ///< the row-pattern dictionary (0 when no decision asked for it)
  double offsets16 = 0;        ///< the 16-bit offsets col - row (0 when no decision asked for them)
  double schedule = 0;         ///< features, model and bins: the rest of the schedule
  double device_schedule = 0;  ///< the schedule copied into the plan's memory space, host parts included
  double autotune = 0;         ///< the autotune trials (0 unless SpmvOptions::autotune)
  /// The sum of the phases.
  double total() const { return validate + row_map + row_patterns + offsets16 + schedule + device_schedule + autotune; }
};

/// Features from a row map (host copy).
SpmvFeatures spmv_features(const std::vector<int64_t>& row_map, int64_t num_cols);
/// The trained model (impl/spmv/spmv_model_{cpu,gpu}_generated.cpp).
SpmvDecision spmv_model_decide(const SpmvFeatures& features, SpmvTarget target);
/// Builds the schedule's virtual rows and bins from the row map, the options and the target (the
/// model is consulted for whatever the options leave open). Throws InvalidArgument on bad
/// options. The column-index and x-prefetch decisions need A's column indices: SpmvPlan takes
/// them (impl/spmv/spmv_analysis.hpp); here indices stay A's own and x is not prefetched.
SpmvSchedule build_spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols,
                                 const SpmvOptions& options, SpmvTarget target);
/// Same, with an explicit decision: decided_by options, `label` in decision_detail.
SpmvSchedule build_spmv_schedule(const std::vector<int64_t>& row_map, int64_t num_cols,
                                 const SpmvOptions& options, SpmvTarget target,
                                 const SpmvDecision& decision, const std::string& label);

}  // namespace Sprocket

#include "impl/spmv/spmv_plan.hpp"
