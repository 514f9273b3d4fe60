#!/bin/bash
# Issue 10 experiment: A's f64 values in the constant bank (GEMMFORGE_EXPERIMENT_CONST_A) against immediates, same binary, same run.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/xtask-c.xz > xtask && chmod +x xtask
OPS=quad-p6-gl-gll-interp,rand-64x64-d0.50,hex-p3-gl-gll-interp,hex-p4-gl-gll-interp,rand-125x343-d0.10,hex-p5-gl-grad,rand-512x512-d0.01
mkdir -p $OUT/imm $OUT/const
timeout 280 ./xtask bespoke --set test --precision d --beta 0 --n 131072 --operator $OPS --out $OUT/imm > $OUT/imm/stdout.txt 2>&1
echo "imm rc=$?"
GEMMFORGE_EXPERIMENT_CONST_A=1 timeout 280 ./xtask bespoke --set test --precision d --beta 0 --n 131072 --operator $OPS --out $OUT/const > $OUT/const/stdout.txt 2>&1
echo "const rc=$?"
for m in imm const; do echo "== $m"; grep -A9 "^operator  " $OUT/$m/bespoke.log | cut -c1-170; done
