#!/bin/bash
# Issue 12, session 14, run 9: the tuner killed with SIGKILL 20 times at random moments and resumed (xtask tune-crash).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
R=$PWD; mkdir -p /tmp/c /tmp/none && cd /tmp/c && xz -dc $R/.devc/xtask-r.xz > xtask && chmod +x xtask
./xtask peak --out /tmp/c/peak > $OUT/peak.log 2>&1; echo "peak rc $?"
( time timeout 560 ./xtask tune-crash --kills 20 --min-seconds 0.005 --max-seconds 0.08 --seed 2026 --out /tmp/c/tc -- \
    --precision s,d,c,z --op nn,nt --shape 512,512,512 --max-variants 16 --gpu-minutes 4 --budget-minutes 8 \
    --peak /tmp/c/peak/peak.json --repo /tmp/none ) > $OUT/tune-crash.txt 2>&1; echo "tune-crash rc $?"
cat $OUT/tune-crash.txt | tail -30
cp /tmp/c/tc/tune-crash.log /tmp/c/tc/tune.jsonl $OUT/ 2>/dev/null; cp /tmp/c/tc/sm_*.rs $OUT/ 2>/dev/null
grep -c "skipping unreadable" /tmp/c/tc/tune-output.log; tail -5 /tmp/c/tc/tune-output.log | cut -c1-200
