#!/usr/bin/env bash
# Regenerates the mixture-of-experts planning searches of results/search/ and times each on 2
# threads (the target: under 10 s each). Every knob is search's own choice: E, e_t, C,
# placement, partition, the dispatcher, the MoE overlap and the recomputation.
#   deepseek-v3.h100-1024.*      DeepSeek-V3 on 1,024 H100s (h100-dgx), mini-batch 1024
#   qwen3-235b-a22b.h100-512.*   Qwen3-235B-A22B on 512 H100s (h100-dgx), mini-batch 512
# The tables and winners' CSVs are byte-identical between runs; moe-timings.txt holds the
# wall-clock seconds of this machine (and its load), which are not.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/search
mkdir -p "$out"
timings="$out/moe-timings.txt"
: >"$timings"
search() {  # name, then search arguments
  local name=$1
  shift
  printf '$ pipesim search %s --jobs 2\nload average before: %s\n' "$*" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$timings"
  local start end
  start=$(date +%s.%N)
  "$bin" search "$@" --jobs 2 -o "$out/$name.best.csv" >"$out/$name.table.txt"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "wall_s %.2f\n\n", b - a }' >>"$timings"
  cat "$out/$name.table.txt"
}
search deepseek-v3.h100-1024 --model deepseek-v3 --hardware h100-dgx --gpus 1024 --mini-batch 1024
search qwen3-235b-a22b.h100-512 --model qwen3-235b-a22b --hardware h100-dgx --gpus 512 \
  --mini-batch 512
cat "$timings"
