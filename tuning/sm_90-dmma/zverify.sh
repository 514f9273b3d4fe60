#!/usr/bin/env bash
# The ZGEMM dmma winners (winners.txt's c64 lines) on the ragged shapes
# against the f64 reference and cuBLAS (verify --gpu --spec), for the
# accuracy of the complex products. Usage (device): OUT=$OUT bash zverify.sh X
set -u
X=$1; D=$OUT/zverify; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
i=0
grep 'precision = c64' tuning/sm_90-dmma/winners.txt | while IFS= read -r spec; do
  i=$((i + 1))
  "$X" verify --gpu --spec "$spec" > $D/$i.log 2>&1; echo "exit $?" >> $D/$i.log
done
tar czf $OUT/zverify.tgz -C $OUT zverify
