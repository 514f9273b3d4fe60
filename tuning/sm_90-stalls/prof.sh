#!/usr/bin/env bash
# Where the FMA pipe's cycles go: ncu's full set (stall reasons, issue
# slots, pipes) for the tune's S/D/C/Z NN winners and cuBLAS's SGEMM NN,
# each at one large size, one kernel launch each.
# Usage: prof.sh X OUT   (X: `cargo build --release -p xtask`, stripped)
set -u
X=$1; OUT=$2; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
S="precision = f32, op = (N, N), tile = (192, 128, 20), threads = (16, 16), load_a = (64, 4), load_b = (4, 64), lds_width = 4, arch = sm_90, stages = 3, warps = (2, 4), raster = 8"
D="precision = f64, op = (N, N), tile = (176, 128, 16), threads = (16, 16), load_a = (16, 16), load_b = (16, 16), arch = sm_90, stages = 3, warps = (2, 4), raster = 8"
C="precision = c32, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), load_b = (8, 32), lds_width = 2, arch = sm_90, stages = 3, ldg_width = 2, warps = (2, 4), raster = 8, frag_sets = 2"
Z="precision = c64, op = (N, N), tile = (128, 64, 16), threads = (32, 8), load_a = (16, 16), load_b = (8, 32), arch = sm_90, stages = 3, warps = (4, 2), raster = 8"
prof() { # name size spec kernel-regex extra-spec-args...
  local name=$1 size=$2 spec=$3 re=$4
  ncu --clock-control none --set full -k "regex:$re" --launch-skip 1 --launch-count ${COUNT:-1} --csv --page raw \
    "$X" bench --spec "$spec" --sweep square --min-size "$size" --max-size "$size" --sizes 1 --warmup 1 --reps 1 \
    --out "$OUT/bench-$name" > "$OUT/$name.csv" 2> "$OUT/$name.err"
  echo "$name: $(grep -c '' "$OUT/$name.csv") lines"
}
prof sgemm-nn 8064 "$S" gemmforge
COUNT=2 prof cublas-sgemm-nn 8064 "$S" 'xmma|cutlass|sm90_|sm80_|ampere|gemm_kernel|Kernel2'
prof dgemm-nn 6160 "$D" gemmforge
prof cgemm-nn 6144 "$C" gemmforge
prof zgemm-nn 4608 "$Z" gemmforge
