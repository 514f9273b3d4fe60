#!/bin/bash
# Device call 10: xtask verify --gpu on the 26 tuned kernels call 9 did not reach (8f60099's xtask).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/xtask-s.xz > xtask && chmod +x xtask
timeout 560 ./xtask verify --gpu --kernel sm_90::CgemmCC,sm_90::CgemmCC8192x8192x64,sm_90::CgemmCT,sm_90::CgemmCT8192x8192x64,sm_90::ZgemmCC,sm_90::ZgemmCC8192x8192x64,sm_90::ZgemmCN,sm_90::ZgemmCN8192x8192x64,sm_90::ZgemmCT,sm_90::ZgemmCT8192x8192x64,sm_90::ZgemmNC,sm_90::ZgemmNC8192x8192x64,sm_90::ZgemmNN,sm_90::ZgemmNN16,sm_90::ZgemmNN32,sm_90::ZgemmNN64,sm_90::ZgemmNN8,sm_90::ZgemmNN8192x8192x64,sm_90::ZgemmNT,sm_90::ZgemmNT8192x8192x64,sm_90::ZgemmTC,sm_90::ZgemmTC8192x8192x64,sm_90::ZgemmTN,sm_90::ZgemmTN8192x8192x64,sm_90::ZgemmTT,sm_90::ZgemmTT8192x8192x64 > $OUT/verify-gpu-rest.log 2>&1
echo "verify rc=$?"; grep -E "summary|failed" $OUT/verify-gpu-rest.log | tail -3
