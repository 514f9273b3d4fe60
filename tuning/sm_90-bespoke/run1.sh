#!/bin/bash
# Device call 1: GPU tests of the bespoke host path, then xtask bespoke on the
# test set in f64 with beta = 0 at n = 2^17 (cuBLAS and a copy in the same run).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
cd /tmp && gunzip -c $OLDPWD/.devc/xtask-s.gz > xtask && gunzip -c $OLDPWD/.devc/gpu_bespoke.gz > gpu_bespoke && chmod +x xtask gpu_bespoke
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv
GEMMFORGE_REQUIRE_GPU=1 timeout 120 ./gpu_bespoke 2>&1 | tail -15
mkdir -p $OUT/d0
timeout ${T:-400} ./xtask bespoke --set test --precision d --beta 0 --n 131072 --out $OUT/d0 > $OUT/d0/stdout.txt 2>&1
echo "xtask rc=$?"
tail -40 $OUT/d0/stdout.txt
