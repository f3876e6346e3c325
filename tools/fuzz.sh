#!/usr/bin/env bash
# Fuzzes every parser: builds the `fuzz` preset (clang, libFuzzer, ASan + UBSan) and
# runs each harness for SECONDS (default 60; the closing check used 600) from its seed corpus
# tests/fuzz/corpus/<target>/. New inputs go to build/fuzz/corpus/<target>/ (the seeds stay as
# they are); crashes, leaks and timeouts to build/fuzz/artifacts/<target>/. Exits non-zero on the
# first harness that finds one. Reproduce: build/fuzz/tests/fuzz/<target>_fuzz <artifact>.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]      e.g. tools/fuzz.sh 600, tools/fuzz.sh 30 value_range
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(model_yaml hardware_yaml sweep_yaml schedule_text pytorch_csv samples_csv value_range)
fi
jobs="${FUZZ_BUILD_JOBS:-$(nproc)}"

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$jobs"

# One harness per core at a time (FUZZ_JOBS, default nproc): each runs single-threaded, so
# two cores fuzz two parsers at once for the same seconds each.
fuzz_one() {
  local t=$1 work="build/fuzz/corpus/$1" artifacts="build/fuzz/artifacts/$1/"
  mkdir -p "$work" "$artifacts"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: the budgets keep real parses far
  # below 2 GB, so more is a finding; -max_len: real inputs are a few KB.
  "build/fuzz/tests/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$work" "tests/fuzz/corpus/$t" 2>"build/fuzz/$t.log"
}
parallel="${FUZZ_JOBS:-$(nproc)}"
declare -A pid_of
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  echo "== $t: ${seconds}s"
  fuzz_one "$t" &
  pid_of[$t]=$!
done
status=0
for t in "${targets[@]}"; do
  if ! wait "${pid_of[$t]}"; then
    echo "FAILED: $t (see build/fuzz/$t.log and build/fuzz/artifacts/$t/)"
    tail -n 40 "build/fuzz/$t.log"
    status=1
  fi
  echo "-- $t"
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build/fuzz/$t.log" || true
done
exit $status
