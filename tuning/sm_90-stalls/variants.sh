#!/usr/bin/env bash
# A/B of kernel variants in one process each, two builds back to back:
# every spec of specs.txt is benched at one large size (cuBLAS in the same
# run) by build X0, then by build X1, alternating, so a code-generator
# change is compared on the same GPU minutes apart.
# Usage: variants.sh X0 X1 OUT [specs.txt]
set -u
X0=$1; X1=$2; OUT=$3; SPECS=${4:-tuning/sm_90-stalls/specs.txt}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
"$X0" peak --out "$OUT/peak" > "$OUT/peak.log" 2>&1; tail -4 "$OUT/peak.log"
echo "build,line,size,tflops,cublas_tflops,ratio,pct_of_peak,status,spec" > "$OUT/variants.csv"
i=0
while read -r spec; do
  i=$((i + 1))
  case "$spec" in
    *"f32"*) size=8192 ;; *"c32"*) size=6144 ;; *"f64"*) size=6144 ;; *) size=4608 ;;
  esac
  for b in 0 1; do
    X=$X0; [ $b = 1 ] && X=$X1
    d="$OUT/$i-$b"
    "$X" bench --spec "$spec" --sweep square --min-size $size --max-size $size --sizes 1 --peak "$OUT/peak/peak.json" --out "$d" > "$d.log" 2>&1
    row=$(python3 -c "
import csv,sys
r=list(csv.DictReader(open('$d/bench.csv')))[0]
print(','.join([r['m'],r['tflops'],r['cublas_tflops'],r['ratio'],r['pct_of_peak'],r['status']]))" 2>/dev/null || echo ",,,,,failed")
    echo "$b,$i,$row,\"$spec\"" | tee -a "$OUT/variants.csv"
  done
done < "$SPECS"
