#!/bin/bash
# Issue 11: batch classes for small problems (xtask tune --batch), NN of every precision at 16^3 and 8^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
mkdir -p /tmp/b /tmp/none && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
SEEDS=(); while IFS= read -r spec; do SEEDS+=(--seed "$spec"); done < .devc/seeds-small.txt
G=(--min-reuse 0 --min-threads-per-sm 0 --min-blocks-per-sm 0 --min-threads-per-sm-ring 0 --min-blocks-per-sm-ring 0 --max-variants 24 --repo /tmp/none)
/tmp/b/xtask peak --out $OUT > $OUT/peak-log.txt 2>&1
( time timeout 270 /tmp/b/xtask tune --precision s,d,c,z --op nn --shape 16,16,16 --batch 262144 "${G[@]}" --gpu-minutes 3.5 --budget-minutes 4 --peak $OUT/peak.json --out /tmp/b16 "${SEEDS[@]}" ) > $OUT/tune16.log 2>&1; echo "b16 rc $?"
( time timeout 270 /tmp/b/xtask tune --precision s,d,c,z --op nn --shape 8,8,8 --batch 1048576 "${G[@]}" --gpu-minutes 3.5 --budget-minutes 4 --peak $OUT/peak.json --out /tmp/b8 "${SEEDS[@]}" ) > $OUT/tune8.log 2>&1; echo "b8 rc $?"
for d in b16 b8; do tar czf $OUT/$d.tgz -C /tmp --exclude=candidates $d; done
grep -E "confirmed|nothing|budget|left" $OUT/tune16.log $OUT/tune8.log | cut -c1-200
