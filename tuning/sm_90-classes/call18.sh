#!/bin/bash
# Session 18, device call 18: (1) xtask tune --split-only on the sm_90 journal: every confirmed class's
# winner whose tiles fill less than a wave timed unsplit and split 2-4 ways in one run (new records in
# split-new.jsonl.gz); (2) verify --gpu of the kernels new in call 17's classes (KERNELS file, if any);
# (3) bench through the dispatch as built (large-K classes in): large-k and small; (4) the bespoke GPU
# tests (tests/gpu_bespoke.rs: the runtime-stride form timed beside the fixed ones).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/tS /tmp/none $OUT && xz -dc .devc/x.xz > /tmp/x && xz -dc .devc/gpu_bespoke.xz > /tmp/gb && chmod +x /tmp/x /tmp/gb
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
cp tuning/sm_90/tune.jsonl.gz /tmp/tS/tune.jsonl.gz
( time timeout 150 /tmp/x tune --split-only --precision s,d,c,z --op nn,nt,tn,tt --peak tuning/sm_90-classes/call1/peak.json --repo /tmp/none --out /tmp/tS ) > $OUT/split-only.log 2>&1; echo "split-only rc $?"
zcat /tmp/tS/tune.jsonl.gz | grep -vxFf <(zcat tuning/sm_90/tune.jsonl.gz) | gzip -9 > $OUT/split-new.jsonl.gz
echo "new records: $(zcat $OUT/split-new.jsonl.gz | wc -l)"
if [[ -s tuning/sm_90-classes/new-kernels-largek.txt ]]; then
  ( time timeout 60 /tmp/x verify --gpu --kernel $(cat tuning/sm_90-classes/new-kernels-largek.txt) --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"; tail -3 $OUT/verify.log | head -1
fi
mkdir -p $OUT/large-k $OUT/small
( time timeout 120 /tmp/x bench --sweep large-k --peak tuning/sm_90-classes/call1/peak.json --out $OUT/large-k ) > $OUT/large-k/log.txt 2>&1; echo "large-k rc $?"
( time timeout 60 /tmp/x bench --sweep small --peak tuning/sm_90-classes/call1/peak.json --out $OUT/small ) > $OUT/small/log.txt 2>&1; echo "small rc $?"
GEMMFORGE_REQUIRE_GPU=1 timeout 100 /tmp/gb --test-threads 1 --nocapture > $OUT/gpu_bespoke.log 2>&1; echo "gpu_bespoke rc $?"
grep -E "test result|FAILED|panicked" $OUT/gpu_bespoke.log
tar czf $OUT/sweeps.tgz -C $OUT large-k small && rm -rf $OUT/large-k $OUT/small
