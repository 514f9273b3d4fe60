#!/usr/bin/env bash
set -u
OUT=$1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
P=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas); export GEMMFORGE_PTXAS=$P; echo "ptxas: $P"
.device/xtask tune --precision ${PRECISIONS:-s,c} --op nn --gpu-minutes 3.2 --budget-minutes ${BUDGET:-7} \
  --peak tuning/sm_90-pipeline/peak-bound/peak/peak.json --out "$OUT/tune" --repo "$OUT" 2>&1 | tee "$OUT/tune.log" | grep -v '^\s*$' | tail -70
