#!/usr/bin/env bash
# Installs the Debian 12 packages pipesim builds with, only those missing. Idempotent and quiet
# when everything is present. Uses sudo when not root.
set -euo pipefail

packages=(
  cmake g++ make
  libboost-graph-dev libfmt-dev libcli11-dev libyaml-cpp-dev libeigen3-dev nlohmann-json3-dev
  libtomlplusplus-dev               # torchtitan job configs (TOML)
  zlib1g-dev                        # profiler traces (.json.gz)
  libgtest-dev libbenchmark-dev gnuplot-nox
  python3-dev python3-pybind11      # the Python bindings
  python3-venv python3-pip python3-setuptools python3-wheel  # pip install . (pyproject.toml)
  libopenmpi-dev openmpi-bin        # MPI
  clang libclang-rt-14-dev          # the asan preset: sanitized tests and libFuzzer harnesses
  help2man                          # the man page, generated from `pipesim --help`
  python3-jsonschema                # tests: outputs validate against docs/schema/
  graphviz                          # tests: dot lays out simulate --export-dot graphs
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
