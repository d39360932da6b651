#!/usr/bin/env bash
# Pack a built CUDA configuration (build/cuda, `make cuda-check`) for a machine with an NVIDIA GPU
# but none of our Debian packages: the executables (stripped, device code kept), ctest's files, the
# shared libraries that are not part of a CUDA image (SuiteSparse, OpenBLAS' OpenMP build, LAPACK,
# gfortran) and the real matrices, in one archive, .device/bundle.tar.xz (ignored by git).
# perf_tests/gpu/run_checks.sh unpacks and runs it there.
#   perf_tests/gpu/pack_bundle.sh [build-dir]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build/cuda}"
STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
# Staged as build/cuda whatever the tree's name (run_checks.sh runs build/cuda); ctest's files
# then name build/cuda too.
rel="build/cuda"
mkdir -p "$STAGE/$rel/bin" "$STAGE/lib" "$STAGE/shared"
for exe in "$BUILD"/bin/*; do
  [[ -x "$exe" && -f "$exe" ]] || continue
  # The hypre peer needs MPI and hypre's own dependencies, and it runs no GPU code.
  [[ "$(basename "$exe")" == sprocket-hypre-amg ]] && continue
  # --strip-unneeded drops host symbols only; the .nv_fatbin sections (GPU code) stay.
  strip --strip-unneeded -o "$STAGE/$rel/bin/$(basename "$exe")" "$exe"
done
(cd "$BUILD" && find . -name CTestTestfile.cmake -print0 | xargs -0 -I{} cp --parents {} "$STAGE/$rel/")
BUILD_ABS="$(cd "$BUILD" && pwd)"
if [[ "$BUILD_ABS" != "$ROOT/build/cuda" ]]; then
  find "$STAGE/$rel" -name CTestTestfile.cmake -exec sed -i "s#$BUILD_ABS#$ROOT/build/cuda#g" {} +
fi
cp "$BUILD/.sprocket-prefix" "$STAGE/$rel/" 2>/dev/null || true
# Shared libraries our executables need that a CUDA image lacks: everything ldd resolves outside the
# C runtime and the CUDA toolkit, copied under their sonames (symlinks followed).
for exe in "$STAGE/$rel"/bin/*; do ldd "$exe" 2>/dev/null; done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    case "$soname" in
      libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) continue ;;
      libcuda.so*|libcudart.so*|libcusparse.so*|libcublas*.so*|libnvJitLink.so*) continue ;;
      libgraphblas.so*|libHYPRE*|libmpi*|libopen-*|libhwloc*|libevent*|libpmix*|libfabric*|libucp*|libucs*|libuct*|libibverbs*|librdma*|libpsm*) continue ;;
    esac
    cp -L "$path" "$STAGE/lib/$soname"
  done
# sprocket-bench links SuiteSparse:GraphBLAS for its graphblas peer, whose functions it calls only
# when that peer is asked for (GrB_init on first use). The library (170 MB) does not travel: a
# stand-in under its soname satisfies the loader, its functions bound lazily (never called: the GPU
# runs do not ask for --compare graphblas) and the objects the executable copies at load (the
# predefined semirings, descriptors: GraphBLAS handles, one pointer each) defined as null.
for exe in "$STAGE/$rel"/bin/*; do readelf -d "$exe" 2>/dev/null; done | sed -n 's/.*NEEDED.*\[\(libgraphblas[^]]*\)\].*/\1/p' | sort -u |
  while read -r soname; do
    for exe in "$STAGE/$rel"/bin/*; do nm -D --defined-only "$exe" 2>/dev/null; done |
      awk '$2 ~ /^[BDV]$/ && $3 ~ /^G[rx]B_/ {print "void *" $3 " = 0;"}' | sort -u > "$STAGE/graphblas_stand_in.c"
    gcc -shared -fPIC -o "$STAGE/lib/$soname" -Wl,-soname,"$soname" "$STAGE/graphblas_stand_in.c"
    rm "$STAGE/graphblas_stand_in.c"
  done
[[ -d "$ROOT/../shared/matrices" ]] && cp -r "$ROOT/../shared/matrices" "$STAGE/shared/"
# Registers, local memory and static shared memory of every kernel (sprocket-cuda-profile
# --resources), where the toolkit has cuobjdump; run_checks.sh asks the device machine's otherwise.
if command -v cuobjdump >/dev/null && [[ -x "$BUILD/bin/sprocket-bench" ]]; then
  cuobjdump -res-usage "$BUILD/bin/sprocket-bench" > "$STAGE/cuda-resources.txt" 2>&1 || true
fi
mkdir -p "$ROOT/.device"
tar -C "$STAGE" -cf - . | xz -T0 -6 > "$ROOT/.device/bundle.tar.xz"
ls -la "$ROOT/.device/bundle.tar.xz"
