#!/bin/bash
# wgmma, run 43: 1xTF32 NN and NT whose consumers load A's fragments from the ring into registers
# (wgmma's A-from-registers form, `constraints::wgmma_a_regs`) instead of having the producers
# convert A. specs.txt: 1 NN, 2 NT (3 stages: A needs no parts now), 3 TT, 4 TN, 5 TT 256 x 128,
# 6 NT with 2 stages, all 1xTF32 by TMA. The GPU tests of the TMA kernels (run 36's TN and lines 1-2
# here) first; `verify --gpu --shapes quick` of lines 1, 2, 6; then every line benched at 4096,
# 8192, 16384 beside cuBLAS's TF32 GEMM in the same process with this change (x.xz, candidates
# nI) and lines 1 and 6 with the binary before it (old.xz = a818bc1, which converts A: candidates
# oI); then n1, o1, n2, o6 again in reverse order.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run43/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x old gpu; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run43
GEMMFORGE_REQUIRE_GPU=1 timeout 150 /tmp/gpu tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -2 $OUT/gpu-tests.log
for i in 1 2 6; do
  echo "== candidate $i: $(sed -n ${i}p $D/specs.txt)" >> $OUT/verify.log
  timeout 60 /tmp/x verify --gpu --spec "$(sed -n ${i}p $D/specs.txt)" --shapes quick >> $OUT/verify.log 2>&1
  echo "exit $?" >> $OUT/verify.log
done
grep -E "^summary|^exit" $OUT/verify.log | paste - - | cut -c1-80
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $D/specs.txt)" "${P[@]}" --out /tmp/b/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/b/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/all.csv
}
for i in 1 2 3 4 5 6; do bench x n$i $i; done
bench old o1 1; bench old o6 6
bench old o6 6; bench x n2 2; bench old o1 1; bench x n1 1
head -1 /tmp/b/n1/bench.csv | sed 's/^/candidate,line,/' > $OUT/header.csv
python3 $D/table.py $D/specs.txt $OUT/all.csv | tee $OUT/table.txt
