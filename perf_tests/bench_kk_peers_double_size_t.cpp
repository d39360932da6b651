// sprocket-bench's Kokkos peers (bench_kk_peers.hpp) for double / size_t (SPROCKET_BENCH_TYPES=all):
// the definitions are in bench_kk_peers_impl.hpp, one (Scalar, Offset) pair per file.
#include "bench_kk_peers_impl.hpp"

namespace sprocket_bench {
namespace kk {

SPROCKET_BENCH_KK_PEERS(double, size_t)
#ifndef KOKKOS_ENABLE_CUDA  // CUDA builds run SpGEMM with int offsets only (bench_spgemm.cpp)
SPROCKET_BENCH_KK_SPGEMM(double, size_t)
#endif

}  // namespace kk
}  // namespace sprocket_bench
