#!/usr/bin/env bash
# The GPU run of calibration (calibrate/README.md), in one go on a bare GPU node that has only
# the CUDA toolkit (nvcc, cuBLAS; NCCL if installed) and CMake:
#   1. builds calibrate/bench on its own (no Boost, fmt, yaml-cpp needed),
#   2. runs the quick microbenchmarks          -> samples.csv
#   3. runs the transformer-layer benchmark    -> layer_times.csv
# and leaves everything (samples, logs, environment, the commands used) in one folder.
# Budget: under 8 minutes on one H200 (build ~1 min, benchmarks ~3 min + ~1 min).
#
#   tools/gpu-calibrate.sh [--arch sm_80,sm_90] [OUT_DIR]   (default: $OUT, else ./calibration-run)
#   FULL=1 tools/gpu-calibrate.sh DIR       the full benchmark sets instead of --quick
#   BUILD_ONLY=1 tools/gpu-calibrate.sh DIR  only check that calibrate/bench builds (no GPU needed)
#
# --arch: the GPU architectures to compile for (SASS for each, plus PTX of the newest so a newer
# GPU can JIT it). Default: the compute capability of this node's GPUs (nvidia-smi
# --query-gpu=compute_cap); with BUILD_ONLY=1 and no GPU, the CMake default (sm_90).
# Without a GPU (and not BUILD_ONLY) it prints one line and exits 1 before creating anything.
#
# Then, on any machine with a pipesim build:
#   pipesim calibrate --from-samples DIR/samples.csv -o hardware/h200-sxm-calibrated.yaml
#   (the base profile is the shipped one of the GPU the samples name; else give --base)
#   pipesim calibrate layer-check --layer-times DIR/layer_times.csv \
#       --profile hardware/h200-sxm-calibrated.yaml
set -eEuo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { printf 'gpu-calibrate: %s\n' "$*" >&2; exit 1; }  # before the output folder exists

arch=""
positional=()
while (($# > 0)); do
  case "$1" in
    --arch) (($# >= 2)) || die "--arch needs a list, e.g. --arch sm_80,sm_90"; arch="$2"; shift 2 ;;
    --arch=*) arch="${1#--arch=}"; shift ;;
    -h|--help) sed -n '2,/^set -eEuo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (options: --arch sm_80,sm_90; then an output folder)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} <= 1)) || die "one output folder at most, got: ${positional[*]}"

to_cuda_archs() {  # sm_80,sm_90 -> 80-real;90-real;90-virtual (CMAKE_CUDA_ARCHITECTURES syntax)
  local list="" newest="" a
  IFS=, read -r -a arch_list <<< "$1"
  for a in "${arch_list[@]}"; do
    [[ "$a" =~ ^sm_([0-9]+[a-z]?)$ ]] || die "--arch: '$a' is not of the form sm_XY (e.g. sm_80,sm_90)"
    list+="${BASH_REMATCH[1]}-real;"
    newest="$(printf '%s\n%s\n' "$newest" "${BASH_REMATCH[1]}" | sort -V | tail -n 1)"
  done
  [[ -n "$newest" ]] || die "--arch: empty list (e.g. sm_80,sm_90)"
  printf '%s%s-virtual' "$list" "$newest"
}
cuda_archs=""
if [[ -n "$arch" ]]; then cuda_archs="$(to_cuda_archs "$arch")" || exit 1; fi

# Every check that can fail before any measurement runs comes first, so a failure leaves no
# folder behind.
command -v nvcc > /dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] || die "nvcc not found (install the CUDA toolkit or put it on PATH)"
command -v nvcc > /dev/null || export PATH="/usr/local/cuda/bin:$PATH"
command -v cmake > /dev/null || die "cmake not found"
gpu_visible=1
smi_said="$(nvidia-smi -L 2>&1 | head -n 1)" || gpu_visible=0  # its reason is on stdout
command -v nvidia-smi > /dev/null || { gpu_visible=0; smi_said="nvidia-smi not installed"; }
if ((gpu_visible == 0)) && [[ "${BUILD_ONLY:-0}" != "1" ]]; then
  die "no NVIDIA GPU found (nvidia-smi -L: ${smi_said:-failed}); run this on a GPU node, or BUILD_ONLY=1 with --arch to check the build only"
fi
if [[ -z "$cuda_archs" && $gpu_visible == 1 ]]; then
  caps="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | sort -u | paste -sd, -)" \
    || die "cannot query the GPUs' compute capability (nvidia-smi --query-gpu=compute_cap needs driver >= 510); pass --arch sm_XY"
  [[ "$caps" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "unexpected compute capability '$caps' from nvidia-smi; pass --arch sm_XY"
  cuda_archs="$(to_cuda_archs "$(sed 's/\([0-9][0-9]*\)/sm_\1/g' <<< "$caps")")" || exit 1
fi

out="${positional[0]:-${OUT:-$PWD/calibration-run}}"
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

: > "$out/commands.txt"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "pipesim_commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "nvcc: $(nvcc --version | tail -n 1)"
  echo "cmake: $(cmake --version | head -n 1)"
  echo "mode: ${mode_flag:---full}"
  echo "cuda_architectures: ${cuda_archs:-CMake default of calibrate/bench}"
  echo "--- nvidia-smi"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv || true
  nvidia-smi topo -m || true
} > "$out/environment.txt" 2>&1
[[ "${BUILD_ONLY:-0}" == "1" ]] || log "GPUs: $(nvidia-smi -L | wc -l) ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1))"

log "1/3 building calibrate/bench (standalone CMake project) in $build"
jobs="$(nproc 2>/dev/null || echo 4)"
arch_args=()
[[ -n "$cuda_archs" ]] && arch_args=("-DPIPESIM_CUDA_ARCHITECTURES=$cuda_archs")
log "    architectures: ${cuda_archs:-CMake default (90-real;90-virtual)}"
run_logged build-configure 300 cmake -S "$repo/calibrate/bench" -B "$build" -DCMAKE_BUILD_TYPE=Release "${arch_args[@]}"
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
log "  pipesim calibrate --from-samples $out/samples.csv -o calibrated.yaml   # --base PROFILE unless a shipped profile is for this GPU"
log "  pipesim calibrate layer-check --layer-times $out/layer_times.csv --profile calibrated.yaml"
