#!/usr/bin/env bash
# The tf32x3 winners (winners.txt) rebuilt with each step's products added
# to the accumulators by add.rn.f32: verify --gpu --spec of each, then
# bench at one size. Usage (device): OUT=$OUT bash tuning/sm_90-tf32/acc.sh [X]
set -u
X=${1:-.devc/xtask-t}; D=$OUT/acc; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  "$X" verify --gpu --spec "$spec" > $D/verify-$i.log 2>&1; echo "exit $?" >> $D/verify-$i.log
  grep "cases" $D/verify-$i.log | head -1
done < tuning/sm_90-tf32/winners.txt
sed 's/^/-|/' tuning/sm_90-tf32/winners.txt > /tmp/w.txt
SIZES=one bash tuning/sm_90-stalls/specs.sh $X $D/bench /tmp/w.txt
tar czf $OUT/acc.tgz -C $OUT acc
