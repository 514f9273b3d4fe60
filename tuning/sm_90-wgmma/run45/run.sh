#!/bin/bash
# wgmma, run 45 (H200): setmaxnreg. A warp-specialized kernel whose producer only copies (TMA, both
# operands read from the ring) with two consumer warpgroups now hands the producer's registers to the
# consumers (`setmaxnreg.dec` 40, `.inc` 232), and NN's consumers go round four fragment sets with two
# steps in flight. x.xz = this change (candidates nI), old.xz = c5067f5 (oI: two sets, no setmaxnreg).
# The GPU tests of the TMA kernels and the 16-bit ones first; then run 43's NN and TN (its specs.txt
# lines 1, 4) benched at 4096-16384 beside cuBLAS TF32 with both binaries, two rounds in opposite
# orders; then the shipped f16 and bf16 kernels (all of which change) with both binaries.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run45/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x old gpu; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 240 /tmp/gpu half:: tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
S=tuning/sm_90-wgmma/run43/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $S)" "${P[@]}" --out /tmp/b/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/b/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/all.csv
}
bench x n1 1; bench old o1 1; bench x n4 4; bench old o4 4
bench old o4 4; bench x n4 4; bench old o1 1; bench x n1 1
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
for b in x old; do
  ( time timeout 90 /tmp/$b bench --precision h,b --op transposes "${P[@]}" --out $OUT/half-$b ) > $OUT/half-$b.log 2>&1
  echo "half $b rc $?"
done
rm -f $OUT/*/*.svg $OUT/*/peak.json
for b in x old; do echo "== $b"; python3 tuning/sm_90-half/table.py $OUT/half-$b/bench.csv | tail -4; done
