#!/bin/bash
# wgmma, run 31: issue 9's table again (run 28's f32 TN dip at 8192 did not recur in run 30) — the
# dispatch's kernels for all four precisions and the four transpose pairs at 4096, 8192 and 16384 beside
# cuBLAS in the same process (x.xz = xtask at 7ce7e1d: the shipped kernels' PTX as at run 28).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 560 /tmp/x bench --peak tuning/sm_90-classes/call1/peak.json --precision s,d,c,z --op transposes \
    --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT ) > $OUT/log.txt 2>&1; echo "bench rc $?"
rm -f $OUT/peak.json $OUT/*.svg
python3 tuning/sm_90-wgmma/run23/table.py $OUT/bench.csv
