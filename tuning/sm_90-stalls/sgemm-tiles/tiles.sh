#!/usr/bin/env bash
# SGEMM tiles at 4096, 8192 and 16384 (cuBLAS in the same run). Usage: tiles.sh X OUT specs.txt
set -u
X=$1; OUT=$2; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
"$X" peak --out "$OUT/peak" > "$OUT/peak.log" 2>&1
i=0
while IFS='|' read -r mb spec; do
  i=$((i + 1)); d="$OUT/$i"
  "$X" bench --spec "$spec" --sweep square --min-size 4096 --max-size 16384 --sizes 3 --peak "$OUT/peak/peak.json" --out "$d" > "$d.log" 2>&1
  python3 -c "
import csv
for r in csv.DictReader(open('$d/bench.csv')): print($i, r['m'], r['tflops'], r['cublas_tflops'], r['ratio'], r['pct_of_peak'], r['status'])" 2>/dev/null || echo "$i failed"
done < "$3"
