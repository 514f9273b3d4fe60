#!/usr/bin/env bash
# The shipped SGEMM/CGEMM kernels (gemm-host's, FMA) and the tf32x3 tune
# winners (tune/sm_90.rs; winners.txt: its 8 transpose types, by
#   grep -o "precision = [^}]*" tune/sm_90.rs | grep -v "C)\|(C," | sort -u)
# over square sizes 256 to 4096 and the skinny sweep, beside cuBLAS; then
# each winner on the ragged shapes against the f64 reference and cuBLAS
# (verify --gpu --spec). Usage (device): OUT=$OUT bash small.sh X
set -u
X=$1; D=$OUT/small; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
SW=(--sweep square,skinny --min-size 256 --max-size 4096 --sizes 6 --skinny-mn 4096,8192)
"$X" bench --precision s,c "${SW[@]}" --out $D/shipped > $D/shipped.log 2>&1
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  "$X" bench --spec "$spec" "${SW[@]}" --out $D/tf32x3-$i > $D/tf32x3-$i.log 2>&1
  "$X" verify --gpu --spec "$spec" > $D/verify-$i.log 2>&1; echo "exit $?" >> $D/verify-$i.log
done < tuning/sm_90-tf32/winners.txt
tar czf $OUT/small.tgz -C $OUT small
