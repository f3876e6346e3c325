#!/usr/bin/env bash
# Times the mixture-of-experts search target: `pipesim search` over every schedule × (T, C, E,
# e_t, D, v, W, B, recompute) on 1,024 H100s (h100-dgx), mini-batch 1024, on 2 threads, for
# DeepSeek-V3 and Mixtral 8x22B (the table: RowDetail::FittingOnly). Writes each table and its
# `time` line (wall, user and system seconds, peak RSS) and the load average to
# results/bench/moe-search.txt. The target is under 10 s; the figures are in
# results/bench/README.md. Usage: tools/bench-moe-search.sh (PIPESIM=path/to/pipesim)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/bench/moe-search.txt
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
{
  date -u +%Y-%m-%dT%H:%M:%S+00:00
  for model in deepseek-v3:1,8,16,32,64,128,256 mixtral-8x22b:1,2,4,8; do
    name=${model%%:*}
    experts=${model#*:}
    echo
    echo "\$ pipesim search --model $name --hardware h100-dgx -P 1024 --mini-batch 1024" \
      "-T 1,2,4,8 -C 1,2,4,8 -E $experts --expert-tensor-parallel 1,2,4,8 -j 2"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "wall_s %e user_s %U sys_s %S max_rss_kb %M" "$bin" search \
      --model "$name" --hardware h100-dgx -P 1024 --mini-batch 1024 -T 1,2,4,8 -C 1,2,4,8 \
      -E "$experts" --expert-tensor-parallel 1,2,4,8 -j 2 2>&1
  done
} >"$tmp"
mv "$tmp" "$out"
trap - EXIT
grep -E "^search:|wall_s" "$out"
