#!/bin/bash
# Issue 13, session 14, run 1: the staging pipeline on the GPU (conformance, chunked, device memory), ctypes timings.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; mkdir -p /tmp/b && cd /tmp/b && xz -dc $R/.devc/blas/blas.tar.xz | tar xf - && cp $R/.devc/blas/blas_time.py .
export LD_LIBRARY_PATH=/tmp/b:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
nproc; python3 -c "import numpy, torch; print('numpy', numpy.__version__, 'torch', torch.__version__)"
( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_LOG=stderr timeout 200 ./blas_from_c ./libblas.so.3 ) > $OUT/c-gpu.log 2>&1; echo "c program gpu rc $?"
grep -v "^gemmforge-blas: " $OUT/c-gpu.log | tail -3; grep -o "path=.*" $OUT/c-gpu.log | sort | uniq -c
( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_CHUNK_BYTES=256 GEMMFORGE_BLAS_LOG=stderr timeout 200 ./blas_from_c ./libblas.so.3 ) > $OUT/c-gpu-chunk256.log 2>&1; echo "c program gpu chunk 256 rc $?"
grep -v "^gemmforge-blas: " $OUT/c-gpu-chunk256.log | tail -2; grep -o "path=.*" $OUT/c-gpu-chunk256.log | sort | uniq -c
( GEMMFORGE_REQUIRE_GPU=1 GEMMFORGE_BLAS_BACKEND=cpu GEMMFORGE_BLAS_CHUNK_BYTES=1024 GEMMFORGE_BLAS_LOG=stderr timeout 100 ./device_pointers ) > $OUT/device-pointers.log 2>&1; echo "device pointers rc $?"
grep -v "^gemmforge-blas: " $OUT/device-pointers.log | tail -40; grep -o "path=.*" $OUT/device-pointers.log | sort | uniq -c
( GEMMFORGE_BLAS_BACKEND=gpu timeout 250 python3 blas_time.py ./libgemmforge_blas.so 1024 2048 4096 8192 ) > $OUT/time-ctypes.txt 2>&1; echo "timing rc $?"
cat $OUT/time-ctypes.txt
