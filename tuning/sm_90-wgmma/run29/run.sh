#!/bin/bash
# wgmma, run 29: 1xTF32 reading K-contiguous operands straight from the ring (stencil/wgmma.rs,
# "Operands read from the ring"; specialized.rs). Each candidate of specs.txt (four op pairs, three
# warp-specialized tiles: 128x256 on two consumer warpgroups of n = 256, 128x128 and 256x128 of
# n = 128) is checked with verify --gpu on the quick ragged shapes, then benched at 4096, 8192 and
# 16384 beside cuBLAS's TF32 GEMM in the same process; then xtask accuracy of the 128x256 candidates
# (and NT's 128x128) beside cuBLAS on the same inputs, n = 1024, 4096, 16384, four distributions.
# Usage (device): OUT=$OUT [ACCURACY=0] bash tuning/sm_90-wgmma/run29/run.sh   (x.xz = xtask with the
# change; ACCURACY=0 skips the accuracy part)
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
[ "${ACCURACY:-1}" = 1 ] || exit 0
acc=()
while IFS= read -r spec; do acc+=(--spec "$spec"); done < <(grep -E "tile = \(128, 256|op = \(N, T\), tile = \(128, 128" $D/specs.txt)
( time timeout 240 /tmp/x accuracy "${acc[@]}" --out $OUT/accuracy ) > $OUT/accuracy.log 2>&1; echo "accuracy rc $?"
tail -40 $OUT/accuracy.log
