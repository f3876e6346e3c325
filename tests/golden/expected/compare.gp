# Written by pipesim. Restyle freely, then rerun `gnuplot compare.gp` in this folder.
if (!exists("outfile")) outfile = "compare.svg"
datafile = "compare.dat"
set terminal svg size 800,500 dynamic enhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set title "best iteration_time per micro_batches"
set xlabel "micro batches"
set ylabel "iteration time"
set grid
set key outside right top title "schedule"
set style line 1 linewidth 2 pointtype 1 pointsize 1
set style line 2 linewidth 2 pointtype 2 pointsize 1
plot datafile index 0 using 1:2 with linespoints ls 1 title "gpipe", \
     datafile index 1 using 1:2 with linespoints ls 2 title "1f1b"
