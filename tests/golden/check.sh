#!/usr/bin/env bash
# The golden test: reruns tools/make-golden.sh into a scratch folder and compares it with
# tests/golden/expected/ (tests/golden/compare.py: CSVs by schema column, JSON by key, the rest
# byte for byte). After an intended change of outputs, regenerate with tools/make-golden.sh and
# review the diff. Usage: tests/golden/check.sh path/to/pipesim
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$root/tools/make-golden.sh" "$1" "$scratch/out"
/usr/bin/python3 "$root/tests/golden/compare.py" "$root/docs/schema/pipesim-output.schema.json" \
  "$root/tests/golden/expected" "$scratch/out"
