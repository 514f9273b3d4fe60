#!/bin/bash
# wgmma, run 53 (H200): ncu's full set (raw page, one launch each, at 8192) of the kernels as run 50
# left them — NN (run 48's line 3) and TT with swapped operands (line 1), A's fragments a stripe a
# group — beside TN (run 43's line 4), to set them against run 43's profile (tensor pipe 74.7% for NN,
# 96.2% for TN; NN reading 22% more L2 sectors than TN). x.xz is 51cd50b's binary.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run53/prof.sh
# Table: python3 tuning/sm_90-wgmma/run43/prof-table.py tuning/sm_90-wgmma/run53/out/*.csv.gz
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
prof() { # name specs line
  timeout 150 ncu --clock-control none --set full -k regex:gemmforge --launch-skip 1 --launch-count 1 --csv --page raw \
    /tmp/x bench --spec "$(sed -n ${3}p $2)" --sweep square --min-size 8192 --max-size 8192 --sizes 1 \
    --warmup 1 --reps 1 --out /tmp/prof-$1 > $OUT/$1.csv 2> /tmp/$1.err
  echo "$1: rc $? $(grep -c '' $OUT/$1.csv) lines"; tail -2 /tmp/$1.err; gzip -9 $OUT/$1.csv
}
prof nn tuning/sm_90-wgmma/run48/specs.txt 3
prof tt-ba tuning/sm_90-wgmma/run48/specs.txt 1
prof tn tuning/sm_90-wgmma/run43/specs.txt 4
python3 tuning/sm_90-wgmma/run43/prof-table.py $OUT/nn.csv.gz $OUT/tt-ba.csv.gz $OUT/tn.csv.gz | tee $OUT/table.txt
