#pragma once
// ASpT defaults per target. PRIOR VALUES (not yet calibrated): regenerate with
//   build/host/bin/spmm-calibrate --target host --output impl/spmm/spmm_defaults_generated.hpp
// (perf_tests/spmm_calibrate.cpp sweeps synthetic matrices of varying column-segment density,
// the paper's Fig. 5 experiment, and writes the crossover here).
#include <cstdint>

namespace Sprocket {
namespace Impl {

struct SpmmCalibratedDefaults {
  int64_t panel_rows;
  int64_t tile_cols;
  int64_t heavy_threshold;
  double min_heavy_fraction;
};

inline constexpr SpmmCalibratedDefaults spmm_defaults_host{256, 4096, 2, 0.10};
inline constexpr SpmmCalibratedDefaults spmm_defaults_cuda{256, 256, 2, 0.10};
inline constexpr SpmmCalibratedDefaults spmm_defaults_portable{256, 4096, 2, 0.10};

}  // namespace Impl
}  // namespace Sprocket
