#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the main job: GPipe and 1F1B
# with ASCII timelines, then `pipesim compare` ranking them over D and N, with a plot.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
bin=build/release/tools/pipesim
for schedule in gpipe 1f1b; do
  echo "=== $schedule, D=4, N=8, t_F=1, t_B=2"
  "$bin" simulate --schedule "$schedule" --stages 4 --micro-batches 8 --t-forward 1 --t-backward 2
  echo
done
mkdir -p build/quickstart
echo "=== compare: gpipe and 1f1b over D = 4, 8 and N = 4..32 (unit costs t_F = 1, t_B = 2)"
"$bin" compare --schedule gpipe,1f1b --stages 4,8 --micro-batches 4:32:x2 \
  --csv build/quickstart/compare.csv --plot build/quickstart/compare.svg
echo "(CSV, figure, gnuplot script and data in build/quickstart/)"
