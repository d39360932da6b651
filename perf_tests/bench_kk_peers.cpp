// sprocket-bench's Kokkos peers (bench_kk_peers.hpp) for double / int, and the peers' functions
// that take no type: the definitions are in bench_kk_peers_impl.hpp, one (Scalar, Offset) pair per
// file.
#include "bench_kk_peers_impl.hpp"

namespace sprocket_bench {
namespace kk {

const char* peers_march() {
#ifdef SPROCKET_BENCH_PEERS_MARCH
  return SPROCKET_BENCH_PEERS_MARCH;
#else
  return "default";
#endif
}

std::vector<std::string> spgemm_algorithms() { return {"kk", "kk_dense", "kk_memory", "kk_lp"}; }

SPROCKET_BENCH_KK_PEERS(double, int)
SPROCKET_BENCH_KK_SPGEMM(double, int)

}  // namespace kk
}  // namespace sprocket_bench
