# Written by pipesim. Restyle freely, then rerun `gnuplot search.gp` in this folder.
if (!exists("outfile")) outfile = "search.svg"
datafile = "search.dat"
set terminal svg size 900,560 dynamic noenhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set title "golden\ngpt2-1.3b on p100-daint\nbest (max) of micro_batches, pipelines, chunks, strategy, micro_batch_size, data_parallel, recompute, partition, placement per point\nnot drawn: 5 pruned (x at the bottom)"
set xlabel "pipeline depth D (stages)"
set ylabel "throughput (samples/s)"
set logscale x 2
set grid
set y2range [0:1]
unset y2tics
set key outside right top title "schedule"
set style line 1 linecolor rgb '#4477aa' dashtype 1 linewidth 2 pointtype 7 pointsize 1.4
set style line 2 linecolor rgb '#ee6677' dashtype 2 linewidth 2 pointtype 5 pointsize 1.3499999999999999
set style line 3 linecolor rgb '#228833' dashtype 3 linewidth 2 pointtype 9 pointsize 1.2999999999999998
set style line 4 linecolor rgb '#ccbb44' dashtype 4 linewidth 2 pointtype 11 pointsize 1.25
plot datafile index 0 using 1:2 with linespoints ls 1 title "1f1b", \
     datafile index 1 using 1:2 with linespoints ls 2 title "chimera", \
     datafile index 2 using 1:2 with linespoints ls 3 title "interleaved", \
     datafile index 3 using 1:2 with linespoints ls 4 title "zb-v", \
     datafile index 4 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#4477aa' notitle, \
     datafile index 5 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#ee6677' notitle, \
     datafile index 6 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#228833' notitle, \
     datafile index 7 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#ccbb44' notitle, \
     keyentry with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb 'black' title "pruned (not drawn)"
