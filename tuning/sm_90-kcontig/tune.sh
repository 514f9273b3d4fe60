#!/usr/bin/env bash
# The DGEMM, SGEMM and CGEMM tune with K-contiguous stripes in the space
# (`math = dmma` for D, `--tf32x3` for S and C, beside the FMA stencil): the
# twelve D, S and C types, seeded with the dmma and tf32x3 bench specs
# (tuning/sm_90-dmma/bench.txt, tuning/sm_90-tf32/bench.txt) and the
# K-contiguous kernels measured in tuning/sm_90-tf32/kcontig.txt (its
# tf32x3 and dmma lines), and, as always, the shipped kernels.
# Two steps that must see the same arguments:
#
#   MODE=prune bash tuning/sm_90-kcontig/tune.sh X OUT   # no GPU: prune, assemble the cubins
#   bash tuning/sm_90-kcontig/tune.sh X OUT [--resume]   # the GPU machine: time them
#
# On the device: TUNE=tuning/sm_90-kcontig/tune.sh BUDGET=9 bash tuning/sm_90-copies/run-tune.sh X [--resume]
#
# SIZE=n tunes at n^3 only (both rounds of the halving; the winners ship as
# that size's class beside the full-size ones), SHAPE=m,n,k at that shape
# (with the kernels shipped before this retune, old-shipped.txt, as seeds
# too), UPDATE=1 times the update C = C - A.B (--update, as bench's skinny
# sweep), PRECISION narrows the types:
#   SIZE=1024 PRECISION=s,c TUNE=tuning/sm_90-kcontig/tune.sh BUDGET=9 bash tuning/sm_90-copies/run-tune.sh X
set -euo pipefail
X=$1; OUT=$2; shift 2
SEEDS=()
while IFS='|' read -r _ spec; do SEEDS+=(--seed "$spec"); done < <(
  grep -h 'precision = f64' tuning/sm_90-dmma/bench.txt
  cat tuning/sm_90-tf32/bench.txt
  grep -h 'math = tf32x3\|math = dmma' tuning/sm_90-tf32/kcontig.txt | grep -v 'precision = c64'
  # ZGEMM's seeds only when z is tuned (the first, d,s,c call ran without them).
  case ${PRECISION:-} in *z*)
    grep -v 'op = (T, T), tile = (128, 128, 32)' tuning/sm_90-dmma/zbench.txt
    grep -h 'precision = c64' tuning/sm_90-tf32/kcontig.txt;; esac
  [ -n "${SHAPE:-}" ] && cat tuning/sm_90-kcontig/old-shipped.txt)
SIZES=()
[ -n "${SIZE:-}" ] && SIZES=(--size "$SIZE" --small-size "$SIZE")
[ -n "${SHAPE:-}" ] && SIZES=(--shape "$SHAPE")
[ -n "${UPDATE:-}" ] && SIZES+=(--update)
ARGS=(--precision "${PRECISION:-d,s,c}" "${SIZES[@]}" --tf32x3 --max-variants "${MAX_VARIANTS:-48}" --out "$OUT" "${SEEDS[@]}")
if [ "${MODE:-time}" = prune ]; then
  exec "$X" tune --prune-only --arch sm_90 "${ARGS[@]}" "$@"
fi
exec "$X" tune "${ARGS[@]}" --gpu-minutes "${GPU_MINUTES:-18}" --budget-minutes "${BUDGET:-9}" \
  --peak tuning/sm_90-pipeline/peak-bound/peak/peak.json --repo "${REPO:-$OUT}" "$@"
