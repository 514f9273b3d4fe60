#!/bin/bash
# wgmma, run 27: the tuner at SGEMM's large-square class (9216^3, PRECISION=s) or CGEMM's (6656^3,
# PRECISION=c SHAPE=6656,6656,6656) after the warp-specialized kernel landed, seeded with the
# warp-specialized twins of the shipped specs (seeds.txt, from ../run26/ws.py; the shipped specs are
# seeds of their own); four variants of the tuner's beside them. Candidates pruned on the GPU machine
# (PRUNED=DIR takes them from an earlier prune instead).
set -u
SEEDFILE=tuning/sm_90-wgmma/run27/seeds.txt PRECISION=${PRECISION:-s} EXTRA=--wgmma MAXV=4 LIMIT=${LIMIT:-420} \
  BUDGET=${BUDGET:-6} PEAK=tuning/sm_90-classes/call1/peak.json PRUNED=${PRUNED:-} \
  bash tuning/sm_90-classes/tune.sh ${SHAPE:-9216,9216,9216}
