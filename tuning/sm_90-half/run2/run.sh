#!/bin/bash
# 16-bit GEMMs, run 2: seven variants of the default kernel (specs.txt: stages 3, raster 4 and 16,
# a 256 x 128 tile of four 64 x 128 warpgroups, 128 x 256 of four 64 x 128, 128 x 128 with 3 stages)
# for f16 NN, f16 TN and bf16 NT, each benched at 4096, 8192 and 16384 beside cublasGemmEx in the
# same process (5 reps, median), after a verify --gpu on the quick ragged shapes.
# Usage (device): OUT=$OUT bash tuning/sm_90-half/run2/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-half/run2
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  timeout 60 /tmp/x verify --gpu --spec "$spec" --shapes quick > /tmp/b/v$i.log 2>&1; echo "verify $i exit $?" >> $OUT/verify.log
  grep -E "FAILED" /tmp/b/v$i.log | head -2 >> $OUT/verify.log
  timeout 100 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$i > /dev/null 2>&1 || echo "bench $i rc $?"
  tail -n +2 /tmp/b/$i/bench.csv | sed "s/^/$i,/" >> $OUT/all.csv
done < $D/specs.txt
head -1 /tmp/b/1/bench.csv | sed 's/^/candidate,/' > $OUT/header.csv
grep -c "exit 0" $OUT/verify.log
python3 $D/table.py $D/specs.txt $OUT/all.csv
