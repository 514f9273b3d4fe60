#!/bin/bash
# wgmma, run 36: the TMA producer (ldg = tma, stencil/bulk.rs) against the cp.async producer it
# replaces, on run 29's three TN 1xTF32 tiles (specs.txt: lines 1-3 cp.async, as run 29; lines 4-6
# the same specs with ldg = tma). The TMA candidates are first checked with verify --gpu on the quick
# ragged shapes (unaligned leading dimensions run the cp.async twin), then all six are benched at
# 4096, 8192 and 16384 beside cuBLAS's TF32 GEMM in the same process, twice in alternating order.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run36/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run36
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  case "$spec" in *tma*)
    echo "== candidate $i: $spec" >> $OUT/verify.log
    timeout 90 /tmp/x verify --gpu --spec "$spec" --shapes quick >> $OUT/verify.log 2>&1
    echo "exit $?" >> $OUT/verify.log ;;
  esac
done < $D/specs.txt
grep -E "^summary|^exit" $OUT/verify.log | paste - -
for round in 1 2; do
  i=0
  while IFS= read -r spec; do
    i=$((i + 1))
    timeout 100 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$round-$i > /dev/null 2>&1 || echo "bench $round-$i rc $?"
    tail -n +2 /tmp/b/$round-$i/bench.csv | sed "s/^/$i,/" >> $OUT/all.csv
  done < <(if [ $round = 1 ]; then cat $D/specs.txt; else tac $D/specs.txt; fi)
done
head -1 /tmp/b/1-1/bench.csv | sed 's/^/candidate,/' > $OUT/header.csv
python3 tuning/sm_90-wgmma/run29/table.py $OUT/all.csv | sort -k1,1n -k2,2 -s
