# Written by pipesim. Restyle freely, then rerun `gnuplot gpt2-1.3b.throughput.gp` in this folder.
if (!exists("outfile")) outfile = "gpt2-1.3b.throughput.svg"
datafile = "gpt2-1.3b.throughput.dat"
set terminal svg size 900,560 dynamic noenhanced font 'Helvetica,12' background rgb 'white'
set output outfile
set title "best throughput per pipeline depth D, 512 GPUs, mini-batch 512\ngpt2-1.3b on p100-daint; strategy=direct\nbest (max) of micro_batches, pipelines, chunks, waves, micro_batch_size, data_parallel, recompute, recompute_modules, partition, placement per point\nnot drawn: 89 pruned, 10 invalid (x at the bottom)"
set xlabel "pipeline depth D (stages)"
set ylabel "throughput (samples/s)"
set logscale x 2
set grid
set y2range [0:1]
unset y2tics
set key outside below maxcols 4 title "schedule"
set style line 1 linecolor rgb '#4477aa' dashtype 1 linewidth 2 pointtype 7 pointsize 1.4
set style line 2 linecolor rgb '#ee6677' dashtype 2 linewidth 2 pointtype 5 pointsize 1.3499999999999999
set style line 3 linecolor rgb '#228833' dashtype 3 linewidth 2 pointtype 9 pointsize 1.2999999999999998
set style line 4 linecolor rgb '#ccbb44' dashtype 4 linewidth 2 pointtype 11 pointsize 1.25
set style line 5 linecolor rgb '#66ccee' dashtype 5 linewidth 2 pointtype 13 pointsize 1.2
set style line 6 linecolor rgb '#aa3377' dashtype 1 linewidth 2 pointtype 4 pointsize 1.15
set style line 7 linecolor rgb '#bbbbbb' dashtype 2 linewidth 2 pointtype 6 pointsize 1.4
set style line 8 linecolor rgb '#000000' dashtype 3 linewidth 2 pointtype 8 pointsize 1.3499999999999999
set style line 9 linecolor rgb '#4477aa' dashtype 4 linewidth 2 pointtype 10 pointsize 1.2999999999999998
set style line 10 linecolor rgb '#ee6677' dashtype 5 linewidth 2 pointtype 12 pointsize 1.25
set style line 11 linecolor rgb '#228833' dashtype 1 linewidth 2 pointtype 7 pointsize 1.2
set style line 12 linecolor rgb '#ccbb44' dashtype 2 linewidth 2 pointtype 5 pointsize 1.15
set style line 13 linecolor rgb '#66ccee' dashtype 3 linewidth 2 pointtype 9 pointsize 1.4
set style line 14 linecolor rgb '#aa3377' dashtype 4 linewidth 2 pointtype 11 pointsize 1.3499999999999999
set style line 15 linecolor rgb '#bbbbbb' dashtype 5 linewidth 2 pointtype 13 pointsize 1.2999999999999998
set style line 16 linecolor rgb '#000000' dashtype 1 linewidth 2 pointtype 4 pointsize 1.25
set style line 17 linecolor rgb '#4477aa' dashtype 2 linewidth 2 pointtype 6 pointsize 1.2
plot datafile index 0 using 1:2 with linespoints ls 1 title "gpipe", \
     datafile index 1 using 1:2 with linespoints ls 2 title "1f1b = dapple", \
     datafile index 2 using 1:2 with linespoints ls 3 title "pipedream", \
     datafile index 3 using 1:2 with linespoints ls 4 title "pipedream-2bw", \
     datafile index 4 using 1:2 with linespoints ls 5 title "gems", \
     datafile index 5 using 1:2 with linespoints ls 6 title "chimera", \
     datafile index 6 using 1:2 with linespoints ls 7 title "interleaved = bfs", \
     datafile index 7 using 1:2 with linespoints ls 8 title "zb-h1", \
     datafile index 8 using 1:2 with linespoints ls 9 title "zb-h2", \
     datafile index 9 using 1:2 with linespoints ls 10 title "zb-v", \
     datafile index 10 using 1:2 with linespoints ls 11 title "v-half", \
     datafile index 11 using 1:2 with linespoints ls 12 title "v-min", \
     datafile index 12 using 1:2 with linespoints ls 13 title "hanayo", \
     datafile index 13 using 1:2 with linespoints ls 14 title "bitpipe", \
     datafile index 14 using 1:2 with linespoints ls 15 title "interleaved-zb", \
     keyentry with points ls 16 title "dualpipe (nothing drawn)", \
     keyentry with points ls 17 title "dualpipev (nothing drawn)", \
     datafile index 15 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#4477aa' notitle, \
     datafile index 16 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#ee6677' notitle, \
     datafile index 17 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#228833' notitle, \
     datafile index 18 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#ccbb44' notitle, \
     datafile index 19 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#66ccee' notitle, \
     datafile index 20 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#aa3377' notitle, \
     datafile index 21 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#bbbbbb' notitle, \
     datafile index 22 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#000000' notitle, \
     datafile index 23 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#4477aa' notitle, \
     datafile index 24 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#ee6677' notitle, \
     datafile index 25 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#228833' notitle, \
     datafile index 26 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#ccbb44' notitle, \
     datafile index 27 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#66ccee' notitle, \
     datafile index 28 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#aa3377' notitle, \
     datafile index 29 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#bbbbbb' notitle, \
     datafile index 30 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#000000' notitle, \
     datafile index 31 using 1:2 axes x1y2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb '#4477aa' notitle, \
     keyentry with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb 'black' title "pruned (not drawn)", \
     datafile index 32 using 1:2 axes x1y2 with points pointtype 1 pointsize 1.5 linewidth 2 linecolor rgb '#000000' notitle, \
     datafile index 33 using 1:2 axes x1y2 with points pointtype 1 pointsize 1.5 linewidth 2 linecolor rgb '#4477aa' notitle, \
     keyentry with points pointtype 1 pointsize 1.5 linewidth 2 linecolor rgb 'black' title "invalid (not drawn)"
