#!/bin/bash
# wgmma, run 3: Nsight Compute on the pipelined tf32x3 and tf32 kernels (NN, 128 x 128 x 32) at 8192, and two more tiles.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/run.log
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
spec() { echo "precision = f32, op = (N, N), load_a = $1, load_b = $2, math = $3, stages = $4, tile = $5, threads = $6, warps = $7, mma = (64, $8, 8), lds_width = 4, ldg_width = 4, arch = sm_90a"; }
for m in "tf32x3 2" "tf32 3"; do set -- $m
  S=$(spec "(32, 8)" "(8, 32)" $1 $2 "(128, 128, 32)" "(64, 4)" "(8, 1)" 128)
  timeout 200 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
    -k regex:m64n128k8 --launch-skip 4 --launch-count 1 /tmp/x verify --gpu --spec "$S" --shapes tiny --perf 8192 > $OUT/ncu-$1.txt 2>&1
  echo "=== $1 rc=$?" | tee -a $OUT/run.log
  grep -E "Duration|Throughput|Shared|Bank|Pipe|Tensor|Stall|Warp Cycles|Issued Warp|Eligible|Achieved Occupancy|Registers|Block Limit" $OUT/ncu-$1.txt | head -60 | tee -a $OUT/run.log
done
echo "=== other tiles, tf32x3 NN" | tee -a $OUT/run.log
for t in "(32, 8)|(4, 64)|(128, 128, 16)|4|(64, 4)|(8, 1)|128" "(32, 8)|(4, 64)|(128, 128, 16)|3|(64, 4)|(8, 1)|128" "(32, 16)|(8, 64)|(128, 128, 32)|2|(64, 8)|(8, 2)|64"; do
  IFS='|' read la lb tile st th w n <<< "$t"
  S=$(spec "$la" "$lb" tf32x3 $st "$tile" "$th" "$w" $n)
  echo "--- $S" | tee -a $OUT/run.log
  timeout 120 /tmp/x verify --gpu --spec "$S" --shapes tiny --perf 8192 2>&1 | grep -E "^spec|error|Error|legal|:" | tail -4 | tee -a $OUT/run.log
done
