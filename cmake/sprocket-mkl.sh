#!/usr/bin/env bash
# Unpacks Intel MKL 2020.4 (Debian bookworm's non-free `intel-mkl` source: the libmkl-* binary
# packages) into the dependency cache, for sprocket-bench's mkl peer only: never a dependency of
# the library. Prints progress on stderr and the prefix (holding include/mkl and lib/) on the last
# line of stdout.
#
# MKL is non-free software (Intel Simplified Software License, Debian's non-free archive). This
# script downloads the packages with `apt-get download` through a private source list naming
# non-free, and unpacks them with `dpkg -x`: the machine's apt sources, its installed packages and
# its default BLAS / LAPACK (the alternatives an `apt install intel-mkl` would offer to switch to
# MKL) are left as they are. Nothing of MKL is committed to the repository.
#
# Packages: the headers (libmkl-dev), the LP64 interface, the GNU OpenMP threading layer (MKL then
# runs on libgomp, the runtime of Kokkos' OpenMP backend: Intel's own OpenMP runtime is never
# loaded beside it), the core and the per-CPU computational libraries that the core loads at run
# time (def, mc, mc3, avx, avx2, avx512 and their VML counterparts), and the message catalog.
#
#   SPROCKET_DEPS_DIR  the dependency cache (default ~/.cache/sprocket)
#   SPROCKET_MKL_MIRROR  the Debian mirror (default: the machine's own Debian URI, else
#                      http://deb.debian.org/debian)
# A prefix is complete when its stamp file exists; one without a stamp is unpacked again.
set -euo pipefail
DEPS_DIR="${SPROCKET_DEPS_DIR:-$HOME/.cache/sprocket}"
VERSION="2020.4.304-4"
PREFIX="$DEPS_DIR/mkl-$VERSION"
STAMP="$PREFIX/.sprocket-complete"
PACKAGES=(libmkl-dev libmkl-core libmkl-intel-lp64 libmkl-gnu-thread libmkl-def libmkl-mc libmkl-mc3 libmkl-avx
          libmkl-avx2 libmkl-avx512 libmkl-vml-def libmkl-vml-mc libmkl-vml-mc2 libmkl-vml-mc3 libmkl-vml-avx
          libmkl-vml-avx2 libmkl-vml-avx512 libmkl-locale)
say() { echo "sprocket-mkl: $*" >&2; }
die() {
  echo "sprocket-mkl: error: $*" >&2
  echo "sprocket-mkl: SPROCKET_MKL=0 builds sprocket-bench without the mkl peer" >&2
  exit 1
}

if [[ -f "$STAMP" ]]; then
  echo "$PREFIX"
  exit 0
fi
[[ "$(dpkg --print-architecture 2>/dev/null)" == amd64 ]] || die "Intel MKL is packaged for amd64 only"
command -v apt-get >/dev/null && command -v dpkg >/dev/null || die "apt-get and dpkg are needed (Debian)"

# The machine's own Debian mirror and release, so that a machine behind a local mirror uses it.
mirror="${SPROCKET_MKL_MIRROR:-}"
if [[ -z "$mirror" ]]; then
  mirror="$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*debian\)[[:space:]]*$/\1/p' /etc/apt/sources.list.d/*.sources \
            2>/dev/null | head -1)"
  [[ -n "$mirror" ]] || mirror="$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*debian\)[[:space:]].*/\2/p' \
                                   /etc/apt/sources.list 2>/dev/null | head -1)"
  [[ -n "$mirror" ]] || mirror="http://deb.debian.org/debian"
fi
suite="$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -f "$keyring" ]] || die "$keyring not found (package debian-archive-keyring)"

work="$DEPS_DIR/mkl-download"
rm -rf "$work" "$PREFIX"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=$keyring] $mirror $suite non-free" > "$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
# As root, apt would hand the download to its _apt user, who cannot write into the cache: keep it.
[[ "$(id -u)" == 0 ]] && apt_opts+=(-o APT::Sandbox::User=root)
say "downloading Intel MKL $VERSION from $mirror $suite non-free (about 75 MB)"
apt-get "${apt_opts[@]}" update >"$work/update.log" 2>&1 || { cat "$work/update.log" >&2; die "apt-get update failed"; }
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "${PACKAGES[@]/%/=$VERSION}" >"$work/download.log" 2>&1) ||
  { cat "$work/download.log" >&2; die "apt-get download of MKL $VERSION failed (is non-free served by $mirror?)"; }
mkdir -p "$PREFIX/unpacked"
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$PREFIX/unpacked"; done
# include/mkl and lib/ at the top of the prefix (Debian puts the headers in /usr/include/mkl and the
# libraries in /usr/lib/x86_64-linux-gnu).
ln -s unpacked/usr/include "$PREFIX/include"
ln -s unpacked/usr/lib/x86_64-linux-gnu "$PREFIX/lib"
[[ -f "$PREFIX/include/mkl/mkl_spblas.h" && -f "$PREFIX/lib/libmkl_core.so" ]] ||
  die "the unpacked packages hold no include/mkl/mkl_spblas.h or libmkl_core.so"
printf '%s\n' "${PACKAGES[@]/%/=$VERSION}" > "$PREFIX/PACKAGES"
rm -rf "$work"
touch "$STAMP"
say "Intel MKL $VERSION in $PREFIX"
echo "$PREFIX"
