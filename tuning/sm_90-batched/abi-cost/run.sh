#!/bin/bash
# The batch ABI's cost on the shipped square kernels: SGEMM/CGEMM/DGEMM/ZGEMM at 4096-16384.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
mkdir -p $OUT/square
( time timeout 500 /tmp/b/xtask bench --sweep square --min-size 4096 --max-size 16384 --sizes 3 --out $OUT/square ) > $OUT/square/log.txt 2>&1; echo "square rc $?"
grep -E " square " $OUT/square/log.txt | cut -c1-110
