// sprocket-bench's Kokkos peers (bench_kk_peers.hpp) for float / int (SPROCKET_BENCH_TYPES=all):
// the definitions are in bench_kk_peers_impl.hpp, one (Scalar, Offset) pair per file.
#include "bench_kk_peers_impl.hpp"

namespace sprocket_bench {
namespace kk {

SPROCKET_BENCH_KK_PEERS(float, int)
SPROCKET_BENCH_KK_SPGEMM(float, int)

}  // namespace kk
}  // namespace sprocket_bench
