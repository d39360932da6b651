#pragma once
// ASpT defaults per target, written by perf_tests/spmm_calibrate.cpp (the paper's Fig. 5
// experiment: synthetic matrices of varying column-segment density; the heavy threshold is the
// density where the tiled kernel overtakes the untiled one). Regenerate one target with
//   build/host/bin/spmm-calibrate --target host --output impl/spmm/spmm_defaults_generated.hpp
// (cuda: build/cuda/bin/spmm-calibrate --target cuda ...); the other targets' values are kept.
//
// [target host] calibrated 2026-11-21 09:24 UTC
//   command: spmm-calibrate --target host --output impl/spmm/spmm_defaults_generated.hpp
//   machine: AMD EPYC, 2 hardware threads; OpenMP concurrency 2, OMP_NUM_THREADS=2, OMP_PROC_BIND=spread, OMP_PLACES=threads
//   load average (1 min) at the start 3.64, at the end 4.43
//   sweep: uniform random, 16384 columns, ~1048576 nonzeros (rows >= 1024), density = nonzeros per column segment of 256 rows; B, C LayoutRight double; fastest of 5 (warm-up 1)
//   untiled: csr_rows; tiled: aspt, heavy_threshold 1, P x T_N = panel_rows x tile_cols
//   pass 1, speedup t_untiled / t_tiled (geomean over K 32,128):
//     density    rows      nnz  untiled ms (K=32)   128x256  128x1024   256x256  256x1024   512x256  512x1024
//        0.50   32768  1047529            10.192      0.48      0.67      0.37      0.45      0.26      0.43
//        1.00   16384  1046488             7.261      0.41      0.61      0.27      0.54      0.24      0.34
//        1.99    8192  1044511            12.009      0.53      0.53      0.47      0.54      0.43      0.59
//        3.97    4096  1040405            12.000      0.51      0.67      0.64      0.60      0.64      0.71
//        7.88    2048  1032422            10.321      0.57      0.79      0.79      0.82      0.50      0.83
//       15.51    1024  1016488            10.892      1.25      2.39      1.21      1.03      0.89      0.80
//       30.08    1024  1971518            25.834      1.67      1.58      1.19      1.08      0.91      0.99
//       56.63    1024  3711452            34.602      1.60      1.27      1.29      1.30      1.20      1.57
//   per K (untiled ms / best tiled ms, config):
//     density   0.50  K   32:    10.192 /    11.679  128x1024
//     density   0.50  K  128:    63.118 /   120.627  128x256
//     density   1.00  K   32:     7.261 /    13.244  128x1024
//     density   1.00  K  128:    68.874 /   101.567  128x1024
//     density   1.99  K   32:    12.009 /    21.782  512x1024
//     density   1.99  K  128:    73.463 /    98.539  128x256
//     density   3.97  K   32:    12.000 /    16.596  128x1024
//     density   3.97  K  128:    64.116 /    79.940  512x1024
//     density   7.88  K   32:    10.321 /    10.513  128x1024
//     density   7.88  K  128:    57.533 /    64.075  256x256
//     density  15.51  K   32:    10.892 /     2.615  128x1024
//     density  15.51  K  128:    83.413 /    46.891  128x256
//     density  30.08  K   32:    25.834 /    12.539  128x1024
//     density  30.08  K  128:    96.918 /    63.450  128x256
//     density  56.63  K   32:    34.602 /    27.547  128x256
//     density  56.63  K  128:   230.299 /    67.961  512x1024
//   winner 128x1024: geomean speedup 1.69 over the densities where tiling won
//   crossover density 9.21 per 256-row segment = 4.60 per 128-row panel -> heavy_threshold 5
//   pass 2 (128x1024, heavy_threshold 5): heavy fraction -> speedup t_untiled / t_aspt (geomean over K)
//     density   0.50  heavy fraction 0.000  speedup 0.84
//     density   1.00  heavy fraction 0.002  speedup 0.52
//     density   1.99  heavy fraction 0.018  speedup 1.09
//     density   3.97  heavy fraction 0.135  speedup 0.96
//     density   7.88  heavy fraction 0.550  speedup 0.74
//     density  15.51  heavy fraction 0.953  speedup 2.31
//     density  30.08  heavy fraction 1.000  speedup 1.85
//     density  56.63  heavy fraction 1.000  speedup 1.29
//   min_heavy_fraction 0.663 (the heavy fraction at the speedup-1 crossing, linear interpolation)
// [end target host]
// [target cuda] not calibrated: prior values
// [end target cuda]
// [target portable] not calibrated: prior values
// [end target portable]
#include <cstdint>

namespace Sprocket {
namespace Impl {

struct SpmmCalibratedDefaults {
  int64_t panel_rows;
  int64_t tile_cols;
  int64_t heavy_threshold;
  double min_heavy_fraction;
};

inline constexpr SpmmCalibratedDefaults spmm_defaults_host{128, 1024, 5, 0.663};
inline constexpr SpmmCalibratedDefaults spmm_defaults_cuda{256, 256, 2, 0.100};
inline constexpr SpmmCalibratedDefaults spmm_defaults_portable{256, 4096, 2, 0.100};

}  // namespace Impl
}  // namespace Sprocket
