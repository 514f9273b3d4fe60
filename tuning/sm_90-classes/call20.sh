#!/bin/bash
# Session 19, device calls 20 and 21: the epilogue reading old C a group of columns at a time
# (`c_batch`, new): each class's shipped winner timed beside its c_batch siblings (2, 4, 8 ... up to the
# thread's columns), with every other shipped kernel of the type and Table 2 as seeds, no sample
# (`--sample 0 --max-variants 0`: no pruning beyond ptxas on the seeds), through tune.sh with the
# measured peak. Arguments: the classes' shapes (call 20: 8192,8192,64 256,256,256 512,512,512;
# call 21: 768,768,768 1024,1024,1024). Each shape's journal comes back as tune-<shape>.jsonl.gz.
set -u
PEAK=tuning/sm_90-classes/call1/peak.json MAXV=0 LIMIT=${LIMIT:-170} BUDGET=${BUDGET:-2.6} \
  EXTRA="--sample 0 --c-batched 1" bash tuning/sm_90-classes/tune.sh "$@"
