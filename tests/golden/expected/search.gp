# Written by pipesim. Restyle freely, then rerun `gnuplot search.gp` in this folder.
if (!exists("outfile")) outfile = "search.svg"
datafile = "search.dat"
set terminal svg size 800,500 dynamic enhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set title "golden"
set xlabel "stages"
set ylabel "throughput"
set grid
set key outside right top title "schedule"
set style line 1 linewidth 2 pointtype 1 pointsize 1
set style line 2 linewidth 2 pointtype 2 pointsize 1
set style line 3 linewidth 2 pointtype 3 pointsize 1
set style line 4 linewidth 2 pointtype 4 pointsize 1
plot datafile index 0 using 1:2 with linespoints ls 1 title "1f1b", \
     datafile index 1 using 1:2 with linespoints ls 2 title "chimera", \
     datafile index 2 using 1:2 with linespoints ls 3 title "interleaved", \
     datafile index 3 using 1:2 with linespoints ls 4 title "zb-v"
