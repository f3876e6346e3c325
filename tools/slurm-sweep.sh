#!/usr/bin/env bash
# One `pipesim sweep` spread over a Slurm job array, without MPI: array task i of K runs shard
# i/K (the grid indices j with j % K == i) and writes OUT_DIR/part-i-of-K.csv; `pipesim merge`
# then writes the CSV the single-process sweep would, byte for byte.
#
#   sbatch --array=0-15 tools/slurm-sweep.sh OUT_DIR SWEEP_OPTIONS...
#   pipesim merge OUT_DIR/part-*-of-16.csv -o sweep.csv      # after the array has finished
#
# The array must be 0-(K-1) (a throttle such as --array=0-15%4 is fine). Each task passes
# --resume, so a requeued or preempted task continues from its journal
# (OUT_DIR/part-i-of-K.csv.journal) instead of starting over. $PIPESIM names the executable
# (default: pipesim on PATH); --jobs is the task's CPUs unless SWEEP_OPTIONS set it (they must
# not set --shard, --resume or -o). Run by hand with SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT set, it does exactly what one array task does.
#SBATCH --job-name=pipesim-sweep
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=8
#SBATCH --time=01:00:00
#SBATCH --requeue
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: sbatch --array=0-(K-1) $0 OUT_DIR SWEEP_OPTIONS..." >&2
  exit 2
fi
out_dir=$1
shift
i=${SLURM_ARRAY_TASK_ID:?not an array task: submit with sbatch --array=0-(K-1)}
k=${SLURM_ARRAY_TASK_COUNT:?not an array task: submit with sbatch --array=0-(K-1)}
# Shard i/K covers grid indices j % K == i only when the task ids are exactly 0 .. K-1.
if [ "${SLURM_ARRAY_TASK_MIN:-0}" != 0 ] || [ "${SLURM_ARRAY_TASK_MAX:-$((k - 1))}" != $((k - 1)) ]; then
  echo "$0: the array must be 0-$((k - 1)) (got ${SLURM_ARRAY_TASK_MIN}-${SLURM_ARRAY_TASK_MAX})" >&2
  exit 2
fi
# One thread per CPU of the task, unless the options say otherwise (a flag given twice is an
# error).
jobs=(--jobs "${SLURM_CPUS_PER_TASK:-0}")
for a in "$@"; do
  case $a in --jobs | --jobs=* | -j*) jobs=() ;; esac
done
mkdir -p "$out_dir"
exec "${PIPESIM:-pipesim}" sweep "$@" "${jobs[@]}" --shard "$i/$k" --resume \
  -o "$out_dir/part-$i-of-$k.csv"
