#!/bin/bash
# wgmma, run 10: the tuner on CGEMM's four transpose types at its large-square class (6656^3), the
# c32 wgmma specs of run 9 (stages 3 and 2, seeds-c32-wgmma.txt beside this script) seeded, wgmma
# and tf32x3 searched beside the FMA space (the conjugate types take their transpose pattern's winner).
set -u
SEEDFILE=tuning/sm_90-wgmma/run10/seeds-c32-wgmma.txt PRECISION=c EXTRA=--wgmma MAXV=6 LIMIT=540 BUDGET=8.8 \
  PEAK=tuning/sm_90-classes/call1/peak.json bash tuning/sm_90-classes/tune.sh 6656,6656,6656
