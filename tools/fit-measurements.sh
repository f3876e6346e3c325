#!/usr/bin/env bash
# Fits every published-measurement samples file calibrate/measurements/*.csv through
# `pipesim calibrate --from-samples` against the shipped profile of its GPU (the file name's
# prefix: h800 -> h800-dgx, h100 -> h100-dgx, b200 -> b200-dgx), writing
# results/calibration/measured/<name>.yaml (+ .samples.csv beside it, + <name>.json: the fit's
# report as JSON, <name>.txt: as text) and results/calibration/measured/comparison.md
# (tools/compare-measurements.py, which reads the fitted values from the JSON).
# Run from the repository root; PIPESIM=path/to/pipesim to use a given build.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/pipesim-bin.sh
out=results/calibration/measured
mkdir -p "$out"
python3 calibrate/measurements/make_measurements.py >/dev/null
# A non-zero exit is reported, not fatal: the comparison checks that every report parses.
fit() {
  "$bin" calibrate --from-samples "$csv" --base "$base" "$@" ||
    echo "fit-measurements: pipesim exited with status $? ($name${*:+ $*})" >&2
}
for csv in calibrate/measurements/*.csv; do
  name=$(basename "$csv" .csv)
  case "$name" in
    h800-*) base=h800-dgx ;;
    h100-*) base=h100-dgx ;;
    b200-*) base=b200-dgx ;;
    *) echo "fit-measurements: no base profile for $name" >&2; exit 1 ;;
  esac
  echo "== $name (base $base)"
  fit > "$out/$name.txt"
  grep -v "kept from base" "$out/$name.txt"
  fit --format json > "$out/$name.json"
  fit -o "$out/$name.yaml" > /dev/null   # the calibrated profile (the JSON has every fitted value)
done
python3 tools/compare-measurements.py "$out" > "$out/comparison.md"
echo "wrote $out/*.yaml, *.json, comparison.md"
