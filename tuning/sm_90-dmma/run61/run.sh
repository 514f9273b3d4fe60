#!/bin/bash
# DGEMM/ZGEMM, run 61 (H200): the 32-byte dmma skew on every shipped D and Z kernel. verify --gpu of
# all of them (quick shapes, every op pair, cuBLAS on the same inputs), then issue 11's small squares
# and skinny K (K = 32, 64 at M = N = 4096 ... 16384) through the dispatch with the binary before
# (x57.xz) and after (x.xz), back to back.
# Usage (device): OUT=$OUT bash tuning/sm_90-dmma/run61/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
xz -dc .devc/x57.xz > /tmp/o && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/o /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time timeout 200 /tmp/x verify --gpu --precision d,z --op all --shapes quick ) > $OUT/verify.log 2>&1
echo "verify rc $?"; tail -4 $OUT/verify.log
sweep() {  # sweep BINARY NAME
  ( time timeout 150 /tmp/$1 bench --peak tuning/sm_90-half/run1/out/h/peak.json --precision d,z --op transposes \
      --sweep small,skinny --reps 5 --out /tmp/b/$2 ) > /tmp/b/$2.log 2>&1
  echo "$2 rc $?"; cp /tmp/b/$2/bench.csv $OUT/$2.csv
}
sweep o old
sweep x new
python3 tuning/sm_90-dmma/run61/compare.py $OUT/old.csv $OUT/new.csv | tee $OUT/compare.txt
