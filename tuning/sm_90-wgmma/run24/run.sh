#!/bin/bash
# wgmma, run 24: the tuner at SGEMM's large-square class (9216^3) after runs 19-22 (one barrier a
# stripe; unskewed stripes, so 128 x 128 x 32 fits three stages): seeded with the shipped specs, their
# 3-stage twins and TT with raster = 8 (the only one of the four without it; seeds.txt beside this
# script); wgmma and tf32x3 searched, four variants of the tuner's own beside the seeds.
set -u
SEEDFILE=tuning/sm_90-wgmma/run24/seeds.txt PRECISION=s EXTRA=--wgmma MAXV=4 LIMIT=560 BUDGET=8 \
  PEAK=tuning/sm_90-classes/call1/peak.json bash tuning/sm_90-classes/tune.sh 9216,9216,9216
