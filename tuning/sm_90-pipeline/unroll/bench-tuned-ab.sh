#!/usr/bin/env bash
# The tuned kernels gemm-host uses on this GPU (gemm-kernels/src/tuned/sm_90.rs),
# timed by BASE (before register double buffering) and NEW (after), cuBLAS in
# the same process each time: the square sweep 256..8192 (6 sizes) and skinny
# K = 32, 64 at M = N = 8192.
# Usage: bench-tuned-ab.sh BASE NEW OUT PEAK_JSON
set -u
BASE=$1; NEW=$2; OUT=$3; PEAK=$4
args="--precision s,d,c,z --op nn,tn --sweep square,skinny --min-size 256 --max-size 8192 --sizes 6 --skinny-mn 8192 --warmup 1 --reps 5 --peak $PEAK"
echo "=== base"; "$BASE" bench $args --out "$OUT/tuned-base" 2>&1 | tail -12
echo "=== new"; "$NEW" bench $args --out "$OUT/tuned-db" 2>&1 | tail -12
