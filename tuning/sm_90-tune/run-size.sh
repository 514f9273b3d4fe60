#!/usr/bin/env bash
# The tune at another size, from the same pruned candidates as the full tune
# (carry .devc with xtask-base, the build that pruned them, and tune.tgz as
# in run-tune.sh). Usage, on the GPU machine: run-size.sh SIZE SMALL_SIZE
#   run-size.sh 4096 2048   -> mid-4096/      run-size.sh 1024 512 -> small-1024/
set -u
SIZE=$1; SMALL=$2
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=/tmp/gf-$SIZE; mkdir -p $T; tar xzf .devc/tune.tgz -C $T
BUDGET=6 bash tuning/sm_90-tune/tune.sh .devc/xtask-base $T --size "$SIZE" --small-size "$SMALL" 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -22
tar czf $OUT/size-$SIZE.tgz -C $T --exclude=candidates .
