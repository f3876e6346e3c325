#!/bin/bash
# The MPI mode's errors through the real binary: bad input on every rank, an error of
# rank 0 alone (a journal left behind), an error of rank 1 alone (it sees no data folder), ranks
# that run different command lines and a command that does not spread each end every rank with
# exit 2 and one error line, never a hang (each run is killed after 60 s). Usage: mpi_errors.sh PIPESIM SOURCE_DIR MPIEXEC (in an
# empty scratch folder).
. "$(dirname "$0")/mpi_env.sh" mpi_errors "$@"
# expect WHAT TEXT: the last run exited 2 (saved in $rc) with exactly one stderr line, an error
# line containing TEXT (err.txt).
expect() {
  [ "$rc" = 124 ] && fail "$1: hung"
  [ "$rc" = 2 ] || fail "$1: exit $rc, not 2: $(cat err.txt)"
  [ "$(wc -l <err.txt)" = 1 ] || fail "$1: not one line on stderr: $(cat err.txt)"
  grep -q "^pipesim: error: .*$2" err.txt || fail "$1: $(cat err.txt)"
  echo "$1: $(cat err.txt)"
}
grid=(--schedule gpipe,1f1b --stages 4,8 --micro-batches 8,16)

ranks 3 sweep --stages 4,x >out.csv 2>err.txt
rc=$?
expect "bad input on every rank" "command line: --stages: expected an integer"
[ -s out.csv ] && fail "bad input wrote rows"

touch left.csv.journal
ranks 2 sweep "${grid[@]}" -o left.csv 2>err.txt
rc=$?
expect "rank 0 alone" "left.csv.journal: journal: exists"
[ -s left.csv.journal ] && fail "the journal left behind was written to"
[ -e left.csv ] && fail "an output was written"

ranks_apart PIPESIM_DATA_DIR=/nonexistent search --model gpt2-1.3b --hardware p100-daint \
  --gpus 8 --mini-batch 64 -o best.csv >table.txt 2>err.txt
rc=$?
expect "rank 1 alone" "rank 1: environment: PIPESIM_DATA_DIR: '/nonexistent' is not a directory"
[ -e best.csv ] || [ -s table.txt ] && fail "rank 0 wrote output"

# An MPMD launch whose ranks run different command lines: rank 1 is refused before any row.
timeout 60 "$MPIEXEC" "${MPIFLAGS[@]}" -n 1 "$P" sweep --stages 4 : -n 1 "$P" sweep --stages 8 \
  >out.csv 2>err.txt
rc=$?
expect "another command line" "rank 1: command line: runs 'pipesim sweep --stages 8' where rank 0"
# Streamed to stdout, the header went out before the check-in; no row did.
[ "$(wc -l <out.csv)" -le 1 ] || fail "rows were written: $(cat out.csv)"

ranks 2 simulate --stages 4 >out.txt 2>err.txt
rc=$?
expect "a command that does not spread" "simulate: runs in one process"
cd .. && rm -rf "$SCRATCH"
echo ok
