#!/usr/bin/env bash
# The full tune of the 16 kernel types on an sm_90 GPU, in two steps that
# must see the same arguments (pruning's cache is keyed on them):
#
#   MODE=prune bash tuning/sm_90-tune/tune.sh X OUT   # no GPU: prune, assemble the cubins
#   bash tuning/sm_90-tune/tune.sh X OUT [--resume]   # the GPU machine: time them
#
# X is a release xtask (`cargo build --release -p xtask`), OUT the folder of
# the journal and the candidates. The seeds are the measured winners of
# tuning/sm_90-pipeline (hand-picked runs and the tuner's trial).
set -euo pipefail
X=$1; OUT=$2; shift 2
S='precision = f32, op = (N, N), threads = (16, 16), lds_width = 4, arch = sm_90, stages = 3, raster = 8'
SEEDS=(
  "$S, tile = (192, 128, 20), load_a = (64, 4), load_b = (4, 64), warps = (2, 4)"
  "$S, tile = (128, 128, 32), load_a = (32, 8), load_b = (8, 32), ldg_width = 4, warps = (2, 4), frag_sets = 2"
  "$S, tile = (256, 128, 32), load_a = (64, 4), load_b = (8, 32), ldg_width = 4, warps = (4, 2), frag_sets = 2, unroll = 2"
  "precision = c32, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), load_b = (8, 32), lds_width = 2, ldg_width = 2, stages = 3, warps = (2, 4), raster = 8, arch = sm_90"
  "precision = c32, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), load_b = (8, 32), lds_width = 2, ldg_width = 2, stages = 3, warps = (2, 4), raster = 8, arch = sm_90, frag_sets = 2"
  "precision = f64, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), load_b = (8, 32), lds_width = 2, ldg_width = 2, stages = 3, warps = (2, 4), raster = 8, arch = sm_90"
  "precision = f64, op = (N, N), tile = (64, 192, 24), threads = (16, 32), load_a = (64, 8), load_b = (8, 64), lds_width = 2, arch = sm_90, stages = 3, warps = (2, 8), raster = 8"
  "precision = c64, op = (N, N), tile = (48, 32, 16), threads = (16, 8), load_a = (16, 8), load_b = (8, 16), ldg = cg"
)
ARGS=(--max-variants "${MAX_VARIANTS:-96}" --out "$OUT")
for s in "${SEEDS[@]}"; do ARGS+=(--seed "$s"); done
if [ "${MODE:-time}" = prune ]; then
  exec "$X" tune --prune-only --arch sm_90 "${ARGS[@]}" "$@"
fi
exec "$X" tune "${ARGS[@]}" --gpu-minutes "${GPU_MINUTES:-25}" --budget-minutes "${BUDGET:-9}" \
  --peak tuning/sm_90-pipeline/peak-bound/peak/peak.json --repo "${REPO:-$OUT}" "$@"
