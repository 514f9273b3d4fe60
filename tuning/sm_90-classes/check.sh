#!/bin/bash
# Issue 11, session 16: the small-square classes (256^3, 512^3) as shipped: verify --gpu of their
# kernels (new-kernels.txt, ragged quick shapes), then xtask bench --sweep small with the dispatch.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 200 /tmp/x verify --gpu --kernel $(cat tuning/sm_90-classes/new-kernels.txt) --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
tail -4 $OUT/verify.log
mkdir -p $OUT/small
( time timeout 150 /tmp/x bench --sweep small --out $OUT/small ) > $OUT/small/log.txt 2>&1; echo "small rc $?"
grep -E " small " $OUT/small/log.txt | cut -c1-110 | tail -90
