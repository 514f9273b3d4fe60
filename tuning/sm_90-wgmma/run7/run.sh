#!/bin/bash
# wgmma, run 7: tf32x3 products joined to C every 4 stripes (JOIN_STRIPES), the shipped kernels:
# verify on every ragged shape, the square sweep of the default dispatch, accuracy NN and TT.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
exec > >(tee $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
K=sm_90::SgemmNN,sm_90::SgemmNT,sm_90::SgemmNC,sm_90::SgemmTN,sm_90::SgemmTT,sm_90::SgemmTC,sm_90::SgemmCN,sm_90::SgemmCT,sm_90::SgemmCC
echo "=== verify --gpu --kernel (the shipped wgmma kernels) --shapes full --perf 8192"
timeout 170 /tmp/x verify --gpu --precision s --kernel $K --shapes full --perf 8192 2>&1 | tail -14
echo "=== bench, default dispatch, square"
timeout 170 /tmp/x bench --precision s --op transposes --sweep square --min-size 2048 --max-size 16384 --sizes 4 --out /tmp/b 2>&1 | grep -E "square|^kernel" | head -20
cp /tmp/b/bench.csv $OUT/bench.csv
for o in "N, N|(32, 8)|(8, 32)" "T, T|(8, 32)|(32, 8)"; do IFS='|' read op la lb <<< "$o"
  S="precision = f32, op = ($op), tile = (128, 128, 32), threads = (64, 4), load_a = $la, load_b = $lb, lds_width = 4, ldg_width = 4, stages = 2, warps = (8, 1), raster = 8, math = tf32x3, mma = (64, 128, 8), arch = sm_90a"
  echo "=== accuracy $op"
  timeout 120 /tmp/x accuracy --spec "$S" --sizes 1024,4096,16384 --out /tmp/a 2>&1 | grep -E "spec1" | head -12
  cp /tmp/a/accuracy.csv "$OUT/accuracy-${op/, /}.csv"
done
