#!/bin/bash
# wgmma, run 25: sm_90.rs regenerated after run 24 (SGEMM's 9216^3 class on three stages, raster 8
# for TT; the classes it also served keep the two-stage kernels, now SgemmXY512x512x65536).
# verify --gpu of every shipped wgmma kernel, then issue 9's table again (as run 23).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K=$(grep "mma = (64" gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = \([A-Za-z0-9]*\),.*/sm_90::\1/' | paste -sd,)
( time timeout 150 /tmp/x verify --gpu --precision s,c --kernel $K --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
grep -E "^summary" $OUT/verify.log
( time timeout 400 /tmp/x bench --peak tuning/sm_90-classes/call1/peak.json --precision s,c --op all \
    --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT ) > $OUT/log.txt 2>&1; echo "bench rc $?"
rm -f $OUT/peak.json $OUT/*.svg
python3 tuning/sm_90-wgmma/run23/table.py $OUT/bench.csv
