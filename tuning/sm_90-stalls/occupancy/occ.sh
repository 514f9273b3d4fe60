#!/usr/bin/env bash
# More warps per SM: each spec line is "MIN_BLOCKS|spec" ("-": none), benched at one size
# by a build with occupancy/minnctapersm.patch applied. Usage: occ.sh X OUT specs.txt
set -u
X=$1; OUT=$2; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
"$X" peak --out "$OUT/peak" > "$OUT/peak.log" 2>&1
i=0
while IFS='|' read -r mb spec; do
  i=$((i + 1))
  case "$spec" in *"f32"*) size=8192 ;; *"f64"*) size=6144 ;; *) size=4608 ;; esac
  d="$OUT/$i"
  if [ "$mb" = "-" ]; then unset GEMMFORGE_HACK_MINBLOCKS; else export GEMMFORGE_HACK_MINBLOCKS=$mb; fi
  "$X" bench --spec "$spec" --sweep square --min-size $size --max-size $size --sizes 1 --peak "$OUT/peak/peak.json" --out "$d" > "$d.log" 2>&1
  row=$(python3 -c "
import csv
r=list(csv.DictReader(open('$d/bench.csv')))[0]
print(','.join([r['m'],r['tflops'],r['cublas_tflops'],r['ratio'],r['pct_of_peak'],r['status']]))" 2>/dev/null || echo "failed")
  echo "$i,mb=$mb,$row,${spec:45:120}"
done < "$3"
