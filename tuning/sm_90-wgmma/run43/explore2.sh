#!/bin/bash
# wgmma, run 43's second exploration: one consumer warpgroup (tile 64 x 256), whose 256 threads leave
# 256 registers a thread, so four fragment sets fit without ptxas serializing the wgmmas (170
# registers). explore2.txt: 1 NN, 2 TN. Binaries as explore.sh: x.xz (aI, two sets, one group in
# flight), xb.xz (bI, four sets, two in flight, loaded a step ahead). 4096-16384 beside cuBLAS TF32,
# two rounds in opposite orders.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run43/explore2.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/e
for x in x xb; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run43
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $D/explore2.txt)" "${P[@]}" --out /tmp/e/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/e/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/explore2.csv
}
timeout 60 /tmp/xb verify --gpu --spec "$(sed -n 1p $D/explore2.txt)" --shapes quick 2>&1 | grep summary
bench x a1 1; bench xb b1 1; bench x a2 2
bench x a2 2; bench xb b1 1; bench x a1 1
python3 $D/table.py $D/explore2.txt $OUT/explore2.csv | tee $OUT/explore2-table.txt
