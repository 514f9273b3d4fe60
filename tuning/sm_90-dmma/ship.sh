#!/usr/bin/env bash
# The shipped DGEMM kernels after the dmma winners joined gemm-kernels:
# every D kernel of gemm-kernels on the ragged shapes against the f64
# reference and cuBLAS (verify), then gemm-host's DGEMM over the square and
# skinny sweeps beside cuBLAS (bench). Usage (device): OUT=$OUT bash ship.sh X
set -u
X=$1; D=$OUT/ship; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
"$X" verify --gpu --precision d > $D/verify-gpu.log 2>&1; echo "verify exit $?" >> $D/verify-gpu.log
"$X" bench --precision d --out $D/bench > $D/bench.log 2>&1
tar czf $OUT/ship.tgz -C $OUT ship
