#!/bin/bash
# Session 20, device call 32 (H100): the 64-wide tall classes calls 29-30 left for want of time (each
# candidate's first load is a JIT compile here, ~40 s a type): f32 and c32 TN/TT at 16384 x 64 x 4096 and
# 64 x 16384 x 4096, from the lists pruned without a GPU (.devc/pj29), seeds first.
set -u
export PEAK=tuning/sm_90-classes/call1/peak.json PRUNED=.devc/pj29
PRECISION=s,c OPS=tn,tt LIMIT=265 BUDGET=4.3 bash tuning/sm_90-classes/tune.sh 16384,64,4096 64,16384,4096
