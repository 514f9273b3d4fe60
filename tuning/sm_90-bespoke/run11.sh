#!/bin/bash
# Device call 11: rows split over blocks (family = bsplit) beside every
# other candidate on the large sparse operators, f64 then f32.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/xtask-s.xz > xtask && chmod +x xtask
OPS=rand-512x512-d0.01,rand-512x512-d0.10,rand-1100x400-d0.01,rand-1000x1000-d0.01,hex-p5-gl-grad,hex-p6-gl-grad,rand-343x125-d0.01,rand-125x343-d0.10
for P in d s; do
  mkdir -p $OUT/split-$P
  timeout ${T:-270} ./xtask bespoke --set test --precision $P --beta 0 --n 131072 --operator $OPS --out $OUT/split-$P > $OUT/split-$P/stdout.txt 2>&1
  echo "$P rc=$?"; grep -A10 "^operator  " $OUT/split-$P/bespoke.log | cut -c1-160
done
