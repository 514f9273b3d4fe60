#!/usr/bin/env bash
# Benches each line of a specs file ("MIN_BLOCKS|spec", "-" for none) with
# cuBLAS in the same run, after measuring the peaks once. MIN_BLOCKS needs a
# build with occupancy/minnctapersm.patch applied (it sets that patch's
# GEMMFORGE_HACK_MINBLOCKS). SIZES=three (default): 4096, 8192 and 16384;
# SIZES=one: one large size per precision (8192 S, 6144 D, 4608 C/Z).
# Usage: [SIZES=one] specs.sh X OUT specs.txt
set -u
X=$1; OUT=$2; SPECS=$3; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
"$X" peak --out "$OUT/peak" > "$OUT/peak.log" 2>&1
i=0
while IFS='|' read -r mb spec; do
  i=$((i + 1)); d="$OUT/$i"
  sizes=(--min-size 4096 --max-size 16384 --sizes 3)
  if [ "${SIZES:-three}" = one ]; then
    case "$spec" in *"f32"*) s=8192 ;; *"f64"*) s=6144 ;; *) s=4608 ;; esac
    sizes=(--min-size $s --max-size $s --sizes 1)
  fi
  if [ "$mb" = "-" ]; then unset GEMMFORGE_HACK_MINBLOCKS; else export GEMMFORGE_HACK_MINBLOCKS=$mb; fi
  "$X" bench --spec "$spec" --sweep square "${sizes[@]}" --peak "$OUT/peak/peak.json" --out "$d" > "$d.log" 2>&1
  python3 -c "
import csv
for r in csv.DictReader(open('$d/bench.csv')): print($i, 'mb=$mb', r['m'], r['tflops'], r['cublas_tflops'], r['ratio'], r['pct_of_peak'], r['status'])" 2>/dev/null || echo "$i failed"
done < "$SPECS"
