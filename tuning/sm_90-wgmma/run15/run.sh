#!/bin/bash
# wgmma, run 15: the dispatch after run 14 (c32's 512^3 class now one-warpgroup 64 x 64 x 16 wgmma
# kernels, K split 2 ways; the 768^3 class run 10's 128 x 64 x 16, split 3 ways): verify the nine
# new 512^3 kernels (ragged quick shapes, time at 512^3 unsplit), then the small squares three times
# for c32.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K=sm_90::CgemmNN512,sm_90::CgemmNT512,sm_90::CgemmNC512,sm_90::CgemmTN512,sm_90::CgemmTT512,sm_90::CgemmTC512,sm_90::CgemmCN512,sm_90::CgemmCT512,sm_90::CgemmCC512
( time timeout 150 /tmp/x verify --gpu --precision c --kernel $K --shapes quick --perf 512 ) > $OUT/verify.log 2>&1; echo "verify rc $?"
grep -vE "^note|^\s*$" $OUT/verify.log | tail -24
P=(--peak tuning/sm_90-classes/call1/peak.json)
for run in 1 2 3; do
  mkdir -p $OUT/small-$run
  ( time timeout 60 /tmp/x bench --precision c --op all --sweep small "${P[@]}" --out $OUT/small-$run ) > $OUT/small-$run/log.txt 2>&1; echo "small-$run rc $?"
done
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/sweeps.tgz -C $OUT small-1 small-2 small-3 && rm -rf $OUT/small-*
