# Sourced by the MPI scripts as `. mpi_env.sh SCRATCH PIPESIM SOURCE_DIR MPIEXEC`: the script's
# arguments, fail(), the shipped data, an empty scratch folder SCRATCH as the working directory,
# and `ranks N ARGS...`, which runs pipesim on N ranks and kills the run after 60 s, so a hang
# fails the test instead of stalling the suite.
set -u
SCRATCH="$1"
P="$2"
SRC="$3"
MPIEXEC="$4"
fail() { echo "FAIL: $*"; exit 1; }
export PIPESIM_DATA_DIR="$SRC"
rm -rf "$SCRATCH" && mkdir "$SCRATCH" && cd "$SCRATCH" || exit 1
MPIFLAGS=()
if "$MPIEXEC" --version 2>/dev/null | grep -qiE "open ?mpi|openrte|open-mpi"; then
  # Open MPI: more ranks than the CI machine's 2 cores, CI runs as root, no help banners (a
  # failing run's only stderr is pipesim's line).
  MPIFLAGS=(--oversubscribe --allow-run-as-root -q)
fi
ranks() {
  local n="$1"
  shift
  timeout 60 "$MPIEXEC" "${MPIFLAGS[@]}" -n "$n" "$P" "$@"
}
# Rank 0 as usual, rank 1 with environment ENV (NAME=VALUE): an MPMD launch, for a rank that
# sees other files than rank 0.
ranks_apart() {
  local env="$1"
  shift
  timeout 60 "$MPIEXEC" "${MPIFLAGS[@]}" -n 1 "$P" "$@" : -n 1 env "$env" "$P" "$@"
}
