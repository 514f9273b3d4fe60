#!/bin/bash
# wgmma, run 5: the tuner on SGEMM's four transpose types at its full size, the wgmma tf32x3 specs
# (raster 1 and 8, .devc/seeds-wgmma.txt (a copy beside this script)) seeded beside its own sample, to ship the winners.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT /tmp/none
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
SEEDS=(); while IFS= read -r spec; do SEEDS+=(--seed "$spec"); done < .devc/seeds-wgmma.txt (a copy beside this script)
( time timeout 560 /tmp/x tune --precision s --op nn,nt,tn,tt --tf32x3 --max-variants 8 --gpu-minutes 6 --budget-minutes 8.5 \
    --out /tmp/t --repo /tmp/none "${SEEDS[@]}" ) > $OUT/tune.log 2>&1; echo "tune rc $?"
cp /tmp/t/tune.jsonl $OUT/ 2>/dev/null; cp /tmp/t/peak.json $OUT/ 2>/dev/null
grep -E "confirmed|winner|best|budget|left|error" $OUT/tune.log | cut -c1-220 | tail -30
