#!/usr/bin/env bash
# The scale figure of the MPI mode: sweep throughput (points/s) of one fixed grid for 1, 2 and 3
# MPI ranks, each rank on one thread (--jobs 1), against the plain single process on one thread
# (the baseline) and on one thread per core (--jobs 2 here: the same cores as threads). Each run
# is repeated REPEATS times and the fastest kept (the machine may be shared); each run's CSV
# must be byte-identical to the baseline's. Writes results/bench/mpi/speedup.csv.
#   tools/bench-mpi.sh                  build/release/tools/pipesim (built when missing)
#   REPEATS=5 RANKS="1 2 4 8" tools/bench-mpi.sh
# The grid: 4 schedules x D 16..64 step 8 x N 256..512 step 16 = 476 unit-cost points (the long
# sweep of tests/cli/sweep_shards.sh), -o through the journal as a real sweep writes.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/pipesim-bin.sh
repeats=${REPEATS:-3}
rank_counts=${RANKS:-"1 2 3"}
threads=$(nproc)
out=results/bench/mpi/speedup.csv
grid=(--schedule gpipe,1f1b,interleaved,zb-h1 --stages 16:64:+8 --micro-batches 256:512:+16)
mpirun_flags=(--oversubscribe)  # more ranks than cores is the point of the last rows
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
export PIPESIM_DATA_DIR=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# best SECONDS of $repeats runs of "$@" (which writes $work/run.csv), checked against the baseline
best() {
  local fastest=""
  for _ in $(seq "$repeats"); do
    rm -f "$work/run.csv"
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    if [ -f "$work/base.csv" ]; then
      cmp -s "$work/base.csv" "$work/run.csv" || { echo "differs from the baseline: $*" >&2; exit 1; }
    else
      cp "$work/run.csv" "$work/base.csv"
    fi
    fastest=$(awk -v a="$start" -v b="$end" -v f="$fastest" \
      'BEGIN { t = b - a; if (f == "" || t < f) f = t; printf "%.3f", f }')
  done
  echo "$fastest"
}

mkdir -p "$(dirname "$out")"
points=$("$bin" sweep "${grid[@]}" --jobs "$threads" | tail -n +2 | wc -l)
echo "mode,ranks,jobs_per_rank,points,seconds,points_per_s,speedup" >"$out.tmp"
row() {  # MODE RANKS JOBS SECONDS
  awk -v m="$1" -v r="$2" -v j="$3" -v n="$points" -v s="$4" -v b="${base:-$4}" \
    'BEGIN { printf "%s,%d,%d,%d,%.3f,%.1f,%.2f\n", m, r, j, n, s, n / s, b / s }' | tee -a "$out.tmp"
}
base=$(best "$bin" sweep "${grid[@]}" --jobs 1 -o "$work/run.csv")
row process 1 1 "$base"
for ranks in $rank_counts; do
  seconds=$(best mpirun "${mpirun_flags[@]}" -n "$ranks" "$bin" sweep "${grid[@]}" --jobs 1 \
    -o "$work/run.csv")
  row mpi "$ranks" 1 "$seconds"
done
seconds=$(best "$bin" sweep "${grid[@]}" --jobs "$threads" -o "$work/run.csv")
row threads 1 "$threads" "$seconds"
mv "$out.tmp" "$out"
echo "wrote $out ($(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
  "$(mpirun --version | head -1); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
