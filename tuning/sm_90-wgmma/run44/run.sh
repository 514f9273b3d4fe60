#!/bin/bash
# wgmma, run 44 (H200): issue 9's table through the dispatch, as run 31 did on the H100 — SGEMM,
# DGEMM, CGEMM, ZGEMM (the shipped kernels: tf32x3 for S and C, DMMA for D and Z where the tune chose
# it) at 4096, 8192, 16384, every op pair of `--op transposes`, beside cuBLAS in the same process;
# then `xtask accuracy` of run 43's NN 1xTF32 kernel (A's fragments from registers, rounded; B read
# in place, truncated) beside cuBLAS's TF32 GEMM.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run44/run.sh   (x.xz = xtask at this commit)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 420 /tmp/x bench --peak tuning/sm_90-half/run1/out/h/peak.json --precision s,d,c,z --op transposes \
    --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT ) > $OUT/log.txt 2>&1; echo "bench rc $?"
rm -f $OUT/peak.json $OUT/*.svg
python3 tuning/sm_90-wgmma/run23/table.py $OUT/bench.csv
( time timeout 120 /tmp/x accuracy --spec "$(sed -n 1p tuning/sm_90-wgmma/run43/specs.txt)" --sizes 1024,4096 \
    --out $OUT/accuracy ) > $OUT/accuracy.log 2>&1; echo "accuracy rc $?"
rm -f $OUT/accuracy/*.svg
tail -20 $OUT/accuracy.log
