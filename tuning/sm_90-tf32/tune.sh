#!/usr/bin/env bash
# The SGEMM and CGEMM tune with `math = tf32x3` in the space (m16n8k8 and
# m16n8k4 beside the FMA stencil): the eight S and C types, seeded with this
# folder's bench specs (bench.txt) and, as always, the shipped kernels.
# Two steps that must see the same arguments:
#
#   MODE=prune bash tuning/sm_90-tf32/tune.sh X OUT   # no GPU: prune, assemble the cubins
#   bash tuning/sm_90-tf32/tune.sh X OUT [--resume]   # the GPU machine: time them
#
# On the device: TUNE=tuning/sm_90-tf32/tune.sh BUDGET=6 bash tuning/sm_90-copies/run-tune.sh X
set -euo pipefail
X=$1; OUT=$2; shift 2
SEEDS=()
while IFS='|' read -r _ spec; do SEEDS+=(--seed "$spec"); done < tuning/sm_90-tf32/bench.txt
ARGS=(--precision s,c --tf32x3 --max-variants "${MAX_VARIANTS:-48}" --out "$OUT" "${SEEDS[@]}")
if [ "${MODE:-time}" = prune ]; then
  exec "$X" tune --prune-only --arch sm_90 "${ARGS[@]}" "$@"
fi
exec "$X" tune "${ARGS[@]}" --gpu-minutes "${GPU_MINUTES:-12}" --budget-minutes "${BUDGET:-9}" \
  --peak tuning/sm_90-pipeline/peak-bound/peak/peak.json --repo "${REPO:-$OUT}" "$@"
