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
//   the sweep's timings: perf_tests/results/spmm-host-2026-11-21.md, "Calibration of the host defaults"
//   rules: heavy_threshold = the density per panel where the tiled kernel (best P x T_N of pass 1)
//   overtakes the untiled one, rounded up (at least 2); min_heavy_fraction = the heavy fraction where the
//   speedup of pass 2 crosses 1 (linear interpolation)
//   result: panel_rows 128, tile_cols 1024 (geomean speedup 1.69 where tiling won), crossover
//   density 9.21 per 256-row segment = 4.60 per 128-row panel -> heavy_threshold 5;
//   min_heavy_fraction 0.663
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
