#!/usr/bin/env bash
# The DGEMM and ZGEMM tune with `math = dmma` in the space (m16n8k4 and
# m16n8k8 on sm_90, beside the FMA stencil): the arguments of
# tuning/sm_90-tune/tune.sh for the eight D and Z types, seeded with this
# folder's bench winners (bench.txt, zbench.txt). Two steps that must see
# the same arguments:
#
#   MODE=prune bash tuning/sm_90-dmma/tune.sh X OUT   # no GPU: prune, assemble the cubins
#   bash tuning/sm_90-dmma/tune.sh X OUT [--resume]   # the GPU machine: time them
#
# On the device: TUNE=tuning/sm_90-dmma/tune.sh BUDGET=6 bash tuning/sm_90-copies/run-tune.sh X
set -euo pipefail
X=$1; OUT=$2; shift 2
SEEDS=()
while IFS='|' read -r _ spec; do SEEDS+=(--seed "$spec"); done \
  < <(cat tuning/sm_90-dmma/bench.txt tuning/sm_90-dmma/zbench.txt | grep -v 'op = (T, T), tile = (128, 128, 32)')
ARGS=(--precision d,z --max-variants "${MAX_VARIANTS:-48}" --out "$OUT" "${SEEDS[@]}")
if [ "${MODE:-time}" = prune ]; then
  exec "$X" tune --prune-only --arch sm_90 "${ARGS[@]}" "$@"
fi
exec "$X" tune "${ARGS[@]}" --gpu-minutes "${GPU_MINUTES:-12}" --budget-minutes "${BUDGET:-9}" \
  --peak tuning/sm_90-pipeline/peak-bound/peak/peak.json --repo "${REPO:-$OUT}" "$@"
