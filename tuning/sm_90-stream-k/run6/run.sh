#!/bin/bash
# Stream-K, run 6: the GPU test suites that go through the dispatch (gpu_gemm, gpu_batch, gpu_runtime)
# with the table of run 4 (f64 and c64 small-square classes on stream-K kernels), GEMMFORGE_REQUIRE_GPU=1.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
for t in gpu_gemm gpu_batch gpu_runtime; do
  xz -dc .devc/$t.xz > /tmp/$t && chmod +x /tmp/$t
  ( time GEMMFORGE_REQUIRE_GPU=1 timeout 250 /tmp/$t --test-threads 1 ) > $OUT/$t.log 2>&1; echo "$t rc $?"
  grep -E "test result|FAILED|panicked" $OUT/$t.log | head -5
done
