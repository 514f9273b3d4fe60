#!/usr/bin/env bash
# After the TF32 rounding by an FMA of the half place (06a3c44): verify
# --gpu of the 1xTF32 and tf32x3 SGEMM NN kernels, then the bench of
# accuracy.sh (winners-acc.txt and tf32.txt at 4096, 8192, 16384).
# Usage (device): OUT=$OUT bash tuning/sm_90-tf32/rounding.sh [X]
set -u
X=${1:-.devc/xtask-t}; T=tuning/sm_90-tf32; D=$OUT/rounding; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
i=0
for spec in "$(sed -n 1p $T/tf32.txt)" "$(sed -n 1p $T/winners-acc.txt)" "$(sed -n 2p $T/tf32.txt)"; do
  i=$((i + 1))
  "$X" verify --gpu --spec "$spec" > $D/verify-$i.log 2>&1; echo "exit $?" >> $D/verify-$i.log
  echo "verify $i: $(grep -m1 cases $D/verify-$i.log) $(tail -1 $D/verify-$i.log)"
done
PART=bench OUT=$D bash $T/accuracy.sh "$X" > /dev/null 2>&1
cat $D/acc-bench.out
rm -f $D/acc-bench/*/*.svg $D/acc-bench.tgz
tar czf $OUT/rounding.tgz -C $OUT rounding
