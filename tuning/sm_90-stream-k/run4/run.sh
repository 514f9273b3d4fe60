#!/bin/bash
# Stream-K, run 4: the dispatch after runs 2 and 3 (f64 768^3 and 1024^3 classes and c64 768^3 classes
# on stream-K kernels): verify the 28 new or changed kernels on ragged shapes (timed at 768^3, or
# 1024^3 for the 1024 classes), then the small squares three times for f64 and c64, every op pair.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K768=sm_90::DgemmNN768,sm_90::DgemmNT768,sm_90::DgemmNC768,sm_90::DgemmTN768,sm_90::DgemmTT768,sm_90::DgemmTC768,sm_90::DgemmCN768,sm_90::DgemmCT768,sm_90::DgemmCC768,sm_90::ZgemmNN768,sm_90::ZgemmNT768,sm_90::ZgemmNC768,sm_90::ZgemmTN768,sm_90::ZgemmTT768,sm_90::ZgemmTC768,sm_90::ZgemmCN768,sm_90::ZgemmCT768,sm_90::ZgemmCC768,sm_90::ZgemmNN32
K1024=sm_90::DgemmNN1024,sm_90::DgemmNT1024,sm_90::DgemmNC1024,sm_90::DgemmTN1024,sm_90::DgemmTT1024,sm_90::DgemmTC1024,sm_90::DgemmCN1024,sm_90::DgemmCT1024,sm_90::DgemmCC1024
( time timeout 200 /tmp/x verify --gpu --precision d,z --kernel $K768 --shapes quick --perf 768 ) > $OUT/verify768.log 2>&1; echo "verify768 rc $?"
grep -E "summary|failed|ratio" $OUT/verify768.log | grep -v " 0 failed" | head; grep -E "^sm_90.* [0-9.]+ +[0-9.]+ +[0-9.]+$" $OUT/verify768.log | tail -19
( time timeout 120 /tmp/x verify --gpu --precision d --kernel $K1024 --shapes quick --perf 1024 ) > $OUT/verify1024.log 2>&1; echo "verify1024 rc $?"
grep -E "summary" $OUT/verify1024.log; grep -E "^sm_90.* [0-9.]+ +[0-9.]+ +[0-9.]+$" $OUT/verify1024.log | tail -9
P=(--peak tuning/sm_90-classes/call1/peak.json)
for run in 1 2 3; do
  mkdir -p $OUT/small-$run
  ( time timeout 100 /tmp/x bench --precision d,z --op all --sweep small "${P[@]}" --out $OUT/small-$run ) > $OUT/small-$run/log.txt 2>&1; echo "small-$run rc $?"
done
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/sweeps.tgz -C $OUT small-1 small-2 small-3 && rm -rf $OUT/small-*
