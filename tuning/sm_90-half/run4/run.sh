#!/bin/bash
# 16-bit GEMMs, run 4, after the rule that a TMA kernel reading both operands in place has at most 3
# stages (its consumers may run stages - 1 stripes ahead of the producer's EMPTY barriers, which
# alternate by two): the GPU tests of the 16-bit and TMA kernels; run 2's hanging candidate 19 (bf16
# NT 256 x 128) with 3 stages (specs.txt), benched at 4096-16384; issue 9's table through the
# dispatch with the defaults now 3 stages, twice in a row.
# Usage (device): OUT=$OUT bash tuning/sm_90-half/run4/run.sh   (x.xz = xtask, gpu.xz = the tests/gpu binary)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x && xz -dc .devc/gpu.xz > /tmp/gpu && chmod +x /tmp/gpu
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 240 /tmp/gpu half:: tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
( time timeout 120 /tmp/x bench --spec "$(cat tuning/sm_90-half/run4/specs.txt)" "${P[@]}" --out $OUT/c19 ) > $OUT/c19.log 2>&1
echo "candidate 19 with 3 stages rc $?"; grep -E "^spec|ratio" $OUT/c19.log | head -5
for round in 1 2; do
  for p in h b; do
    ( time timeout 120 /tmp/x bench --precision $p --op transposes "${P[@]}" --out $OUT/$p$round ) > $OUT/$p$round.log 2>&1
    echo "bench $p round $round rc $?"
  done
  rm -f $OUT/*/*.svg $OUT/*/peak.json
  python3 tuning/sm_90-half/table.py $OUT/h$round/bench.csv $OUT/b$round/bench.csv
done
python3 tuning/sm_90-half/table.py $OUT/c19/bench.csv | head -3
