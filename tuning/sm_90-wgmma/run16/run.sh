#!/bin/bash
# wgmma, run 16: the tuner on SGEMM's four transpose types at the 512^3 class (TT 0.90 and NT 0.99
# in run 13's small squares), seeded with one-warpgroup f32 wgmma tiles 64 x 64 x 32 and 64 x 128 x 32
# (stages 3 and 4; seeds-f32-wgmma-512.txt beside this script), wgmma and tf32x3 searched; the split
# phase follows each confirmation.
set -u
SEEDFILE=tuning/sm_90-wgmma/run16/seeds-f32-wgmma-512.txt PRECISION=s EXTRA=--wgmma MAXV=12 LIMIT=220 BUDGET=3.4 \
  PEAK=tuning/sm_90-classes/call1/peak.json bash tuning/sm_90-classes/tune.sh 512,512,512
