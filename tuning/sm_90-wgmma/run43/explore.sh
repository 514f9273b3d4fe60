#!/bin/bash
# wgmma, run 43's exploration: how deep A's fragments must be prefetched. explore.txt: 1 NN 128 x 128,
# 2 TN 128 x 128 (both operands read by wgmma in place, for reference), 3 NN 128 x 256 (specs.txt
# line 1). Binary x.xz (candidates aI): two sets of fragment registers, one group in flight, step
# k + 1's fragment loaded after step k's wait (`FRAGMENT_SETS = 2`, `FRAGMENT_GROUPS = 1` in
# stencil/wgmma.rs); xb.xz (bI): four sets, two groups in flight, loaded before step k's wgmma (the
# same source with `FRAGMENT_SETS = 4`, `FRAGMENT_GROUPS = 2`; at 128 x 256 ptxas serializes it,
# C7512). Benched at 4096, 8192, 16384 beside cuBLAS's TF32 GEMM, two rounds in opposite orders.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run43/explore.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/e
for x in x xb; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run43
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $D/explore.txt)" "${P[@]}" --out /tmp/e/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/e/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/explore.csv
}
timeout 60 /tmp/xb verify --gpu --spec "$(sed -n 1p $D/explore.txt)" --shapes quick 2>&1 | grep summary
bench x a1 1; bench xb b1 1; bench x a2 2; bench x a3 3; bench xb b3 3
bench xb b3 3; bench x a3 3; bench x a2 2; bench xb b1 1; bench x a1 1
python3 $D/table.py $D/explore.txt $OUT/explore.csv | tee $OUT/explore.txt
