#!/bin/bash
# Stream-K, run 2: the tuner at the 768^3 small-square class (the shipped f64/c64 classes at 0.80-0.97
# of cuBLAS there) for f64 and c64, every transpose pair, with --stream-k: every seed (the type's
# shipped kernels and Table 2's) timed as it ships and as its stream-K twin, then the best-ranked
# candidates of the space; candidates pruned without a GPU (.devc/pk, `tune.sh PRUNE_ONLY`).
# Run 3 is the same at 1024^3 (`SHAPE=1024,1024,1024`).
set -u
SEEDFILE=tuning/sm_90-stream-k/seeds-none.txt PRECISION=d,z EXTRA=--stream-k MAXV=8 LIMIT=540 BUDGET=8.5 \
  PEAK=tuning/sm_90-classes/call1/peak.json PRUNED=.devc/pkj bash tuning/sm_90-classes/tune.sh ${SHAPE:-768,768,768}
