#!/usr/bin/env bash
# Regenerates results/search/ (each search takes a few seconds):
#   gpt3-175b.*  every schedule of gpt3-175b on 1024 A100s (a100-dgx), mini-batch 1536 (the
#                speed benchmark's search): ranked table, winners' CSV, every configuration
#   gpt2-1.3b.*  gpt2-1.3b on 512 Piz Daint P100s (p100-daint), mini-batch 512, as in the
#                Chimera paper, with a plot of the best throughput per pipeline depth
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/search
mkdir -p "$out"
search() {  # name, then search arguments
  local name=$1
  shift
  "$bin" search "$@" -o "$out/$name.best.csv" >"$out/$name.table.txt"
  "$bin" search "$@" --all -o "$out/$name.all.csv" >/dev/null
  cat "$out/$name.table.txt"
}
search gpt3-175b --model gpt3-175b --hardware a100-dgx --gpus 1024 --mini-batch 1536
search gpt2-1.3b --model gpt2-1.3b --hardware p100-daint --gpus 512 --mini-batch 512
"$bin" plot "$out/gpt2-1.3b.all.csv" --x stages --y throughput --group schedule --reduce max \
  --title "best throughput per pipeline depth D, 512 GPUs, mini-batch 512" \
  -o "$out/gpt2-1.3b.throughput.svg"
