#!/bin/bash
# Session 20, device call 33 (H100): tests/gpu_batch.rs whole on the GPU with the form-aware dispatch
# (GEMMFORGE_REQUIRE_GPU=1; .devc/gpu_batch.xz is `cargo test --release -p gemmforge --test gpu_batch
# --no-run`): among them a_tuned_split_class_runs_split, which asks the dispatch in the call's form.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/gpu_batch.xz > /tmp/gbt && chmod +x /tmp/gbt
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time GEMMFORGE_REQUIRE_GPU=1 timeout 400 /tmp/gbt --test-threads 1 --nocapture ) > $OUT/gpu_batch.log 2>&1; echo "gpu_batch rc $?"
grep -E "test result|FAILED|panicked|^test " $OUT/gpu_batch.log | head -30
