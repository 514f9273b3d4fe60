#!/bin/bash
# DGEMM, run 57 (H200): run 56's kernels again with B's columns split (an f64 mma taking several
# elements of B loads each into the register it reads: no MOVs in the loop), each with and without
# B's fragments rolling (GF_ROLL=1, the prototype's switch). Lines: 1 the shipped DgemmNT (m16n8k4,
# unchanged); m16n8k16 on warps of 32 x 64: 2 one set, 3 the same rolling, 4 two sets rolling,
# 5 four stages rolling, 6 32 deep rolling; m16n8k8: 7 two sets rolling, 8 the same not rolling,
# 9 one set, 10 32 deep rolling; NN: 11 the shipped DgemmNN, 12 m16n8k16 rolling, 13 m16n8k8 rolling.
# Built from a3636d3 with run56/rolling.patch applied (run 56: before the split columns; runs 56-58:
# before the skew).
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run57/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-dmma/run57/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 8192 --max-size 16384 --sizes 2 --reps 5)
bench() {  # bench LABEL LINE [ROLL]
  if [ -n "${3:-}" ]; then export GF_ROLL=1; else unset GF_ROLL; fi
  timeout 90 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/all.csv
}
bench n1 1
bench n2 2; bench r3 3 1; bench r4 4 1; bench r5 5 1; bench r6 6 1
bench r7 7 1; bench n8 8; bench n9 9; bench r10 10 1
bench n1 1
bench n11 11; bench r12 12 1; bench r13 13 1; bench n11 11
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
