set terminal svg size 760,640 dynamic font 'sans,12'
set output 'results/validation/predicted-vs-measured.svg'
set title 'pipesim vs published measurements (speed metrics, each in its own unit)' noenhanced
set xlabel 'measured (source units: TFLOP/s per GPU, %, s, samples/s)' noenhanced
set ylabel 'predicted (same units)' noenhanced
set logscale xy
set key top left noenhanced
set grid
set xrange [0.5:2000]
set yrange [0.5:2000]
f(x) = x
plot f(x) title 'y = x' lw 2 lc rgb 'black', 1.3*x title '±30%' dt 2 lc rgb 'gray', x/1.3 notitle dt 2 lc rgb 'gray', 'results/validation/predicted-vs-measured.dat' index 0 using 1:2 with points pt 7 ps 0.8 title 'chimera', 'results/validation/predicted-vs-measured.dat' index 1 using 1:2 with points pt 7 ps 0.8 title 'dgxc-benchmarking', 'results/validation/predicted-vs-measured.dat' index 2 using 1:2 with points pt 7 ps 0.8 title 'korthikanti', 'results/validation/predicted-vs-measured.dat' index 3 using 1:2 with points pt 7 ps 0.8 title 'megatron-core', 'results/validation/predicted-vs-measured.dat' index 4 using 1:2 with points pt 7 ps 0.8 title 'narayanan', 'results/validation/predicted-vs-measured.dat' index 5 using 1:2 with points pt 7 ps 0.8 title 'nemo', 'results/validation/predicted-vs-measured.dat' index 6 using 1:2 with points pt 7 ps 0.8 title 'nemo-long-sequence', 'results/validation/predicted-vs-measured.dat' index 7 using 1:2 with points pt 7 ps 0.8 title 'vocabulary-parallelism', 'results/validation/predicted-vs-measured.dat' index 8 using 1:2 with points pt 7 ps 0.8 title 'zero-bubble'
