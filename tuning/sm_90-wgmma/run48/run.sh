#!/bin/bash
# wgmma, run 48 (H200): TT 1xTF32 with swapped operands. `operands = ba` computes C^T = B^T . A^T,
# the call's B (N leading) the kernel's A loaded from the ring into registers, the call's A (K
# leading) read by wgmma in place, and stores its tile transposed: TT runs as the NN kernel does.
# specs.txt: 1 = TT with operands = ba (run 43's NN spec, op and operands changed), 2 = TT as before
# (run 43 line 3: the producers convert B), 3 = NN (run 43 line 1). The GPU tests of the TMA kernels
# first (line 1 among them), then each line benched at 4096-16384 beside cuBLAS TF32, two rounds in
# opposite orders.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run48/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x gpu; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 240 /tmp/gpu tma_kernels 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -3 $OUT/gpu-tests.log
S=tuning/sm_90-wgmma/run48/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench LABEL LINE
  timeout 60 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/all.csv
}
bench n1 1; bench n2 2; bench n3 3
bench n3 3; bench n2 2; bench n1 1
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
