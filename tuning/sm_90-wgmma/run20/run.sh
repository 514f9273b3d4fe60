#!/bin/bash
# wgmma, run 20: run 8's Nsight Compute sections on the shipped tf32x3 NN kernel at 8192 after run 19's
# change (one barrier a stripe), with the binary before it (x-old.xz) beside: where a warp waits now.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/new && xz -dc .devc/x-old.xz > /tmp/old && chmod +x /tmp/new /tmp/old
mkdir -p $OUT
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
for bin in old new; do
  timeout 250 $NCU --section WarpStateStats --section SchedulerStats --section SourceCounters --section InstructionStats \
    --section SpeedOfLight --print-details all -k regex:m64n128k8 --launch-skip 2 --launch-count 1 \
    /tmp/$bin verify --gpu --precision s --kernel sm_90::SgemmNN --shapes none --perf 8192 > $OUT/ncu-nn-$bin.txt 2>&1
  echo "$bin rc=$?"
  grep -iE "^ *Stall|Warp Cycles Per Issued|Issued Warp|Eligible Warps|No Eligible|Duration|Tensor" $OUT/ncu-nn-$bin.txt | head -40
done
