#!/bin/bash
# Session 20, device call 28 (H100): the classes of calls 25-27 as shipped (sm_90.rs regenerated from the
# journal, the dispatch form-aware): verify --gpu of their new kernels (new-kernels-s20.txt, ragged quick
# shapes), the skinny sweep through the dispatch (C = C - A.B, K = 32, 64, 128 at M = N = 8192, 16384:
# update calls now take update classes), the tall sweep, and the small squares five times back to back
# (a cell's ratio moved 0.90-1.24 between runs in call 24: the medians are the figure).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 200 /tmp/x verify --gpu --kernel $(cat tuning/sm_90-classes/new-kernels-s20.txt) --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
tail -3 $OUT/verify.log
P=(--peak tuning/sm_90-classes/call1/peak.json)
mkdir -p $OUT/shapes
( time timeout 170 /tmp/x bench --sweep skinny,tall --skinny-k 32,64,128 --skinny-mn 8192,16384 "${P[@]}" --out $OUT/shapes ) > $OUT/shapes/log.txt 2>&1; echo "shapes rc $?"
for run in 1 2 3 4 5; do
  mkdir -p $OUT/small-$run
  ( time timeout 60 /tmp/x bench --sweep small "${P[@]}" --out $OUT/small-$run ) > $OUT/small-$run/log.txt 2>&1; echo "small-$run rc $?"
done
rm -f $OUT/*/peak.json $OUT/small-*/*.svg
tar czf $OUT/sweeps.tgz -C $OUT shapes small-1 small-2 small-3 small-4 small-5 && rm -rf $OUT/shapes $OUT/small-*
