#!/usr/bin/env bash
# The tune at 4096^3 (small round 2048^3) from the same pruned candidates as
# the full tune (carry .devc with xtask-base and tune.tgz as in ../run-tune.sh).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=/tmp/gf-mid; mkdir -p $T; tar xzf .devc/tune.tgz -C $T
BUDGET=6 bash tuning/sm_90-tune/tune.sh .devc/xtask-base $T --size 4096 --small-size 2048 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -20
tar czf $OUT/mid.tgz -C $T --exclude=candidates .
