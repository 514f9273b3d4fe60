#!/bin/bash
# wgmma, run 6c: call 6a's verify again with the tuned kernels' full names (6a's --kernel SgemmNN matched Table 2's FMA kernels of the same names).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
K=sm_90::SgemmNN,sm_90::SgemmNT,sm_90::SgemmNC,sm_90::SgemmTN,sm_90::SgemmTT,sm_90::SgemmTC,sm_90::SgemmCN,sm_90::SgemmCT,sm_90::SgemmCC
timeout 170 /tmp/x verify --gpu --precision s --kernel $K --shapes full --perf 8192 2>&1 | tail -14 | tee $OUT/run-ss-verify.log
