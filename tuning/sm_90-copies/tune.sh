#!/usr/bin/env bash
# The full tune of the 16 kernel types with `interleave` in the space: the
# arguments and seeds of tuning/sm_90-tune/tune.sh, plus the winners of
# tuning/sm_90-handoff and the best interleaves of ab-2 (this folder) as
# seeds. Two steps that must see the same arguments:
#
#   MODE=prune bash tuning/sm_90-copies/tune.sh X OUT   # no GPU: prune, assemble the cubins
#   bash tuning/sm_90-copies/tune.sh X OUT [--resume]   # the GPU machine: time them
set -euo pipefail
S='precision = f32, threads = (16, 16), lds_width = 4, arch = sm_90, stages = 3, raster = 8, warps = (2, 4)'
D='precision = f64, arch = sm_90, stages = 3, raster = 8'
SEEDS=(
  --seed "$S, op = (N, N), tile = (256, 128, 16), load_a = (64, 4), load_b = (8, 32), interleave = 1"
  --seed "$S, op = (N, N), tile = (256, 128, 16), load_a = (64, 4), load_b = (8, 32), frag_sets = 2, interleave = 2"
  --seed "$S, op = (N, N), tile = (192, 128, 20), load_a = (64, 4), load_b = (4, 64), frag_sets = 2, interleave = 1"
  --seed "precision = f32, op = (N, T), tile = (128, 256, 48), threads = (8, 32), load_a = (32, 8), load_b = (32, 8), lds_width = 4, arch = sm_90, stages = 3, ldg_width = 4, warps = (2, 4), raster = 8, interleave = 1"
  --seed "$S, op = (T, N), tile = (256, 128, 16), load_a = (16, 16), load_b = (16, 16), interleave = 4"
  --seed "$S, op = (T, T), tile = (256, 128, 16), load_a = (16, 16), load_b = (64, 4), interleave = 8"
  --seed "$D, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (32, 8), load_b = (8, 32), lds_width = 2, ldg_width = 2, warps = (2, 4), frag_sets = 2, interleave = 2"
  --seed "$D, op = (N, N), tile = (176, 128, 16), threads = (16, 16), load_a = (16, 16), load_b = (16, 16), warps = (2, 4), interleave = 4"
  --seed "precision = c64, op = (N, N), tile = (128, 64, 16), threads = (32, 8), load_a = (16, 16), load_b = (8, 32), arch = sm_90, stages = 3, warps = (4, 2), raster = 8, frag_sets = 2, interleave = 4"
)
exec bash tuning/sm_90-tune/tune.sh "$@" "${SEEDS[@]}"
