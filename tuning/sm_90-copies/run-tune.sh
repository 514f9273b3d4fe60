#!/usr/bin/env bash
# On the GPU machine (carry .devc: the xtask binary X, and journal.tgz when
# resuming): prune on its 16 cores with its ptxas when no candidates are
# there yet (the same arguments as `MODE=prune tune.sh`, so the same
# candidates as pruning here), then time them (resumable), and return the
# journal and reports as $OUT/tune.tgz.
# TUNE names the tune script (default this folder's tune.sh).
# Usage: [BUDGET=minutes] [TUNE=path] run-tune.sh X [--resume]
set -u
X=$1; shift
TUNE=${TUNE:-tuning/sm_90-copies/tune.sh}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
T=/tmp/gf-tune; mkdir -p $T
[ -f .devc/journal.tgz ] && [ ! -f $T/tune.jsonl ] && tar xzf .devc/journal.tgz -C $T
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
if [ ! -d $T/candidates ]; then
  start=$(date +%s)
  MODE=prune bash "$TUNE" "$X" $T > $T/prune.log 2>&1
  echo "pruned on $(nproc) cores in $(( $(date +%s) - start )) s"; tail -16 $T/prune.log
fi
BUDGET=${BUDGET:-8.6} bash "$TUNE" "$X" $T "$@" 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -45
tar czf $OUT/tune.tgz -C $T --exclude=candidates .
