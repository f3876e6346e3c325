#!/usr/bin/env bash
# Writes results/validation/fig15-sensitivity.csv: the one ranking issue 9 leaves open, Chimera
# Fig. 15's GPipe (measured 360 sequences/s) against DAPPLE (370), under the changes that could
# reorder them. Each row predicts both runs exactly as validation/chi-f15-gpt2-{gpipe,dapple}.yaml
# describe them, plus one change; gpipe_over_dapple is to be compared with the measured 0.973.
#   as-transcribed       the validation files as they are (what `pipesim validate` reports)
#   partition-balanced   layers to stages by cost (the paper's code does not: every GPT-2 model
#                        file gives the last stage n_layer/D layers plus ln_f and the LM head)
#   partition-ends       the embedding and the loss counted as a layer each
#   allreduce-x0.5/0.28  every inter-node transfer at 1/2 or 1/3.6 of the fitted efficiency
#                        (p100-daint's links.inter_node.efficiency; the PipeDream runs pin it)
#   no-vocabulary        diagnostic only: V = 1, so the LM head and the embedding cost nothing
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/validation/fig15-sensitivity.csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--model gpt2-1.3b -B 1 --recompute full --precision fp32 --format json)
gpipe=(--schedule gpipe -D 8 -N 8 -W 256)
dapple=(--schedule dapple -D 16 -N 16 -W 128)
# One profile per efficiency factor, the fitted one scaled.
profile() {
  local factor=$1 file="$work/p100-daint-x$1.yaml"
  awk -v f="$factor" '/^  inter_node:/ { match($0, /efficiency: [0-9.]+/)
      e = substr($0, RSTART + 12, RLENGTH - 12); sub(/efficiency: [0-9.]+/, "efficiency: " e * f) }
    { print }' hardware/p100-daint.yaml >"$file"
  echo "$file"
}
throughput() { "$bin" simulate "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["throughput"])'; }
row() {
  local name=$1
  shift
  local g d
  g=$(throughput "${gpipe[@]}" "${common[@]}" "$@")
  d=$(throughput "${dapple[@]}" "${common[@]}" "$@")
  awk -v n="$name" -v g="$g" -v d="$d" 'BEGIN { printf "%s,%.1f,%.1f,%.3f,0.973\n", n, g, d, g / d }'
}
tmp="$out.tmp"
{
  echo "variant,gpipe_seq_per_s,dapple_seq_per_s,gpipe_over_dapple,measured_gpipe_over_dapple"
  row as-transcribed --hardware p100-daint
  row partition-balanced --hardware p100-daint --partition balanced
  row partition-ends --hardware p100-daint --partition account-ends
  row allreduce-x0.5 --hardware "$(profile 0.5)"
  row allreduce-x0.28 --hardware "$(profile 0.28)"
  row no-vocabulary --hardware p100-daint --vocabulary 1
} >"$tmp"
mv "$tmp" "$out"
cat "$out"
