#!/bin/bash
# wgmma, run 34: does 1xTF32 TN 128 x 256 (both operands read in place) wait on the copies' latency? The
# same spec with a ring of 2, 3 and 4 (copies 1, 2 and 3 stripes ahead), benched at 4096, 8192 and
# 16384 beside cuBLAS's TF32 GEMM in the same process. x.xz = xtask at 2fc6ec5.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run34/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
base=$(sed -n 7p tuning/sm_90-wgmma/run29/specs.txt)
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
for s in 2 3 4; do
  spec=$(echo "$base" | sed "s/stages = 4/stages = $s/")
  timeout 100 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$s > /dev/null 2>&1 || echo "bench $s rc $?"
  tail -n +2 /tmp/b/$s/bench.csv | sed "s/^/$s,/" >> $OUT/all.csv
done
head -1 /tmp/b/4/bench.csv | sed 's/^/stages,/' > $OUT/header.csv
python3 tuning/sm_90-wgmma/run29/table.py $OUT/all.csv
