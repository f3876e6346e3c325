#!/usr/bin/env bash
# The scale figure of the MPI mode: sweep throughput (points/s) of one fixed grid for 1, 2 and 3
# MPI ranks, each rank on one thread (--jobs 1), against the plain single process on one thread
# (the baseline) and on one thread per core (--jobs 2 here: the same cores as threads). Each run
# is repeated REPEATS times and the fastest kept (the machine may be shared); each run's CSV
# must be byte-identical to the baseline's. launch_s is what mpirun alone costs: the fastest
# 1-point sweep on that many ranks (in `seconds` too). Writes results/bench/mpi/speedup.csv.
#   tools/bench-mpi.sh                  build/release/tools/pipesim (built when missing)
#   REPEATS=5 RANKS="1 2 4 8" tools/bench-mpi.sh
# The grid: 4 schedules x D 16..64 step 4 x N 256..768 step 16 = 1716 unit-cost points (~15 s on
# one thread, so that mpirun's launch is a small part), -o through the journal as a real sweep.
set -euo pipefail
shopt -s inherit_errexit  # a failing run inside $(...) stops the script too
cd "$(dirname "$0")/.."
. tools/pipesim-bin.sh
repeats=${REPEATS:-3}
rank_counts=${RANKS:-"1 2 3"}
threads=$(nproc)
out=results/bench/mpi/speedup.csv
grid=(--schedule gpipe,1f1b,interleaved,zb-h1 --stages 16:64:+4 --micro-batches 256:768:+16)
mpirun_flags=(--oversubscribe)  # more ranks than cores is the point of the last rows
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
export PIPESIM_DATA_DIR=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# seconds "$@" takes (its stdout dropped)
seconds_of() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}
# the fastest of $repeats runs of "$@"; a run that writes $work/run.csv must write the baseline's
# bytes (the first such run's)
fastest() {
  local best="" t
  for _ in $(seq "$repeats"); do
    rm -f "$work/run.csv"
    t=$(seconds_of "$@")
    if [ -f "$work/run.csv" ] && [ -f "$work/base.csv" ]; then
      cmp -s "$work/base.csv" "$work/run.csv" || { echo "differs from the baseline: $*" >&2; exit 1; }
    elif [ -f "$work/run.csv" ]; then
      cp "$work/run.csv" "$work/base.csv"
    fi
    best=$(awk -v t="$t" -v f="$best" 'BEGIN { if (f == "" || t < f) f = t; printf "%.3f", f }')
  done
  echo "$best"
}

mkdir -p "$(dirname "$out")"
points=$("$bin" sweep "${grid[@]}" --jobs "$threads" | tail -n +2 | wc -l)
echo "mode,ranks,jobs_per_rank,points,seconds,points_per_s,speedup,launch_s" >"$out.tmp"
row() {  # MODE RANKS JOBS SECONDS [LAUNCH]
  awk -v m="$1" -v r="$2" -v j="$3" -v n="$points" -v s="$4" -v b="${base:-$4}" -v l="${5:-}" \
    'BEGIN { printf "%s,%d,%d,%d,%.3f,%.1f,%.2f,%s\n", m, r, j, n, s, n / s, b / s, l }' |
    tee -a "$out.tmp"
}
base=$(fastest "$bin" sweep "${grid[@]}" --jobs 1 -o "$work/run.csv")
row process 1 1 "$base"
for ranks in $rank_counts; do
  seconds=$(fastest mpirun "${mpirun_flags[@]}" -n "$ranks" "$bin" sweep "${grid[@]}" --jobs 1 \
    -o "$work/run.csv")
  launch=$(fastest mpirun "${mpirun_flags[@]}" -n "$ranks" "$bin" sweep --stages 4 --jobs 1)
  row mpi "$ranks" 1 "$seconds" "$launch"
done
seconds=$(fastest "$bin" sweep "${grid[@]}" --jobs "$threads" -o "$work/run.csv")
row threads 1 "$threads" "$seconds"
mv "$out.tmp" "$out"
echo "wrote $out ($(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
  "$(mpirun --version | head -1); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
