#!/usr/bin/env bash
# Times the search speed target: `pipesim search` over every schedule and configuration of
# gpt3-175b on 1024 GPUs (a100-dgx profile) with mini-batch 1536, on 2 threads; the target is
# under 30 s. Prints the figure (recorded in results/search/README.md) and exits 1 when it is
# over the target.
#   tools/bench-search.sh            build/release/tools/pipesim, 2 jobs
#   JOBS=16 tools/bench-search.sh    another thread count
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PIPESIM:-build/release/tools/pipesim}
jobs=${JOBS:-2}
target=${TARGET_S:-30}
if [ ! -x "$bin" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$jobs" --target pipesim
fi
csv=$(mktemp --suffix=.csv)
trap 'rm -f "$csv"' EXIT
start=$(date +%s.%N)
"$bin" search --model gpt3-175b --hardware a100-dgx --gpus 1024 --mini-batch 1536 \
  --jobs "$jobs" --all -o "$csv" >/dev/null
end=$(date +%s.%N)
rows=$(($(wc -l <"$csv") - 1))
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
printf 'search gpt3-175b, 1024 x a100-dgx, mini-batch 1536: %d configurations in %s s on %s threads (target < %s s)\n' \
  "$rows" "$seconds" "$jobs" "$target"
tail -n +2 "$csv" | grep -oE ',"?(ok$|oom$|invalid: |pruned: )' | tr -d ',":' | sort | uniq -c
awk -v s="$seconds" -v t="$target" 'BEGIN { exit !(s < t) }'
