#!/usr/bin/env bash
# Benches each spec of tuning/sm_90-tf32/NAME.txt beside cuBLAS (after the
# peaks) with an xtask build X, and packs the results into $OUT/NAME.tgz.
# SIZES=one: 8192 (f32) / 4608 (c32) only; SIZES=three: 4096, 8192, 16384.
# Usage (device): OUT=$OUT SIZES=one bash tuning/sm_90-tf32/run.sh X NAME
set -u
X=$1; NAME=$2
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
bash tuning/sm_90-stalls/specs.sh "$X" "$OUT/$NAME" "tuning/sm_90-tf32/$NAME.txt" 2>&1 | tee "$OUT/$NAME.out"
tar czf "$OUT/$NAME.tgz" -C "$OUT" "$NAME"
