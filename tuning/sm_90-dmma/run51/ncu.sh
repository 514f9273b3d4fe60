#!/bin/bash
# DGEMM, run 51's second call (H200): which kernel cuBLAS runs for NT at 16384 (ncu, the first 60
# kernels of one bench of the shipped DgemmNT at 16384: its launch shape, registers and time).
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run51/ncu.sh
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
S="$(sed -n 1p tuning/sm_90-dmma/run51/specs.txt)"
timeout 300 ncu --csv --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic -c 60 /tmp/x bench --spec "$S" --peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 16384 --max-size 16384 --sizes 1 --reps 1 --out /tmp/b > $OUT/ncu.csv 2>$OUT/ncu.err
