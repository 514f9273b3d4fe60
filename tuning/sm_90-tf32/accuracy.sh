#!/usr/bin/env bash
# The accuracy table and the three-size bench of the tuned tf32x3 kernels
# (winners-acc.txt: tune-acc/'s NN, NT, TN, TT winners) and the 1xTF32
# kernels (tf32.txt), beside cuBLAS in the same run:
#  1. xtask accuracy: every kernel, and the shipped FMA kernel of each type
#     (--shipped), at n = 1024, 4096, 16384, inputs uniform, normal, wide
#     and tiny, f64 reference on 64 columns of C;
#  2. xtask bench of each kernel at 4096, 8192, 16384 (cuBLAS in its TF32
#     mode for the tf32 kernels).
# Usage (device): OUT=$OUT [PART=accuracy|bench] [PREC=f32|c32] bash tuning/sm_90-tf32/accuracy.sh [X]
# (both parts and precisions by default; one part of one precision fits a
# ten-minute device call, the accuracy part writing accuracy-$PREC/).
set -u
X=${1:-.devc/xtask-t}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=tuning/sm_90-tf32
specs=()
P=${PREC:-}
while IFS= read -r s; do specs+=(--spec "$s"); done < <(cat $T/winners-acc.txt $T/tf32.txt | grep "precision = ${P:-.}")
if [ "${PART:-both}" != bench ]; then
"$X" accuracy "${specs[@]}" --shipped --sizes 1024,4096,16384 --columns 64 --out "$OUT/accuracy-${P:-all}" > "$OUT/accuracy-${P:-all}.log" 2>&1
echo "accuracy exit $?"; tail -4 "$OUT/accuracy-${P:-all}.log"
fi
[ "${PART:-both}" = accuracy ] && exit 0
cat $T/winners-acc.txt $T/tf32.txt | grep "precision = ${P:-.}" | sed 's/^/-|/' > /tmp/acc-bench.txt
SIZES=three bash tuning/sm_90-stalls/specs.sh "$X" "$OUT/acc-bench" /tmp/acc-bench.txt 2>&1 | tee "$OUT/acc-bench.out"
tar czf "$OUT/acc-bench.tgz" -C "$OUT" acc-bench acc-bench.out
