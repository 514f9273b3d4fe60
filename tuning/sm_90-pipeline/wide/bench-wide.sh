#!/usr/bin/env bash
# Wider register blocks (128 accumulator registers a thread, one 256-thread
# block an SM, as cuBLAS's sm80 FFMA kernel uses: 256x128x8, 3 stages, 254
# registers) against cuBLAS in the same process, n = 4096, 8192, 16384.
# Usage: bench-wide.sh XTASK OUT PEAK_JSON
set -u
X=$1; OUT=$2; PEAK=$3
sq="--sweep square --min-size 4096 --max-size 16384 --sizes 3 --peak $PEAK"
run() { name=$1; shift; echo "=== $name"; "$X" bench $sq --out "$OUT/$name" "$@" 2>&1 | tail -6; }
S="precision = f32, op = (N, N), threads = (16, 16), lds_width = 4, ldg_width = 4, raster = 8, arch = sm_90"
run s6 --spec "$S, tile = (128, 128, 32), load_a = (32, 8), load_b = (8, 32), stages = 3, warps = (2, 4)"
run w1 --spec "$S, tile = (256, 128, 8), load_a = (64, 4), load_b = (2, 128), stages = 3, warps = (4, 2)"
run w2 --spec "$S, tile = (256, 128, 8), load_a = (32, 8), load_b = (2, 128), stages = 4, warps = (4, 2)"
run w3 --spec "$S, tile = (128, 256, 8), load_a = (32, 8), load_b = (2, 128), stages = 3, warps = (2, 4)"
run w4 --spec "$S, tile = (256, 128, 16), load_a = (64, 4), load_b = (4, 64), stages = 3, warps = (4, 2)"
run w5 --spec "$S, tile = (256, 128, 32), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (4, 2)"
D="precision = f64, op = (N, N), lds_width = 2, ldg_width = 2, raster = 8, arch = sm_90"
run d2 --spec "$D, threads = (16, 16), tile = (128, 128, 8), load_a = (64, 4), load_b = (4, 64), stages = 3, warps = (2, 4)"
run d3 --spec "$D, threads = (16, 16), tile = (128, 128, 16), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (2, 4)"
run d4 --spec "$D, threads = (16, 8), tile = (128, 64, 16), load_a = (64, 2), load_b = (8, 16), stages = 4, warps = (4, 1)"
C="precision = c32, op = (N, N), lds_width = 2, ldg_width = 2, raster = 8, arch = sm_90"
run c2 --spec "$C, threads = (16, 16), tile = (128, 128, 8), load_a = (64, 4), load_b = (4, 64), stages = 3, warps = (2, 4)"
run c3 --spec "$C, threads = (16, 16), tile = (128, 128, 16), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (2, 4)"
run c4 --spec "$C, threads = (16, 16), tile = (128, 64, 16), load_a = (64, 4), load_b = (8, 32), stages = 4, warps = (4, 2)"
