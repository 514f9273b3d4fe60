#!/bin/bash
# Device call: xtask bespoke on the test set, precision $P, beta $B, n = 2^17
# (cuBLAS and a copy in the same run); extra arguments passed on.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
D=$PWD
cd /tmp && gunzip -c $D/.devc/xtask-s.gz > xtask && chmod +x xtask
mkdir -p $OUT/$NAME
timeout ${T:-400} ./xtask bespoke --set test --precision $P --beta $B --n 131072 --out $OUT/$NAME "$@" > $OUT/$NAME/stdout.txt 2>&1
echo "xtask rc=$?"
tail -${TAILN:-6} $OUT/$NAME/stdout.txt
