# Written by pipesim. Restyle freely, then rerun `gnuplot compare.gp` in this folder.
if (!exists("outfile")) outfile = "compare.svg"
datafile = "compare.dat"
set terminal svg size 900,560 dynamic noenhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set title "best iteration_time per micro_batches\nunit-cost mode; best (min) of stages per point"
set xlabel "micro-batches per iteration N"
set ylabel "iteration time (slots)"
set logscale x 2
set grid
set key outside right top title "schedule"
set style line 1 linecolor rgb '#4477aa' dashtype 1 linewidth 2 pointtype 7 pointsize 1.4
plot datafile index 0 using 1:2 with linespoints ls 1 title "gpipe = 1f1b"
