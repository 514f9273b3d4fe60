#!/bin/bash
# Issue 13: libgemmforge_blas.so on the GPU: the C conformance program with the gpu backend, and host-to-host timings.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/blas && cp .devc/blas/* /tmp/blas/ && cd /tmp/blas && gunzip -f libgemmforge_blas.so.gz
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/device.txt
( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_LOG=stderr timeout 200 ./blas_from_c ./libblas.so.3 ) > $OUT/c-gpu.log 2>&1; echo "c program (gpu backend) rc $?"
grep -v "^gemmforge-blas: " $OUT/c-gpu.log | tail -8; grep -c "path gpu\|-> gpu\|gpu" $OUT/c-gpu.log
grep "^gemmforge-blas" $OUT/c-gpu.log | head -3
python3 -c "import numpy, torch; print(numpy.__version__, torch.__version__)"
( GEMMFORGE_BLAS_BACKEND=gpu timeout 300 python3 blas_time.py ./libgemmforge_blas.so 1024 2048 4096 8192 ) > $OUT/time.txt 2>&1; echo "timing rc $?"
cat $OUT/time.txt
