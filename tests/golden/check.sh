#!/usr/bin/env bash
# The golden test: reruns tools/make-golden.sh into a scratch folder and compares every file
# with tests/golden/expected/ byte for byte. After an intended change of outputs, regenerate
# with tools/make-golden.sh and review the diff. Usage: tests/golden/check.sh path/to/pipesim
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$root/tools/make-golden.sh" "$1" "$scratch/out"
diff -r "$root/tests/golden/expected" "$scratch/out"
