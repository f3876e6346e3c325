#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the main job (a schedule
# comparison on unit costs, with ASCII timelines).
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
