#!/bin/bash
# DGEMM, run 51 (H200): the two cells of issue 9's table under 0.95x on the H200 (run 44: NN 8192
# 0.91, NT 16384 0.88; the H100's NT 16384 was 0.89 too). The shipped DgemmNT (line 1) and DgemmNN
# (line 5), the 6656^3 class kernels the dispatch runs at 4096-16384, against raster 16 and 4 and a
# fourth stage (specs.txt), each benched at 8192 and 16384 beside cuBLAS DGEMM; the shipped kernels
# twice, first and last, to see the run's spread.
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run51/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-dmma/run51/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 8192 --max-size 16384 --sizes 2 --reps 5)
bench() {  # bench LABEL LINE
  timeout 90 /tmp/x bench --spec "$(sed -n ${2}p $S)" "${P[@]}" --out /tmp/b/$1 > /dev/null 2>&1 || echo "bench $1 rc $?"
  tail -n +2 /tmp/b/$1/bench.csv | sed "s/^/$1,$2,/" >> $OUT/all.csv
}
bench n1 1; bench n2 2; bench n3 3; bench n4 4; bench n1 1
bench n5 5; bench n6 6; bench n7 7; bench n5 5
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
