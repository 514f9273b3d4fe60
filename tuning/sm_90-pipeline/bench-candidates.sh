#!/usr/bin/env bash
# Times hand-picked specs of the new pipeline stages (cp.async ring, 128-bit
# global loads, warp tiling, rasterized grid) against cuBLAS in the same
# process, at n = 4096, 8192, 16384, beside the current tuned defaults.
# Usage: bench-candidates.sh XTASK OUT
set -u
X=$1; OUT=$2
sq="--sweep square --min-size 4096 --max-size 16384 --sizes 3"
run() { name=$1; shift; echo "=== $name"; "$X" bench $sq --out "$OUT/$name" "$@" 2>&1 | tail -8; }
run tuned-sdc --precision s,d,c --op nn
S="precision = f32, op = (N, N), threads = (16, 16), load_a = (32, 8), lds_width = 4, ldg_width = 4, arch = sm_90"
run s1 --spec "$S, tile = (128, 128, 8), load_b = (2, 128), stages = 3, warps = (2, 4), raster = 8"
run s2 --spec "$S, tile = (128, 128, 16), load_b = (4, 64), stages = 3, warps = (2, 4), raster = 8"
run s3 --spec "$S, tile = (128, 128, 16), load_b = (4, 64), stages = 4, warps = (4, 2), raster = 8"
run s4 --spec "$S, tile = (128, 128, 16), load_b = (4, 64), stages = 3, raster = 8"
run s5 --spec "$S, tile = (128, 128, 16), load_b = (4, 64), stages = 3, warps = (2, 4)"
run s6 --spec "$S, tile = (128, 128, 32), load_b = (8, 32), stages = 3, warps = (2, 4), raster = 8"
run d1 --spec "precision = f64, op = (N, N), tile = (64, 64, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32), lds_width = 2, ldg_width = 2, stages = 3, warps = (2, 4), raster = 8, arch = sm_90"
run c1 --spec "precision = c32, op = (N, N), tile = (64, 64, 16), threads = (8, 16), load_a = (16, 8), load_b = (8, 16), lds_width = 2, ldg_width = 2, stages = 3, warps = (1, 4), raster = 8, arch = sm_90"
