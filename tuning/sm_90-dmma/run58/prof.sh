#!/bin/bash
# DGEMM, run 58 (H200): ncu's full set (raw page, one launch each, NT at 16384) of the shipped
# DgemmNT (m16n8k4, run 57's line 1), run 57's m16n8k16 (line 4, two sets, B rolling) and m16n8k8
# (line 7, two sets, B rolling), and cuBLAS's m16n8k16 kernel of the same tile on the same call,
# to see where ours lose the tensor pipe (x.xz: the build of run 57; GF_ROLL=1 as there).
# Built from a3636d3 with run56/rolling.patch applied (run 56: before the split columns; runs 56-58:
# before the skew).
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run58/prof.sh   (ONLY_OURS=1: the second call, cuBLAS's
# profile being the first call's)
# Table: python3 tuning/sm_90-dmma/run58/table.py tuning/sm_90-dmma/run58/out/*.csv.gz
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-dmma/run57/specs.txt
prof() { # name line kernel-regex [ROLL]
  if [ -n "${4:-}" ]; then export GF_ROLL=1; else unset GF_ROLL; fi
  timeout 170 ncu --clock-control none --set full -k regex:$3 --launch-skip ${5:-0} --launch-count 1 --csv --page raw \
    /tmp/x bench --spec "$(sed -n ${2}p $S)" --sweep square --min-size 16384 --max-size 16384 --sizes 1 \
    --warmup 1 --reps 1 --out /tmp/prof-$1 > $OUT/$1.csv 2> /tmp/$1.err
  echo "$1: rc $? $(grep -c '' $OUT/$1.csv) lines"; tail -2 /tmp/$1.err; gzip -9 $OUT/$1.csv
}
[ -n "${ONLY_OURS:-}" ] || prof cublas 1 nt_n_tilesize128x128x16_stage3
# Ours: skip the first launch, bench's check on a small ragged problem (the first call profiled it:
# out/first/, kept for its shared-memory bank conflicts at 1057 x 993 x 1031).
prof k4 1 gemmforge "" 1
prof k16 4 gemmforge 1 1
prof k8 7 gemmforge 1 1
python3 tuning/sm_90-dmma/run58/table.py $OUT/*.csv.gz | tee $OUT/table.txt
