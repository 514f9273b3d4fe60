#!/bin/bash
# wgmma, run 22: the unskewed stripes against the skewed ones, same run. x-skew.xz = xtask at the
# commit before the change (one barrier a stripe, stripes skewed), x.xz = with it: the dispatch's
# f32 and c32 kernels at 4096, 8192, 16384, the transpose pairs, alternating, twice.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/new && xz -dc .devc/x-skew.xz > /tmp/old && chmod +x /tmp/new /tmp/old
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
P=(--peak tuning/sm_90-classes/call1/peak.json --precision s,c --op transposes --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
/tmp/old bench "${P[@]}" --max-size 4096 --sizes 1 --out /tmp/b/warm > /dev/null 2>&1   # JIT and clocks warm
for rep in 1 2; do
  for bin in old new; do
    timeout 100 /tmp/$bin bench "${P[@]}" --out /tmp/b/sq-$bin-$rep > /dev/null 2>&1 || echo "square $bin $rep rc $?"
    tail -n +2 /tmp/b/sq-$bin-$rep/bench.csv | sed "s/^/$bin,$rep,/" >> $OUT/all.csv
  done
done
python3 tuning/sm_90-wgmma/run19/table.py $OUT/all.csv
