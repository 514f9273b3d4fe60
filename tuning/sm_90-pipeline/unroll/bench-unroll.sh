#!/usr/bin/env bash
# Register double buffering (`frag_sets = 2`) and the inner product's loop
# (`unroll`): BASE is xtask built before both (straight-line stripe, one
# fragment set), NEW after; the same specs timed by each, then `unroll` variants by NEW,
# cuBLAS in the same process each time, n = 8192 and 16384.
# Usage: bench-unroll.sh BASE NEW OUT PEAK_JSON
set -u
BASE=$1; NEW=$2; OUT=$3; PEAK=$4
sq="--sweep square --min-size 8192 --max-size 16384 --sizes 2 --peak $PEAK"
run() { x=$1; name=$2; shift 2; echo "=== $name"; "$x" bench $sq --out "$OUT/$name" "$@" 2>&1 | tail -2; }
S="precision = f32, op = (N, N), threads = (16, 16), lds_width = 4, ldg_width = 4, raster = 8, arch = sm_90"
S6="$S, tile = (128, 128, 32), load_a = (32, 8), load_b = (8, 32), stages = 3, warps = (2, 4)"
W5="$S, tile = (256, 128, 32), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (4, 2)"
C3="precision = c32, op = (N, N), lds_width = 2, ldg_width = 2, raster = 8, arch = sm_90, threads = (16, 16), tile = (128, 128, 16), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (2, 4)"
D3="precision = f64, op = (N, N), lds_width = 2, ldg_width = 2, raster = 8, arch = sm_90, threads = (16, 16), tile = (128, 128, 16), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (2, 4)"
for k in s6 w5 c3 d3; do
  var=${k^^}; spec=${!var}
  run "$BASE" "$k-base" --spec "$spec"
  run "$NEW" "$k-db" --spec "$spec, frag_sets = 2"
done
for u in 2 4 8; do
  run "$NEW" "c3-u$u" --spec "$C3, unroll = $u, frag_sets = 2"
  run "$NEW" "w5-u$u" --spec "$W5, unroll = $u, frag_sets = 2"
done
run "$NEW" "s6-u8" --spec "$S6, unroll = 8, frag_sets = 2"
run "$NEW" "d3-u4" --spec "$D3, unroll = 4, frag_sets = 2"
