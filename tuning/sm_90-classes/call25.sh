#!/bin/bash
# Session 20, device call 25 (H100): (1) update classes at 8192 x 8192 x 64 for f32 and c32, as call 22 made
# them at K = 32 (seeds-skinny.txt and the shipped kernels with their c_batch siblings, timed as
# C = C - A.B): the form-aware dispatch gives update calls their own classes; (2) the tall class
# 16384 x 16 x 4096 for every type, from candidate lists pruned without a GPU (tune.sh PRUNE_ONLY;
# .devc/pj holds their json files only: the tracked tree leaves ~10 MB of the 64 MiB a call carries,
# too little for their cubins, so the driver JIT-compiles the candidates).
set -u
export PEAK=tuning/sm_90-classes/call1/peak.json
MAXV=0 LIMIT=110 BUDGET=2 EXTRA="--sample 0 --c-batched 1" SEEDFILE=tuning/sm_90-classes/seeds-skinny.txt \
  PRECISION=s,c bash tuning/sm_90-classes/tune.sh 8192,8192,64:update
PRUNED=.devc/pj LIMIT=420 BUDGET=6 bash tuning/sm_90-classes/tune.sh 16384,16,4096
