#!/usr/bin/env bash
# Regenerates every SVG under results/timelines/ (and nothing else): each schedule at D = 4,
# N = 8 in unit-cost mode (t_F = 1, t_B = 2; split backwards as t_I = t_W = 1), plus Chimera's
# variants. Usage: tools/make-timelines.sh [path/to/pipesim]  (default build/release/tools/pipesim)
set -euo pipefail
cd "$(dirname "$0")/.."
pipesim="${1:-build/release/tools/pipesim}"
out=results/timelines
mkdir -p "$out"

draw() {  # draw <file stem> <pipesim simulate arguments...>
  local stem=$1
  shift
  "$pipesim" simulate "$@" --timeline "$out/$stem.svg" > /dev/null
  echo "$out/$stem.svg"
}

costs=(--t-forward 1 --t-backward 2)
split=(--t-forward 1 --t-backward 2 --t-weight 1)
for s in gpipe 1f1b dapple gems; do draw "$s-d4-n8" --schedule "$s" -D 4 -N 8 "${costs[@]}"; done
for s in pipedream pipedream-2bw; do
  draw "$s-d4-n8" --schedule "$s" -D 4 -N 8 --iterations 3 "${costs[@]}"
done
draw interleaved-v2-d4-n8 --schedule interleaved -D 4 -N 8 --chunks 2 "${costs[@]}"
draw bfs-v2-d4-n8 --schedule bfs -D 4 -N 8 --chunks 2 "${costs[@]}"
draw interleaved-zb-v2-d4-n8 --schedule interleaved-zb -D 4 -N 8 --chunks 2 "${split[@]}"
for s in zb-h1 zb-h2 zb-v dualpipe dualpipev; do draw "$s-d4-n8" --schedule "$s" -D 4 -N 8 "${split[@]}"; done
# V-Half and V-Min at the authors' equal costs (t_F = t_I = t_W), where their bounds hold.
for s in v-half v-min; do
  draw "$s-d4-n8" --schedule "$s" -D 4 -N 8 --t-forward 1 --t-backward 2 --t-weight 1
done
# Chimera: the basic unit at t_B = t_F (paper Fig. 3), N = 2D with each strategy at t_B = 2t_F
# (Fig. 5), and D = 8 with four pipelines (Fig. 6).
draw chimera-d4-n4-equal --schedule chimera -D 4 -N 4 --t-forward 1 --t-backward 1
for strategy in direct doubling halving; do
  draw "chimera-$strategy-d4-n8" --schedule chimera -D 4 -N 8 --strategy "$strategy" "${costs[@]}"
done
draw chimera-p4-d8-n8 --schedule chimera -D 8 -N 8 --pipelines 4 "${costs[@]}"
draw chimera-p4-d8-n8-equal --schedule chimera -D 8 -N 8 --pipelines 4 --t-forward 1 --t-backward 1
# Hanayo with one and two waves; BitPipe's basic unit at the authors' figure costs (a chunk F one
# slot, a chunk B two: t_F = 2, t_B = 4 per stage) and N = 2D (the repository's scale-moreb.svg).
for waves in 1 2; do
  draw "hanayo-w$waves-d4-n8" --schedule hanayo -D 4 -N 8 --waves "$waves" "${costs[@]}"
done
draw bitpipe-d4-n4 --schedule bitpipe -D 4 -N 4 --t-forward 2 --t-backward 4
draw bitpipe-d4-n8 --schedule bitpipe -D 4 -N 8 --t-forward 2 --t-backward 4
# Activation offload (PipeOffload) in real-cost mode: 1F1B, GPT-2 1.3B on a DGX A100 (PCIe Gen4
# host link), every stored activation offloaded; the lane under each worker shows its copies.
draw 1f1b-offload-gpt2-a100-d4-n8 --schedule 1f1b -D 4 -N 8 --model gpt2-1.3b --hardware a100-dgx \
  --offload 1
# DeepSeek-V3 in its own layout (report §3.1-3.3, §4.2): DualPipe over PP 16, EP 64, ZeRO-1,
# 2048 H800, batch 15360 sequences = 120 micro-batches of one per replica, with DeepSeek's memory
# savings (README "DeepSeek-V3 in its own layout").
draw dualpipe-deepseek-v3-h800-d16-n120 --schedule dualpipe -D 16 -N 120 -B 1 -W 128 \
  --model deepseek-v3 --hardware h800-dgx -E 64 --distributed-optimizer on --moe-overlap on \
  --recompute selective --recompute-modules layernorm,mla_up_proj,moe_act --quantized-activations on
