#!/bin/bash
# Device call 9: the k-dependent error bound (8f60099) on the GPU: every GPU
# test under GEMMFORGE_REQUIRE_GPU=1, then `xtask verify --gpu` (the 61
# shipped tuned kernels and the generic ones, full ragged sweep).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && for f in $D/.devc/*.xz; do b=$(basename $f .xz); xz -dc $f > $b; chmod +x $b; done
mv xtask-s xtask
for t in gpu_gemm gpu_cublas gpu_batch gpu_bespoke; do
  GEMMFORGE_REQUIRE_GPU=1 timeout 150 ./$t > $OUT/$t.txt 2>&1; echo "$t rc=$? $(grep 'test result' $OUT/$t.txt)"
done
timeout ${1:-330} ./xtask verify --gpu > $OUT/verify-gpu.log 2>&1
echo "verify rc=$?"; grep -E "summary|FAIL|failed" $OUT/verify-gpu.log | tail -5
