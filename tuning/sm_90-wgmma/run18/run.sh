#!/bin/bash
# wgmma, run 18: what the ring's barrier costs the one-stripe-a-step wgmma kernels. The same xtask
# binary with no-land-bar.patch applied (GEMMFORGE_EXPERIMENT_NO_LAND_BAR: the loop's top waits for
# the thread's own copies only, no bar.sync; results then are wrong — timing only) benches the
# shipped SGEMM specs (and CgemmNN's) at 4096 and 8192 with and without the variable, alternating,
# twice, cuBLAS in the same process.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 4096 --max-size 8192 --sizes 2 --reps 7)
for name in SgemmNN SgemmNT SgemmTN SgemmTT CgemmNN; do
  spec=$(grep -h "name = $name," gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = [A-Za-z0-9]*, //; s/ *}.*//')
  for rep in 1 2; do
    for var in base nobar; do
      if [ $var = nobar ]; then export GEMMFORGE_EXPERIMENT_NO_LAND_BAR=1; else unset GEMMFORGE_EXPERIMENT_NO_LAND_BAR; fi
      timeout 60 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$name-$var-$rep > /tmp/b.log 2>&1 || echo "$name $var $rep rc $?"
      tail -n +2 /tmp/b/$name-$var-$rep/bench.csv | sed "s/^/$name,$var,$rep,/" >> $OUT/all.csv
    done
  done
done
head -1 /tmp/b/SgemmNN-base-1/bench.csv | sed 's/^/name,variant,rep,/' > $OUT/header.csv
python3 - $OUT/all.csv <<'PY'
import csv,sys
for r in csv.reader(open(sys.argv[1])):
    # name, variant, rep, then bench.csv: device, arch, sweep, kernel, source, precision, op, m, n, k, flops, median_ms, ..., tflops(14), ..., ratio(20)
    print(r[0], r[1], r[2], r[10], "ours %.1f TFLOP/s" % float(r[17]), "ratio", r[23], r[24])
PY
