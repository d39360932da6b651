#!/usr/bin/env bash
# Installs the Debian packages Sprocket needs, when missing. As root it runs apt-get; otherwise it
# prints the apt command to run and fails.
set -euo pipefail
# ccache: repeated builds on one machine (a fresh clone in CI too) reuse compiled objects.
# python3-scipy: SciPy's eigsh is the reference of unit_tests/solvers/test_lobpcg.cpp.
# libgraphblas-dev: SuiteSparse:GraphBLAS, the graphblas peer of sprocket-bench (spmv, spmm, sddmm).
# libsuitesparse-dev: SuiteSparse AMD, the fill-reducing ordering of the incomplete factorizations;
# CHOLMOD and UMFPACK, the direct Cholesky and LU preconditioners.
# libhypre-dev: hypre's BoomerAMG (with OpenMPI), the AMG peer of perf_tests/amg_vs_hypre.py.
# libopenblas0-openmp: OpenBLAS built with OpenMP, linked as BLAS and LAPACK (impl/CMakeLists.txt):
# dgemm runs the solvers' block products 2-11x faster than the own kernels, and this build shares
# Kokkos' OpenMP threads (the pthreads build of libopenblas-dev spins its own threads beside them:
# 2x slower LOBPCG on 2 cores). The runtime package is enough, the library is linked by full path.
# doxygen: `make docs` (the API reference of the public headers).
# ninja-build: the generator of our build trees (one build graph over every target, and
# .ninja_log's per-object seconds for `make build-times`).
# clang-14, libclang-rt-14-dev: libFuzzer and clang's sanitizer runtimes for the fuzz targets
# (unit_tests/fuzz/).
PACKAGES=(cmake ninja-build g++ make patch ca-certificates dpkg-dev libgtest-dev libgmock-dev libbenchmark-dev
          liblapack-dev zlib1g-dev python3-scipy ccache libgraphblas-dev libsuitesparse-dev libhypre-dev
          libopenblas0-openmp clang-14 libclang-rt-14-dev doxygen "$@")
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -eq 0 ]]; then
  echo "sprocket: installing Debian packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  echo "sprocket: installing Debian packages with sudo: ${missing[*]}" >&2
  sudo apt-get update -qq >&2
  sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "sprocket: missing Debian packages: ${missing[*]}" >&2
  echo "sprocket: run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
