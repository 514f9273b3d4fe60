#!/bin/bash
# Issue 11: batch classes for NT, TN, TT, finished — 64^3 and 128^3 resumed from call 3's journals
# (.devc/resume/) for the types the budget left untimed (C TN/TT, Z); settings as w9.sh.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
mkdir -p /tmp/none $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
SEEDS=(); while IFS= read -r spec; do SEEDS+=(--seed "$spec"); done < .devc/seeds-ops.txt
G=(--min-reuse 0 --min-threads-per-sm 0 --min-blocks-per-sm 0 --min-threads-per-sm-ring 0 --min-blocks-per-sm-ring 0 --max-variants 24 --repo /tmp/none)
/tmp/x peak --out $OUT > $OUT/peak-log.txt 2>&1
for sb in 64:16384 128:4096; do
  n=${sb%%:*}; c=${sb##*:}
  mkdir -p /tmp/b$n; cp .devc/resume/tune$n.jsonl /tmp/b$n/tune.jsonl
  ( time timeout 260 /tmp/x tune --precision c,z --op nt,tn,tt --shape $n,$n,$n --batch $c "${G[@]}" --resume --gpu-minutes 3.5 --budget-minutes 3.8 --peak $OUT/peak.json --out /tmp/b$n "${SEEDS[@]}" ) > $OUT/tune$n.log 2>&1; echo "b$n rc $?"
  cp /tmp/b$n/tune.jsonl $OUT/tune$n.jsonl
done
grep -E "confirmed|nothing|budget|left" $OUT/tune*.log | cut -c1-220
