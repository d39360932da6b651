// The host BLAS at run time (see host_blas.hpp).
#include "impl/blocks/host_blas.hpp"

#include "impl/blocks/lapack.hpp"

// OpenBLAS' own entry points, declared weak: they resolve to OpenBLAS when the process runs it
// (whichever variant Debian's alternatives put behind libblas.so.3 / libopenblas.so.0) and stay
// null under any other BLAS. ELF only; elsewhere the BLAS is treated as unknown.
#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define SPROCKET_WEAK_OPENBLAS 1
extern "C" {
int openblas_get_parallel(void) __attribute__((weak));
int openblas_get_num_threads(void) __attribute__((weak));
void openblas_set_num_threads(int) __attribute__((weak));
char* openblas_get_config(void) __attribute__((weak));
}
#else
#define SPROCKET_WEAK_OPENBLAS 0
#endif

namespace Sprocket {
namespace Impl {
namespace blocks {

namespace {

HostBlasInfo detect() {
  HostBlasInfo info;
#if SPROCKET_WEAK_OPENBLAS
  if (openblas_get_parallel && openblas_get_num_threads && openblas_set_num_threads) {
    info.openblas = true;
    info.threading = openblas_get_parallel();
    if (openblas_get_config) {
      const char* config = openblas_get_config();
      if (config) info.config = config;
    }
  }
#endif
  return info;
}

}  // namespace

const HostBlasInfo& host_blas_info() {
  static const HostBlasInfo info = detect();
  return info;
}

bool host_blas_in_parallel_ok() {
  const HostBlasInfo& info = host_blas_info();
  if (!info.openblas) return false;
  if (info.threading == 0 || info.threading == 2) return true;
#if SPROCKET_WEAK_OPENBLAS
  return info.threading == 1 && openblas_get_num_threads() == 1;
#else
  return false;
#endif
}

std::string host_blas_description() {
  const HostBlasInfo& info = host_blas_info();
  if (!info.openblas) return "not OpenBLAS (own kernels)";
  std::string s = "OpenBLAS (";
  s += info.threading == 0 ? "sequential" : info.threading == 2 ? "OpenMP" : "pthreads";
#if SPROCKET_WEAK_OPENBLAS
  if (info.threading == 1) s += ", " + std::to_string(openblas_get_num_threads()) + " thread(s)";
#endif
  s += ")";
  if (!info.config.empty()) s += " " + info.config;
  return s;
}

void host_dgemm(bool transpose_a, bool transpose_b, int m, int n, int k, double alpha, const double* a, int lda,
                const double* b, int ldb, double beta, double* c, int ldc) {
  const char ta = transpose_a ? 'T' : 'N', tb = transpose_b ? 'T' : 'N';
  dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

BlasThreadScope::BlasThreadScope(bool active) {
#if SPROCKET_WEAK_OPENBLAS
  const HostBlasInfo& info = host_blas_info();
  if (!active || !info.openblas || info.threading != 1) return;
  const int threads = openblas_get_num_threads();
  if (threads > 1) {
    openblas_set_num_threads(1);
    restore_ = threads;
  }
#else
  (void)active;
#endif
}

BlasThreadScope::~BlasThreadScope() {
#if SPROCKET_WEAK_OPENBLAS
  if (restore_ > 0) openblas_set_num_threads(restore_);
#endif
}

}  // namespace blocks
}  // namespace Impl
}  // namespace Sprocket
