#!/usr/bin/env bash
# The tune at 1024^3 (small round 512^3) on the GPU machine, from the same
# pruned candidates as the full tune (carry .devc with xtask-base, the build
# that pruned them, and tune.tgz as in ../run-tune.sh).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=/tmp/gf-small; mkdir -p $T; tar xzf .devc/tune.tgz -C $T
BUDGET=6 bash tuning/sm_90-tune/tune.sh .devc/xtask-base $T --size 1024 --small-size 512 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -22
tar czf $OUT/small.tgz -C $T --exclude=candidates .
