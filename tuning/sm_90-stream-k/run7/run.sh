#!/bin/bash
# Stream-K, run 7: tests/gpu_stream_k.rs (built at 32ee57b) under compute-sanitizer's racecheck
# (shared-memory hazards: the arrival flag), synccheck (barriers) and memcheck.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/gpu_stream_k.xz > /tmp/t && chmod +x /tmp/t
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
for tool in memcheck racecheck synccheck; do
  ( time GEMMFORGE_REQUIRE_GPU=1 timeout 170 /usr/local/cuda-13.0/bin/compute-sanitizer --tool $tool /tmp/t ) > $OUT/$tool.log 2>&1; echo "$tool rc $?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test result" $OUT/$tool.log
done
