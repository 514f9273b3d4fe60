#!/usr/bin/env bash
# Per-instruction stall samples (ncu's source page, SASS) of one kernel.
# Usage: prof-source.sh X OUT NAME SIZE "<spec>"
set -u
X=$1; OUT=$2; NAME=$3; SIZE=$4; SPEC=$5; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:gemmforge --launch-skip 1 --launch-count 1 \
  --page source --print-source sass --csv \
  "$X" bench --spec "$SPEC" --sweep square --min-size "$SIZE" --max-size "$SIZE" --sizes 1 --warmup 1 --reps 1 \
  --out "$OUT/bench-$NAME" > "$OUT/$NAME-source.csv" 2> "$OUT/$NAME.err"
echo "$NAME: $(grep -c '' "$OUT/$NAME-source.csv") lines"
