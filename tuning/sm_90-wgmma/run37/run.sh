#!/bin/bash
# wgmma, run 37: xtask accuracy of run 36's TN TMA kernel (128x256, specs.txt line 4 of run36) beside
# cuBLAS's TF32 GEMM on the same inputs, n = 1024, 4096, 16384, four distributions: the TMA lands
# the f32 bits as they are, so the tensor cores truncate them as with run 29's in-place reads.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run37/run.sh   (x.xz = xtask of run 36)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
spec=$(sed -n 4p tuning/sm_90-wgmma/run36/specs.txt)
( time timeout 300 /tmp/x accuracy --spec "$spec" --out $OUT/accuracy ) > $OUT/accuracy.log 2>&1; echo "accuracy rc $?"
tail -30 $OUT/accuracy.log
