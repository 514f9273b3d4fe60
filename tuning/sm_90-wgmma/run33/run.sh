#!/bin/bash
# wgmma, run 33: run 29's twelve 1xTF32 candidates (run29/specs.txt) once 1xTF32 stopped fencing every
# stripe: run 32's profile put 57% of the stall samples on each stripe's first HGMMA, behind the
# wgmma.fence (WARPGROUP.ARRIVE) that waited for the group still in flight; a chain of wgmmas on the same
# accumulators needs no fence, so 1xTF32 now fences once, after zeroing C. verify --gpu (quick) and
# bench at 4096, 8192, 16384 beside cuBLAS's TF32 GEMM in the same process, as run 29.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run33/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run29
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  ( timeout 60 /tmp/x verify --gpu --spec "$spec" --shapes quick ) > $OUT/verify-$i.log 2>&1; echo "verify $i rc $?"
  grep -E "^summary" $OUT/verify-$i.log
  timeout 100 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$i > /dev/null 2>&1 || echo "bench $i rc $?"
  tail -n +2 /tmp/b/$i/bench.csv | sed "s/^/$i,/" >> $OUT/all.csv
done < $D/specs.txt
head -1 /tmp/b/1/bench.csv | sed 's/^/candidate,/' > $OUT/header.csv
python3 $D/table.py $OUT/all.csv
