set terminal svg size 1100,560 dynamic font 'sans,12'
set output 'results/validation/error-vs-gpus.svg'
set multiplot layout 1,2 title 'pipesim against published measurements: error = predicted / measured - 1 (hollow: fitted points)' noenhanced
set logscale x 2
set xrange [4:8192]
set yrange [-100<*<-40:40<*<100]
set xlabel 'GPUs of the run (log scale)' noenhanced
set ylabel 'error (%)' noenhanced
set grid
set key bottom left noenhanced font 'sans,10'
set title 'speed metrics (throughput, time, TFLOP/s, MFU)' noenhanced
plot 0 notitle lw 2 lc rgb 'black', 10 title '±10%' dt 2 lc rgb 'gray40', -10 notitle dt 2 lc rgb 'gray40', 30 title '±30%' dt 3 lc rgb 'gray60', -30 notitle dt 3 lc rgb 'gray60', 'results/validation/error-vs-gpus.dat' index 0 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 1 title 'chimera', 'results/validation/error-vs-gpus.dat' index 0 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 1 notitle, 'results/validation/error-vs-gpus.dat' index 1 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 2 title 'korthikanti', 'results/validation/error-vs-gpus.dat' index 1 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 2 notitle, 'results/validation/error-vs-gpus.dat' index 2 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 3 title 'megatron-core', 'results/validation/error-vs-gpus.dat' index 2 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 3 notitle, 'results/validation/error-vs-gpus.dat' index 3 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 4 title 'narayanan', 'results/validation/error-vs-gpus.dat' index 3 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 4 notitle, 'results/validation/error-vs-gpus.dat' index 4 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 5 title 'vocabulary-parallelism', 'results/validation/error-vs-gpus.dat' index 4 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 5 notitle, 'results/validation/error-vs-gpus.dat' index 5 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 6 title 'zero-bubble', 'results/validation/error-vs-gpus.dat' index 5 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 6 notitle
set title 'peak memory' noenhanced
plot 0 notitle lw 2 lc rgb 'black', 10 title '±10%' dt 2 lc rgb 'gray40', -10 notitle dt 2 lc rgb 'gray40', 30 title '±30%' dt 3 lc rgb 'gray60', -30 notitle dt 3 lc rgb 'gray60', 'results/validation/error-vs-gpus.dat' index 6 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 5 title 'vocabulary-parallelism', 'results/validation/error-vs-gpus.dat' index 6 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 5 notitle, 'results/validation/error-vs-gpus.dat' index 7 using 1:($3 == 0 ? $2 : 1/0) with points pt 7 ps 0.7 lc 6 title 'zero-bubble', 'results/validation/error-vs-gpus.dat' index 7 using 1:($3 == 1 ? $2 : 1/0) with points pt 6 ps 1.2 lc 6 notitle
unset multiplot
