set terminal pngcairo size 1100,1140 font 'sans,10'
set output "docs/bitmap/bitmap-models-paper.png"
$cost << EOD
0 "ornic" 1 0 1 0
1 "melo+" 1.78085 0.000527263 7.62334 0.00278207
2 "left" 1.3304 0.000260351 5.51242 0.00558119
3 "left+" 1.3304 0.000260351 1.67465 0.000729828
EOD
$blocks << EOD
0 "ornic" 4 0 5 0
1 "melo+" 4 0 20 0
2 "left" 4 0 20 0
3 "left+" 4 0 20 0
EOD
$empty << EOD
qps "ornic" "melo+" "left" "left+"
64 0 0 0 0
128 0 0 0 0
256 0 10354.9 10354.9 10354.9
512 0 95693.4 95693.4 95693.4
768 0 253406 253406 253406
1024 238394 484095 484095 484095
2048 2.1904e+06 2.24955e+06 2.24955e+06 2.24955e+06
EOD
$aborted << EOD
qps "ornic" "melo+" "left" "left+"
64 0 0 0 0
128 0 0 0 0
256 0 0 0 0
512 0 0 0 0
768 0 0 0 0
1024 0 0 0 0
2048 1053.5 130.25 130.25 130.25
EOD
$det << EOD
diff_us delay_us false "otd16"
2 5.51596 0 "otd16"
5 3.1997 0 "otd16"
10 3.9531 279.438 "otd16"
20 4.04663 347.888 "otd16"
40 9.09638 374.823 "otd16"


diff_us delay_us false "otd32"
2 10.8641 0 "otd32"
5 8.61507 0 "otd32"
10 7.61439 0 "otd32"
20 6.10674 291.16 "otd32"
40 9.62895 343.687 "otd32"


diff_us delay_us false "otd64"
2 21.5597 0 "otd64"
5 19.5115 0 "otd64"
10 19.012 0 "otd64"
20 13.0449 0 "otd64"
40 16.0445 287.424 "otd64"


diff_us delay_us false "otd128"
2 42.9677 0 "otd128"
5 41.019 0 "otd128"
10 39.9517 0 "otd128"
20 34.4697 0 "otd128"
40 24.1197 0 "otd128"


diff_us delay_us false "shift1024"
2 170.597 0 "shift1024"
5 168.715 0 "shift1024"
10 168.116 0 "shift1024"
20 162.083 0 "shift1024"
40 151.499 0 "shift1024"
EOD
set multiplot layout 3,2
set style fill solid 0.6 border -1
set boxwidth 0.35
set grid ytics
set xrange [-0.6:3.6]
set key top left
set title 'Access cost per out-of-order packet (mean, sd over seeds)'
set ylabel 'pointer accesses (per-QP entry free)'
set yrange [0:*]
plot $cost using ($1-0.18):3:4:xtic(2) with boxerrorbars title 'no loss', $cost using ($1+0.18):5:6 with boxerrorbars title 'loss'
set title 'Most blocks one QP held (per-seed maximum: mean, sd)'
set ylabel 'blocks'
plot $blocks using ($1-0.18):3:4:xtic(2) with boxerrorbars title 'no loss', $blocks using ($1+0.18):5:6 with boxerrorbars title 'loss'
unset xrange
unset xtics
set xtics
set logscale x 2
set key autotitle columnhead
set title 'Pool exhaustion with loss (pool 4096): arrivals finding it empty'
set xlabel 'QPs at once'
set ylabel 'arrivals (mean over seeds)'
plot for [i=2:5] $empty using 1:i with linespoints lw 2
set title 'WQEs aborted (a packet dropped 7 times)'
set ylabel 'WQEs (mean over seeds)'
plot for [i=2:5] $aborted using 1:i with linespoints lw 2
unset logscale x
set key autotitle center right
set xlabel 'path delay difference (us)'
set title 'Loss detection delay'
set ylabel 'us after the would-be arrival'
set yrange [*:*]
plot for [i=0:*] $det index i using 1:2 with linespoints lw 2 title columnhead(4)
set title 'False alarms (late packets declared lost)'
set ylabel 'per 1000 arrivals'
plot for [i=0:*] $det index i using 1:3 with linespoints lw 2 title columnhead(4)
unset multiplot
