#!/bin/bash
# The MPI mode through the real binary: `mpirun -n K pipesim sweep|search` writes what
# the single process writes, byte for byte: sweep CSV to stdout and with -o (through the
# journal), a --shard part, a --resume from a journal, search's table and --all CSV, and -n 1.
# And the rows really are spread: a rank that sees no model files makes rows that say so.
# Usage: mpi_outputs.sh PIPESIM SOURCE_DIR MPIEXEC (in an empty scratch folder).
. "$(dirname "$0")/mpi_env.sh" mpi_outputs "$@"
# Real-cost rows (every metric column filled), out-of-memory rows and invalid ones (chimera on
# 3 stages), 24 in all; and a unit-cost grid of 24.
real=(--model gpt2-1.3b --hardware p100-daint --schedule gpipe,1f1b,chimera --stages 3,4
      --micro-batches 8,16 --data-parallel 1,2)
unit=(--schedule gpipe,1f1b --stages 4,8,16 --micro-batches 8:64:x2)
search=(--model gpt2-1.3b --hardware p100-daint --gpus 8 --mini-batch 64)

"$P" sweep "${real[@]}" >real.csv || fail "single sweep"
grep -q ',ok$' real.csv && grep -q 'invalid: ' real.csv && grep -q ',oom$' real.csv ||
  fail "the grid lacks ok, invalid or oom rows"
ranks 2 sweep "${real[@]}" >real-2.csv || fail "sweep on 2 ranks"
cmp real.csv real-2.csv || fail "sweep to stdout on 2 ranks differs"
ranks 3 sweep "${real[@]}" -o real-3.csv || fail "sweep -o on 3 ranks"
cmp real.csv real-3.csv || fail "sweep -o on 3 ranks differs"
[ -e real-3.csv.journal ] && fail "the journal stayed"

"$P" sweep "${real[@]}" --shard 1/3 -o part.csv || fail "single shard"
ranks 2 sweep "${real[@]}" --shard 1/3 -o part-2.csv || fail "shard on 2 ranks"
cmp part.csv part-2.csv || fail "the part of 2 ranks differs"

# A journal holding the first 10 rows (a part of shard 0/1 is a finished journal).
"$P" sweep "${unit[@]}" -o unit.csv || fail "single unit-cost sweep"
"$P" sweep "${unit[@]}" --shard 0/1 -o whole.part || fail "whole part"
head -n 12 whole.part >resumed.csv.journal
ranks 3 sweep "${unit[@]}" -o resumed.csv --resume || fail "--resume on 3 ranks"
cmp unit.csv resumed.csv || fail "the sweep resumed on 3 ranks differs"
[ -e resumed.csv.journal ] && fail "the resumed journal stayed"
ranks 1 sweep "${unit[@]}" >unit-1.csv || fail "sweep on 1 rank"
cmp unit.csv unit-1.csv || fail "sweep on 1 rank differs"

# The table and every row (--all): the winners' CSV is rank 0's rendering of the same rows.
"$P" search "${search[@]}" --all -o all.csv >table.txt || fail "single search"
ranks 3 search "${search[@]}" --all -o all-3.csv >table-3.txt || fail "search on 3 ranks"
cmp table.txt table-3.txt || fail "search table on 3 ranks differs"
cmp all.csv all-3.csv || fail "search --all -o on 3 ranks differs"
# The table alone (out-of-memory rows settled without a replay, the refinement's rounds on rank
# 0) for an MoE model, and a search where nothing fits, whose memory line must not depend on
# which rank evaluated a row.
moe=(--model qwen3-30b-a3b --hardware h100-dgx --gpus 16 --mini-batch 32 --schedule 1f1b,zb-v)
"$P" search "${moe[@]}" -o moe.csv >moe.txt || fail "single MoE search"
ranks 3 search "${moe[@]}" -o moe-3.csv >moe-3.txt || fail "MoE search on 3 ranks"
cmp moe.txt moe-3.txt || fail "MoE search table on 3 ranks differs"
cmp moe.csv moe-3.csv || fail "MoE search winners on 3 ranks differ"
none=(--model llama3.1-405b --hardware h100-dgx --gpus 8 --mini-batch 8 --schedule 1f1b,gpipe)
"$P" search "${none[@]}" >none.txt || fail "single search where nothing fits"
grep -q '^nothing fits: memory binds' none.txt || fail "no binding limit: $(cat none.txt)"
ranks 2 search "${none[@]}" >none-2.txt || fail "search where nothing fits on 2 ranks"
cmp none.txt none-2.txt || fail "the no-fit table on 2 ranks differs"

# Rank 1 sees a data folder without models: the rows it evaluated are invalid, rank 0's are
# not, so both ranks evaluated rows (rank 1 is handed the first block, before rank 0 can finish).
mkdir -p empty/models empty/hardware
ranks_apart PIPESIM_DATA_DIR="$PWD/empty" sweep "${real[@]}" >apart.csv || fail "MPMD sweep"
grep -q "unknown model 'gpt2-1.3b'" apart.csv || fail "rank 1 evaluated no row: $(cat apart.csv)"
[ "$(grep -vc "unknown model" apart.csv)" -ge 2 ] || fail "rank 0 evaluated no row"
grep -v "unknown model" apart.csv | grep -vxqFf real.csv && fail "rank 0's rows differ"
[ "$(wc -l <apart.csv)" = "$(wc -l <real.csv)" ] || fail "rows were lost"
cd .. && rm -rf "$SCRATCH"
echo ok
