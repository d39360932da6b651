#!/usr/bin/env bash
# A tool given a file whose size line claims more than the machine can hold must refuse it at
# once with the bytes it would need (ResourceError, exit 1), never start allocating it.
#   refused_quickly.sh <tool> <file> <max-seconds> [<ulimit flag> <value> <text naming the limit>]
# Without a ulimit the file is refused only where the host cannot hold it: a host whose available
# memory, less the ceiling's headroom, could take it runs the file honestly, so the check is
# skipped there (exit 77) instead of allocating tens of GB.
set -uo pipefail
tool="${1:?tool}" file="${2:?file}" max_seconds="${3:?seconds}"
limit_flag="${4:-}" limit_value="${5:-}" limit_text="${6:-}"
if [[ -z "$limit_flag" ]]; then
  rows=$(grep -v '^%' "$file" | head -1 | awk '{print $1}')
  needed=$(( (rows + 1) * 24 ))  # the CSR's peak: row counts, insertion points and the row map
  available=$(awk '/^MemAvailable:/ {print $2 * 1024}' /proc/meminfo)
  if (( available - available / 8 >= needed )); then
    echo "refused_quickly.sh: $available bytes available hold the $needed bytes $file needs: not a refusal here"
    exit 77
  fi
fi
start=$(date +%s%N)
out=$( (if [[ -n "$limit_flag" ]]; then ulimit "$limit_flag" "$limit_value" || exit 99; fi; exec "$tool" "$file") 2>&1 )
rc=$?
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "$out"
echo "refused_quickly.sh: exit $rc after $elapsed_ms ms${limit_flag:+ under ulimit $limit_flag $limit_value}"
fail() { echo "refused_quickly.sh: FAILED: $*" >&2; exit 1; }
(( rc == 1 )) || fail "expected exit 1 (refused), got $rc"
grep -Eq "needs [0-9]+ bytes, more than the [0-9]+ bytes allowed" <<<"$out" || fail "no refusal with the bytes needed"
grep -q "unexpected error" <<<"$out" && fail "an unexpected error, not a refusal"
[[ -z "$limit_text" ]] || grep -qF "$limit_text" <<<"$out" || fail "the refusal does not name $limit_text"
(( elapsed_ms < max_seconds * 1000 )) || fail "took $elapsed_ms ms, more than $max_seconds s"
exit 0
