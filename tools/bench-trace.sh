#!/usr/bin/env bash
# Regenerates results/bench/trace-read.csv: reading profiler traces for `calibrate --from-trace`.
#   rows "bench": bench/trace_bench.cpp (read + group, in-process) on synthetic traces of 64k and
#                 1M events, median of 3 repetitions
#   rows "cli":   one `pipesim calibrate --from-trace` of the 1M-event trace (llama3-8b on
#                 h100-dgx, the trace's GPU), as .json and as .json.gz: wall, peak RSS
# Every row records the load average when it ran: the development machine is shared.
# Usage: tools/bench-trace.sh   (PIPESIM=path/to/pipesim, BENCH=path/to/pipesim_trace_bench)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
bench=${BENCH:-build/release/bench/pipesim_trace_bench}
if [ ! -x "$bench" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target pipesim_trace_bench
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "${TMPDIR:-/tmp}"/pipesim-bench-trace-*.json' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
"$bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=json >"$scratch/bench.json" 2>/dev/null
big="${TMPDIR:-/tmp}/pipesim-bench-trace-262144.json"
gzip -1 -c "$big" >"$scratch/big.json.gz"
{
  echo "what,input,events,file_mb,wall_s,mb_per_s,events_per_s,max_rss_mb,load"
  python3 - "$scratch/bench.json" "$(load)" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["benchmarks"]:
    if r.get("aggregate_name") != "median":
        continue
    mb = r["MB_per_second"] * r["real_time"] / 1e3
    print(f"bench,{r['run_name']},{r['events']:.0f},{mb:.1f},{r['real_time'] / 1e3:.3f},"
          f"{r['MB_per_second']:.1f},{r['events_per_second']:.0f},,{sys.argv[2]}")
PY
  for input in "$big" "$scratch/big.json.gz"; do
    /usr/bin/time -f "%e,%M" -o "$scratch/time" "$bin" calibrate --from-trace "$input" \
      --model llama3-8b --hardware h100-dgx >/dev/null 2>&1
    IFS=, read -r wall rss <"$scratch/time"
    mb=$(du -m "$input" | cut -f1)
    echo "cli,$(basename "$input"),,$mb,$wall,,,$((rss / 1024)),$(load)"
  done
} >results/bench/trace-read.csv
cat results/bench/trace-read.csv
