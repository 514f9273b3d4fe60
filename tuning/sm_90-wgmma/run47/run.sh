#!/bin/bash
# wgmma, run 47 (H200): the register hand-off's consumers asking only what the block holds (run 46's
# NN 256 x 128, four consumer warpgroups on 640 threads of 96 registers, hung at scale asking 112 a
# thread; now 104). The GPU tests of the TMA kernels (run 36's 256 x 128 TN among them), then
# run46/specs.txt line 3 verified and benched at 4096-16384 beside cuBLAS TF32, twice.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run47/run.sh   (x.xz, gpu.xz at this commit)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x gpu; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 120 /tmp/gpu tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -2 $OUT/gpu-tests.log
S=tuning/sm_90-wgmma/run46/specs.txt
timeout 60 /tmp/x verify --gpu --spec "$(sed -n 3p $S)" --shapes quick 2>&1 | grep summary | tee $OUT/verify.log
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
for r in 1 2; do
  timeout 60 /tmp/x bench --spec "$(sed -n 3p $S)" "${P[@]}" --out /tmp/b/n3$r > /dev/null 2>&1 || echo "bench rc $?"
  tail -n +2 /tmp/b/n3$r/bench.csv | sed "s/^/n3,3,/" >> $OUT/all.csv
done
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
