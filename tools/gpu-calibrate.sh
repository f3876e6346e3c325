#!/usr/bin/env bash
# The GPU run of calibration (calibrate/README.md), in one go on a bare GPU node that has only
# the CUDA toolkit (nvcc, cuBLAS; NCCL if installed) and CMake:
#   1. builds calibrate/bench on its own (no Boost, fmt, yaml-cpp needed),
#   2. runs the quick microbenchmarks          -> samples.csv
#   3. runs the transformer-layer benchmark    -> layer_times.csv
# and leaves everything (samples, logs, environment, the commands used) in one folder.
# Budget: under 8 minutes on one H200 (build ~1 min, benchmarks ~3 min + ~1 min).
#
#   tools/gpu-calibrate.sh [OUT_DIR]        (default: $OUT, else ./calibration-run)
#   FULL=1 tools/gpu-calibrate.sh DIR       the full benchmark sets instead of --quick
#   BUILD_ONLY=1 tools/gpu-calibrate.sh DIR  only check that calibrate/bench builds (no GPU needed)
#
# Then, on any machine with a pipesim build:
#   pipesim calibrate --from-samples DIR/samples.csv --base hardware/h200-sxm.yaml \
#       -o hardware/h200-sxm-calibrated.yaml
#   pipesim calibrate layer-check --layer-times DIR/layer_times.csv \
#       --profile hardware/h200-sxm-calibrated.yaml
set -eEuo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-${OUT:-$PWD/calibration-run}}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
build="${BUILD_DIR:-$out/build-bench}"
mode_flag="--quick"
[[ "${FULL:-0}" == "1" ]] && mode_flag=""
started=$SECONDS

log() { printf '[gpu-calibrate %4ds] %s\n' "$((SECONDS - started))" "$*" | tee -a "$out/progress.log" >&2; }
fail() { log "FAILED: $*"; log "logs are in $out"; exit 1; }
trap 'fail "line $LINENO: $BASH_COMMAND (exit $?)"' ERR

run_logged() {  # run_logged NAME TIMEOUT_S CMD...: output to NAME.log, tail shown on failure
  local name="$1" limit="$2"
  shift 2
  printf '%s\n' "$*" >> "$out/commands.txt"
  local rc=0
  timeout "$limit" "$@" > "$out/$name.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    trap - ERR
    tail -n 30 "$out/$name.log" >&2 || true
    [[ $rc -eq 124 ]] && fail "$name exceeded ${limit}s (see $out/$name.log)"
    fail "$name exited with $rc (see $out/$name.log)"
  fi
}

log "output folder: $out"
command -v nvcc > /dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] || fail "nvcc not found (install the CUDA toolkit or put it on PATH)"
command -v nvcc > /dev/null || export PATH="/usr/local/cuda/bin:$PATH"
command -v cmake > /dev/null || fail "cmake not found"
if [[ "${BUILD_ONLY:-0}" != "1" ]]; then
  if ! nvidia-smi -L > /dev/null 2>&1; then fail "no GPU visible (nvidia-smi -L failed)"; fi
fi

: > "$out/commands.txt"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "pipesim_commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "nvcc: $(nvcc --version | tail -n 1)"
  echo "cmake: $(cmake --version | head -n 1)"
  echo "mode: ${mode_flag:---full}"
  echo "--- nvidia-smi"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv || true
  nvidia-smi topo -m || true
} > "$out/environment.txt" 2>&1
[[ "${BUILD_ONLY:-0}" == "1" ]] || log "GPUs: $(nvidia-smi -L | wc -l) ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1))"

log "1/3 building calibrate/bench (standalone CMake project) in $build"
jobs="$(nproc 2>/dev/null || echo 4)"
run_logged build-configure 300 cmake -S "$repo/calibrate/bench" -B "$build" -DCMAKE_BUILD_TYPE=Release
run_logged build 300 cmake --build "$build" -j "$jobs"
log "    built: $(cd "$build" && echo pipesim-*-bench)"
if [[ "${BUILD_ONLY:-0}" == "1" ]]; then
  trap - ERR
  log "BUILD_ONLY=1: stopping after the build"
  exit 0
fi

log "2/3 microbenchmarks ${mode_flag:-(full)}: GEMM, memory, host, peer, NCCL, launch -> samples.csv"
run_logged microbench 420 "$build/pipesim-calibrate-bench" $mode_flag --out "$out/samples.csv"
log "    $(grep -vc '^#' "$out/samples.csv") rows; not measurable here: $(grep -c ',NA,' "$out/samples.csv" || true)"

log "3/3 transformer-layer benchmark ${mode_flag:-(full)} -> layer_times.csv"
run_logged layer-bench 300 "$build/pipesim-layer-bench" $mode_flag --out "$out/layer_times.csv"
log "    $(grep -c ',total,' "$out/layer_times.csv") layer timings"

trap - ERR
log "done in $((SECONDS - started)) s. Results: $out/{samples.csv,layer_times.csv,environment.txt,commands.txt,*.log}"
log "next, on a machine with pipesim:"
log "  pipesim calibrate --from-samples $out/samples.csv --base hardware/h200-sxm.yaml -o hardware/h200-sxm-calibrated.yaml"
log "  pipesim calibrate layer-check --layer-times $out/layer_times.csv --profile hardware/h200-sxm-calibrated.yaml"
