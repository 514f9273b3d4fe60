#!/bin/bash
# wgmma, run 8: where a warp of the shipped tf32x3 NN kernel waits — Nsight Compute's warp-state
# statistics, scheduler and source counters (stall reasons by SASS instruction) at 8192.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
timeout 400 $NCU --section WarpStateStats --section SchedulerStats --section SourceCounters --section InstructionStats \
  --section SpeedOfLight --print-details all -k regex:m64n128k8 --launch-skip 2 --launch-count 1 \
  /tmp/x verify --gpu --precision s --kernel sm_90::SgemmNN --shapes none --perf 8192 > $OUT/ncu-nn.txt 2>&1
echo "rc=$?"
grep -iE "stall|Warp Cycles|Issued|Eligible|No Eligible|Active Warps|Duration|Tensor|Throughput" $OUT/ncu-nn.txt | head -60
