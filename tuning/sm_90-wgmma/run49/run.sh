#!/bin/bash
# wgmma, run 49 (H200): A's fragments a stripe a group. Consumers that load A's fragments into
# registers with the producer's registers (setmaxnreg) load every step's fragment of a stripe, fence
# once, issue the stripe's wgmmas as one group and keep one stripe in flight (eight sets: two
# stripes' worth), as TN's consumers keep a stripe's group in flight; before, each step was its own
# group, fenced, two in flight over four sets. x.xz = this change (n), old.xz = f3d5529 (o).
# run 48's TT with swapped operands (line 1) and NN (line 3), two rounds in opposite orders; the GPU
# tests of the TMA kernels with this change first.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run49/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x old gpu; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 240 /tmp/gpu tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
S=tuning/sm_90-wgmma/run48/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $S)" "${P[@]}" --out /tmp/b/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/b/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/all.csv
}
bench x n1 1; bench old o1 1; bench x n3 3; bench old o3 3
bench old o3 3; bench x n3 3; bench old o1 1; bench x n1 1
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
