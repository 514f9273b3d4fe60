#!/bin/bash
# Session 20, device call 29 (H100): the 64-wide tall classes the types lacked — call 28 found the new
# 16-wide classes nearer the 64-wide tall cells than the squares that served them (c32 16384 x 64 fell
# from 0.86-1.19 to 0.39-0.55): 16384 x 64 x 4096 for c32 and f32 TN/TT, 64 x 16384 x 4096 for f32;
# from lists pruned without a GPU (.devc/pj29, reseeded by the tuner), seeds first.
set -u
export PEAK=tuning/sm_90-classes/call1/peak.json PRUNED=.devc/pj29
PRECISION=c LIMIT=160 BUDGET=2.5 bash tuning/sm_90-classes/tune.sh 16384,64,4096
mv $OUT/tune-16384x64x4096.log $OUT/tune-16384x64x4096-c.log; mv $OUT/tune-16384x64x4096.jsonl.gz $OUT/tune-16384x64x4096-c.jsonl.gz
PRECISION=s OPS=tn,tt LIMIT=85 BUDGET=1.3 bash tuning/sm_90-classes/tune.sh 16384,64,4096
PRECISION=s LIMIT=160 BUDGET=2.5 bash tuning/sm_90-classes/tune.sh 64,16384,4096
