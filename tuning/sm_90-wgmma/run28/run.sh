#!/bin/bash
# wgmma, run 28: sm_90.rs regenerated after run 27 (SGEMM's 9216^3 class warp-specialized, all nine
# op pairs). verify --gpu of every shipped wgmma kernel on the quick ragged shapes and of the nine new
# ones on the full sweep, then issue 9's f32 table again (as run 25, f32 only: the other kernels did
# not change), cuBLAS in the same process.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K=$(grep "mma = (64" gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = \([A-Za-z0-9]*\),.*/sm_90::\1/' | paste -sd,)
( time timeout 150 /tmp/x verify --gpu --precision s,c --kernel $K --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
grep -E "^summary" $OUT/verify.log
W=$(grep "producers = 1" gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = \([A-Za-z0-9]*\),.*/sm_90::\1/' | paste -sd,)
( time timeout 200 /tmp/x verify --gpu --precision s --kernel $W --shapes full ) > $OUT/verify-ws-full.log 2>&1; echo "verify full rc $?"
grep -E "^summary" $OUT/verify-ws-full.log
( time timeout 300 /tmp/x bench --peak tuning/sm_90-classes/call1/peak.json --precision s --op all \
    --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT ) > $OUT/log.txt 2>&1; echo "bench rc $?"
rm -f $OUT/peak.json $OUT/*.svg
python3 tuning/sm_90-wgmma/run23/table.py $OUT/bench.csv
