#!/usr/bin/env bash
# The SGEMM types re-tuned after the ring's hand-off (frag_sets = 2 loads
# the next stripe's first fragments in the last step): the full tune's
# arguments and seeds (tuning/sm_90-tune/tune.sh), SGEMM only, plus the two
# best kernels of tuning/sm_90-stalls as seeds.
#
#   MODE=prune bash tuning/sm_90-handoff/tune.sh X OUT     # no GPU
#   bash tuning/sm_90-handoff/tune.sh X OUT [--resume]     # the GPU machine
set -euo pipefail
X=$1; OUT=$2; shift 2
S='precision = f32, op = (N, N), threads = (16, 16), lds_width = 4, arch = sm_90, raster = 8'
exec bash tuning/sm_90-tune/tune.sh "$X" "$OUT" --precision s \
  --seed "$S, tile = (192, 128, 20), load_a = (64, 4), load_b = (4, 64), stages = 3, warps = (2, 4), frag_sets = 2" \
  --seed "$S, tile = (256, 128, 16), load_a = (64, 4), load_b = (8, 32), stages = 3, warps = (2, 4)" "$@"
