#!/bin/bash
# Session 20, device call 31 (H100): the 64-wide tall classes of calls 29-30 as shipped: verify --gpu of
# their new kernels (new-kernels-s20b.txt, ragged quick shapes) and the tall sweep through the dispatch.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 120 /tmp/x verify --gpu --kernel $(cat tuning/sm_90-classes/new-kernels-s20b.txt) --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
tail -3 $OUT/verify.log
mkdir -p $OUT/tall
( time timeout 150 /tmp/x bench --sweep tall --peak tuning/sm_90-classes/call1/peak.json --out $OUT/tall ) > $OUT/tall/log.txt 2>&1; echo "tall rc $?"
rm -f $OUT/tall/peak.json
