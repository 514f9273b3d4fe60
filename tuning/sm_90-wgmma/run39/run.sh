#!/bin/bash
# wgmma, run 39: the shipped SGEMM kernels after run 38 (the nine 128x128 tf32x3 producer kernels with
# ldg = tma): GPU tests of the default kernels, batches and split K (the tests/gpu binary as
# .devc/gpu.xz, GEMMFORGE_REQUIRE_GPU=1), then issue 9's SGEMM rows — the dispatch's kernels for the
# four transpose pairs at 4096, 8192 and 16384 beside cuBLAS SGEMM in the same process (run 23's
# bench for s alone). x.xz = xtask with the change.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run39/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x && xz -dc .devc/gpu.xz > /tmp/gpu && chmod +x /tmp/gpu
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 300 /tmp/gpu sgemm tma batch split stream_k 2>&1 | grep -E "passed|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
( time timeout 300 /tmp/x bench --peak tuning/sm_90-classes/call1/peak.json --precision s --op transposes \
    --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT ) > $OUT/log.txt 2>&1; echo "bench rc $?"
rm -f $OUT/peak.json $OUT/*.svg
python3 tuning/sm_90-wgmma/run23/table.py $OUT/bench.csv
