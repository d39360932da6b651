// sprocket-bench's Kokkos peers (bench_kk_peers.hpp): the functions that take no type. The typed
// peers are instantiated in files generated from bench_kk_instance.cpp.in, one per kind and
// (Scalar, Offset) pair (perf_tests/CMakeLists.txt).
#include "bench_kk_peers.hpp"

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

}  // namespace kk
}  // namespace sprocket_bench
