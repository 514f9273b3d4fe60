#!/bin/bash
# Issue 11: pointer-array, strided and split-K batches on the GPU (tests/gpu_batch.rs).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && gunzip -c .devc/gpu_batch.gz > /tmp/b/gpu_batch && chmod +x /tmp/b/gpu_batch
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
( time GEMMFORGE_REQUIRE_GPU=1 timeout 400 /tmp/b/gpu_batch --test-threads 1 --nocapture ) > $OUT/gpu_batch.log 2>&1; echo "gpu_batch rc $?"
grep -E "pointer-array|test result|FAILED|panicked" $OUT/gpu_batch.log | cut -c1-160
