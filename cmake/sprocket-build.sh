#!/usr/bin/env bash
# One entry point behind the Makefile: packages -> Kokkos deps -> configure -> build -> run.
#
#   cmake/sprocket-build.sh <host|cuda|sanitize|trilinos|kokkos4|kokkos4-cuda> <action>
#     test           build everything, run ctest (output on failure)
#     demo           build and run the solver demo (sprocket-solve, default problem)
#     bench          build the benchmarks
#     build          build everything (no run)
#     cuda-subset    CUDA configurations, library + tools + one test per kernel (compile only)
#     trilinos-test  (configuration trilinos) Trilinos 13.2 with MPI built into the dependency
#                    cache once, Sprocket configured against it (mpicxx), the adapters' tests run
#     cuda-emulation-asan
#                    host configuration: the emulated CUDA kernel tests built with AddressSanitizer
#                    (<name>_asan, label cuda_emulation_asan), built and run
#
# Build trees: build/<config>/ (executables in build/<config>/bin/). Environment:
#   SPROCKET_DEPS_DIR    dependency cache (default ~/.cache/sprocket)
#   KOKKOS_PREFIX        use an existing Kokkos + Kokkos Kernels install instead of building one
#   SPROCKET_JOBS        parallel build jobs (default nproc)
#   SPROCKET_CCACHE      0 to compile without ccache (default: use it when installed)
#   SPROCKET_MKL         0 to build the host configurations without sprocket-bench's mkl peer (default:
#                        Intel MKL 2020.4 unpacked into the dependency cache, cmake/sprocket-mkl.sh)
#   CCACHE_DIR           compiler cache (default $SPROCKET_DEPS_DIR/ccache, outside the checkout, so
#                        a fresh clone on the same machine reuses the objects of earlier builds)
set -euo pipefail
CONFIG="${1:?usage: sprocket-build.sh <host|cuda|sanitize> <action>}"
ACTION="${2:?usage: sprocket-build.sh <host|cuda|sanitize> <action>}"
# sanitize: the host configuration (same Kokkos) built with AddressSanitizer and
# UndefinedBehaviorSanitizer into build/sanitize.
DEPS_CONFIG="$CONFIG"
[[ "$CONFIG" == sanitize ]] && DEPS_CONFIG=host
# kokkos4: the host configuration against Kokkos 4.6.01 + Kokkos Kernels 4.6.02 (../shared/deps)
# into build/kokkos4; kokkos4-cuda: the CUDA configuration against them (built with CUDA for
# Kokkos_ARCH_HOPPER90, or SPROCKET_KOKKOS4_CUDA_ARCH) into build/kokkos4-cuda.
# trilinos: Sprocket against a Trilinos install (its Kokkos, its MPI) into build/trilinos.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IS_CUDA=0
[[ "$CONFIG" == cuda || "$CONFIG" == kokkos4-cuda ]] && IS_CUDA=1
JOBS="${SPROCKET_JOBS:-$(nproc)}"
say() { echo "sprocket: $*" >&2; }

# Called from make: keep the outer make's flags (-w, jobserver) away from the CMake build.
unset MAKEFLAGS MFLAGS MAKELEVEL
# Kokkos' OpenMP backend asks for thread binding; honour a user's choice, else bind.
export OMP_PROC_BIND="${OMP_PROC_BIND:-spread}" OMP_PLACES="${OMP_PLACES:-threads}"

if [[ "$CONFIG" == trilinos ]]; then
  # OpenMPI (compiler wrappers and mpirun) for Trilinos with MPI.
  bash "$ROOT/cmake/install-packages.sh" libopenmpi-dev openmpi-bin
else
  bash "$ROOT/cmake/install-packages.sh"
fi

if [[ -n "${KOKKOS_PREFIX:-}" ]]; then
  PREFIX="$KOKKOS_PREFIX"
  say "using Kokkos install at $PREFIX"
else
  PREFIX="$(bash "$ROOT/cmake/sprocket-deps.sh" "$DEPS_CONFIG" | tail -1)"
fi

BUILD="$ROOT/build/$CONFIG"
# Ninja: one build graph over every target (no per-directory make recursion), and .ninja_log,
# the seconds of every object, which `make build-times` prints.
GENERATOR=Ninja
command -v ninja >/dev/null || GENERATOR="Unix Makefiles"
cmake_args=(-G "$GENERATOR" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PREFIX")
# ccache keyed on paths relative to the checkout (CCACHE_BASEDIR), so clones in other folders hit.
if [[ "${SPROCKET_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-${SPROCKET_DEPS_DIR:-$HOME/.cache/sprocket}/ccache}"
  export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=true
  ccache --max-size "${SPROCKET_CCACHE_SIZE:-8G}" >/dev/null
  cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=)
fi
if [[ "$IS_CUDA" == 1 ]]; then
  NVCC="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  [[ -x "$NVCC" ]] || { say "nvcc not found: the CUDA configuration needs the CUDA toolkit"; exit 1; }
  export PATH="$(dirname "$NVCC"):$PATH"
  cmake_args+=("-DCMAKE_CXX_COMPILER=$PREFIX/bin/nvcc_wrapper" -DSPROCKET_ENABLE_CUDA=ON)
  # ccache knows the compiler by nvcc_wrapper, a script whose mtime says nothing of the nvcc, the
  # host g++ and the flags behind it: key the cache on those instead, so that a rebuilt wrapper or
  # prefix, or another CUDA toolkit, misses instead of reusing stale objects. (Kokkos' headers,
  # KokkosCore_config.h included, are hashed as every included file is.)
  if [[ "${SPROCKET_CCACHE:-1}" != 0 ]] && command -v ccache >/dev/null; then
    compiler_key="$({ "$NVCC" --version; g++ --version; sha256sum < "$PREFIX/bin/nvcc_wrapper"; echo "$PREFIX"; } 2>&1 |
      sha256sum | cut -c1-16)"
    export CCACHE_COMPILERCHECK="string:nvcc_wrapper-$compiler_key"
  fi
  # The CI check (cuda-subset): one test per kernel, sprocket-bench for double / int alone and its
  # Kokkos peers for Kokkos' architecture alone (perf_tests/CMakeLists.txt: SPROCKET_BENCH_TYPES,
  # SPROCKET_CUDA_PEERS_EXTRA_ARCH); cuda-check and gpu-bundle compile everything.
  if [[ "$ACTION" == cuda-subset ]]; then
    cmake_args+=(-DSPROCKET_CUDA_TEST_SUBSET=ON -DSPROCKET_BENCH_TYPES=double_int -DSPROCKET_CUDA_PEERS_EXTRA_ARCH=OFF)
  else
    cmake_args+=(-DSPROCKET_CUDA_TEST_SUBSET=OFF -DSPROCKET_BENCH_TYPES=all -DSPROCKET_CUDA_PEERS_EXTRA_ARCH=ON)
  fi
fi
if [[ "$CONFIG" == trilinos ]]; then
  # Trilinos' exported targets carry no MPI: compile with its MPI wrapper. Only the library, the
  # adapters' tests and sprocket-bench's tpetra-spmv (the host configuration builds and runs the
  # rest).
  cmake_args+=(-DCMAKE_CXX_COMPILER=mpicxx -DSPROCKET_ENABLE_TRILINOS=ON -DSPROCKET_TRILINOS_TESTS_ONLY=ON
               -DSPROCKET_ENABLE_TOOLS=OFF -DSPROCKET_ENABLE_PERF_TESTS=ON -DSPROCKET_CUDA_EMULATION_ASAN=OFF
               -DSPROCKET_ENABLE_FUZZ=OFF)
fi
if [[ "$CONFIG" == sanitize ]]; then
  # -O1 keeps the sanitized suite within a few times the plain one's run time; every UBSan finding
  # aborts (a failed test, not a log line). Kokkos' own libraries are not instrumented. The fuzz
  # targets have their own sanitizers, the benchmarks are not tests.
  flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  # The instrumented tests run a few times slower: four times the per-test timeouts.
  cmake_args+=("-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
               "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" "-DCMAKE_CXX_FLAGS_RELEASE=-O1"
               -DSPROCKET_TEST_OPTIMIZATION=-O1 -DSPROCKET_ENABLE_FUZZ=OFF -DSPROCKET_CUDA_EMULATION_ASAN=OFF
               -DSPROCKET_TEST_TIMEOUT=1200)
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
  export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/cmake/lsan-suppressions.txt}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi
# Host configurations: the tests build sprocket-bench for double / int alone (SPROCKET_BENCH_TYPES,
# perf_tests/CMakeLists.txt: every code path of the bench and its peers, a quarter of the
# instantiations; no test runs the other pairs), about a sixth of `make test`'s compiling
# (perf_tests/results/build-times-cold-ci-2026-11-28.md). `make bench` and `make build` compile all
# four pairs; the compiler cache keeps both builds.
if [[ "$IS_CUDA" == 0 && "$CONFIG" != trilinos ]]; then
  if [[ "$ACTION" == bench || "$ACTION" == build ]]; then
    cmake_args+=(-DSPROCKET_BENCH_TYPES=all)
  else
    cmake_args+=(-DSPROCKET_BENCH_TYPES=double_int)
  fi
fi
# The AddressSanitizer copies of the emulated CUDA kernel tests only when asked for (they double
# those tests' compile time).
if [[ "$CONFIG" == kokkos4 || "$CONFIG" == kokkos4-cuda ]]; then
  cmake_args+=(-DSPROCKET_CUDA_EMULATION_ASAN=OFF)
fi
if [[ "$CONFIG" == host ]]; then
  if [[ "$ACTION" == cuda-emulation-asan ]]; then
    cmake_args+=(-DSPROCKET_CUDA_EMULATION_ASAN=ON)
  else
    cmake_args+=(-DSPROCKET_CUDA_EMULATION_ASAN=OFF)
  fi
fi
# `make bench`: the graphblas9 peer's GraphBLAS 9.3.1, built once into the dependency cache where
# ../shared/deps holds its archive (never for the tests).
if [[ "$ACTION" == bench && "$CONFIG" != trilinos ]]; then
  if GRAPHBLAS9_PREFIX="$(bash "$ROOT/cmake/sprocket-graphblas9.sh" | tail -1)" && [[ -n "$GRAPHBLAS9_PREFIX" ]]; then
    cmake_args+=("-DSPROCKET_GRAPHBLAS9_ROOT=$GRAPHBLAS9_PREFIX")
  else
    say "no graphblas9 peer in this build (see the message above)"
  fi
fi
# The mkl peer of sprocket-bench (host builds; every action, so that one build tree keeps one
# configuration): Intel MKL 2020.4 from Debian's non-free archive, unpacked once into the dependency
# cache (cmake/sprocket-mkl.sh; the machine's apt sources and default BLAS are left alone), so that
# `make test` compiles the peer and runs its --check test and `make bench` measures it. SPROCKET_MKL=0
# builds without it. Not under the sanitizers (MKL is not instrumented).
if [[ "$CONFIG" == host || "$CONFIG" == kokkos4 ]]; then
  if [[ "${SPROCKET_MKL:-1}" == 0 ]]; then
    say "SPROCKET_MKL=0: no mkl peer in this build"
    cmake_args+=(-DSPROCKET_BENCH_MKL=OFF)
  else
    MKL_PREFIX="$(bash "$ROOT/cmake/sprocket-mkl.sh" | tail -1)"
    [[ -n "$MKL_PREFIX" ]] || { say "Intel MKL could not be unpacked (see above); SPROCKET_MKL=0 builds without it"; exit 1; }
    cmake_args+=(-DSPROCKET_BENCH_MKL=ON "-DSPROCKET_MKL_ROOT=$MKL_PREFIX")
  fi
fi
mkdir -p "$ROOT/build"
# A build tree configured against another Kokkos prefix (new patches, other install) is stale:
# CMake would reset its cache on the compiler change and lose our settings, so start afresh.
if [[ -f "$BUILD/CMakeCache.txt" && "$(cat "$BUILD/.sprocket-prefix" 2>/dev/null)" != "$PREFIX" ]]; then
  say "Kokkos prefix changed: removing $BUILD"
  rm -rf "$BUILD"
fi
# CMake cannot switch an existing tree to another generator (a tree from before Ninja): start afresh
# (the compiler cache keeps the objects).
if [[ -f "$BUILD/CMakeCache.txt" ]] && ! grep -qx "CMAKE_GENERATOR:INTERNAL=$GENERATOR" "$BUILD/CMakeCache.txt"; then
  say "$BUILD was made by another CMake generator: removing it"
  rm -rf "$BUILD"
fi
mkdir -p "$BUILD" && echo "$PREFIX" > "$BUILD/.sprocket-prefix"
say "configuring $BUILD"
cmake -S "$ROOT" -B "$BUILD" "${cmake_args[@]}" >"$ROOT/build/.configure-$CONFIG.log" 2>&1 ||
  { cat "$ROOT/build/.configure-$CONFIG.log" >&2; say "configure failed"; exit 1; }

build() { say "building ${*:-all} with $JOBS jobs"; cmake --build "$BUILD" -j "$JOBS" ${@:+--target "$@"}; }

case "$ACTION" in
  test)
    build
    cd "$BUILD" && ctest --output-on-failure -j "$JOBS" ;;
  trilinos-test)
    [[ "$CONFIG" == trilinos ]] || { say "trilinos-test needs the trilinos configuration"; exit 2; }
    build
    # One test at a time: the MPI tests start up to 4 ranks on a 2-core machine.
    cd "$BUILD" && ctest --output-on-failure -j 1 ;;
  demo)
    # The default problem of the solver demo; gnuplot draws convergence plots on request (--plot).
    bash "$ROOT/cmake/install-packages.sh" gnuplot-nox
    build sprocket-solve
    "$BUILD/bin/sprocket-solve" ;;
  bench)
    build sprocket-benchmarks ;;
  build|cuda-subset)
    build ;;
  fuzz)
    # Long runs of every fuzz target: SPROCKET_FUZZ_RUNS executions each (default 10^6), two at a
    # time; new corpus units and findings under build/host/fuzz-long/<target>/.
    build sprocket_fuzz
    runs="${SPROCKET_FUZZ_RUNS:-1000000}"
    printf '%s\n' fuzz_matrix_market fuzz_matrix_market_gzip fuzz_gen_spec fuzz_csr_to_bsr fuzz_solve_args \
        fuzz_bench_args |
      xargs -P 2 -I{} bash "$ROOT/unit_tests/fuzz/run_fuzz.sh" "$BUILD/fuzz" {} "runs=$runs" "$BUILD/fuzz-long" ;;
  cuda-emulation-asan)
    mapfile -t targets < <(cd "$BUILD" && ctest -N -L cuda_emulation_asan | sed -n 's/^ *Test *#[0-9]*: //p')
    [[ ${#targets[@]} -gt 0 ]] || { say "no emulated CUDA tests configured"; exit 1; }
    build "${targets[@]}"
    cd "$BUILD" && ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" ctest --output-on-failure -j "$JOBS" -L cuda_emulation_asan ;;
  *) say "unknown action $ACTION"; exit 2 ;;
esac
