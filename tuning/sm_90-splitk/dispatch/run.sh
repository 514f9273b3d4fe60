#!/bin/bash
# Issue 11: large K with the occupancy-based split, every transpose pair.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
mkdir -p $OUT/largek
( time timeout 400 /tmp/b/xtask bench --sweep large-k --out $OUT/largek ) > $OUT/largek/log.txt 2>&1; echo "largek rc $?"
grep -E "large-k" $OUT/largek/log.txt | cut -c1-150 | tail -100
