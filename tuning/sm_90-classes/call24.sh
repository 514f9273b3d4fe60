#!/bin/bash
# Session 19, device call 24: how much of the small squares' spread is run to run on one machine?
# Call 19 and call 23 ran the same small-square classes on two H100s: 39 and 59 of 80 cells >= 1.0,
# cuBLAS's times 0.52-1.06 of each other. Here the small sweep three times back to back on one
# machine: twice as bench runs it (2 warm-ups, 7 timed runs) and once with 5 warm-ups and 31 timed runs.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
P=(--peak tuning/sm_90-classes/call1/peak.json)
for run in a b long; do
  R=(); [[ $run == long ]] && R=(--warmup 5 --reps 31)
  mkdir -p $OUT/small-$run
  ( time timeout 150 /tmp/x bench --sweep small "${P[@]}" "${R[@]}" --out $OUT/small-$run ) > $OUT/small-$run/log.txt 2>&1; echo "small-$run rc $?"
done
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/small.tgz -C $OUT small-a small-b small-long && rm -rf $OUT/small-a $OUT/small-b $OUT/small-long
