#!/usr/bin/env bash
# K-contiguous stripes for K-leading operands: verify --gpu of four kernels
# that use them (1xTF32 and tf32x3 SGEMM TN, tf32x3 CGEMM TN, DGEMM NN),
# then kcontig.txt benched at one size with the build after the change and
# the build before it, in the same call.
# Usage (device): OUT=$OUT bash tuning/sm_90-tf32/kcontig.sh NEW OLD
set -u
NEW=$1; OLD=$2; T=tuning/sm_90-tf32; D=$OUT/kcontig; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
for i in 3 7 12 15; do
  spec=$(sed -n ${i}p $T/kcontig.txt | cut -d'|' -f2)
  "$NEW" verify --gpu --spec "$spec" > $D/verify-$i.log 2>&1; echo "exit $?" >> $D/verify-$i.log
  echo "verify $i: $(grep -m1 cases $D/verify-$i.log) $(tail -1 $D/verify-$i.log)"
done
for build in new old; do
  X=$NEW; [ $build = old ] && X=$OLD
  SIZES=one bash tuning/sm_90-stalls/specs.sh "$X" "$D/$build" $T/kcontig.txt > $D/$build.out 2>&1
  echo "== $build"; cat $D/$build.out
done
rm -f $D/*/*/*.svg
tar czf $OUT/kcontig.tgz -C $OUT kcontig
