#!/usr/bin/env bash
# After the tune: the measured peaks, the bench table of the 16 tuned kernel
# types at 4096, 8192 and 16384 (cuBLAS in the same run), and ncu's counters
# for the SGEMM NN winner and cuBLAS at 8192.
# Usage: bench.sh X OUT "<SGEMM NN winner spec>"
set -u
X=$1; OUT=$2; WINNER=$3
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
"$X" peak --out "$OUT/peak" 2>&1 | tail -6
"$X" bench --sweep square --min-size 4096 --max-size 16384 --sizes 3 --peak "$OUT/peak/peak.json" \
  --out "$OUT/table" > "$OUT/table.log" 2>&1
tail -22 "$OUT/table.log"
M="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,gpu__time_duration.sum"
ncu --clock-control none -k 'regex:gemm|xmma|cutlass|sm90|ampere' -c 6 --metrics "$M" --csv \
  "$X" bench --spec "$WINNER" --sweep square --min-size 8192 --max-size 8192 --sizes 1 --warmup 1 --reps 1 \
  --out "$OUT/ncu-bench" > "$OUT/ncu-sgemm-nn.csv" 2> "$OUT/ncu.err"
grep -c "" "$OUT/ncu-sgemm-nn.csv"
