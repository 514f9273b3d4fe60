#!/bin/bash
# wgmma, run 19: one barrier a stripe for tf32x3 (the parts' barrier lands the ring's next stripe).
# x.xz = xtask at the commit that makes the change, x-old.xz = the one before it (run 18's binary;
# its experiment variable unset, it is main's code). verify --gpu of every shipped wgmma kernel
# with the new binary, then the dispatch's f32 and c32 kernels, old and new alternating, twice:
# squares 4096, 8192, 16384 and the small squares, cuBLAS in the same process.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/new && xz -dc .devc/x-old.xz > /tmp/old && chmod +x /tmp/new /tmp/old
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K=$(grep "mma = (64" gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = \([A-Za-z0-9]*\),.*/sm_90::\1/' | paste -sd,)
( time timeout 150 /tmp/new verify --gpu --precision s,c --kernel $K --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
grep -E "failed|passed|cases" $OUT/verify.log | tail -4
P=(--peak tuning/sm_90-classes/call1/peak.json --precision s,c --op transposes)
for rep in 1 2; do
  for bin in old new; do
    timeout 100 /tmp/$bin bench "${P[@]}" --sweep square --min-size 4096 --max-size 16384 --sizes 3 --out /tmp/b/sq-$bin-$rep > /dev/null 2>&1 || echo "square $bin $rep rc $?"
    tail -n +2 /tmp/b/sq-$bin-$rep/bench.csv | sed "s/^/$bin,$rep,/" >> $OUT/all.csv
    timeout 60 /tmp/$bin bench "${P[@]}" --sweep small --out /tmp/b/sm-$bin-$rep > /dev/null 2>&1 || echo "small $bin $rep rc $?"
    tail -n +2 /tmp/b/sm-$bin-$rep/bench.csv | sed "s/^/$bin,$rep,/" >> $OUT/all.csv
  done
done
head -1 /tmp/b/sq-new-1/bench.csv | sed 's/^/binary,rep,/' > $OUT/header.csv
python3 tuning/sm_90-wgmma/run19/table.py $OUT/all.csv
