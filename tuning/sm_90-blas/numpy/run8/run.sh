#!/bin/bash
# Issue 13, session 14, run 8: the Fortran program (normal link line) and the C program with the gpu backend, on the final library.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; mkdir -p /tmp/f && cd /tmp/f && xz -dc $R/.devc/blas/f.tar.xz | tar xf -
export LD_LIBRARY_PATH=/tmp/f:$LD_LIBRARY_PATH
( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_LOG=stderr timeout 100 ./fortran_gemm ) > $OUT/fortran-gpu.log 2>&1; echo "fortran gpu rc $?"; cat $OUT/fortran-gpu.log
( GEMMFORGE_BLAS_BACKEND=gpu GEMMFORGE_BLAS_LOG=stderr timeout 200 ./blas_from_c ./libblas.so.3 ) > $OUT/blas_from_c-gpu.log 2>&1; echo "blas_from_c gpu rc $?"
grep FAILURES $OUT/blas_from_c-gpu.log; grep -o "path=.*" $OUT/blas_from_c-gpu.log | sort | uniq -c
