#!/bin/bash
# Issue 12, session 14, run 6: the fault tests of tests/gpu_errors.rs (PTX newer than the driver, device memory exhausted).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; cd /tmp && xz -dc $R/.devc/gpu_errors.xz > gpu_errors && chmod +x gpu_errors
GEMMFORGE_REQUIRE_GPU=1 timeout 300 ./gpu_errors --test-threads 1 --nocapture > $OUT/gpu_errors.log 2>&1; echo "gpu_errors rc $?"
tail -20 $OUT/gpu_errors.log
