#!/bin/bash
# Issue 11's other sweeps with the shipped dispatch: small squares, tall, skinny K = 32, 64, 128.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
mkdir -p $OUT/sweeps
( time timeout 540 /tmp/b/xtask bench --sweep small,tall,skinny --skinny-k 32,64,128 --skinny-mn 8192,16384 --out $OUT/sweeps ) > $OUT/sweeps/log.txt 2>&1; echo "sweeps rc $?"
grep -E " (small|tall|skinny) " $OUT/sweeps/log.txt | cut -c1-120 | tail -150
