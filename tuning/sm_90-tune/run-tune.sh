#!/usr/bin/env bash
# On the GPU machine (carry .devc: the xtask binary and tune.tgz, made with
# `tar czf .devc/tune.tgz -C .device/tune candidates prune.log` after
# `MODE=prune bash tuning/sm_90-tune/tune.sh .devc/xtask .device/tune`):
# unpack the pruned candidates (and any journal) from .devc/tune.tgz, time
# them with the tune script $TUNE (default tuning/sm_90-tune/tune.sh;
# resumable), return the journal and reports.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=/tmp/gf-tune; mkdir -p $T; tar xzf .devc/tune.tgz -C $T
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
BUDGET=${BUDGET:-8.6} bash "${TUNE:-tuning/sm_90-tune/tune.sh}" .devc/xtask $T "$@" 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -45
tar czf $OUT/tune.tgz -C $T --exclude=candidates .
