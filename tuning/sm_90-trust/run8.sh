#!/bin/bash
# Issue 12, session 16, run 8: depth 2^20 on the GPU checked against the split-K bound
# (uniform and positive inputs, tests/gpu_batch.rs), then a soak whose second pass makes
# the same calls again (memory that no first use explains). Run with the xtask of that moment,
# whose --repeat was a flag (one more pass); it is now a count (--repeat 1 is the same).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; cd /tmp && xz -dc $R/.devc/gpu_batch.xz > gpu_batch && xz -dc $R/.devc/x.xz > xtask && chmod +x gpu_batch xtask
mkdir -p $OUT/deep-k $OUT/soak-repeat1
GEMMFORGE_REQUIRE_GPU=1 timeout 150 ./gpu_batch --test-threads 1 --nocapture depth > $OUT/deep-k/gpu_batch-depth-split.log 2>&1; echo "depth rc $?"
tail -12 $OUT/deep-k/gpu_batch-depth-split.log
timeout 420 ./xtask soak --minutes 3 --repeat 1 --seed 2028 --out $OUT/soak-repeat1 > $OUT/soak-repeat1/soak-stdout.txt 2>&1; echo "soak rc $?"
tail -22 $OUT/soak-repeat1/soak-stdout.txt
