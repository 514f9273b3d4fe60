#!/usr/bin/env bash
# On the GPU machine: the tune at 1024^3 (both rounds at 1024^3) of the
# candidates pruned here for that size (grid_fill):
#   MODE=prune bash tuning/sm_90-tune/tune.sh .devc/xtask .device/t1024 --size 1024 --small-size 1024
#   tar czf .devc/t1024.tgz -C .device/t1024 candidates   # then carry .devc
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=/tmp/gf-1024; mkdir -p $T; tar xzf .devc/t1024.tgz -C $T
BUDGET=5 bash tuning/sm_90-tune/tune.sh .devc/xtask $T --size 1024 --small-size 1024 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -20
tar czf $OUT/t1024.tgz -C $T --exclude=candidates .
