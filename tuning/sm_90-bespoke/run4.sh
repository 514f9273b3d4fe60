#!/bin/bash
# Device call 4: the dense fallback with every shipped kernel (after the
# change above) on the operators it serves or nearly wins: at most 2
# bespoke candidates each (the dense candidates are all timed), f64 and f32.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && gunzip -c $D/.devc/xtask-s.gz > xtask && gunzip -c $D/.devc/gpu_bespoke.gz > gpu_bespoke && chmod +x xtask gpu_bespoke
GEMMFORGE_REQUIRE_GPU=1 timeout 100 ./gpu_bespoke 2>&1 | tail -4
OPS=rand-512x512-d0.50,rand-512x512-d1.00,rand-1000x1000-d0.01,rand-1000x1000-d0.10,rand-1000x1000-d0.50,rand-1000x1000-d1.00,rand-1100x400-d0.01,rand-1100x400-d0.10,rand-1100x400-d0.50,rand-1100x400-d1.00,hex-p6-gl-gll-interp,hex-p6-gll-gl-interp,hex-p5-gl-gll-interp,hex-p4-gl-gll-interp,hex-p3-gl-gll-interp,rand-125x343-d1.00,rand-343x125-d1.00
for P in d s; do
  mkdir -p $OUT/dense-$P
  timeout 170 ./xtask bespoke --set test --precision $P --beta 0 --n 131072 --max-candidates 2 --operator $OPS --out $OUT/dense-$P > $OUT/dense-$P/stdout.txt 2>&1
  echo "$P rc=$?"; tail -2 $OUT/dense-$P/stdout.txt
done
