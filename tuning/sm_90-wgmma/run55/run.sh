#!/bin/bash
# wgmma, run 55 (H200): issue 9's 1xTF32 table in one run, the kernels as this session leaves them
# (51cd50b's binary; the head's PTX for these): NN (run 48's line 3), NT (run 43's line 2), TN (run
# 43's line 4) and TT as the transposed product (run 48's line 1, operands = ba), 128 x 256 x 32,
# three stages, TMA, a producer warpgroup; at 4096, 8192, 16384 beside cuBLAS's TF32 GEMM, two
# rounds in opposite orders.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run55/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-wgmma/run55/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench LABEL LINE
  timeout 60 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/all.csv
}
for l in 1 2 3 4; do bench n$l $l; done
for l in 4 3 2 1; do bench n$l $l; done
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
