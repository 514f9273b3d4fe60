#!/bin/bash
# wgmma, run 33: run 29's twelve 1xTF32 candidates (run29/specs.txt) once 1xTF32 stopped fencing every
# stripe: run 32's profile put 57% of the stall samples on each stripe's first HGMMA, behind the
# wgmma.fence (WARPGROUP.ARRIVE) that waited for the group still in flight; a chain of wgmmas on the same
# accumulators needs no fence, so 1xTF32 now fences once, after zeroing C. verify --gpu (quick) and
# bench at 4096, 8192, 16384 beside cuBLAS's TF32 GEMM in the same process, as run 29.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run33/run.sh   (x.xz = xtask with the change)
ACCURACY=0 exec bash tuning/sm_90-wgmma/run29/run.sh
