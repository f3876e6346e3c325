#!/usr/bin/env bash
# Regenerates tests/golden/expected/: the outputs of a few representative commands (simulate
# text/JSON/CSV in both modes, SVG timeline, Chrome trace, sweep, compare, search, plot data),
# so that any change of a prediction or of an output's bytes shows up as a diff in review.
# The golden test (tests/golden/check.sh, ctest golden_outputs) reruns them and compares.
# Usage: tools/make-golden.sh [path/to/pipesim] [output folder]
#   (defaults: build/release/tools/pipesim, tests/golden/expected)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(realpath "${1:-$root/build/release/tools/pipesim}")"
out="$(realpath -m "${2:-$root/tests/golden/expected}")"
rm -rf "$out"
mkdir -p "$out"
cd "$out"
run() {  # run <name> <pipesim arguments...>: stdout to <name>.out
  local name=$1
  shift
  "$bin" "$@" >"$name.out"
}
real=(--model gpt2-1.3b --hardware p100-daint)
run simulate-1f1b simulate --schedule 1f1b -D 4 -N 8 --t-forward 1 --t-backward 2
run simulate-zbv simulate --schedule zb-v -D 4 -N 4 --t-weight 1 --timeline zbv.svg \
  --trace zbv.trace.json
run simulate-json simulate --schedule chimera -D 4 -N 8 --strategy doubling --format json --ops
run simulate-csv simulate --schedule interleaved -D 4 -N 8 --chunks 2 --format csv
run real-text simulate --schedule 1f1b -D 8 -N 8 "${real[@]}"
run real-json simulate --schedule chimera -D 8 -N 8 "${real[@]}" --memory-timeline \
  --format json --trace chimera.trace.json
run real-csv simulate --schedule 1f1b -D 32 -N 32 -W 16 --recompute selective "${real[@]}" \
  --format csv
run sweep sweep --schedule gpipe,1f1b --stages 4,8 --micro-batches 8:32:x2 -j 2
run sweep-real sweep --schedule 1f1b,chimera,interleaved "${real[@]}" --stages 4,8,128 \
  --micro-batches 8,16 --data-parallel 1,2 -j 2
run compare compare --schedule gpipe,1f1b --stages 4,8 --micro-batches 4:32:x2 -j 2 \
  --plot compare.svg
run search search "${real[@]}" --gpus 16 --mini-batch 32 --schedules 1f1b,chimera,interleaved,zb-v -j 2 -o search-best.csv
run search-all search "${real[@]}" --gpus 16 --mini-batch 32 --schedules 1f1b,chimera,interleaved,zb-v -j 2 --all -o search-all.csv
run plot plot search-all.csv --x stages --y throughput --group schedule --reduce max \
  --title golden -o search.svg
# Figures drawn by gnuplot depend on its version: keep their script and data only.
rm -f compare.svg search.svg
