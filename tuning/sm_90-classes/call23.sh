#!/bin/bash
# Session 19, device call 23: the skinny update classes of call 22 as shipped (sm_90.rs regenerated
# from the journal): verify --gpu of their new kernels (new-kernels-skinny.txt, ragged quick shapes),
# then the skinny sweep through the dispatch (C = C - A.B, K = 32, 64, 128 at M = N = 8192, 16384),
# the tall sweep and the small squares (classes unchanged: nothing should move beyond the noise).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 150 /tmp/x verify --gpu --kernel $(cat tuning/sm_90-classes/new-kernels-skinny.txt) --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
tail -3 $OUT/verify.log
P=(--peak tuning/sm_90-classes/call1/peak.json)
mkdir -p $OUT/shapes $OUT/small
( time timeout 150 /tmp/x bench --sweep skinny,tall --skinny-k 32,64,128 --skinny-mn 8192,16384 "${P[@]}" --out $OUT/shapes ) > $OUT/shapes/log.txt 2>&1; echo "shapes rc $?"
( time timeout 60 /tmp/x bench --sweep small "${P[@]}" --out $OUT/small ) > $OUT/small/log.txt 2>&1; echo "small rc $?"
rm -f $OUT/*/peak.json
tar czf $OUT/sweeps.tgz -C $OUT shapes small && rm -rf $OUT/shapes $OUT/small
