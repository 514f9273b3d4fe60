#!/bin/bash
# DGEMM/ZGEMM, run 59 (H200): dmma stripes' rows skewed by 32 bytes (DMMA_SKEW_BYTES) instead of
# 16, after run 58's profile (bank conflicts: 12.9 G in our NT 16384 kernel, none in cuBLAS's; our
# clock 1.70 GHz against cuBLAS's 1.87 with the tensor pipe 95% busy in both). Issue 9's D and Z
# tables through the dispatch with the binary before (x57.xz, run 57's) and after (x.xz); then the
# m16n8k8/k16 candidates of run 57 (lines 4, 7, 10, 13; GF_ROLL=1) with the new skew, and ncu's
# count of the shipped NT kernel's bank conflicts and clock at 16384.
# Built from a3636d3 with run56/rolling.patch applied (run 56: before the split columns; runs 56-58:
# before the skew).
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run59/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x57.xz > /tmp/o && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/o /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
table() {  # table BINARY NAME
  ( time timeout 200 /tmp/$1 bench --peak tuning/sm_90-half/run1/out/h/peak.json --precision d,z --op transposes \
      --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out /tmp/b/$2 ) > /tmp/b/$2.log 2>&1
  echo "$2 rc $?"; cp /tmp/b/$2/bench.csv $OUT/$2.csv
  python3 tuning/sm_90-wgmma/run23/table.py $OUT/$2.csv | tee $OUT/$2.txt
}
table o old
table x new
S=tuning/sm_90-dmma/run57/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 8192 --max-size 16384 --sizes 2 --reps 5)
export GF_ROLL=1
for l in 4 7 10 13; do
  timeout 90 /tmp/x bench --spec "$(sed -n ${l}p $S)" "${P[@]}" --out /tmp/b/r$l > /dev/null 2>&1 || echo "bench $l rc $?"
  tail -n +2 /tmp/b/r$l/bench.csv | sed "s/^/n,$l,/" >> $OUT/all.csv
done
unset GF_ROLL
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/specs-table.txt
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_active \
  -k regex:gemmforge --launch-skip 1 --launch-count 1 --csv /tmp/x bench --spec "$(sed -n 1p $S)" --sweep square \
  --min-size 16384 --max-size 16384 --sizes 1 --warmup 1 --reps 1 --out /tmp/b/ncu > $OUT/ncu-k4.csv 2>/tmp/b/ncu.err
echo "ncu rc $?"; tail -8 $OUT/ncu-k4.csv | cut -d, -f12-
