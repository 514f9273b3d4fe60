#!/bin/bash
# Session 14, run 5: device memory in the batch symbols (issue 13) and a longer soak (issue 12).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; mkdir -p /tmp/b && cd /tmp/b && xz -dc $R/.devc/blas/blas.tar.xz | tar xf - && xz -dc $R/.devc/xtask-t.xz > xtask && chmod +x xtask
export LD_LIBRARY_PATH=/tmp/b:$LD_LIBRARY_PATH
( GEMMFORGE_REQUIRE_GPU=1 GEMMFORGE_BLAS_BACKEND=cpu GEMMFORGE_BLAS_CHUNK_BYTES=1024 GEMMFORGE_BLAS_LOG=stderr timeout 100 ./device_pointers ) > $OUT/device-pointers.log 2>&1; echo "device pointers rc $?"
grep -v "^gemmforge-blas: " $OUT/device-pointers.log | grep -c "^ok"; grep "FAIL\|batch" $OUT/device-pointers.log | grep -v "^gemmforge-blas" ; grep -o "path=.*" $OUT/device-pointers.log | sort | uniq -c
for p in blas_from_c batch_from_c; do
  ( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_LOG=stderr timeout 200 ./$p ./libblas.so.3 ) > $OUT/$p-gpu.log 2>&1; echo "$p gpu rc $?"
  grep "FAILURES" $OUT/$p-gpu.log; grep -o "path=.*" $OUT/$p-gpu.log | sort | uniq -c
done
( timeout 400 ./xtask soak --minutes 6 --seed 2027 --out $OUT/soak ) > $OUT/soak-stdout.txt 2>&1; echo "soak rc $?"
tail -14 $OUT/soak-stdout.txt
