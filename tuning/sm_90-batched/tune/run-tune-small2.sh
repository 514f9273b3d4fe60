#!/bin/bash
# Issue 11: batch classes for 32^3, 64^3, 128^3 (xtask tune --batch), NN of every precision.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
mkdir -p /tmp/b /tmp/none && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
SEEDS=(); while IFS= read -r spec; do SEEDS+=(--seed "$spec"); done < .devc/seeds-small.txt
G=(--min-reuse 0 --min-threads-per-sm 0 --min-blocks-per-sm 0 --min-threads-per-sm-ring 0 --min-blocks-per-sm-ring 0 --max-variants 24 --repo /tmp/none)
/tmp/b/xtask peak --out $OUT > $OUT/peak-log.txt 2>&1
for sb in 32:65536 64:16384 128:4096; do
  n=${sb%%:*}; c=${sb##*:}
  ( time timeout 150 /tmp/b/xtask tune --precision s,d,c,z --op nn --shape $n,$n,$n --batch $c "${G[@]}" --gpu-minutes 2.5 --budget-minutes 2.2 --peak $OUT/peak.json --out /tmp/b$n "${SEEDS[@]}" ) > $OUT/tune$n.log 2>&1; echo "b$n rc $?"
  tar czf $OUT/b$n.tgz -C /tmp --exclude=candidates b$n
done
grep -E "confirmed|nothing|budget|left" $OUT/tune*.log | cut -c1-200
