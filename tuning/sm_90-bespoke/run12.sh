#!/bin/bash
# Device call 12: split candidates now also where the staged ones do not
# fit (f64 1000x1000-d0.01, 1100x400-d0.01), every candidate.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/xtask-s.xz > xtask && chmod +x xtask
mkdir -p $OUT/split2-d
timeout 250 ./xtask bespoke --set test --precision d --beta 0 --n 131072 --operator rand-1100x400-d0.01,rand-1000x1000-d0.01 --out $OUT/split2-d > $OUT/split2-d/stdout.txt 2>&1
echo "rc=$?"; grep -A4 "^operator  " $OUT/split2-d/bespoke.log | cut -c1-160
