#!/bin/bash
# wgmma, run 50 (H200): the rule that chooses how A's fragments are pipelined, as committed. A stripe
# a group wherever two stripes' fragments fit beside a wgmma's registers in what a consumer thread
# holds (setmaxnreg's grant, else the block's share): run 49's change for NN/TT (lines 1, 2: the same
# PTX), and now also one consumer warpgroup (line 3, 64 x 256, 256 threads: before, a step a group over
# two sets). x.xz = this change (n), old.xz = f3d5529 (o). Lines 4, 5: NN with raster 4 and 16 (n only).
# The GPU tests of the TMA kernels with this change first.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run50/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x old gpu; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 240 /tmp/gpu tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
S=tuning/sm_90-wgmma/run50/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $S)" "${P[@]}" --out /tmp/b/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/b/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/all.csv
}
bench x n3 3; bench old o3 3; bench x n1 1; bench x n2 2
bench old o3 3; bench x n3 3; bench x n2 2; bench x n1 1
bench x n4 4; bench x n5 5
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
