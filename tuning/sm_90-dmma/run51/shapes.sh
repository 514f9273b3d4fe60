#!/bin/bash
# DGEMM, run 51's third call (H200): the mma shape of DgemmNT at 8192 and 16384 — the shipped m16n8k4
# kernel (specs-k.txt line 1) beside m16n8k8 with one fragment set, warps (2, 4) and (4, 2) (lines 2,
# 3: 214-222 registers, no spill), and m16n8k16 with one set (lines 4, 5: 255 registers, 108 bytes of
# spill stores and loads: `cargo xtask ptxas --arch sm_90 --spec ...`), as cuBLAS's NT 16384 kernel is m16n8k16 on warps of 32 x 64. Two rounds.
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run51/shapes.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-dmma/run51/specs-k.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 8192 --max-size 16384 --sizes 2 --reps 5)
bench() {  # bench LABEL LINE
  timeout 90 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/shapes.csv
}
for l in 1 2 3 4 5; do bench n$l $l; done
for l in 5 4 3 2 1; do bench n$l $l; done
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/shapes.csv | tee $OUT/shapes-table.txt
