#!/usr/bin/env bash
# Regenerates results/validation/: every published measured run in validation/*.yaml predicted
# by pipesim (`pipesim validate`), as a table with the per-source and overall error statistics
# (validation.txt), one CSV row per point (validation.csv), JSON (validation.json), and a
# log-log plot of predicted against measured with the y = x line (predicted-vs-measured.svg,
# gnuplot; one colour per source, hollow marks for fitted points).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/validation
mkdir -p "$out"
"$bin" validate validation/*.yaml >"$out/validation.txt"
"$bin" validate validation/*.yaml --format csv -o "$out/validation.csv"
"$bin" validate validation/*.yaml --format json -o "$out/validation.json"

# Plot data: one block per source (measured, predicted, fitted 0/1) of the speed metrics
# (throughput, time, TFLOP/s, MFU: each on its own scale, the diagonal is the same for all).
sources=$(awk -F, 'NR > 1 && $9 != "" && $6 != "peak_memory_gib" && $6 != "out_of_memory" {print $2}' \
  "$out/validation.csv" | awk '!seen[$0]++')
dat="$out/predicted-vs-measured.dat"
: >"$dat"
for s in $sources; do
  echo "# $s" >>"$dat"
  awk -F, -v s="$s" 'NR > 1 && $2 == s && $9 != "" && $6 != "peak_memory_gib" && $6 != "out_of_memory" {
    print $8, $9, ($4 == "true") }' "$out/validation.csv" >>"$dat"
  printf '\n\n' >>"$dat"
done
gp="$out/predicted-vs-measured.gp"
{
  echo "set terminal svg size 760,640 dynamic font 'sans,12'"
  echo "set output '$out/predicted-vs-measured.svg'"
  echo "set title 'pipesim vs published measurements (speed metrics, each in its own unit)' noenhanced"
  echo "set xlabel 'measured (source units: TFLOP/s per GPU, %, s, samples/s)' noenhanced"
  echo "set ylabel 'predicted (same units)' noenhanced"
  echo "set logscale xy"
  echo "set key top left noenhanced"
  echo "set grid"
  echo "set xrange [0.5:2000]"
  echo "set yrange [0.5:2000]"
  echo "f(x) = x"
  printf "plot f(x) title 'y = x' lw 2 lc rgb 'black', 1.3*x title '±30%%' dt 2 lc rgb 'gray', x/1.3 notitle dt 2 lc rgb 'gray'"
  i=0
  for s in $sources; do
    printf ", '%s' index %d using 1:2 with points pt 7 ps 0.8 title '%s'" "$dat" "$i" "$s"
    i=$((i + 1))
  done
  echo
} >"$gp"
gnuplot "$gp"
cat "$out/validation.txt" | sed -n '/^|error|/,$p'
