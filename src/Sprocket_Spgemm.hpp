#pragma once
/// \file Sprocket_Spgemm.hpp
/// SpGEMM after spECK (paper: speck-spgemm, Parger et al., PPoPP 2020): C = A * B for CSR A
/// (M x K) and B (K x N), C in CSR with sorted columns (or unsorted, cheaper), split into an
/// analysis + symbolic phase done once per pair of patterns and a numeric phase that re-runs on
/// new values:
///
///   Sprocket::SpgemmPlan<Crs> plan(A, B);   // row analysis, load balancing, symbolic pass:
///                                           //   C's row map and nnz(C) are known, memory checked
///   Crs C = plan.numeric(A, B);             // C's columns and values (C allocated here)
///   ... change A's and B's values (same patterns) ...
///   plan.numeric(A, B, C);                  // values only: no analysis, no symbolic work
///   std::cout << plan.describe();
///   Crs D = Sprocket::spgemm(A, B);         // the one-call form
///
/// Stages (impl/spgemm/spgemm_dispatch.hpp shows every routing decision):
///  1. Row analysis, O(nnz(A) + nnz(B)), parallel (paper Algorithm 1): per row of A the number of
///     products, the longest referenced row of B and the smallest / largest column reached; their
///     maxima and averages. Also validates both patterns (row maps monotone, columns in range).
///  2. Global load balancing, only when it pays (SpgemmBalance; decided separately for the
///     symbolic and the numeric pass from the ratio of the largest to the average accumulator size
///     and the row count, thresholds SpgemmBalanceThresholds tuned on our corpus as the paper's
///     Table 2): rows binned by accumulator size, binned per block and appended in row order,
///     neighbouring small rows merged into one block (Algorithm 2). Without it: fixed blocks of
///     consecutive rows and one accumulator size for all.
///  3. Symbolic pass: the exact nnz of every row of C; C's row map by prefix sum.
///  4. Numeric pass: columns and values, sorted on request.
/// Accumulators, chosen per row (host) or per block (CUDA) unless SpgemmOptions::accumulator
/// forces one: a hash map with linear probing (host: a thread's cache-sized table; CUDA: shared
/// memory, with compound row/column keys when a block holds several rows), a dense array over the
/// row's column range [min column, max column] when the row is dense enough (CUDA: in chunks of
/// what shared memory holds; its output comes out sorted), direct referencing when a row of A has
/// one entry (C's row is B's row scaled, when B's rows are sorted without duplicates), and a hash
/// map in global memory for rows beyond the largest scratch size. On CUDA the threads per
/// referenced row of B (local load balancing) are a power of two chosen from the referenced rows'
/// average and maximum length; kernels are sized from the device's shared memory (queried) in
/// configurations that halve shared memory and threads.
///
/// Memory: the plan counts every temporary it allocates (SpgemmMemory, memory()) and checks each
/// phase against a limit (SpgemmOptions::memory_limit_bytes, and always what the device can hold:
/// the host's available memory, the GPU's free memory) *before* allocating: a product that does
/// not fit throws ResourceError naming the bytes it needs. nnz(C) or a row offset that does not
/// fit the Offset type throws InvalidArgument (use a size_t Offset).
///
/// Inputs: A and B of the same CrsMatrix type (float or double, int columns, int or size_t
/// offsets), unsorted columns and duplicate entries allowed (duplicates act as their sum; C has
/// each column once). C has A's row count and B's column count and the same type. Entries whose
/// products cancel to zero stay in C (C's pattern is the symbolic product). For C = A * A^T, build
/// A^T first (Sprocket::transpose).
///
/// Backends: Backend::native runs the space's kernels (host: OpenMP, Serial, any scalar; CUDA:
/// float and double), Backend::portable the portable Kokkos kernels on any space (hash maps in
/// global memory, one thread per row), automatic the native ones where they exist.
///
/// Thread safety: a plan's numeric() calls must not overlap (they share the plan's workspaces);
/// separate plans, and copies of one plan (workspaces of their own: Sprocket_Operator.hpp,
/// "Copies"), may run concurrently.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Operator.hpp"

namespace Sprocket {

/// How a row (host) or block of rows (CUDA) of C is accumulated when the choice is forced; direct
/// referencing of single-entry rows is SpgemmOptions::direct_rows.
enum class SpgemmAccumulator : int {
  hash = 0,     ///< linear-probing hash map in fast memory (host: cache-sized per thread; CUDA: shared)
  dense,        ///< dense array over the row's column range (CUDA: shared memory, range in chunks)
  global_hash,  ///< hash map in global memory, sized to the row (the fallback for the longest rows)
  automatic = -1,  ///< chosen per row (host) or per block (CUDA) from its size and column range
};
inline constexpr int num_spgemm_accumulators = 3;  ///< number of SpgemmAccumulator values other than automatic

const char* to_string(SpgemmAccumulator accumulator);  ///< the accumulator's name ("automatic" for automatic)
/// Parses the names printed by to_string ("auto" for automatic); throws InvalidArgument listing them.
SpgemmAccumulator spgemm_accumulator_from_string(const std::string& name);

/// Global load balancing of a pass (paper section 4.2).
enum class SpgemmBalance : int {
  uniform = 0,  ///< none: fixed blocks of consecutive rows, one accumulator size for all
  binned,       ///< rows binned by accumulator size, neighbouring small rows merged into blocks
  automatic = -1,  ///< binned or uniform per pass, by SpgemmBalanceThresholds
};
const char* to_string(SpgemmBalance balance);  ///< the balancing's name ("automatic" for automatic)
/// Parses the names printed by to_string ("auto" too); throws InvalidArgument listing them
SpgemmBalance spgemm_balance_from_string(const std::string& name);

/// When automatic global load balancing bins a pass (paper Table 2): the ratio of the largest to
/// the average accumulator size of a row (products for the symbolic pass, nnz of C's row for the
/// numeric pass) reaches `ratio` and C has at least `min_rows` rows; `ratio_large` / `min_rows_large`
/// instead when the largest row needs one of the largest accumulator configurations. Zeros (and
/// negatives): the defaults of the backend (impl/spgemm/spgemm_defaults.hpp).
struct SpgemmBalanceThresholds {
  double ratio = 0;  ///< largest / average accumulator size from which a pass is binned
  int64_t min_rows = 0;  ///< rows C needs at least for the pass to be binned
  double ratio_large = 0;  ///< `ratio` when the largest row needs one of the largest accumulators
  int64_t min_rows_large = 0;  ///< `min_rows` when the largest row needs one of the largest accumulators
};
/// Options of an SpgemmPlan: backend, sorting, accumulators, load balancing, memory limit.
struct SpgemmOptions {
  Backend backend = Backend::automatic;  ///< the implementation family
  /// Columns of every row of C in increasing order (CSR's usual promise). false: any order, cheaper
  /// (rows from the dense accumulator and direct references come out sorted anyway).
  bool sorted = true;
  /// The accumulator forced (see SpgemmAccumulator); automatic: chosen per row or block
  SpgemmAccumulator accumulator = SpgemmAccumulator::automatic;
  /// Rows of A with exactly one entry give B's row scaled, without accumulation (when every row of
  /// B is sorted and free of duplicates; the analysis checks).
  bool direct_rows = true;
  SpgemmBalance symbolic_balance = SpgemmBalance::automatic;  ///< global load balancing of the symbolic pass
  SpgemmBalance numeric_balance = SpgemmBalance::automatic;  ///< global load balancing of the numeric pass
  SpgemmBalanceThresholds symbolic_thresholds;  ///< when automatic balancing bins the symbolic pass
  SpgemmBalanceThresholds numeric_thresholds;  ///< when automatic balancing bins the numeric pass
  /// CUDA: threads per referenced row of B (local load balancing), a power of two up to the
  /// block's threads; 0: chosen per block from the referenced rows' lengths.
  int threads_per_b_row = 0;
  /// The most bytes the plan may allocate at once (its own arrays, temporaries and C); 0: no limit
  /// beyond the device's available memory, which is always checked.
  int64_t memory_limit_bytes = 0;
};

/// Bytes a plan allocates, by phase. peak_bytes is the most held at once:
/// max(analysis + symbolic, analysis + workspace + output + numeric).
struct SpgemmMemory {
  int64_t analysis_bytes = 0;   ///< kept by the plan: row statistics, C's row map, bins, schedules
  int64_t symbolic_bytes = 0;   ///< temporaries of the symbolic pass (accumulators, global hash maps)
  int64_t workspace_bytes = 0;  ///< kept by the plan for numeric re-runs (host accumulators)
  int64_t numeric_bytes = 0;    ///< temporaries of a numeric pass
  int64_t output_bytes = 0;     ///< C: row map, columns and values
  int64_t peak_bytes = 0;  ///< the most bytes held at once (formula above)
  int64_t limit_bytes = 0;      ///< what every phase was checked against
};

/// How many rows (of C) each accumulator handled in a pass, for describe() and the tests.
struct SpgemmRowCounts {
  int64_t empty = 0;  ///< rows without products
  int64_t direct = 0;  ///< B's row scaled (direct_rows)
  int64_t hash = 0;  ///< hash map in fast memory
  int64_t dense = 0;  ///< dense array
  int64_t global_hash = 0;  ///< hash map in global memory
};

}  // namespace Sprocket

#include "impl/spgemm/spgemm_plan.hpp"
