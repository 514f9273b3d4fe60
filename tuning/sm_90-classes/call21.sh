#!/bin/bash
# Session 19, device call 21: does reading old C in groups of columns (c_batch) help where C is read?
# Call 20 timed c_batch siblings as the tuner times (C = A.B, beta = 0: C is never read, so c_batch
# cannot matter; within +-2% as expected). Here the skinny sweep's update C = C - A.B (beta = 1) at
# K = 32, 64, M = N = 8192, 16384, xtask bench --spec, for four shipped skinny-class kernels at
# c_batch 1 and larger groups. One folder per spec and value, bench.csv and log.txt each.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S="precision = f32, op = (N, N), tile = (128, 128, 32), threads = (16, 8), load_a = (32, 4), load_b = (8, 16), lds_width = 4, arch = sm_90, stages = 3, ldg_width = 4, warps = (2, 2), raster = 8, math = tf32x3, mma = (16, 8, 8)"
D="precision = f64, op = (N, N), tile = (64, 32, 24), threads = (8, 8), load_a = (16, 4), load_b = (4, 16), lds_width = 2, arch = sm_90, stages = 2, ldg_width = 2, warps = (1, 2), raster = 8, math = dmma, mma = (16, 8, 4)"
C="precision = c32, op = (N, N), tile = (64, 64, 16), threads = (16, 8), load_a = (32, 4), load_b = (8, 16), lds_width = 2, arch = sm_90, stages = 3, ldg_width = 2, warps = (2, 2), raster = 8, math = tf32x3, mma = (16, 8, 8)"
Z="precision = c64, op = (T, N), tile = (64, 32, 8), threads = (32, 4), load_a = (8, 16), load_b = (8, 16), arch = sm_90, stages = 3, warps = (4, 1), raster = 8, math = dmma, mma = (16, 8, 4)"
for run in "s 1" "s 4" "s 8" "d 1" "d 2" "d 4" "c 1" "c 4" "c 8" "z 1" "z 4" "z 8"; do
  set -- $run; V=${1^^}; spec=${!V}
  mkdir -p $OUT/b/$1-cb$2
  ( timeout 45 /tmp/x bench --spec "$spec, c_batch = $2" --sweep skinny --skinny-k 32,64 --skinny-mn 8192,16384 --peak tuning/sm_90-classes/call1/peak.json --out $OUT/b/$1-cb$2 ) > $OUT/b/$1-cb$2/log.txt 2>&1; echo "$1 c_batch $2 rc $?"
  grep -E "^ *skinny" $OUT/b/$1-cb$2/log.txt | head -4
done
rm -f $OUT/b/*/peak.json $OUT/b/*/*.svg
tar czf $OUT/b.tgz -C $OUT b && rm -rf $OUT/b
