#!/bin/bash
# wgmma tf32/tf32x3, first GPU run: correctness (verify, ragged shapes, cuBLAS beside) and time at 8192.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
base="precision = f32, tile = (128, 128, 32), threads = (64, 4), lds_width = 4, ldg_width = 4, stages = 3, warps = (8, 1), mma = (64, 128, 8), arch = sm_90a"
spec() { echo "$base, op = ($1), load_a = $2, load_b = $3, math = $4"; }
mkdir -p $OUT
for math in tf32x3 tf32; do
  for o in "N, N|(32, 8)|(8, 32)" "N, T|(32, 8)|(32, 8)" "T, N|(8, 32)|(8, 32)" "T, T|(8, 32)|(32, 8)"; do
    IFS='|' read op la lb <<< "$o"
    S=$(spec "$op" "$la" "$lb" $math)
    shapes=quick; [ "$op$math" = "N, Ntf32x3" ] && shapes=small
    echo "=== $math $op ($shapes)"
    timeout 150 /tmp/x verify --gpu --spec "$S" --shapes $shapes --perf 8192 > $OUT/verify.log 2>&1; echo "rc=$?"
    tail -12 $OUT/verify.log
  done
done
