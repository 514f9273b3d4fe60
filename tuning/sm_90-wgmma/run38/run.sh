#!/bin/bash
# wgmma, run 38: the TMA producer for stripes the producers convert (ldg = tma beyond TN: the
# producers wait on the slot's barrier, then convert). specs.txt: lines 1-3 run 29's 1xTF32 NN, NT,
# TT 128x256 kernels, lines 4-7 the shipped tf32x3 SgemmNN/NT/TN/TT (128x128, producers = 1), by
# cp.async; lines 8-14 the same with ldg = tma. The TMA candidates first pass verify --gpu on the
# quick ragged shapes; then all fourteen are benched at 4096, 8192, 16384 beside cuBLAS (TF32 GEMM
# for math = tf32, SGEMM for tf32x3) in the same process.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run38/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run38
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
grep -E "^summary|^exit" $OUT/verify.log | paste - - | cut -c1-80
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  timeout 100 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$i > /dev/null 2>&1 || echo "bench $i rc $?"
  tail -n +2 /tmp/b/$i/bench.csv | sed "s/^/$i,/" >> $OUT/all.csv
done < $D/specs.txt
head -1 /tmp/b/1/bench.csv | sed 's/^/candidate,/' > $OUT/header.csv
python3 $D/table.py $D/specs.txt $OUT/all.csv
