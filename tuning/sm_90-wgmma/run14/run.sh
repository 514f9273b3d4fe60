#!/bin/bash
# wgmma, run 14: the tuner on CGEMM's four transpose types at the 512^3 and 768^3 classes, seeded as
# run 12 (its seeds-c32-wgmma-1024.txt: run 10's 128 x 64 x 16 winners and one-warpgroup 64 x 64 x 16
# tiles), wgmma and tf32x3 searched; the split phase follows each confirmation. Then the small
# squares twice more.
set -u
SEEDFILE=tuning/sm_90-wgmma/run12/seeds-c32-wgmma-1024.txt PRECISION=c EXTRA=--wgmma MAXV=12 LIMIT=200 BUDGET=3.2 \
  PEAK=tuning/sm_90-classes/call1/peak.json bash tuning/sm_90-classes/tune.sh 512,512,512 768,768,768
