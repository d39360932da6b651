#pragma once
// What every driver of sprocket-cuda-profile shares (cuda_profile.hpp): the emulated H100, the host
// types, and running one apply under the access recorder. Included only by the instrumented
// driver translation units (it brings in the CUDA emulation's keywords).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>

#include <utility>

#include "cuda_profile.hpp"
#include "impl/common/cuda/cuda_launch.hpp"
#include "sprocket_cuda_emulation.hpp"

namespace Sprocket {
namespace cuda_profile {

using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;
using ProfileCrs = KokkosSparse::CrsMatrix<double, int, HostDevice, void, int>;

/// An H100 (SXM) as the launchers see it: 132 multiprocessors, 227 KiB of opt-in shared memory,
/// grids clamped only where the CUDA build clamps them.
inline cuda_emulation::Device h100_emulated_device() {
  cuda_emulation::Device device(cuda_emulation::Schedule{}, 132, Impl::cuda::max_grid_blocks);
  device.shared_bytes_per_block = 48 * 1024;
  device.shared_bytes_optin = 227 * 1024;
  device.max_threads_per_block = 1024;
  device.max_threads_per_multiprocessor = 2048;
  device.free_bytes = int64_t{80} << 30;
  return device;
}

/// Runs `apply` (one apply on the emulated device) under a recorder and fills `out`'s launches.
/// With request.sample_every > 1 the blocks not sampled do not run at all: a driver whose later
/// launches index memory by what an earlier launch computed (SpGEMM's row counts) must supply
/// those values itself.
template <class Apply>
void record_apply(const ProfileRequest& request, ApplyProfile& out, Apply&& apply) {
  cuda_emulation::AccessRecorder recorder;
  recorder.set_block_sampling(request.sample_every, 4 * 132);
  recorder.start();
  try {
    std::forward<Apply>(apply)();
  } catch (...) {
    recorder.stop();
    throw;
  }
  recorder.stop();
  out.launches = recorder.launches();
  out.footprint_sectors = recorder.footprint_sectors();
  out.sample_every = request.sample_every;
  if (request.sample_every > 1)
    out.note += "sampled: 1 in " + std::to_string(request.sample_every) +
                " blocks of grids above 528 blocks run and recorded, counts scaled to the grid (the busiest warp is "
                "the busiest recorded); ";
}

/// The request's header fields.
inline ApplyProfile start_profile(const ProfileRequest& request, const HostCsr& A) {
  ApplyProfile p;
  p.kernel = request.kernel;
  p.matrix = request.matrix;
  p.variant = request.variant;
  p.k = request.k;
  p.layout = request.layout;
  p.rows = A.num_rows;
  p.cols = A.num_cols;
  p.nnz = A.nnz();
  return p;
}

}  // namespace cuda_profile
}  // namespace Sprocket
