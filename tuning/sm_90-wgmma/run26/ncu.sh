#!/bin/bash
# wgmma, run 26 (profile): Nsight Compute on the shipped SgemmNN spec and its warp-specialized twin
# (ws.py), tf32x3 and tf32, at 4096: where the warps wait, how busy the tensor pipe, shared memory
# and L2 are. x.xz = xtask with the change.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
D=tuning/sm_90-wgmma/run26
base=$(grep -h "name = SgemmNN," gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = [A-Za-z0-9]*, //; s/ *}.*//')
for math in tf32x3 tf32; do
  b=$(echo "$base" | sed "s/math = tf32x3/math = $math/")
  w=$(python3 $D/ws.py $b)
  for var in shipped ws; do
    spec=$b; [ $var = ws ] && spec=$w
    timeout 200 $NCU --section WarpStateStats --section SchedulerStats --section SpeedOfLight \
      --section MemoryWorkloadAnalysis --section InstructionStats --print-details all \
      -k regex:gemmforge --launch-skip 2 --launch-count 1 \
      /tmp/x verify --gpu --spec "$spec" --shapes none --perf 4096 > $OUT/ncu-$math-$var.txt 2>&1
    echo "$math $var rc=$?"
    grep -iE "^ *Stall (Barrier|Long|Short|Wait|MIO|Math|Dispatch|No Inst|Branch|Not Sel|Selected|LG|Tex|Sleep|Membar)|Warp Cycles Per Issued|Issued Warp|No Eligible|Duration|Tensor|L2 Cache Throughput|Shared Memory|Mem Busy|Max Bandwidth|Compute \(SM\) Throughput" $OUT/ncu-$math-$var.txt | head -30
  done
done
