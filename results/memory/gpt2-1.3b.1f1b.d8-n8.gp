# Written by pipesim. Restyle freely, then rerun `gnuplot gpt2-1.3b.1f1b.d8-n8.gp` in this folder.
if (!exists("outfile")) outfile = "gpt2-1.3b.1f1b.d8-n8.png"
datafile = "gpt2-1.3b.1f1b.d8-n8.dat"
set terminal pngcairo size 1000,625 enhanced font 'Helvetica,11'
set output outfile
set title "gpt2-1.3b, 1f1b, D=8 N=8 B=1, p100-daint: memory per worker over time"
set xlabel "time (s)"
set ylabel "memory (GiB)"
set grid
set key outside right top
set yrange [0:*]
set yrange [0:18.4]
plot datafile index 0 using 1:2 with steps linewidth 2 title "worker 0", \
     datafile index 1 using 1:2 with steps linewidth 2 title "worker 1", \
     datafile index 2 using 1:2 with steps linewidth 2 title "worker 2", \
     datafile index 3 using 1:2 with steps linewidth 2 title "worker 3", \
     datafile index 4 using 1:2 with steps linewidth 2 title "worker 4", \
     datafile index 5 using 1:2 with steps linewidth 2 title "worker 5", \
     datafile index 6 using 1:2 with steps linewidth 2 title "worker 6", \
     datafile index 7 using 1:2 with steps linewidth 2 title "worker 7", \
     16 with lines linewidth 2 dashtype 2 linecolor rgb '#cc3311' title "GPU memory"
