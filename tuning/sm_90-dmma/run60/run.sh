#!/bin/bash
# DGEMM, run 60 (H200): with run 59's skew, m16n8k16 kernels whose odd body (one step a stripe)
# loads the next stripe's fragments into the other set during its last block of products and moves
# them back (GF_ROLL=1). Lines: 1 the shipped DgemmNT (m16n8k4); 2 k16 one set rolling; 3 k16 two
# sets rolling; 4 the same, raster 16; 5 k8 two sets rolling; NN: 6 the shipped DgemmNN, 7 k16 one
# set, 8 k16 two sets. Each at 8192 and 16384 beside cuBLAS DGEMM, the shipped kernels twice.
# Built from a3636d3 with run56/rolling.patch applied (run 56: before the split columns; runs 56-58:
# before the skew).
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run60/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-dmma/run60/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 8192 --max-size 16384 --sizes 2 --reps 5)
bench() {  # bench LABEL LINE [ROLL]
  if [ -n "${3:-}" ]; then export GF_ROLL=1; else unset GF_ROLL; fi
  timeout 90 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/all.csv
}
bench n1 1; bench r2 2 1; bench r3 3 1; bench r4 4 1; bench r5 5 1; bench n1 1
bench n6 6; bench r7 7 1; bench r8 8 1; bench n6 6
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
