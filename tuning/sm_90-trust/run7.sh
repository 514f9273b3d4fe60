#!/bin/bash
# Issue 12, session 14, run 7: depth 2^20 on the GPU for every precision (tests/gpu_batch.rs), checked against the bound at that k.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; cd /tmp && xz -dc $R/.devc/gpu_batch.xz > gpu_batch && chmod +x gpu_batch
GEMMFORGE_REQUIRE_GPU=1 timeout 500 ./gpu_batch --test-threads 1 --nocapture depth > $OUT/gpu_batch-depth.log 2>&1; echo "depth rc $?"
tail -12 $OUT/gpu_batch-depth.log
