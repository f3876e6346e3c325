#!/usr/bin/env bash
# Regenerates results/validation/: every published measured run in validation/*.yaml predicted
# by pipesim (`pipesim validate`), as a table with the per-source, per-GPU-generation and overall
# error statistics — median and max |error| and the mean signed error (the bias) — and the tied
# pairs (validation.txt), one CSV row per point (validation.csv), JSON (validation.json), and a
# plot of the error (%) against the run's GPU count (log x) with ±10% and ±30% bands, one panel
# for the speed metrics and one for peak memory, one colour per source, fitted points hollow
# (error-vs-gpus.svg, gnuplot; any gnuplot warning fails the script), and the prediction ranges
# per class of run with their leave-one-source-out coverage (prediction-ranges.txt) and as the
# table every real-cost prediction reads its iteration time range from
# (validation/ranges/prediction-ranges.yaml, shipped).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/pipesim-bin.sh
out=results/validation
mkdir -p "$out"
"$bin" validate validation/*.yaml >"$out/validation.txt"
"$bin" validate validation/*.yaml --format csv -o "$out/validation.csv"
"$bin" validate validation/*.yaml --format json -o "$out/validation.json"
"$bin" validate validation/*.yaml --ranges -o "$out/prediction-ranges.txt"
mkdir -p validation/ranges
"$bin" validate validation/*.yaml --ranges --format yaml -o validation/ranges/prediction-ranges.yaml

# Columns of validation.csv used here: 2 source, 4 fitted, 6 metric, 10 error_percent, 13 gpus.
# Plot data: one block per (panel, source): GPUs, error %, fitted 0/1.
dat="$out/error-vs-gpus.dat"
: >"$dat"
panel_filter() { # $1 = speed | memory: the metrics of that panel
  if [ "$1" = speed ]; then
    echo '$6 != "peak_memory_gib" && $6 != "out_of_memory"'
  else
    echo '$6 == "peak_memory_gib"'
  fi
}
declare -A blocks
index=0
for panel in speed memory; do
  filter=$(panel_filter "$panel")
  sources=$(awk -F, "NR > 1 && \$10 != \"\" && \$13 != \"\" && $filter {print \$2}" \
    "$out/validation.csv" | awk '!seen[$0]++')
  blocks[$panel]=""
  for s in $sources; do
    echo "# $panel $s" >>"$dat"
    awk -F, -v s="$s" "NR > 1 && \$2 == s && \$10 != \"\" && \$13 != \"\" && $filter {
      print \$13, \$10, (\$4 == \"true\") }" "$out/validation.csv" >>"$dat"
    printf '\n\n' >>"$dat"
    blocks[$panel]+="$index:$s "
    index=$((index + 1))
  done
done
# One colour per source across both panels.
all_sources=$(awk -F, 'NR > 1 {print $2}' "$out/validation.csv" | awk '!seen[$0]++')
colour_of() {
  local i=1
  for s in $all_sources; do
    if [ "$s" = "$1" ]; then
      echo "$i"
      return
    fi
    i=$((i + 1))
  done
}
gp="$out/error-vs-gpus.gp"
{
  echo "set terminal svg size 1100,560 dynamic font 'sans,12'"
  echo "set output '$out/error-vs-gpus.svg'"
  echo "set multiplot layout 1,2 title 'pipesim against published measurements: error, + = optimistic (throughput p/m - 1, time and memory 1 - p/m; hollow: fitted points)' noenhanced"
  echo "set logscale x 2"
  echo "set xrange [4:8192]"
  echo "set yrange [-100<*<-40:40<*<100]"
  echo "set xlabel 'GPUs of the run (log scale)' noenhanced"
  echo "set ylabel 'error (%)' noenhanced"
  echo "set grid"
  echo "set key bottom left noenhanced font 'sans,10'"
  for panel in speed memory; do
    if [ "$panel" = speed ]; then
      echo "set title 'speed metrics (throughput, time, TFLOP/s, MFU)' noenhanced"
    else
      echo "set title 'peak memory' noenhanced"
    fi
    printf "plot 0 notitle lw 2 lc rgb 'black', 10 title '±10%%' dt 2 lc rgb 'gray40', -10 notitle dt 2 lc rgb 'gray40', 30 title '±30%%' dt 3 lc rgb 'gray60', -30 notitle dt 3 lc rgb 'gray60'"
    for block in ${blocks[$panel]}; do
      i=${block%%:*}
      s=${block#*:}
      c=$(colour_of "$s")
      printf ", '%s' index %d using 1:(\$3 == 0 ? \$2 : 1/0) with points pt 7 ps 0.7 lc %d title '%s'" "$dat" "$i" "$c" "$s"
      printf ", '%s' index %d using 1:(\$3 == 1 ? \$2 : 1/0) with points pt 6 ps 1.2 lc %d notitle" "$dat" "$i" "$c"
    done
    echo
  done
  echo "unset multiplot"
} >"$gp"
# gnuplot reports warnings on stderr and exits 0: treat any as an error.
if ! gnuplot "$gp" 2>"$out/gnuplot.err" || [ -s "$out/gnuplot.err" ]; then
  cat "$out/gnuplot.err" >&2
  rm -f "$out/gnuplot.err"
  exit 1
fi
rm -f "$out/gnuplot.err"
sed -n '/^|error|/,$p' "$out/validation.txt"
