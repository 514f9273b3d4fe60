#!/usr/bin/env bash
# Regression check of the retuned kernels: the kernels gemm-host uses on this
# GPU as BASE shipped them (gemm-kernels/src/tuned/sm_90.rs before the tune)
# and as NEW ships them, all 16 types, cuBLAS in the same process each time:
# square 256..8192 (SIZES, default 6) and skinny K = 32, 64 at M = N = 8192.
# Usage: ab.sh BASE NEW OUT PEAK_JSON
set -u
BASE=$1; NEW=$2; OUT=$3; PEAK=$4
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
args="--sweep square,skinny --min-size 256 --max-size 8192 --sizes ${SIZES:-6} --skinny-mn 8192 --warmup 1 --reps 5 --peak $PEAK"
echo "=== base"; timeout 280 "$BASE" bench $args --out "$OUT/base" > "$OUT/base.log" 2>&1; tail -19 "$OUT/base.log"
echo "=== new"; timeout 280 "$NEW" bench $args --out "$OUT/new" > "$OUT/new.log" 2>&1; tail -19 "$OUT/new.log"
