#!/usr/bin/env bash
# ncu profile of one spec and cuBLAS at one size. Usage: ncu.sh OUT NAME SIZE SPEC
set -u
OUT=$1; NAME=$2; N=$3; SPEC=$4
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
M="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_ldgsts.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"
ncu --clock-control none -k 'regex:gemm|xmma|cutlass|sm90|ampere' -c 12 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section InstructionStats \
  --metrics "$M" -o "$OUT/$NAME" -f \
  .device/xtask bench --spec "$SPEC" --sweep square --min-size $N --max-size $N --sizes 1 --warmup 1 --reps 1 --peak tuning/sm_90-pipeline/peak-bound/peak.json --out "$OUT/bench-$NAME" > "$OUT/$NAME.bench.log" 2>&1
ncu --import "$OUT/$NAME.ncu-rep" --page details --csv > "$OUT/$NAME.details.csv" 2>&1
ncu --import "$OUT/$NAME.ncu-rep" --page raw --csv --metrics "$M,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__grid_size,gpu__time_duration.sum" > "$OUT/$NAME.raw.csv" 2>&1
tail -5 "$OUT/$NAME.bench.log"
