#pragma once
// SpGEMM defaults: the global load-balancing thresholds (the paper's Table 2; the host's tuned by
// us on our corpus, perf_tests/results/spgemm-host-2026-11-26.md) and the host accumulator sizes.
// The CUDA thresholds are the paper's (Table 2, TITAN V): no GPU was available to tune ours.
#include <cstdint>

#include "Sprocket_Spgemm.hpp"

namespace Sprocket {
namespace Impl {

/// Host: work-balanced chunks pay once the longest row holds this many times the average row's
/// products (symbolic) or entries of C (numeric) and there are enough rows for the imbalance to
/// matter. Measured with both balances forced (perf_tests/results/spgemm-host-2026-11-26.md):
/// binned 2-4% faster on R-MAT (ratios 25-35) and rajat01 (12.6), within 1% either way on
/// Poisson, elasticity, banded and bcsstk16 (ratios 1-1.7); the dynamic chunk schedule already
/// absorbs most imbalance, so the choice matters little on two cores.
inline constexpr SpgemmBalanceThresholds spgemm_host_symbolic_thresholds{8.0, 2048, 8.0, 2048};
inline constexpr SpgemmBalanceThresholds spgemm_host_numeric_thresholds{4.0, 2048, 4.0, 2048};
/// CUDA: the paper's Table 2.
inline constexpr SpgemmBalanceThresholds spgemm_cuda_symbolic_thresholds{39.2, 28000, 6.0, 5431};
inline constexpr SpgemmBalanceThresholds spgemm_cuda_numeric_thresholds{10.5, 23006, 1.3, 1238};

/// Host accumulators (per worker thread).
///  - hash: rows whose accumulator needs at most this many keys (min(products, column range))
///    use a linear-probing table of twice that many slots (keys and values: 48 KiB for double
///    at the limit, in L1/L2);
inline constexpr int64_t spgemm_host_hash_max_keys = 2048;
///  - dense: a bitmap and a value array over the row's column range (bits and values are zero
///    between rows). Automatic picks it for a row whose range needs at most
///    spgemm_host_dense_words_per_key bitmap words per key (the scan that emits the row sorted,
///    and clears it, then costs a few operations per entry), or whose keys exceed the hash
///    table, up to spgemm_host_dense_max_columns columns (8.1 bytes a column for double: 2 MiB
///    at the limit, L2/L3); rows beyond both go to the global hash table.
inline constexpr int64_t spgemm_host_dense_max_columns = int64_t(1) << 18;
inline constexpr int64_t spgemm_host_dense_words_per_key = 8;
/// The dense rows read B as 64-column words with bit masks (SpgemmHostColumnWords) when a word
/// folds at least this many of B's entries on average (FEM-like rows of consecutive columns).
inline constexpr double spgemm_host_word_fold_min = 1.25;
/// The numeric pass of dense rows reads B as runs of consecutive columns (SpgemmHostColumnRuns),
/// adding a run's products as one vectorizable loop, when B's runs hold at least this many
/// entries on average (FEM blocks of several unknowns per node; shorter runs measured slower than
/// the plain loop: bcsstk13, 3.2 per run, +18%; nasa2910, 4.0, +4%; bcsstk16, 7.8, -14%).
inline constexpr double spgemm_host_run_min = 6.0;
/// Below this many products plus rows the whole product runs on the calling thread: a parallel
/// region's start and barrier would cost more than the work.
inline constexpr int64_t spgemm_host_serial_work = 32768;
/// Chunks of rows per worker thread (dynamic scheduling over chunks).
inline constexpr int64_t spgemm_host_chunks_per_worker = 16;

}  // namespace Impl
}  // namespace Sprocket
