#!/usr/bin/env bash
# Regenerates the speed and scale figures of results/bench/ (the MPI speed-up in
# results/bench/mpi/ has its own script):
#   ratios.csv       pipesim against the minimal 1F1B replay and a minimal longest-path pass
#                    (bench/engine_bench.cpp, BM_Ratios and the single benchmarks), median of
#                    repetitions, CPU time
#   scale-bench.csv  tasks per CPU second of both pipelines at D = 64, N = 16 ... 39062 (up to
#                    10^7 tasks), in-process (BM_ScaleUnit, BM_ScaleRealCost)
#   scale.csv        one `pipesim simulate` of 1f1b per size, unit and real cost: wall, user and
#                    system time, peak RSS
#   scale.svg        CPU seconds and bytes of peak RSS per task against tasks (gnuplot)
#   sweep.csv        sweep points/s for a unit-cost and a real-cost grid on 1 and 2 threads
#   sweep-10m.csv    a sweep of 10^7 unit-cost points to a file: time and peak RSS
#                    (SKIP_10M=1 leaves the previous one; it takes about ten minutes)
#   search.csv       search llama2-70b on 1,024 H100s (h100-dgx), mini-batch 1024, every
#                    schedule and T, D, W, B, N, chunks, recompute, on 1 and 2 threads: the
#                    table, and --all (every row's metrics)
# Every row records the load average when it ran: the development machine is shared.
# Usage: tools/make-bench.sh   (PIPESIM=path/to/pipesim, BENCH=path/to/pipesim_engine_bench)
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
bench=${BENCH:-build/release/bench/pipesim_engine_bench}
if [ ! -x "$bench" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release -j "$(nproc)" --target pipesim_engine_bench
fi
out=results/bench
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
# timed <command...>: "wall,user,sys,max_rss_kb" of the command (its stdout discarded).
timed() {
  /usr/bin/time -f "%e,%U,%S,%M" -o "$scratch/time" "$@" >/dev/null
  cat "$scratch/time"
}

# --- pipesim against the baseline ------------------------------------------------------------
"$bench" --benchmark_filter='^BM_(Baseline|Sweep|LongestPath|Pipesim|Ratios)' --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_format=json >"$scratch/bench.json" 2>/dev/null
python3 - "$scratch/bench.json" "$(load)" >"$out/ratios.csv" <<'EOF'
import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("aggregate_name") == "median"]
keys = ["tasks_per_second", "baseline_tasks_per_s", "lp_tasks_per_s", "unit_tasks_per_s",
        "real_tasks_per_s", "unit_x", "real_x", "unit_of_lp", "real_of_unit"]
print("benchmark,cpu_ms," + ",".join(keys) + ",load")
for r in runs:
    cells = [f"{r[k]:.4g}" if k in r else "" for k in keys]
    print(",".join([r["run_name"], f"{r['cpu_time']:.3f}"] + cells + [sys.argv[2]]))
EOF
cat "$out/ratios.csv"

# --- tasks per CPU second against size, in-process (BM_ScaleUnit, BM_ScaleRealCost) ----------
"$bench" --benchmark_filter='^BM_Scale' --benchmark_format=json >"$scratch/scale.json" 2>/dev/null
python3 - "$scratch/scale.json" "$(load)" >"$out/scale-bench.csv" <<'EOF'
import json, sys
print("mode,stages,micro_batches,tasks,cpu_ms,tasks_per_cpu_s,load")
for r in json.load(open(sys.argv[1]))["benchmarks"]:
    mode = "unit" if r["name"].startswith("BM_ScaleUnit") else "real"
    n = int(r["name"].split("/")[1])
    print(f"{mode},64,{n},{int(r['tasks'])},{r['cpu_time']:.3f},{r['tasks_per_second']:.4g},{sys.argv[2]}")
EOF
cat "$out/scale-bench.csv"

# --- one `pipesim simulate` per size: wall, CPU and peak RSS -----------------------------------
echo "mode,stages,micro_batches,tasks,wall_s,user_s,sys_s,max_rss_kb,tasks_per_cpu_s,rss_bytes_per_task,load" >"$out/scale.csv"
for n in 16 64 256 1024 4096 16384 39062; do
  tasks=$((4 * 64 * n - 2 * n + 2 * 64))  # 2DN ops + 2(D-1)N transfers + D syncs + D steps
  for mode in unit real; do
    args=(simulate --schedule 1f1b -D 64 -N "$n" --format csv)
    if [ "$mode" = unit ]; then
      args+=(--t-comm 0.1)
    else
      args+=(--model gpt2-1.3b --hardware p100-daint -W 4)
    fi
    IFS=, read -r wall user sys rss < <(timed "$bin" "${args[@]}")
    awk -v m="$mode" -v n="$n" -v t="$tasks" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
      -v l="$(load)" 'BEGIN { cpu = u + s; if (cpu < 0.01) cpu = 0.01
        printf "%s,64,%d,%d,%s,%s,%s,%d,%.0f,%.1f,%s\n", m, n, t, w, u, s, r, t / cpu,
               r * 1024 / t, l }' >>"$out/scale.csv"
  done
done
cat "$out/scale.csv"
cat >"$scratch/scale.gp" <<EOF
set terminal svg size 900,420 dynamic noenhanced font 'Helvetica,12' background rgb 'white'
set output "$out/scale.svg"
set datafile separator ","
set multiplot layout 1,2 title "pipesim simulate, 1f1b, D = 64 (N = 16 ... 39062), one run per size"
set logscale xy
set grid
set xlabel "tasks"
set ylabel "CPU seconds"
set key top left
plot "< grep ^unit $out/scale-bench.csv" using 4:(\$5/1000) with linespoints pt 7 title "unit cost (in-process)", \
     "< grep ^real $out/scale-bench.csv" using 4:(\$5/1000) with linespoints pt 5 title "real cost (in-process)", \
     "< grep ^unit $out/scale.csv" using 4:(\$6+\$7) with linespoints pt 6 dt 2 title "unit, pipesim simulate (user + sys)", \
     "< grep ^real $out/scale.csv" using 4:(\$6+\$7) with linespoints pt 4 dt 2 title "real, pipesim simulate (user + sys)", \
     x / 1e7 with lines dt 3 lc rgb "#888888" title "linear: 10^7 tasks/s"
unset logscale y
set logscale x
set ylabel "peak RSS bytes per task"
set yrange [0:*]
plot "< grep ^unit $out/scale.csv" using 4:10 with linespoints pt 7 title "unit cost", \
     "< grep ^real $out/scale.csv" using 4:10 with linespoints pt 5 title "real cost"
unset multiplot
EOF
gnuplot "$scratch/scale.gp"

# --- sweeps ----------------------------------------------------------------------------------
unit_grid=(--schedule 1f1b,gpipe --stages 2:11 --micro-batches 1:50 --t-forward 1:20)
real_grid=(--schedule 1f1b,gpipe,chimera,interleaved,zb-h1 --model gpt2-1.3b --hardware p100-daint
  --stages 4,8,16 --micro-batches 8:64:x2 --data-parallel 1,2,4 --micro-batch-size 1,2
  --recompute none,full)
echo "grid,points,jobs,wall_s,user_s,sys_s,max_rss_kb,points_per_s,load" >"$out/sweep.csv"
for grid in unit real; do
  if [ "$grid" = unit ]; then g=("${unit_grid[@]}"); else g=("${real_grid[@]}"); fi
  points=$(("$("$bin" sweep "${g[@]}" -j 2 | wc -l)" - 1))
  for jobs in 1 2; do
    IFS=, read -r wall user sys rss < <(timed "$bin" sweep "${g[@]}" -j "$jobs")
    awk -v g="$grid" -v p="$points" -v j="$jobs" -v w="$wall" -v u="$user" -v s="$sys" \
      -v r="$rss" -v l="$(load)" \
      'BEGIN { printf "%s,%d,%d,%s,%s,%s,%d,%.0f,%s\n", g, p, j, w, u, s, r, p / w, l }' \
      >>"$out/sweep.csv"
  done
done
cat "$out/sweep.csv"

# --- 10^7 unit-cost points, to a file (journaled), in bounded memory ---------------------------
if [ "${SKIP_10M:-0}" != 1 ]; then
  big=(--schedule 1f1b,gpipe --stages 2:11 --micro-batches 1:50 --t-forward 1:100
    --t-backward 1:100)
  IFS=, read -r wall user sys rss < <(timed "$bin" sweep "${big[@]}" -j 2 -o "$scratch/10m.csv")
  rows=$(($(wc -l <"$scratch/10m.csv") - 1))
  bytes=$(stat -c %s "$scratch/10m.csv")
  rm -f "$scratch/10m.csv"
  {
    echo "points,jobs,wall_s,user_s,sys_s,max_rss_kb,output_bytes,points_per_s,load"
    awk -v p="$rows" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v b="$bytes" \
      -v l="$(load)" 'BEGIN { printf "%d,2,%s,%s,%s,%d,%d,%.0f,%s\n", p, w, u, s, r, b, p / w, l }'
  } >"$out/sweep-10m.csv"
  cat "$out/sweep-10m.csv"
fi

# --- the search ------------------------------------------------------------------------------
# The table (what `search` prints; a run that does not fit skips its replay) and --all (every
# row with every metric, to a CSV).
search=(search --model llama2-70b --hardware h100-dgx --gpus 1024 --mini-batch 1024
  --tensor-parallel 1,2,4,8)
echo "search,mode,configurations,ok,oom,jobs,wall_s,user_s,sys_s,max_rss_kb,load" >"$out/search.csv"
# The counts from the table's first line (the same for every run below).
counts=$("$bin" "${search[@]}" -j 2 |
  sed -nE '1s/.*: ([0-9]+) configurations \(([0-9]+) ok, ([0-9]+) oom.*/\1,\2,\3/p')
for mode in table all; do
  for jobs in 1 2; do
    extra=()
    if [ "$mode" = all ]; then extra=(--all -o "$scratch/s.csv"); fi
    IFS=, read -r wall user sys rss < <(timed "$bin" "${search[@]}" -j "$jobs" "${extra[@]}")
    echo "llama2-70b h100-dgx P=1024 B=1024 T=1;2;4;8,$mode,$counts,$jobs,$wall,$user,$sys,$rss,$(load)" \
      >>"$out/search.csv"
  done
done
cat "$out/search.csv"
