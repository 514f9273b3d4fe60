#!/bin/bash
# Issue 11 step: strided batches and split K on the GPU.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && cd /tmp/b
for f in xtask gpu_batch gpu_gemm; do gunzip -c $OLDPWD/.devc/$f*.gz > $f; chmod +x $f; done
cd $OLDPWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
export GEMMFORGE_REQUIRE_GPU=1
( time timeout 200 /tmp/b/gpu_batch --test-threads 1 --nocapture ) > $OUT/gpu_batch.log 2>&1; echo "gpu_batch rc $?" | tee -a $OUT/gpu_batch.log
tail -3 $OUT/gpu_batch.log
mkdir -p $OUT/split $OUT/nosplit
( time timeout 200 /tmp/b/xtask bench --sweep large-k --op nn --out $OUT/split ) > $OUT/split/log.txt 2>&1; echo "split rc $?"
( time timeout 150 /tmp/b/xtask bench --sweep large-k --op nn --slices 1 --peak $OUT/split/peak.json --out $OUT/nosplit ) > $OUT/nosplit/log.txt 2>&1; echo "nosplit rc $?"
for d in split nosplit; do tail -14 $OUT/$d/log.txt | head -12; done
( time timeout 100 /tmp/b/gpu_gemm --test-threads 1 ) > $OUT/gpu_gemm.log 2>&1; echo "gpu_gemm rc $?"; tail -4 $OUT/gpu_gemm.log
