#!/bin/bash
# Session 19, device call 22: the skinny classes in the form the skinny sweep calls them, C = C - A.B
# (beta = 1, --update: C is read, which c_batch speeds up; call 21), each shipped kernel of the type
# and Table 2 as seeds with the c_batch siblings of the class's kernel and of seeds-skinny.txt (the
# 8192 x 8192 x 64 classes' kernels), no sample (--sample 0 --max-variants 0): f64 and c64 at
# 8192,8192,64 (their update classes), f32 and c32 at 8192,8192,32 (new: their 8192 x 8192 x 64
# classes are C = A.B), f64 and c64 at 8192,8192,128 (new).
set -u
export PEAK=tuning/sm_90-classes/call1/peak.json MAXV=0 LIMIT=165 BUDGET=2.5 EXTRA="--sample 0 --c-batched 1"
export SEEDFILE=tuning/sm_90-classes/seeds-skinny.txt
PRECISION=d,z bash tuning/sm_90-classes/tune.sh 8192,8192,64:update
PRECISION=s,c bash tuning/sm_90-classes/tune.sh 8192,8192,32:update
PRECISION=d,z bash tuning/sm_90-classes/tune.sh 8192,8192,128:update
