#!/bin/bash
# The root crate's GPU tests (tests/gpu, one binary: `cargo test --test gpu --no-run`, stripped, as
# .devc/gpu.xz) on the GPU machine with the warp-specialized kernels shipped. gpu-tests.log: the whole
# binary (41 passed; runtime::kernels_load_once_and_report_their_resources failed: it compared a
# kernel's block with `threads` alone, 256, where a warp-specialized kernel has 384 — the test now
# compares with KernelSpec::block_threads); rerun.log: that test again after the fix.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT; xz -dc .devc/gpu.xz > /tmp/gpu && chmod +x /tmp/gpu
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
( time GEMMFORGE_REQUIRE_GPU=1 timeout 550 /tmp/gpu --test-threads=2 ${FILTER:-} ) > $OUT/${LOG:-gpu-tests.log} 2>&1; echo rc=$?
grep -E "test result|FAILED|panicked|real" $OUT/${LOG:-gpu-tests.log} | head
