#!/bin/bash
# Session 18, device call 17: the large-K class 512 x 512 x 65536 for f64, c64 and c32 (and f32 TT,
# where call 15 stopped), resuming call 15's journal, at most 4 variants beside the seeds (every shipped
# kernel of the type is one: the large-square kernels split, the bar to beat), each timed with the
# dispatch's split.
PEAK=tuning/sm_90-classes/call1/peak.json RESUME=tuning/sm_90-classes/call15 PRECISION=d,z,c,s MAXV=4 LIMIT=470 BUDGET=7.7 bash tuning/sm_90-classes/tune.sh 512,512,65536
