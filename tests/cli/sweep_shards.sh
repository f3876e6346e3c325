#!/bin/bash
# Through the real binary: the README's local example (shards run by xargs -P, then
# merge) and tools/slurm-sweep.sh run as array tasks give the single sweep's CSV byte for byte;
# a sweep killed by SIGTERM, SIGINT or SIGKILL keeps its journal and no temporary, and --resume
# finishes it to the same file. Usage: sweep_shards.sh PIPESIM SOURCE_DIR (in an empty scratch
# folder).
set -u
P="$1"
SRC="$2"
fail() { echo "FAIL: $*"; exit 1; }
pipesim() { "$P" "$@"; }
export PIPESIM_DATA_DIR="$SRC"
rm -rf shards && mkdir shards && cd shards || exit 1
grid=(--schedule gpipe,1f1b --stages 4,8,16 --micro-batches 8:64:x2)  # the README's

# The README's example, as written there.
pipesim sweep "${grid[@]}" -o single.csv || fail "single sweep"
seq 0 3 | xargs -P 4 -I{} "$P" sweep "${grid[@]}" --jobs 1 --shard {}/4 -o part-{}.csv ||
  fail "xargs shards"
pipesim merge part-*.csv -o merged.csv || fail "merge"
cmp -s single.csv merged.csv || fail "merged shards differ from the single sweep"

# tools/slurm-sweep.sh as the 3 tasks of an array (what sbatch --array=0-2 sets).
for i in 0 1 2; do
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=2 \
    SLURM_CPUS_PER_TASK=1 PIPESIM="$P" "$SRC/tools/slurm-sweep.sh" slurm "${grid[@]}" ||
    fail "slurm-sweep.sh task $i"
done
pipesim merge slurm/part-*-of-3.csv -o slurm.csv || fail "merge of the array's parts"
cmp -s single.csv slurm.csv || fail "the array's parts differ from the single sweep"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=2 \
  PIPESIM="$P" "$SRC/tools/slurm-sweep.sh" slurm "${grid[@]}" 2>/dev/null &&
  fail "slurm-sweep.sh accepted an array that is not 0-(K-1)"

# Interrupted: a sweep long enough (476 points, seconds) to be killed while it runs; under the
# sanitizers (PIPESIM_SANITIZED) 144 points, every other D and N, last as long.
step=1
[ -n "${PIPESIM_SANITIZED:-}" ] && step=2
big=(--schedule gpipe,1f1b,interleaved,zb-h1 --stages "16:64:+$((8 * step))"
  --micro-batches "256:512:+$((16 * step))" --jobs 1)
pipesim sweep "${big[@]}" -o big.csv || fail "the long sweep"
for sig in TERM INT KILL; do
  rm -f out.csv out.csv.journal
  set -m  # its own process group, so that SIGINT is not ignored as in a background job
  "$P" sweep "${big[@]}" -o out.csv &
  pid=$!
  set +m
  for _ in $(seq 1 200); do  # until some rows are in the journal
    [ -f out.csv.journal ] && [ "$(wc -l <out.csv.journal)" -gt 20 ] && break
    sleep 0.05
  done
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -ge 128 ] || fail "SIG$sig: exit $rc (the sweep finished before it was killed?)"
  [ -f out.csv.journal ] || fail "SIG$sig: the journal was removed"
  [ -e out.csv ] && fail "SIG$sig: an output was written"
  ls -A | grep -q '\.tmp\.' && fail "SIG$sig: a temporary was left: $(ls -A)"
  rows=$(wc -l <out.csv.journal)
  pipesim sweep "${big[@]}" -o out.csv --resume || fail "SIG$sig: --resume"
  cmp -s big.csv out.csv || fail "SIG$sig: the resumed sweep differs"
  [ -e out.csv.journal ] && fail "SIG$sig: the journal stayed after the resumed sweep"
  echo "SIG$sig after $((rows - 2)) rows: resumed to the same file"
done
cd .. && rm -rf shards
echo ok
