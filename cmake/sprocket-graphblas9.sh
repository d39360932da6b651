#!/usr/bin/env bash
# Builds SuiteSparse:GraphBLAS 9.3.1 from ../shared/deps/GraphBLAS-9.3.1.tar.gz (the unchanged
# upstream release archive) into the dependency cache, for sprocket-bench's graphblas9 peer only:
# never a dependency of the library or of `make test`. Prints progress on stderr and the prefix on
# the last line of stdout; exit 3 (nothing printed on stdout) when the archive is not there.
#
# What is built: GraphBLAS's own "renamed" library (its GraphBLAS/GraphBLAS sub-project, made for
# MATLAB, which ships an older GraphBLAS: every GrB_/GxB_/GB_ symbol becomes GrM_/GxM_/GM_), so
# sprocket-bench can link it beside Debian's libgraphblas 7.4, both in one process, both on Kokkos'
# OpenMP runtime and timed interleaved. The peer's translation unit defines GBMATLAB before
# GraphBLAS.h, whose macros apply the same renaming.
#   - JIT on (its author's recommendation): each kernel is compiled for this machine on first use,
#     with the flags below, and cached in $GRAPHBLAS9_CACHE (default <cache>/graphblas9-jit);
#   - GRAPHBLAS_COMPACT: the precompiled "factory" kernels are left out (the JIT replaces them;
#     they would add most of an hour of compiling on 2 cores);
#   - -O3 -march=native: built for the machine it runs on, like the Kokkos Kernels peer.
# Cache key: archive hash, these options and the compiler's version; a prefix without its stamp is
# rebuilt. SPROCKET_DEPS_JOBS=N parallel jobs (default nproc).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS_DIR="${SPROCKET_DEPS_DIR:-$HOME/.cache/sprocket}"
JOBS="${SPROCKET_DEPS_JOBS:-$(nproc)}"
ARCHIVE="${SPROCKET_GRAPHBLAS9_ARCHIVE:-$HERE/../../shared/deps/GraphBLAS-9.3.1.tar.gz}"
SHA256="ef34615c3cb1cab2268a47de26f0f3807ed0bdc20006f5155421f3fc50740739"
say() { echo "sprocket-graphblas9: $*" >&2; }
die() { echo "sprocket-graphblas9: error: $*" >&2; exit 1; }

if [[ ! -f "$ARCHIVE" ]]; then
  say "no $ARCHIVE: the graphblas9 peer needs the GraphBLAS 9.3.1 release archive there"
  exit 3
fi
echo "$SHA256  $ARCHIVE" | sha256sum -c --status || die "$ARCHIVE does not have the expected sha256 $SHA256"

FLAGS="-O3 -march=native"
CC_VERSION="$(cc --version | head -1)"
KEY="$(printf '%s\n' "$SHA256" "$FLAGS" "compact jit renamed" "$CC_VERSION" | sha256sum | cut -c1-8)"
PREFIX="$DEPS_DIR/install/graphblas-9.3.1-$KEY"
STAMP="$PREFIX/.sprocket-complete"
if [[ -f "$STAMP" ]]; then
  say "reusing complete prefix $PREFIX"
  echo "$PREFIX"
  exit 0
fi

command -v cmake >/dev/null || die "cmake not found"
BUILD_DIR="$DEPS_DIR/build/graphblas-9.3.1-$KEY"
rm -rf "$BUILD_DIR" "$PREFIX"
mkdir -p "$BUILD_DIR"
say "unpacking $(basename "$ARCHIVE")"
tar -xzf "$ARCHIVE" -C "$BUILD_DIR"
SRC="$BUILD_DIR/GraphBLAS-9.3.1/GraphBLAS"
[[ -f "$SRC/CMakeLists.txt" ]] || die "unexpected archive layout: no GraphBLAS-9.3.1/GraphBLAS/CMakeLists.txt"
say "configuring (renamed library, JIT on, compact) into $PREFIX"
start=$(date +%s)
cmake -S "$SRC" -B "$BUILD_DIR/build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=$FLAGS" \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" -DGRAPHBLAS_COMPACT=ON -DGRAPHBLAS_USE_JIT=ON -DGRAPHBLAS_USE_CUDA=OFF \
  -DBUILD_STATIC_LIBS=OFF -DSUITESPARSE_DEMOS=OFF >"$BUILD_DIR/build.log" 2>&1 ||
  { tail -40 "$BUILD_DIR/build.log" >&2; die "configure failed (log: $BUILD_DIR/build.log)"; }
say "building with $JOBS jobs (log: $BUILD_DIR/build.log)"
cmake --build "$BUILD_DIR/build" -j "$JOBS" >>"$BUILD_DIR/build.log" 2>&1 ||
  { tail -40 "$BUILD_DIR/build.log" >&2; die "build failed (log: $BUILD_DIR/build.log)"; }
# The sub-project has no install rule of its own for everything the peer needs: the library, the
# public header and the renaming header it includes under GBMATLAB are copied by hand.
mkdir -p "$PREFIX/lib" "$PREFIX/include"
cp -a "$BUILD_DIR/build"/libgraphblas_matlab.so* "$PREFIX/lib/"
cp "$BUILD_DIR/GraphBLAS-9.3.1/Include/GraphBLAS.h" "$SRC/rename/GB_rename.h" "$PREFIX/include/"
echo "$(( $(date +%s) - start )) s to build, $(date -u +%FT%TZ)" > "$PREFIX/build-seconds.txt"
rm -rf "$BUILD_DIR"
touch "$STAMP"
say "built in $(cat "$PREFIX/build-seconds.txt")"
echo "$PREFIX"
