#!/usr/bin/env bash
# Regenerates results/search/: the best configuration of every schedule for gpt3-175b on 1024
# A100 GPUs (a100-dgx) with mini-batch 1536, as a ranked table and CSV, every evaluated
# configuration, and a plot of the best throughput per pipeline depth for each schedule.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PIPESIM:-build/release/tools/pipesim}
if [ ! -x "$bin" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target pipesim
fi
out=results/search
mkdir -p "$out"
args=(--model gpt3-175b --hardware a100-dgx --gpus 1024 --mini-batch 1536)
"$bin" search "${args[@]}" -o "$out/best.csv" >"$out/table.txt"
"$bin" search "${args[@]}" --all -o "$out/all.csv" >/dev/null
"$bin" plot "$out/all.csv" --x stages --y throughput --group schedule --reduce max \
  --title "gpt3-175b, 1024 x A100, mini-batch 1536: best throughput per pipeline depth" \
  -o "$out/throughput.svg"
cat "$out/table.txt"
