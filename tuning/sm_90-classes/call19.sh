#!/bin/bash
# Session 19, device call 19 (~7 min): (1) tests/gpu_batch.rs whole on the GPU (the tuned-split class
# test a_tuned_split_class_runs_split, the strided-batch test with the serial small reference);
# (2) every sweep through the dispatch as shipped, with call 18's 13 tuned splits in sm_90.rs:
# small, large-k, skinny (K = 32, 64, 128 at M = N = 8192, 16384) and tall. Binaries: .devc/x.xz
# (xtask), .devc/gpu_batch.xz (cargo test --release -p gemmforge --test gpu_batch --no-run).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && xz -dc .devc/gpu_batch.xz > /tmp/gbt && chmod +x /tmp/x /tmp/gbt
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time GEMMFORGE_REQUIRE_GPU=1 timeout 170 /tmp/gbt --test-threads 1 --nocapture ) > $OUT/gpu_batch.log 2>&1; echo "gpu_batch rc $?"
grep -E "test result|FAILED|panicked|^test " $OUT/gpu_batch.log | head -30
P=(--peak tuning/sm_90-classes/call1/peak.json)
mkdir -p $OUT/small $OUT/large-k $OUT/shapes
( time timeout 60 /tmp/x bench --sweep small "${P[@]}" --out $OUT/small ) > $OUT/small/log.txt 2>&1; echo "small rc $?"
( time timeout 100 /tmp/x bench --sweep skinny,tall --skinny-k 32,64,128 --skinny-mn 8192,16384 "${P[@]}" --out $OUT/shapes ) > $OUT/shapes/log.txt 2>&1; echo "shapes rc $?"
( time timeout 170 /tmp/x bench --sweep large-k "${P[@]}" --out $OUT/large-k ) > $OUT/large-k/log.txt 2>&1; echo "large-k rc $?"
rm -f $OUT/*/peak.json
tar czf $OUT/sweeps.tgz -C $OUT small large-k shapes && rm -rf $OUT/small $OUT/large-k $OUT/shapes
