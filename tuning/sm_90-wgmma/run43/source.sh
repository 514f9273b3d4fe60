#!/bin/bash
# wgmma, run 43's per-instruction stall samples (ncu's source page, SASS) of specs.txt line 1 (NN, A's
# fragments from registers) and line 4 (TN) at 8192, with this change (x.xz).
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run43/source.sh
set -u
[ -x /tmp/x ] || { xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x; }
for l in 1 4; do
  bash tuning/sm_90-stalls/prof-source.sh /tmp/x $OUT line$l 8192 "$(sed -n ${l}p tuning/sm_90-wgmma/run43/specs.txt)"
  gzip -9 $OUT/line$l-source.csv; rm -rf $OUT/bench-line$l
done
