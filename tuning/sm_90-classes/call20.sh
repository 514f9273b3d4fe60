#!/bin/bash
# Session 19, device call 20: the epilogue reading old C a group of columns at a time
# (`c_batch`, new): each class's shipped winner timed beside its c_batch siblings (2, 4, 8 ... up to the
# thread's columns), with every other shipped kernel of the type and Table 2 as seeds, no sample
# (`--sample 0 --max-variants 0`: no pruning beyond ptxas on the seeds), through tune.sh with the
# measured peak (since then xtask tune refuses --c-batched without --update: C = A.B never reads C).
# Arguments: the classes' shapes (call 20: 8192,8192,64 256,256,256 512,512,512). Each shape's journal
# comes back as tune-<shape>.jsonl.gz (kept in call20/, not appended to the sm_90 journal).
set -u
PEAK=tuning/sm_90-classes/call1/peak.json MAXV=0 LIMIT=${LIMIT:-170} BUDGET=${BUDGET:-2.6} \
  EXTRA="--sample 0 --c-batched 1" bash tuning/sm_90-classes/tune.sh "$@"
