#!/bin/bash
# Device call 8: why the large sparse operators stream slowly: Nsight
# Compute on the staged B-streaming kernel (block 32, msplit 8, chunk 48)
# of rand-512x512 at densities 0.01 and 0.10 (f64), at n = 131072.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && gunzip -c $D/.devc/xtask-s.gz > xtask && chmod +x xtask
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1); echo "ncu: $NCU"
for OP in rand-512x512-d0.01 rand-512x512-d0.10; do
  timeout 250 $NCU --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    -k regex:_s8_c48_ --launch-skip 1 --launch-count 1 \
    ./xtask bespoke --set test --operator $OP --precision d --beta 0 --n 131072 --max-candidates 2 --reps 1 --warmup 1 --out /tmp/o-$OP \
    > $OUT/ncu-$OP.txt 2>&1
  echo "$OP rc=$?"; grep -E "Duration|Throughput|No Instruction|Stall|Warp Cycles|Issued Warp|Eligible|Achieved Occupancy|Registers" $OUT/ncu-$OP.txt | head -30
done
