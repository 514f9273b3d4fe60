#!/bin/bash
# wgmma, run 6: the shipped SGEMM kernels (gemm-kernels after the run-5 tune), lowered by the binary
# carried as .devc/x.xz: main's (A and B from shared memory) in call 6a, branch exp/wgmma-rs's (A from
# registers) in call 6b on the same warm machine — verify on every ragged shape, the square sweep of
# the default dispatch; in 6b also RS variants and the accuracy of the RS NN kernel.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
b=$1
mkdir -p $OUT
exec > >(tee $OUT/run-$b.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
K=sm_90::SgemmNN,sm_90::SgemmNT,sm_90::SgemmNC,sm_90::SgemmTN,sm_90::SgemmTT,sm_90::SgemmTC,sm_90::SgemmCN,sm_90::SgemmCT,sm_90::SgemmCC
echo "=== $b: verify --gpu --kernel (the shipped wgmma kernels) --shapes full --perf 8192"
timeout 170 /tmp/x verify --gpu --precision s --kernel $K --shapes full --perf 8192 2>&1 | tail -14
echo "=== $b: bench, default dispatch, square"
timeout 170 /tmp/x bench --precision s --op transposes --sweep square --min-size 2048 --max-size 16384 --sizes 4 --out /tmp/b-$b 2>&1 | grep -E "square|^kernel" | head -20
cp /tmp/b-$b/bench.csv $OUT/bench-$b.csv
[ "$b" = rs ] || exit 0
echo "=== rs: variants"
for s in "op = (N, N), load_a = (32, 8), load_b = (8, 32), stages = 3" "op = (T, N), load_a = (8, 32), load_b = (8, 32), stages = 3" "op = (N, T), load_a = (32, 8), load_b = (32, 8), stages = 3"; do
  S="precision = f32, $s, tile = (128, 128, 32), threads = (64, 4), lds_width = 4, ldg_width = 4, warps = (8, 1), raster = 8, math = tf32x3, mma = (64, 128, 8), arch = sm_90a"
  echo "--- $s"; timeout 60 /tmp/x verify --gpu --spec "$S" --shapes tiny --perf 8192 2>&1 | grep -E "^spec|rror" | tail -2
done
echo "=== rs: accuracy NN (shipped lowering)"
NN="precision = f32, op = (N, N), tile = (128, 128, 32), threads = (64, 4), load_a = (32, 8), load_b = (8, 32), lds_width = 4, ldg_width = 4, stages = 2, warps = (8, 1), raster = 8, math = tf32x3, mma = (64, 128, 8), arch = sm_90a"
timeout 120 /tmp/x accuracy --spec "$NN" --sizes 4096,16384 --out /tmp/a 2>&1 | grep -E "spec1|kernel" | head -10
cp /tmp/a/accuracy.csv $OUT/accuracy-rs.csv
