#!/usr/bin/env bash
# Stall reasons (WarpStateStats + SourceCounters sampling) of one spec and cuBLAS at one size.
# Usage: ncu2.sh OUT NAME SIZE SPEC
set -u
OUT=$1; NAME=$2; N=$3; SPEC=$4
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
ncu --clock-control none -k 'regex:gemm' --launch-skip 2 -c 4 \
  --section WarpStateStats --section SourceCounters --section SchedulerStats --section Occupancy \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' -o "$OUT/$NAME" -f \
  .device/xtask bench --spec "$SPEC" --sweep square --min-size $N --max-size $N --sizes 1 --warmup 1 --reps 1 --peak tuning/sm_90-pipeline/peak-bound/peak/peak.json --out "$OUT/bench-$NAME" > "$OUT/$NAME.bench.log" 2>&1
ncu --import "$OUT/$NAME.ncu-rep" --page raw --csv --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' > "$OUT/$NAME.stalls.csv" 2>&1
ncu --import "$OUT/$NAME.ncu-rep" --page source --print-source sass --csv > "$OUT/$NAME.source.csv" 2>&1
ncu --import "$OUT/$NAME.ncu-rep" --page details --print-details all --csv > "$OUT/$NAME.details.csv" 2>&1
rm -f "$OUT/$NAME.ncu-rep"
