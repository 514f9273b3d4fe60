#!/bin/bash
# Device call 13: the same for hex-p6-gl-grad (f64), which run 11 measured
# before the fix, without split candidates.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/xtask-s.xz > xtask && chmod +x xtask
mkdir -p $OUT/split3-d
timeout 250 ./xtask bespoke --set test --precision d --beta 0 --n 131072 --operator hex-p6-gl-grad --out $OUT/split3-d > $OUT/split3-d/stdout.txt 2>&1
echo "rc=$?"; grep -A4 "^operator  " $OUT/split3-d/bespoke.log | cut -c1-160
