#!/bin/bash
# wgmma, run 12: the tuner on CGEMM's four transpose types at the 1024^3 class (which serves the
# calls from ~512^3 to ~2048^3), seeded with run 10's winners and one-warpgroup 64 x 64 x 16 c32
# wgmma tiles (stages 3 and 4; seeds-c32-wgmma-1024.txt beside this script), wgmma and tf32x3
# searched beside the FMA space; the split phase follows each confirmation.
set -u
SEEDFILE=tuning/sm_90-wgmma/run12/seeds-c32-wgmma-1024.txt PRECISION=c EXTRA=--wgmma MAXV=12 LIMIT=400 BUDGET=6.5 \
  PEAK=tuning/sm_90-classes/call1/peak.json bash tuning/sm_90-classes/tune.sh 1024,1024,1024
