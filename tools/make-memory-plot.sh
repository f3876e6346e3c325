#!/usr/bin/env bash
# Regenerates results/memory/: memory over time per worker of gpt2-1.3b on Piz Daint P100s
# (p100-daint), D=8 stages, N=8 micro-batches, B=1, W=1, for 1f1b and chimera (two pipelines,
# so twice the weights but a more even activation load): the simulate JSON with
# --memory-timeline, a Chrome trace with the memory counter track, and one plot per schedule.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/memory
mkdir -p "$out"
for schedule in 1f1b chimera; do
  name=gpt2-1.3b.$schedule.d8-n8
  "$bin" simulate --model gpt2-1.3b --hardware p100-daint --schedule "$schedule" -D 8 -N 8 \
    -B 1 -W 1 --memory-timeline --format json -o "$out/$name.json" --trace "$out/$name.trace.json"
  "$bin" plot "$out/$name.json" --kind memory \
    --title "memory per worker over time" \
    -o "$out/$name.png"
done
