#!/bin/bash
# DGEMM, run 56 (H200): B's fragments rolling block by block (prototype, the environment variable
# GF_ROLL=1 read by the code generator when a --spec is compiled at run time). The shipped DgemmNT
# (line 1, m16n8k4, two sets, not rolling) against rolling kernels on warps of 32 x 64 (cuBLAS's NT
# 16384 kernel's shape): m16n8k16 with one set (2, 4: four stages, 5: 32 deep) or two (3), m16n8k8
# (6-9), m16n8k4 (10, 11); NN: the shipped DgemmNN (12) against 13, 14. Each at 8192 and 16384
# beside cuBLAS DGEMM; the shipped kernels twice, first and last.
# Built from a3636d3 with run56/rolling.patch applied (run 56: before the split columns; runs 56-58:
# before the skew).
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run56/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-dmma/run56/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 8192 --max-size 16384 --sizes 2 --reps 5)
bench() {  # bench LABEL LINE [ROLL]
  if [ -n "${3:-}" ]; then export GF_ROLL=1; else unset GF_ROLL; fi
  timeout 90 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/all.csv
}
bench n1 1
for l in 2 3 4 5 6 7 8 9 10 11; do bench r$l $l 1; done
bench n1 1
bench n12 12; bench r13 13 1; bench r14 14 1; bench n12 12
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
