#!/bin/bash
# Session 20, device call 30 (H100): the rest of call 29's 64-wide classes: 64 x 16384 x 4096 for c64
# and c32 TN/TT (call 28: c64 64 x 16384 0.35-0.88, taken by the new 16-wide class).
set -u
export PEAK=tuning/sm_90-classes/call1/peak.json PRUNED=.devc/pj29
PRECISION=z LIMIT=160 BUDGET=2.5 bash tuning/sm_90-classes/tune.sh 64,16384,4096
mv $OUT/tune-64x16384x4096.log $OUT/tune-64x16384x4096-z.log; mv $OUT/tune-64x16384x4096.jsonl.gz $OUT/tune-64x16384x4096-z.jsonl.gz
PRECISION=c OPS=tn,tt LIMIT=85 BUDGET=1.3 bash tuning/sm_90-classes/tune.sh 64,16384,4096
