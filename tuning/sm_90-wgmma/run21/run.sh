#!/bin/bash
# wgmma, run 21: wgmma stripes unskewed (a 128 x 128 x 32 tf32x3 tile then fits a third ring stage).
# x.xz = xtask with the change. verify --gpu of every shipped wgmma kernel (their layout changed) and
# of the deeper-ring specs; then each shipped large-square spec (NAMES) as shipped and with STAGES
# stages, alternating, twice: squares 4096, 8192, 16384, cuBLAS in the same process.
# Usage: NAMES="SgemmNN SgemmNT SgemmTN SgemmTT" STAGES=3 VERIFY=1 bash run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
spec_of() { grep -h "name = $1," gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = [A-Za-z0-9]*, //; s/ *}.*//'; }
if [ "${VERIFY:-0}" = 1 ]; then
  K=$(grep "mma = (64" gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = \([A-Za-z0-9]*\),.*/sm_90::\1/' | paste -sd,)
  ( time timeout 150 /tmp/x verify --gpu --precision s,c --kernel $K --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
  grep -E "^summary" $OUT/verify.log
fi
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
for name in $NAMES; do
  base=$(spec_of $name); deep=$(echo "$base" | sed "s/stages = [0-9]/stages = $STAGES/")
  ( timeout 60 /tmp/x verify --gpu --spec "$deep" --shapes quick ) > $OUT/verify-$name-s$STAGES.log 2>&1; echo "verify $name s$STAGES rc $?"
  grep -E "^summary" $OUT/verify-$name-s$STAGES.log
  for rep in 1 2; do
    for var in shipped deep; do
      spec=$base; [ $var = deep ] && spec=$deep
      timeout 80 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$name-$var-$rep > /dev/null 2>&1 || echo "$name $var $rep rc $?"
      tail -n +2 /tmp/b/$name-$var-$rep/bench.csv | sed "s/^/$name,$var,$rep,/" >> $OUT/all.csv
    done
  done
done
python3 - $OUT/all.csv <<'PY'
import csv, statistics, sys
cells = {}
for r in csv.reader(open(sys.argv[1])):
    cells.setdefault((r[0], int(r[10])), {}).setdefault(r[1], []).append(float(r[23]))
for (name, m), by in sorted(cells.items()):
    s, d = statistics.median(by.get("shipped", [0])), statistics.median(by.get("deep", [0]))
    print(f"{name:10} {m:6}  shipped {s:.3f}  deeper ring {d:.3f}  ratio {d / s if s else 0:.3f}")
PY
