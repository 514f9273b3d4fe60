#!/bin/bash
# Device calls 7/8: the staged B-streaming form with a ring of up to four
# stages (one barrier per chunk), every candidate, on the 31 operators a
# staged candidate won in runs 1-3; $1 = d or s.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
P=$1
cd /tmp && gunzip -c $D/.devc/xtask-s.gz > xtask && gunzip -c $D/.devc/gpu_bespoke.gz > gpu_bespoke && chmod +x xtask gpu_bespoke
if [ "$P" = d ]; then GEMMFORGE_REQUIRE_GPU=1 timeout 100 ./gpu_bespoke 2>&1 | tail -3; fi
OPS=hex-p1-gl-grad,hex-p2-gl-grad,hex-p3-gl-grad,hex-p4-gl-gll-interp,hex-p4-gl-grad,hex-p4-gll-gl-interp,hex-p5-gl-grad,hex-p6-gl-grad,line-p6-gl-gll-interp,quad-p2-gl-gll-interp,quad-p2-gl-grad,quad-p3-gl-gll-interp,quad-p3-gll-gl-interp,quad-p4-gl-gll-interp,quad-p4-gl-grad,quad-p4-gll-gl-interp,quad-p6-gl-gll-interp,quad-p6-gl-grad,quad-p6-gll-gl-interp,rand-1000x1000-d0.01,rand-1100x400-d0.01,rand-125x343-d0.01,rand-125x343-d0.10,rand-125x343-d0.50,rand-343x125-d0.01,rand-343x125-d0.50,rand-512x512-d0.01,rand-512x512-d0.10,rand-64x64-d0.10,rand-64x64-d0.50,rand-64x64-d1.00
mkdir -p $OUT/ring-$P
timeout ${2:-540} ./xtask bespoke --set test --precision $P --beta 0 --n 131072 --operator $OPS --out $OUT/ring-$P > $OUT/ring-$P/stdout.txt 2>&1
echo "$P rc=$?"; tail -3 $OUT/ring-$P/stdout.txt
