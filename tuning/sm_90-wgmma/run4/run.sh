#!/bin/bash
# wgmma, run 4: one warpgroup a block (64 x 128 x 16, two blocks an SM) and raster = 8, tf32x3, at 8192 and 4096.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
exec > >(tee $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in \
 "op = (N, N), tile = (64, 128, 16), threads = (32, 4), load_a = (16, 8), load_b = (4, 32), stages = 2, warps = (4, 1)" \
 "op = (N, N), tile = (64, 128, 16), threads = (32, 4), load_a = (16, 8), load_b = (4, 32), stages = 3, warps = (4, 1)" \
 "op = (N, N), tile = (64, 128, 16), threads = (32, 4), load_a = (16, 8), load_b = (4, 32), stages = 3, warps = (4, 1), raster = 8" \
 "op = (T, N), tile = (64, 128, 16), threads = (32, 4), load_a = (4, 32), load_b = (4, 32), stages = 3, warps = (4, 1)" \
 "op = (N, N), tile = (128, 128, 32), threads = (64, 4), load_a = (32, 8), load_b = (8, 32), stages = 2, warps = (8, 1), raster = 8" \
 "op = (T, N), tile = (128, 128, 32), threads = (64, 4), load_a = (8, 32), load_b = (8, 32), stages = 2, warps = (8, 1), raster = 8" ; do
  S="precision = f32, $s, lds_width = 4, ldg_width = 4, math = tf32x3, mma = (64, 128, 8), arch = sm_90a"
  echo "--- $s"
  for n in 8192 4096; do timeout 120 /tmp/x verify --gpu --spec "$S" --shapes tiny --perf $n 2>&1 | grep -E "^spec|rror|legal" | tail -2; done
done
