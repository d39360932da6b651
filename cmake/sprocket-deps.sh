#!/usr/bin/env bash
# Builds Kokkos 3.4.01 and Kokkos Kernels 3.4.01 from Debian bookworm's trilinos 13.2.0 source
# package into a prefix keyed by configuration, and prints nothing but progress on stderr and the
# prefix on the last line of stdout.
#
#   cmake/sprocket-deps.sh host    # OpenMP + Serial
#   cmake/sprocket-deps.sh cuda    # OpenMP + CUDA (AMPERE80 for Kokkos; our kernels add sm_90;
#                                  # patches/cuda/ lets Kokkos initialize on newer GPUs, via PTX)
#   cmake/sprocket-deps.sh trilinos
#                                  # the whole tarball through TriBITS with MPI: Teuchos, Tpetra,
#                                  # Belos, Anasazi and their Kokkos / Kokkos Kernels (OpenMP +
#                                  # Serial); prints the Trilinos install prefix
#   cmake/sprocket-deps.sh kokkos4 # Kokkos 4.6.01 + Kokkos Kernels 4.6.02 (OpenMP + Serial), the
#                                  # upstream archives of ../shared/deps (sha256 checked): the
#                                  # compatibility configuration (make test-kokkos4)
#   cmake/sprocket-deps.sh kokkos4-cuda
#                                  # the same with CUDA (OpenMP + Serial + Cuda) for one architecture,
#                                  # Kokkos_ARCH_HOPPER90 unless SPROCKET_KOKKOS4_CUDA_ARCH names
#                                  # another (AMPERE80, ...); patches/kokkos4-cuda/ for CUDA 13
#
# Cache: ${SPROCKET_DEPS_DIR:-~/.cache/sprocket}. A prefix is complete when its stamp file exists;
# a prefix without a stamp (interrupted build) is wiped and rebuilt. Options:
#   SPROCKET_KK_ETI=ON      build Kokkos Kernels' explicit instantiations (default OFF)
#   SPROCKET_DEPS_JOBS=N    parallel build jobs (default: nproc)
#   SPROCKET_DEPS_CHECK_ONLY=1  (trilinos) exit 3 without building when the prefix is not built
set -euo pipefail

CONFIG="${1:-host}"
case "$CONFIG" in
  host|cuda|trilinos|kokkos4|kokkos4-cuda) ;;
  *) echo "sprocket-deps: unknown configuration '$CONFIG' (expected host, cuda, trilinos, kokkos4 or kokkos4-cuda)" >&2; exit 2 ;;
esac

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEPS_DIR="${SPROCKET_DEPS_DIR:-$HOME/.cache/sprocket}"
JOBS="${SPROCKET_DEPS_JOBS:-$(nproc)}"
KK_ETI="${SPROCKET_KK_ETI:-OFF}"
TRILINOS_VERSION="13.2.0-4"
ORIG_TARBALL="trilinos_13.2.0.orig.tar.gz"
ORIG_SHA256="0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90"

say() { echo "sprocket-deps: $*" >&2; }
die() { echo "sprocket-deps: error: $*" >&2; exit 1; }

# The patch set is part of the key so that changing a patch rebuilds the prefix.
PATCH_HASH="$(shopt -s nullglob; for f in "$HERE"/patches/*.patch; do cat "$f"; done | sha256sum | cut -c1-8)"
PREFIX="$DEPS_DIR/install/kokkos-3.4.01-$CONFIG-eti$KK_ETI-$PATCH_HASH"
STAMP="$PREFIX/.sprocket-complete"
# Patches of CUDA-only sources (patches/cuda/, applied to the same source tree; host builds do not
# compile those files): their hash is written into the CUDA prefix's stamp rather than its path, so
# a new one rebuilds Kokkos in place and the prefix's path, and with it every compiler command
# line of the projects built against it, stays the same (their ccache objects stay valid).
STAMP_KEY=""
if [[ "$CONFIG" == cuda ]]; then
  STAMP_KEY="cuda-patches $(shopt -s nullglob; for f in "$HERE"/patches/cuda/*.patch; do cat "$f"; done | sha256sum | cut -c1-8)"
fi

if [[ "$CONFIG" != trilinos && "$CONFIG" != kokkos4* && -f "$STAMP" && "$(cat "$STAMP")" == "$STAMP_KEY" ]]; then
  say "reusing complete prefix $PREFIX"
  echo "$PREFIX"
  exit 0
fi
[[ -f "$STAMP" ]] && say "prefix $PREFIX was built with other CUDA patches: rebuilding it in place"

mkdir -p "$DEPS_DIR/src"
SRC_CACHE="$DEPS_DIR/src"

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else die "need root for: $*"; fi
}

# ---- 1. the source tarball ---------------------------------------------------------------------
fetch_source() {
  if [[ -f "$SRC_CACHE/$ORIG_TARBALL" ]] &&
     echo "$ORIG_SHA256  $SRC_CACHE/$ORIG_TARBALL" | sha256sum -c --status; then
    say "source tarball already cached"
    return
  fi
  command -v apt-get >/dev/null || die "apt-get not found: put $ORIG_TARBALL into $SRC_CACHE by hand"
  command -v dpkg-source >/dev/null || as_root apt-get install -y -qq dpkg-dev >&2
  # apt-get source needs a deb-src line for bookworm main; add one of our own if it has none.
  if ! (cd "$SRC_CACHE" && apt-get source --print-uris "trilinos=$TRILINOS_VERSION" >/dev/null 2>&1); then
    say "adding a deb-src entry for bookworm main (/etc/apt/sources.list.d/sprocket-deb-src.sources)"
    as_root tee /etc/apt/sources.list.d/sprocket-deb-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    as_root apt-get update -qq >&2
  fi
  say "downloading trilinos=$TRILINOS_VERSION source (about 166 MB) into $SRC_CACHE"
  rm -f "$SRC_CACHE/$ORIG_TARBALL"
  (cd "$SRC_CACHE" && apt-get source --download-only "trilinos=$TRILINOS_VERSION" >&2) ||
    die "apt-get source trilinos=$TRILINOS_VERSION failed"
  echo "$ORIG_SHA256  $SRC_CACHE/$ORIG_TARBALL" | sha256sum -c --status ||
    { mv "$SRC_CACHE/$ORIG_TARBALL" "$SRC_CACHE/$ORIG_TARBALL.bad";
      die "sha256 of $ORIG_TARBALL does not match $ORIG_SHA256 (kept as .bad)"; }
}

# ---- Trilinos (configuration "trilinos") ---------------------------------------------------------
# Trilinos 13.2 cannot use an external Kokkos, so a Trilinos user's process holds the Kokkos built
# inside Trilinos: we build that one (the same 3.4.01 sources) and Sprocket compiles against it.
# Tpetra is instantiated for what Tpetra::CrsMatrix<double, int, long long, OpenMP node> needs and
# nothing more; Belos and Anasazi with their Tpetra adapters. No patch: the host-only build of
# Kokkos 3.4.01 needs none. Kokkos_ENABLE_COMPLEX_ALIGN=ON matches our own Kokkos' configuration.
# Trilinos' exported targets carry neither -fopenmp nor MPI: consumers compile with the MPI
# wrapper compiler and ${Trilinos_CXX_COMPILER_FLAGS} (CMakeLists.txt does that).
trilinos_options() {
  printf '%s\n' -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DCMAKE_CXX_STANDARD=17 \
    -DTPL_ENABLE_MPI=ON -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx \
    -DTrilinos_ENABLE_Fortran=OFF -DTrilinos_ENABLE_ALL_PACKAGES=OFF \
    -DTrilinos_ENABLE_ALL_OPTIONAL_PACKAGES=OFF -DTrilinos_ENABLE_TESTS=OFF \
    -DTrilinos_ENABLE_EXAMPLES=OFF -DTrilinos_ENABLE_EXPLICIT_INSTANTIATION=ON \
    -DTrilinos_ENABLE_Teuchos=ON -DTrilinos_ENABLE_Kokkos=ON -DTrilinos_ENABLE_KokkosKernels=ON \
    -DTrilinos_ENABLE_Tpetra=ON -DTrilinos_ENABLE_Belos=ON -DTrilinos_ENABLE_Anasazi=ON \
    -DBelos_ENABLE_Tpetra=ON -DAnasazi_ENABLE_Tpetra=ON -DTpetra_ENABLE_TSQR=OFF \
    -DTrilinos_ENABLE_OpenMP=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON \
    -DKokkos_ENABLE_COMPLEX_ALIGN=ON \
    -DTpetra_INST_OPENMP=ON -DTpetra_INST_SERIAL=OFF -DTpetra_INST_DOUBLE=ON \
    -DTpetra_INST_FLOAT=OFF -DTpetra_INST_COMPLEX_DOUBLE=OFF -DTpetra_INST_COMPLEX_FLOAT=OFF \
    -DTpetra_INST_INT_INT=OFF -DTpetra_INST_INT_LONG=OFF -DTpetra_INST_INT_LONG_LONG=ON \
    -DTpetra_INST_INT_UNSIGNED=OFF -DTpetra_INST_INT_UNSIGNED_LONG=OFF \
    -DTPL_ENABLE_BLAS=ON -DTPL_ENABLE_LAPACK=ON -DTPL_ENABLE_DLlib=OFF
}

build_trilinos() {
  command -v mpicxx >/dev/null || die "mpicxx not found: install libopenmpi-dev (make test-trilinos does)"
  local key prefix stamp tree build_dir
  key="$(trilinos_options | sha256sum | cut -c1-8)"
  prefix="$DEPS_DIR/install/trilinos-13.2.0-mpi-openmp-$key"
  stamp="$prefix/.sprocket-complete"
  if [[ -f "$stamp" ]]; then
    say "reusing complete prefix $prefix"
    echo "$prefix"
    return
  fi
  # SPROCKET_DEPS_CHECK_ONLY=1: only say whether the prefix is built (exit 3: it is not).
  [[ "${SPROCKET_DEPS_CHECK_ONLY:-0}" == 1 ]] && { say "$prefix is not built"; exit 3; }
  tree="$DEPS_DIR/trilinos-13.2.0-src"
  if [[ ! -f "$tree/.extracted" ]]; then
    fetch_source
    say "extracting the whole trilinos tarball (TriBITS reads every package's dependency file)"
    rm -rf "$tree" && mkdir -p "$tree"
    tar -xzf "$SRC_CACHE/$ORIG_TARBALL" -C "$tree" --strip-components=1
    touch "$tree/.extracted"
  fi
  build_dir="$DEPS_DIR/build/trilinos-$key"
  rm -rf "$prefix" "$build_dir" && mkdir -p "$build_dir"
  local opts
  mapfile -t opts < <(trilinos_options)
  # ccache makes a rebuild after an interrupted build (the stamp is missing) cheap.
  command -v ccache >/dev/null && opts+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  say "configuring Trilinos (Teuchos, Tpetra, Belos, Anasazi with MPI and OpenMP)"
  local start=$SECONDS
  cmake -S "$tree" -B "$build_dir" "${opts[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" \
      >"$build_dir/configure.log" 2>&1 ||
    { tail -40 "$build_dir/configure.log" >&2; die "Trilinos configure failed (log: $build_dir/configure.log)"; }
  say "building Trilinos with $JOBS jobs (about 30 min with 2 cores; log: $build_dir/build.log)"
  cmake --build "$build_dir" -j "$JOBS" --target install >"$build_dir/build.log" 2>&1 ||
    { grep -B2 -A10 -m3 "error" "$build_dir/build.log" >&2; tail -20 "$build_dir/build.log" >&2
      die "Trilinos build failed (log: $build_dir/build.log)"; }
  echo "built in $((SECONDS - start)) s" > "$stamp"
  rm -rf "$build_dir"
  say "installed Trilinos into $prefix in $((SECONDS - start)) s"
  echo "$prefix"
}

if [[ "$CONFIG" == trilinos ]]; then
  build_trilinos
  exit 0
fi

# ---- Kokkos 4 (configurations "kokkos4" and "kokkos4-cuda") -------------------------------------
# The releases our users run (Trilinos 15-16, Spack, conda): Kokkos 4.6.01 and Kokkos Kernels
# 4.6.02 from ../shared/deps beside the checkout (SPROCKET_SHARED_DEPS elsewhere), built with
# Kokkos Kernels' ETI off, as the default configuration is: for the host (OpenMP + Serial,
# unchanged archives), or with CUDA too. Kokkos 4.6.01 predates CUDA 13: patches/kokkos4-cuda/
# (nvcc_wrapper's default sm_70, which nvcc 13 refuses, and three runtime calls whose signatures
# CUDA 13 changed) is applied to the CUDA build alone. Kokkos 4 compiles for one GPU architecture
# (Kokkos_ARCH_*, default HOPPER90); the prefix is keyed by the archives' checksums, the options
# below and the patches.
KOKKOS4_CUDA_ARCH="${SPROCKET_KOKKOS4_CUDA_ARCH:-HOPPER90}"
KOKKOS4_ARCHIVE="kokkos-4.6.01.tar.gz"
KOKKOS4_SHA256="b9d70e4653b87a06dbb48d63291bf248058c7c7db4bd91979676ad5609bb1a3a"
KK4_ARCHIVE="kokkos-kernels-4.6.02.tar.gz"
KK4_SHA256="a953f445660ed5aaab10e18fc4a90c4c178291e9d9d97d20abd4e6027f1193ec"
kokkos4_options() {
  printf '%s\n' -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON \
    -DKokkos_ENABLE_SERIAL=ON -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  if [[ "$CONFIG" == kokkos4-cuda ]]; then
    printf '%s\n' -DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_$KOKKOS4_CUDA_ARCH=ON" -DKokkos_ENABLE_CUDA_CONSTEXPR=ON
  fi
}
kk4_options() {
  printf '%s\n' -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkosKernels_ENABLE_TPL_BLAS=OFF \
    -DKokkosKernels_ENABLE_TPL_LAPACK=OFF -DKokkosKernels_ENABLE_TESTS=OFF \
    -DKokkosKernels_ENABLE_EXAMPLES=OFF -DKokkosKernels_ENABLE_PERFTESTS=OFF \
    -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF \
    -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
    -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
    -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF \
    -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
    -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF \
    -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF
  if [[ "$CONFIG" == kokkos4-cuda ]]; then
    printf '%s\n' -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF \
      -DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF -DKokkosKernels_INST_EXECSPACE_CUDA=OFF \
      -DKokkosKernels_INST_MEMSPACE_CUDASPACE=OFF -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF
  fi
}

build_kokkos4() {
  local archives="${SPROCKET_SHARED_DEPS:-$HERE/../../shared/deps}"
  local key prefix stamp tree build_dir variant=host patches=()
  if [[ "$CONFIG" == kokkos4-cuda ]]; then
    variant="cuda-$(echo "$KOKKOS4_CUDA_ARCH" | tr '[:upper:]' '[:lower:]')"
    patches=("$HERE"/patches/kokkos4-cuda/*.patch)
  fi
  key="$( (echo "$KOKKOS4_SHA256 $KK4_SHA256"; kokkos4_options; kk4_options
           [[ ${#patches[@]} -eq 0 ]] || cat "${patches[@]}") | sha256sum | cut -c1-8)"
  prefix="$DEPS_DIR/install/kokkos-4.6.01-$variant-etiOFF-$key"
  stamp="$prefix/.sprocket-complete"
  if [[ -f "$stamp" ]]; then
    say "reusing complete prefix $prefix"
    echo "$prefix"
    return
  fi
  for pair in "$KOKKOS4_ARCHIVE $KOKKOS4_SHA256" "$KK4_ARCHIVE $KK4_SHA256"; do
    set -- $pair
    [[ -f "$archives/$1" ]] || die "$archives/$1 not found (the Kokkos 4 archives come from ../shared/deps; SPROCKET_SHARED_DEPS names another folder)"
    echo "$2  $archives/$1" | sha256sum -c --status || die "sha256 of $archives/$1 does not match $2"
  done
  tree="$DEPS_DIR/kokkos4-src-$key"
  build_dir="$DEPS_DIR/build/kokkos4-$key"
  rm -rf "$tree" "$prefix" "$build_dir" && mkdir -p "$tree/kokkos" "$tree/kk" "$build_dir"
  tar -xzf "$archives/$KOKKOS4_ARCHIVE" -C "$tree/kokkos" --strip-components=1
  tar -xzf "$archives/$KK4_ARCHIVE" -C "$tree/kk" --strip-components=1
  local p
  for p in "${patches[@]}"; do
    say "applying kokkos4-cuda/$(basename "$p")"
    patch -d "$tree/kokkos" -p1 --forward --quiet < "$p" || die "patch kokkos4-cuda/$(basename "$p") does not apply"
  done
  local opts start=$SECONDS
  mapfile -t opts < <(kokkos4_options)
  if [[ "$CONFIG" == kokkos4-cuda ]]; then
    local nvcc_bin
    nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
    [[ -x "$nvcc_bin" ]] || die "the kokkos4-cuda configuration needs nvcc (the CUDA toolkit)"
    export PATH="$(dirname "$nvcc_bin"):$PATH"
    opts+=("-DCMAKE_CXX_COMPILER=$tree/kokkos/bin/nvcc_wrapper")
  fi
  say "configuring and building Kokkos 4.6.01 ($variant) with $JOBS jobs"
  { cmake -S "$tree/kokkos" -B "$build_dir/kokkos" "${opts[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" &&
    cmake --build "$build_dir/kokkos" -j "$JOBS" --target install; } >"$build_dir/kokkos.log" 2>&1 ||
    { tail -30 "$build_dir/kokkos.log" >&2; die "Kokkos 4.6.01 build failed (log: $build_dir/kokkos.log)"; }
  mapfile -t opts < <(kk4_options)
  [[ "$CONFIG" == kokkos4-cuda ]] && opts+=("-DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper")
  say "configuring and building Kokkos Kernels 4.6.02 (ETI off)"
  { cmake -S "$tree/kk" -B "$build_dir/kk" "${opts[@]}" -DKokkos_ROOT="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" &&
    cmake --build "$build_dir/kk" -j "$JOBS" --target install; } >"$build_dir/kk.log" 2>&1 ||
    { tail -30 "$build_dir/kk.log" >&2; die "Kokkos Kernels 4.6.02 build failed (log: $build_dir/kk.log)"; }
  echo "built in $((SECONDS - start)) s" > "$stamp"
  rm -rf "$build_dir" "$tree"
  say "installed Kokkos 4.6.01 and Kokkos Kernels 4.6.02 into $prefix in $((SECONDS - start)) s"
  echo "$prefix"
}

if [[ "$CONFIG" == kokkos4 || "$CONFIG" == kokkos4-cuda ]]; then
  build_kokkos4
  exit 0
fi

# ---- 2. extract only kokkos + kokkos-kernels, patch ---------------------------------------------
# SPROCKET_KOKKOS_SRC may point at an already extracted and patched tree (used on the GPU machine,
# which cannot download); it must contain packages/kokkos and packages/kokkos-kernels.
prepare_tree() {
  local tree="$DEPS_DIR/tree-$PATCH_HASH"
  if [[ -n "${SPROCKET_KOKKOS_SRC:-}" ]]; then
    [[ -d "$SPROCKET_KOKKOS_SRC/packages/kokkos" ]] || die "SPROCKET_KOKKOS_SRC has no packages/kokkos"
    TREE="$SPROCKET_KOKKOS_SRC"; return
  fi
  if [[ -f "$tree/.patched" ]]; then TREE="$tree"; apply_cuda_patches; return; fi
  fetch_source
  say "extracting packages/kokkos and packages/kokkos-kernels"
  rm -rf "$tree" && mkdir -p "$tree"
  tar -xzf "$SRC_CACHE/$ORIG_TARBALL" -C "$tree" --strip-components=1 --wildcards \
    '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  [[ -d "$tree/packages/kokkos" && -d "$tree/packages/kokkos-kernels" ]] ||
    die "tarball did not contain packages/kokkos and packages/kokkos-kernels"
  for p in "$HERE"/patches/*.patch; do
    [[ -e "$p" ]] || continue
    say "applying $(basename "$p")"
    patch -d "$tree" -p1 --forward --quiet < "$p" || die "patch $(basename "$p") does not apply"
  done
  touch "$tree/.patched"
  TREE="$tree"
  apply_cuda_patches
}

# CUDA-only patches, applied once to the shared tree (a patch that reverses cleanly is in).
apply_cuda_patches() {
  [[ "$CONFIG" == cuda ]] || return 0
  for p in "$HERE"/patches/cuda/*.patch; do
    [[ -e "$p" ]] || continue
    if patch -d "$TREE" -p1 --dry-run --reverse --force --quiet < "$p" >/dev/null 2>&1; then continue; fi
    say "applying $(basename "$p") (CUDA)"
    patch -d "$TREE" -p1 --forward --quiet < "$p" || die "patch cuda/$(basename "$p") does not apply"
  done
}

# ---- 3. build and install ------------------------------------------------------------------------
build() {
  local build_dir="$DEPS_DIR/build/$CONFIG-$KK_ETI-$PATCH_HASH"
  rm -rf "$PREFIX" "$build_dir"
  mkdir -p "$build_dir/kokkos" "$build_dir/kk"
  local kokkos_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX"
    -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
  if [[ "$CONFIG" == cuda ]]; then
    local nvcc_bin
    nvcc_bin="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
    [[ -x "$nvcc_bin" ]] || die "CUDA configuration asked for but nvcc not found"
    export CUDA_ROOT="$(dirname "$(dirname "$nvcc_bin")")"
    export PATH="$CUDA_ROOT/bin:$PATH"
    kokkos_opts+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON
      -DKokkos_ARCH_AMPERE80=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON
      -DCMAKE_CXX_COMPILER="$TREE/packages/kokkos/bin/nvcc_wrapper")
  fi
  say "configuring Kokkos ($CONFIG)"
  cmake -S "$TREE/packages/kokkos" -B "$build_dir/kokkos" "${kokkos_opts[@]}" >"$build_dir/kokkos.log" 2>&1 ||
    { tail -30 "$build_dir/kokkos.log" >&2; die "Kokkos configure failed (log: $build_dir/kokkos.log)"; }
  say "building Kokkos with $JOBS jobs"
  cmake --build "$build_dir/kokkos" -j "$JOBS" --target install >>"$build_dir/kokkos.log" 2>&1 ||
    { tail -30 "$build_dir/kokkos.log" >&2; die "Kokkos build failed (log: $build_dir/kokkos.log)"; }

  local kk_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX"
    -DKokkos_ROOT="$PREFIX" -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=OFF
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON
    -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF
    -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
    -DKokkosKernels_ENABLE_PERFTESTS=OFF)
  if [[ "$KK_ETI" == ON ]]; then
    kk_opts+=(-DKokkosKernels_INST_DOUBLE=ON -DKokkosKernels_INST_FLOAT=ON
      -DKokkosKernels_INST_ORDINAL_INT=ON -DKokkosKernels_INST_OFFSET_INT=ON
      -DKokkosKernels_INST_OFFSET_SIZE_T=ON)
  else
    kk_opts+=(-DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
      -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
      -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF
      -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
      -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF
      -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF
      -DKokkosKernels_INST_EXECSPACE_CUDA=OFF -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF
      -DKokkosKernels_INST_MEMSPACE_CUDASPACE=OFF -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF)
  fi
  if [[ "$CONFIG" == cuda ]]; then
    kk_opts+=(-DCMAKE_CXX_COMPILER="$PREFIX/bin/nvcc_wrapper")
  fi
  say "configuring Kokkos Kernels ($CONFIG, ETI $KK_ETI)"
  cmake -S "$TREE/packages/kokkos-kernels" -B "$build_dir/kk" "${kk_opts[@]}" >"$build_dir/kk.log" 2>&1 ||
    { tail -30 "$build_dir/kk.log" >&2; die "Kokkos Kernels configure failed (log: $build_dir/kk.log)"; }
  say "building Kokkos Kernels"
  cmake --build "$build_dir/kk" -j "$JOBS" --target install >>"$build_dir/kk.log" 2>&1 ||
    { tail -30 "$build_dir/kk.log" >&2; die "Kokkos Kernels build failed (log: $build_dir/kk.log)"; }
  printf '%s' "$STAMP_KEY" > "$STAMP"
  rm -rf "$build_dir"
  say "installed into $PREFIX"
}

prepare_tree
build
echo "$PREFIX"
