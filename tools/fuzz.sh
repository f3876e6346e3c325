#!/usr/bin/env bash
# Fuzzes every parser: builds the harnesses of the `asan` preset (clang, libFuzzer, ASan + UBSan;
# the build preset `fuzz` builds just them) and
# runs each harness from its seed corpus tests/fuzz/corpus/<target>/.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]   random fuzzing for SECONDS per harness (default 60),
#                                         e.g. tools/fuzz.sh 600, tools/fuzz.sh 30 value_range.
#                                         New inputs go to build/asan/fuzz/corpus/<target>/ (commit the
#                                         ones worth keeping as seeds).
#   tools/fuzz.sh --ci [TARGET...]        CI's stage: deterministic. Every committed seed, then
#                                         FUZZ_RUNS (default 20000) mutations from seed 1, in a
#                                         fresh work folder: the same inputs on every run.
#
# Crashes, leaks and timeouts go to build/asan/fuzz/artifacts/<target>/; the script exits non-zero if
# any harness found one. Reproduce: build/asan/tests/fuzz/<target>_fuzz <artifact>.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=random
seconds=60
if [ "${1:-}" = "--ci" ]; then
  mode=ci
  shift
elif [ $# -gt 0 ]; then
  seconds=$1
  shift
fi
runs="${FUZZ_RUNS:-20000}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(model_yaml hardware_yaml sweep_yaml schedule_text pytorch_csv samples_csv value_range
    profiler_trace launch_script torchtitan_toml)
fi
jobs="${FUZZ_BUILD_JOBS:-$(nproc)}"

cmake --preset asan >/dev/null
cmake --build --preset fuzz -j"$jobs"

# One harness per core at a time (FUZZ_JOBS, default nproc): each runs single-threaded, so
# two cores fuzz two parsers at once for the same seconds each.
fuzz_one() {
  local t=$1 work="build/asan/fuzz/corpus/$1" artifacts="build/asan/fuzz/artifacts/$1/" budget
  if [ "$mode" = ci ]; then
    work="build/asan/fuzz/ci-corpus/$t"
    rm -rf "$work"
    budget=(-seed=1 -runs="$runs")
  else
    budget=(-max_total_time="$seconds")
  fi
  mkdir -p "$work" "$artifacts"
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: the budgets keep real parses far
  # below 2 GB, so more is a finding; -max_len: real inputs are a few KB.
  "build/asan/tests/fuzz/${t}_fuzz" "${budget[@]}" -timeout=10 \
    -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$work" "tests/fuzz/corpus/$t" 2>"build/asan/fuzz/$t.log"
}
parallel="${FUZZ_JOBS:-$(nproc)}"
declare -A pid_of
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  if [ "$mode" = ci ]; then echo "== $t: seeds + $runs runs from seed 1"; else echo "== $t: ${seconds}s"; fi
  fuzz_one "$t" &
  pid_of[$t]=$!
done
status=0
for t in "${targets[@]}"; do
  if ! wait "${pid_of[$t]}"; then
    echo "FAILED: $t (see build/asan/fuzz/$t.log and build/asan/fuzz/artifacts/$t/)"
    tail -n 40 "build/asan/fuzz/$t.log"
    status=1
  fi
  echo "-- $t"
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build/asan/fuzz/$t.log" || true
done
exit $status
