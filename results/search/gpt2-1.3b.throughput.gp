# Written by pipesim. Restyle freely, then rerun `gnuplot gpt2-1.3b.throughput.gp` in this folder.
if (!exists("outfile")) outfile = "gpt2-1.3b.throughput.svg"
datafile = "gpt2-1.3b.throughput.dat"
set terminal svg size 800,500 dynamic enhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set title "gpt2-1.3b, 512 x P100 (Piz Daint), mini-batch 512: best throughput per depth D"
set xlabel "stages"
set ylabel "throughput"
set logscale x 2
set grid
set key outside right top title "schedule"
set style line 1 linewidth 2 pointtype 1 pointsize 1
set style line 2 linewidth 2 pointtype 2 pointsize 1
set style line 3 linewidth 2 pointtype 3 pointsize 1
set style line 4 linewidth 2 pointtype 4 pointsize 1
set style line 5 linewidth 2 pointtype 5 pointsize 1
set style line 6 linewidth 2 pointtype 6 pointsize 1
set style line 7 linewidth 2 pointtype 7 pointsize 1
set style line 8 linewidth 2 pointtype 8 pointsize 1
set style line 9 linewidth 2 pointtype 9 pointsize 1
set style line 10 linewidth 2 pointtype 10 pointsize 1
set style line 11 linewidth 2 pointtype 11 pointsize 1
plot datafile index 0 using 1:2 with linespoints ls 1 title "gpipe", \
     datafile index 1 using 1:2 with linespoints ls 2 title "1f1b", \
     datafile index 2 using 1:2 with linespoints ls 3 title "dapple", \
     datafile index 3 using 1:2 with linespoints ls 4 title "pipedream", \
     datafile index 4 using 1:2 with linespoints ls 5 title "pipedream-2bw", \
     datafile index 5 using 1:2 with linespoints ls 6 title "gems", \
     datafile index 6 using 1:2 with linespoints ls 7 title "chimera", \
     datafile index 7 using 1:2 with linespoints ls 8 title "interleaved", \
     datafile index 8 using 1:2 with linespoints ls 9 title "zb-h1", \
     datafile index 9 using 1:2 with linespoints ls 10 title "zb-h2", \
     datafile index 10 using 1:2 with linespoints ls 11 title "zb-v"
