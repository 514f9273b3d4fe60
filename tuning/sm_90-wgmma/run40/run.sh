#!/bin/bash
# wgmma, run 40: the tuner at SGEMM's large-square class (9216^3) after the TMA producer (runs 36-38),
# seeded with the TMA twins of the shipped producer specs (seeds.txt: the four SgemmNN/NT/TN/TT specs
# with ldg = tma; the shipped specs are seeds of their own); two variants of the tuner's beside them.
# Its journal is appended to tuning/sm_90/tune.jsonl.gz and sm_90.rs regenerated from it
# (cargo xtask tune --report-only --out tuning/sm_90).
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run40/run.sh   (x.xz = xtask with the change)
set -u
SEEDFILE=tuning/sm_90-wgmma/run40/seeds.txt PRECISION=s EXTRA=--wgmma MAXV=2 LIMIT=${LIMIT:-400} \
  BUDGET=${BUDGET:-5} PEAK=tuning/sm_90-classes/call1/peak.json PRUNED= \
  bash tuning/sm_90-classes/tune.sh 9216,9216,9216
