#!/usr/bin/env bash
# ncu's full set on one launch of the SGEMM NN and TN winners of this tune
# (tune/sm_90.rs) at 8192³ and on cuBLAS's SGEMM NN beside them: bank
# conflicts, achieved occupancy, issue slots, stalls.
# Usage: ncu.sh X OUT
set -u
X=$1; OUT=$2; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
NN="precision = f32, op = (N, N), tile = (256, 128, 16), threads = (16, 16), load_a = (64, 4), load_b = (8, 32), lds_width = 4, arch = sm_90, stages = 3, warps = (2, 4), raster = 8, frag_sets = 2, interleave = 2"
TN="precision = f32, op = (T, N), tile = (256, 128, 16), threads = (16, 16), load_a = (16, 16), load_b = (16, 16), lds_width = 4, arch = sm_90, stages = 3, warps = (2, 4), raster = 8, interleave = 4"
prof() { # name spec kernel-regex
  ncu --clock-control none --set full -k "regex:$3" --launch-skip 1 --launch-count ${COUNT:-1} --csv --page raw \
    "$X" bench --spec "$2" --sweep square --min-size 8192 --max-size 8192 --sizes 1 --warmup 1 --reps 1 \
    --out "$OUT/bench-$1" > "$OUT/$1.csv" 2> "$OUT/$1.err"
  echo "$1: $(grep -c '' "$OUT/$1.csv") lines"
}
prof sgemm-nn "$NN" gemmforge
prof sgemm-tn "$TN" gemmforge
COUNT=2 prof cublas-sgemm-nn "$NN" 'xmma|cutlass|sm90_|sm80_|ampere|gemm_kernel|Kernel2'
