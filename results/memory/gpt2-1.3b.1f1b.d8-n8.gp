# Written by pipesim. Restyle freely, then rerun `gnuplot gpt2-1.3b.1f1b.d8-n8.gp` in this folder.
if (!exists("outfile")) outfile = "gpt2-1.3b.1f1b.d8-n8.png"
datafile = "gpt2-1.3b.1f1b.d8-n8.dat"
set terminal pngcairo size 1100,690 noenhanced font 'Helvetica,11' background rgb 'white'
set output outfile
set title "memory per worker over time\n1f1b, D=8 N=8 B=1 W=1, gpt2-1.3b on p100-daint"
set xlabel "time (s)"
set ylabel "memory held (GiB)"
set xrange [0:3.3103681397516134]
set grid
set yrange [0:*]
set key outside right top
set style line 1 linecolor rgb '#4477aa' dashtype 1 linewidth 2 pointtype 7 pointsize 1.4
set style line 2 linecolor rgb '#ee6677' dashtype 2 linewidth 2 pointtype 5 pointsize 1.3499999999999999
set style line 3 linecolor rgb '#228833' dashtype 3 linewidth 2 pointtype 9 pointsize 1.2999999999999998
set style line 4 linecolor rgb '#ccbb44' dashtype 4 linewidth 2 pointtype 11 pointsize 1.25
set style line 5 linecolor rgb '#66ccee' dashtype 5 linewidth 2 pointtype 13 pointsize 1.2
set style line 6 linecolor rgb '#aa3377' dashtype 1 linewidth 2 pointtype 4 pointsize 1.15
set style line 7 linecolor rgb '#bbbbbb' dashtype 2 linewidth 2 pointtype 6 pointsize 1.4
set style line 8 linecolor rgb '#000000' dashtype 3 linewidth 2 pointtype 8 pointsize 1.3499999999999999
set yrange [0:18.284185791015624]
plot datafile index 0 using 1:2 with steps ls 1 title "worker 0", \
     datafile index 1 using 1:2 with steps ls 2 title "worker 1", \
     datafile index 2 using 1:2 with steps ls 3 title "worker 2", \
     datafile index 3 using 1:2 with steps ls 4 title "worker 3", \
     datafile index 4 using 1:2 with steps ls 5 title "worker 4", \
     datafile index 5 using 1:2 with steps ls 6 title "worker 5", \
     datafile index 6 using 1:2 with steps ls 7 title "worker 6", \
     datafile index 7 using 1:2 with steps ls 8 title "worker 7", \
     15.8992919921875 with lines linewidth 2 dashtype 2 linecolor rgb '#cc3311' title "GPU memory"
