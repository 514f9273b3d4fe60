#!/bin/bash
# Issue 11: batched sweep against cublasGemmStridedBatchedEx, and a slice sweep of large K.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
mkdir -p $OUT/batched $OUT/slices $OUT/largek-ops
( time timeout 240 /tmp/b/xtask bench --sweep batched --op nn,tn --out $OUT/batched ) > $OUT/batched/log.txt 2>&1; echo "batched rc $?"
grep -E "batched" $OUT/batched/log.txt | tail -50
( time timeout 200 /tmp/b/xtask bench --sweep large-k --op nn --slices 2,4,8,16,32,64,128 --peak $OUT/batched/peak.json --out $OUT/slices ) > $OUT/slices/log.txt 2>&1; echo "slices rc $?"
( time timeout 140 /tmp/b/xtask bench --sweep large-k --op nt,tn,tt --peak $OUT/batched/peak.json --out $OUT/largek-ops ) > $OUT/largek-ops/log.txt 2>&1; echo "largek-ops rc $?"
tail -3 $OUT/slices/log.txt $OUT/largek-ops/log.txt
