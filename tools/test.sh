#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build and run every test.
#   tools/test.sh          release build, warnings as errors
#   tools/test.sh asan     the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
tools/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)"
