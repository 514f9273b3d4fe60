#!/bin/bash
# wgmma, run 32 (profile): Nsight Compute on run 29's 1xTF32 TN 128 x 256 kernel (both operands read from
# the ring) and its NT twin (both converted), at 8192: is the TN kernel bound by L2's bandwidth, as
# run 29's arithmetic says (0.023 bytes a flop)? x.xz = xtask at 0e29c8f.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
D=tuning/sm_90-wgmma/run29
for i in 7 4; do
  spec=$(sed -n "${i}p" $D/specs.txt)
  echo "$i: $spec" >> $OUT/specs.txt
  timeout 240 $NCU --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section ComputeWorkloadAnalysis --print-details all \
    -k regex:gemmforge --launch-skip 2 --launch-count 1 \
    /tmp/x verify --gpu --spec "$spec" --shapes none --perf 8192 > $OUT/ncu-$i.txt 2>&1
  echo "$i rc=$?"
  grep -iE "Duration|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Tensor|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Shared|Stall (Barrier|Long|Wait|Math|MIO)|Warp Cycles Per Issued" $OUT/ncu-$i.txt | head -30
done
