#!/bin/bash
# Issue 13, session 14, run 3: conformance on the GPU (single, batched, device memory), the NumPy-under-LD_PRELOAD table,
# the CPU/GPU crossover; issue 12: a compute-sanitizer probe to size the next runs.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; mkdir -p /tmp/b && cd /tmp/b && xz -dc $R/.devc/blas/blas.tar.xz | tar xf - && xz -dc $R/.devc/xtask-t.xz > xtask && chmod +x xtask
export LD_LIBRARY_PATH=/tmp/b:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
for p in blas_from_c batch_from_c; do
  ( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_LOG=stderr timeout 200 ./$p ./libblas.so.3 ) > $OUT/$p-gpu.log 2>&1; echo "$p gpu rc $?"
  grep -v "^gemmforge-blas: " $OUT/$p-gpu.log | tail -2; grep -o "path=.*" $OUT/$p-gpu.log | sort | uniq -c
done
( GEMMFORGE_REQUIRE_GPU=1 GEMMFORGE_BLAS_BACKEND=cpu GEMMFORGE_BLAS_CHUNK_BYTES=1024 GEMMFORGE_BLAS_LOG=stderr timeout 100 ./device_pointers ) > $OUT/device-pointers.log 2>&1; echo "device pointers rc $?"
grep "FAILURES" $OUT/device-pointers.log; grep -o "path=.*" $OUT/device-pointers.log | sort | uniq -c
mkdir -p $OUT/bench && ( timeout 400 ./xtask blas-bench --lib ./libgemmforge_blas.so --out $OUT/bench ) > $OUT/bench/stdout.txt 2>&1; echo "blas-bench rc $?"
cat $OUT/bench/stdout.txt | grep -v "^running"
rm -f $OUT/bench/numpy_time.py
mkdir -p $OUT/sanitize-probe && ( time timeout 120 ./xtask sanitize --tools memcheck --precision s --kernel SgemmNN,sm_90::SgemmNN --out $OUT/sanitize-probe ) > $OUT/sanitize-probe/stdout.txt 2>&1; echo "sanitize probe rc $?"
tail -15 $OUT/sanitize-probe/stdout.txt
