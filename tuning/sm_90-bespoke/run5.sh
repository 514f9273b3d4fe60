#!/bin/bash
# Device call 5/6: the tensor-core form with B staged through shared memory
# (all candidates of every form, and the dense GEMM) on the mid-size operators.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
P=$1
cd /tmp && gunzip -c $D/.devc/xtask-s.gz > xtask && gunzip -c $D/.devc/gpu_bespoke.gz > gpu_bespoke && chmod +x xtask gpu_bespoke
if [ "$P" = d ]; then GEMMFORGE_REQUIRE_GPU=1 timeout 100 ./gpu_bespoke 2>&1 | tail -4; fi
OPS=quad-p5-gl-gll-interp,quad-p6-gl-gll-interp,hex-p3-gl-gll-interp,rand-64x64-d0.50,rand-64x64-d1.00,hex-p4-gl-gll-interp,rand-125x343-d0.10,rand-125x343-d0.50,rand-125x343-d1.00,rand-343x125-d0.10,rand-343x125-d0.50,rand-343x125-d1.00,hex-p5-gl-gll-interp,hex-p5-gl-grad,hex-p6-gl-grad
mkdir -p $OUT/mid-$P
timeout ${2:-500} ./xtask bespoke --set test --precision $P --beta 0 --n 131072 --operator $OPS --out $OUT/mid-$P > $OUT/mid-$P/stdout.txt 2>&1
echo "$P rc=$?"; tail -3 $OUT/mid-$P/stdout.txt
