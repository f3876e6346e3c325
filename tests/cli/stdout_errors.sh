#!/bin/sh
# stdout that does not take the output is an error (one line, exit 2), and a sweep
# whose threads cannot all be created still finishes with the same rows.
set -u
P="$1"
fail() { echo "FAIL: $*"; exit 1; }
"$P" simulate >/dev/full 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || fail "/dev/full: exit $rc"
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q '^pipesim: error: stdout: write: ' err.txt || fail "/dev/full: $(cat err.txt)"
"$P" simulate >&- 2>err.txt; rc=$?
[ "$rc" -eq 2 ] || fail "closed stdout: exit $rc"
grep -q '^pipesim: error: stdout' err.txt || fail "closed stdout: $(cat err.txt)"
"$P" sweep -D 2,4 -N 4:8 --jobs 1 >one.csv || fail "sweep --jobs 1"
# Thread creation refused by an address-space limit. AddressSanitizer reserves terabytes of
# shadow memory at start, which no such limit allows, so a sanitized build checks the rest only.
if [ "${PIPESIM_SANITIZED:-0}" = 1 ]; then
  echo "skipped under AddressSanitizer: sweep --jobs 256 under ulimit -v"
else
  (ulimit -v 400000; "$P" sweep -D 2,4 -N 4:8 --jobs 256 >many.csv) ||
    fail "sweep --jobs 256 under ulimit -v"
  cmp -s one.csv many.csv || fail "rows differ with refused threads"
fi
rm -f err.txt one.csv many.csv
echo ok
