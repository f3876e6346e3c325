#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the main job: GPipe and 1F1B
# with ASCII timelines (unit costs), then `pipesim compare` ranking seven schedules on a
# shipped model and hardware profile, with a plot.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
# Only the tool it runs: the tests, benchmarks and their helpers are tools/test.sh's to build.
cmake --build --preset release -j "$(nproc)" --target pipesim
bin=build/release/tools/pipesim
for schedule in gpipe 1f1b; do
  echo "=== $schedule, D=4, N=8, t_F=1, t_B=2"
  "$bin" simulate --schedule "$schedule" --stages 4 --micro-batches 8 --t-forward 1 --t-backward 2
  echo
done
mkdir -p build/quickstart
echo "=== compare: seven schedules for gpt2-1.3b on 32 Piz Daint P100s (D = 8, W = 4, B = 1), N = 8..32"
"$bin" compare --model gpt2-1.3b --hardware p100-daint \
  --schedule gpipe,1f1b,chimera,interleaved,zb-h1,zb-v,dualpipev \
  --stages 8 --data-parallel 4 --micro-batch-size 1 --micro-batches 8:32:x2 \
  --csv build/quickstart/compare.csv --plot build/quickstart/compare.svg
echo "(CSV, figure, gnuplot script and data in build/quickstart/)"
