#!/usr/bin/env bash
# A/B/C… of code-generator variants in one call: each spec of SPECS is
# benched at one large size (cuBLAS in the same run) by every variant in
# turn, variants alternating per spec so all see the same GPU minutes.
# A variant is "label|executable|VAR=value …" (environment for that run).
# Usage: ab.sh OUT SPECS VARIANT…
set -u
OUT=$1; SPECS=$2; shift 2; mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
first=${1#*|}; first=${first%%|*}
"$first" peak --out "$OUT/peak" > "$OUT/peak.log" 2>&1; tail -4 "$OUT/peak.log"
echo "variant,line,size,tflops,cublas_tflops,ratio,pct_of_peak,status,spec" > "$OUT/ab.csv"
i=0
while read -r spec; do
  i=$((i + 1))
  case "$spec" in *"f32"*) size=8192 ;; *"f64"*) size=6144 ;; *) size=4608 ;; esac
  for v in "$@"; do
    label=${v%%|*}; rest=${v#*|}; X=${rest%%|*}; envs=${rest#*|}; [ "$envs" = "$rest" ] && envs=
    d="$OUT/$i-$label"
    env $envs "$X" bench --spec "$spec" --sweep square --min-size $size --max-size $size --sizes 1 \
      --peak "$OUT/peak/peak.json" --out "$d" > "$d.log" 2>&1
    row=$(python3 -c "
import csv
r=list(csv.DictReader(open('$d/bench.csv')))[0]
print(','.join([r['m'],r['tflops'],r['cublas_tflops'],r['ratio'],r['pct_of_peak'],r['status']]))" 2>/dev/null || echo ",,,,,failed")
    echo "$label,$i,$row,\"$spec\"" | tee -a "$OUT/ab.csv"
  done
done < "$SPECS"
