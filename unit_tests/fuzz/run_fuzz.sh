#!/usr/bin/env bash
# Runs one libFuzzer target over its seeds: the handmade corpus (corpus/<target>/), the inputs of
# past findings (regressions/<target>/, each run first) and, for the Matrix Market targets, the
# shared real matrices (../shared/matrices) and the reader's test files. New inputs go to a
# scratch corpus under <work-dir>; the sources stay untouched.
#   run_fuzz.sh <fuzz-build-dir> <target> <seconds> <work-dir>        bounded time (ctest, label fuzz)
#   run_fuzz.sh <fuzz-build-dir> <target> runs=<N> <work-dir>         N executions (make fuzz)
# Prints the executions done; exits non-zero on a finding (its input saved as <work-dir>/<target>/crash-*).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${1:?usage: run_fuzz.sh <fuzz-build-dir> <target> <seconds|runs=N> <work-dir>}"
TARGET="${2:?target}"
LIMIT="${3:?seconds or runs=N}"
WORK="${4:?work dir}/$TARGET"
SHARED="${SPROCKET_SHARED_MATRICES:-$HERE/../../../shared/matrices}"
mkdir -p "$WORK/corpus" "$WORK/seeds"
# The Matrix Market targets seed from the shared real matrices; without them the run would look the
# same and cover less, so a missing folder fails, as the tests that read it do, unless
# SPROCKET_ALLOW_MISSING_SHARED is set.
case "$TARGET" in
  fuzz_matrix_market|fuzz_matrix_market_gzip)
    if ! compgen -G "$SHARED/*.mtx.gz" >/dev/null; then
      if [[ -z "${SPROCKET_ALLOW_MISSING_SHARED:-}" ]]; then
        echo "run_fuzz.sh: $TARGET seeds from the shared matrices, but $SHARED has no *.mtx.gz" \
             "(set SPROCKET_ALLOW_MISSING_SHARED=1 to fuzz without them)" >&2
        exit 1
      fi
      echo "run_fuzz.sh: $SHARED has no *.mtx.gz: $TARGET runs without the shared seeds (SPROCKET_ALLOW_MISSING_SHARED)" >&2
    fi ;;
esac
case "$TARGET" in
  fuzz_matrix_market)
    cp "$HERE"/../io/data/*.mtx "$WORK/seeds/" 2>/dev/null || true
    # The real matrices as text, cut at 8 KiB (-max_len): a cut file is a useful broken one too.
    for f in "$SHARED"/*.mtx.gz; do
      [[ -f "$f" ]] || continue
      gzip -dc "$f" | head -c 8192 > "$WORK/seeds/$(basename "$f" .gz)" || true
    done ;;
  fuzz_matrix_market_gzip)
    # Mode byte 1 (raw .gz file) before the shared files that fit -max_len whole.
    for f in "$SHARED"/*.mtx.gz; do
      [[ -f "$f" ]] || continue
      if [[ $(stat -c %s "$f") -le 8191 ]]; then { printf '\001'; cat "$f"; } > "$WORK/seeds/$(basename "$f")"; fi
    done ;;
esac
regressions=()
[[ -d "$HERE/regressions/$TARGET" ]] && regressions=("$HERE/regressions/$TARGET")
if [[ "$LIMIT" == runs=* ]]; then limit=(-runs="${LIMIT#runs=}"); else limit=(-max_total_time="$LIMIT"); fi
log="$WORK/log.txt"
# The gzip target writes its file per execution: memory-backed when the machine offers it.
scratch="$WORK"
[[ -d /dev/shm && -w /dev/shm ]] && scratch=/dev/shm
set +e
TMPDIR="$scratch" "$BUILD/$TARGET" "${limit[@]}" -max_len=8192 -timeout=20 -rss_limit_mb=2560 \
  -print_final_stats=1 -artifact_prefix="$WORK/" "$WORK/corpus" "${regressions[@]}" "$HERE/corpus/$TARGET" "$WORK/seeds" \
  > "$log" 2>&1
rc=$?
set -e
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
echo "$TARGET: ${runs:-?} executions in ${secs:-?} s, rc $rc, corpus $(ls "$WORK/corpus" | wc -l) units"
if [[ $rc -ne 0 ]]; then
  tail -40 "$log"
  ls "$WORK"/crash-* "$WORK"/leak-* "$WORK"/timeout-* "$WORK"/oom-* 2>/dev/null || true
fi
exit $rc
