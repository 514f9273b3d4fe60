#!/bin/bash
# wgmma, run 11: the shipped CGEMMs after run 10's tune (the large-square class now c32 wgmma, 128 x 64
# x 16): verify every op pair on the full shape set with its time at 8192, the default dispatch's
# square sweep against cuBLAS CGEMM, compute-sanitizer on NN and CC.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
exec > >(tee $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
K=sm_90::CgemmNN,sm_90::CgemmNT,sm_90::CgemmNC,sm_90::CgemmTN,sm_90::CgemmTT,sm_90::CgemmTC,sm_90::CgemmCN,sm_90::CgemmCT,sm_90::CgemmCC
echo "=== verify --gpu, full shapes, perf at 8192"
timeout 230 /tmp/x verify --gpu --precision c --kernel $K --shapes full --perf 8192 2>&1 | grep -vE "^\s*$" | tail -30; echo "rc=${PIPESTATUS[0]}"
echo "=== bench, the default dispatch, square, every op pair"
timeout 150 /tmp/x bench --precision c --op all --sweep square --min-size 2048 --max-size 16384 --sizes 4 --out $OUT/bench 2>&1 | tail -45
cp $OUT/bench/bench.csv $OUT/bench.csv 2>/dev/null; rm -rf $OUT/bench
echo "=== sanitize NN and CC"
timeout 180 /tmp/x sanitize --precision c --kernel sm_90::CgemmNN,sm_90::CgemmCC --tools memcheck,racecheck,synccheck --timeout-minutes 2.5 --out $OUT/san 2>&1 | tail -12
cp $OUT/san/sanitize.csv $OUT/ 2>/dev/null; rm -rf $OUT/san
