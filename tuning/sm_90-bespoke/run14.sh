#!/bin/bash
# Device call 14: every candidate (bsplit included) on the mid-size
# operators whose rows one thread cannot hold, f64 then f32.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/xtask-s.xz > xtask && chmod +x xtask
mkdir -p $OUT/split4-d $OUT/split4-s
timeout 170 ./xtask bespoke --set test --precision d --beta 0 --n 131072 --operator hex-p2-gl-grad,quad-p6-gl-grad,hex-p3-gl-grad,hex-p4-gl-grad,hex-p4-gl-gll-interp,rand-343x125-d0.01,rand-343x125-d0.10,rand-125x343-d0.50 --out $OUT/split4-d > $OUT/split4-d/stdout.txt 2>&1
echo "d rc=$?"; grep -A9 "^operator  " $OUT/split4-d/bespoke.log | cut -c1-160
timeout 130 ./xtask bespoke --set test --precision s --beta 0 --n 131072 --operator hex-p3-gl-grad,hex-p4-gl-grad,rand-343x125-d0.01,rand-343x125-d0.10,rand-343x125-d0.50 --out $OUT/split4-s > $OUT/split4-s/stdout.txt 2>&1
echo "s rc=$?"; grep -A6 "^operator  " $OUT/split4-s/bespoke.log | cut -c1-160
