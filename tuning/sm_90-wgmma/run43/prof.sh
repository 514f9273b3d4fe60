#!/bin/bash
# wgmma, run 43's profile: ncu's full set (raw page, one launch each, at 8192) of specs.txt line 1
# (NN, A's fragments from registers) and line 4 (TN, both operands read in place by wgmma) with this
# change (x.xz), line 1 with the binary before it (old.xz: the producers convert A), and line 2 (NT).
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run43/prof.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT
for x in x old; do [ -x /tmp/$x ] || { xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; }; done
D=tuning/sm_90-wgmma/run43
prof() { # name binary line
  timeout 150 ncu --clock-control none --set full -k regex:gemmforge --launch-skip 1 --launch-count 1 --csv --page raw \
    /tmp/$2 bench --spec "$(sed -n ${3}p $D/specs.txt)" --sweep square --min-size 8192 --max-size 8192 --sizes 1 \
    --warmup 1 --reps 1 --out /tmp/prof-$1 > $OUT/$1.csv 2> /tmp/$1.err
  echo "$1: rc $? $(grep -c '' $OUT/$1.csv) lines"; tail -2 /tmp/$1.err
}
prof nn-regs x 1
prof tn x 4
prof nn-convert old 1
prof nt-regs x 2
