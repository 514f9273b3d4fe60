#!/bin/bash
# wgmma, run 17: verify on the GPU the nine f32 512^3-class kernels run 16 shipped (one-warpgroup
# 64 x 64 x 32 wgmma; ragged quick shapes, timed at 512^3 unsplit), the small squares three times for
# f32 through the dispatch, and CgemmTT beside CgemmTC at 4096^3 (the TC dip of runs 11 and 13:
# same kernel but for a sign).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K=sm_90::SgemmNN512,sm_90::SgemmNT512,sm_90::SgemmNC512,sm_90::SgemmTN512,sm_90::SgemmTT512,sm_90::SgemmTC512,sm_90::SgemmCN512,sm_90::SgemmCT512,sm_90::SgemmCC512
( time timeout 150 /tmp/x verify --gpu --precision s --kernel $K --shapes quick --perf 512 ) > $OUT/verify.log 2>&1; echo "verify rc $?"
grep -vE "^note|^\s*$" $OUT/verify.log | tail -24
( time timeout 100 /tmp/x verify --gpu --precision c --kernel sm_90::CgemmTT,sm_90::CgemmTC,sm_90::CgemmNN --shapes none --perf 4096 ) > $OUT/tc4096.log 2>&1; echo "tc4096 rc $?"
grep -vE "^note|^\s*$" $OUT/tc4096.log | tail -8
P=(--peak tuning/sm_90-classes/call1/peak.json)
for run in 1 2 3; do
  mkdir -p $OUT/small-$run
  ( time timeout 60 /tmp/x bench --precision s --op all --sweep small "${P[@]}" --out $OUT/small-$run ) > $OUT/small-$run/log.txt 2>&1; echo "small-$run rc $?"
done
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/sweeps.tgz -C $OUT small-1 small-2 small-3 && rm -rf $OUT/small-*
