#!/bin/bash
# Session 20, device call 27 (H100): the tall class 16 x 16384 x 4096 for c32 and c64, and the types call
# 26 left for want of time (its --budget-minutes): c32 TN/TT at 16384 x 16 x 4096, f64 TT at
# 16 x 16384 x 4096; from the lists pruned without a GPU (.devc/pj27: json files only, reseeded by the
# tuner where the shipped kernels changed). Each type takes ~33 s here (~20 s of GPU time, the rest
# JIT and checks): the budgets below give each shape its types' share.
set -u
export PEAK=tuning/sm_90-classes/call1/peak.json PRUNED=.devc/pj27
PRECISION=c,z LIMIT=300 BUDGET=4.7 bash tuning/sm_90-classes/tune.sh 16,16384,4096
PRECISION=c OPS=tn,tt LIMIT=90 BUDGET=1.3 bash tuning/sm_90-classes/tune.sh 16384,16,4096
mv $OUT/tune-16x16384x4096.log $OUT/tune-16x16384x4096-cz.log; mv $OUT/tune-16x16384x4096.jsonl.gz $OUT/tune-16x16384x4096-cz.jsonl.gz
PRECISION=d OPS=tt LIMIT=60 BUDGET=0.8 bash tuning/sm_90-classes/tune.sh 16,16384,4096
