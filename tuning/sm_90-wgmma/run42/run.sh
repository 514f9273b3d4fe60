#!/bin/bash
# wgmma, run 42: the shipped CGEMM kernels after run 41 (the 6656^3 class's kernels now the TMA
# producer twins; 1024^3 and 768^3 keep the one-warpgroup kernels under new names): GPU tests of the
# default and runtime CGEMM kernels (tests/gpu binary as .devc/gpu.xz, GEMMFORGE_REQUIRE_GPU=1), then
# issue 9's CGEMM rows through the dispatch at 4096, 8192, 16384 beside cuBLAS CGEMM.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run42/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x && xz -dc .devc/gpu.xz > /tmp/gpu && chmod +x /tmp/gpu
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 120 /tmp/gpu cgemm 2>&1 | grep -E "passed|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
( time timeout 120 /tmp/x bench --peak tuning/sm_90-classes/call1/peak.json --precision c --op transposes \
    --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT ) > $OUT/log.txt 2>&1; echo "bench rc $?"
rm -f $OUT/peak.json $OUT/*.svg
python3 tuning/sm_90-wgmma/run23/table.py $OUT/bench.csv
