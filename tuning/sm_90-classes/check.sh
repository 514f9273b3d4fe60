#!/bin/bash
# Issue 11: the shape classes as shipped: verify --gpu of their new kernels (KERNELS, a file of names,
# default new-kernels.txt: session 16's 256^3/512^3 classes), ragged quick shapes; then xtask bench
# --sweep small with the dispatch; with SQUARE=1 also the f32 square sweep 1024..8192 and the skinny
# and tall sweeps (session 17). A call returns at most 8 files: with SQUARE the sweeps' folders come back
# as one sweeps.tgz (unpack it under the call's folder).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
K=${KERNELS:-tuning/sm_90-classes/new-kernels.txt}
( time timeout 200 /tmp/x verify --gpu --kernel $(cat $K) --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
tail -4 $OUT/verify.log
mkdir -p $OUT/small
( time timeout 150 /tmp/x bench --sweep small --out $OUT/small ) > $OUT/small/log.txt 2>&1; echo "small rc $?"
grep -E " small " $OUT/small/log.txt | cut -c1-110 | tail -90
if [[ -n ${SQUARE:-} ]]; then
  mkdir -p $OUT/square $OUT/shapes
  ( time timeout 120 /tmp/x bench --precision s --op transposes --sweep square --min-size 1024 --max-size 8192 --sizes 4 --out $OUT/square ) > $OUT/square/log.txt 2>&1; echo "square rc $?"
  ( time timeout 200 /tmp/x bench --sweep skinny,tall --skinny-k 32,64,128 --skinny-mn 8192,16384 --out $OUT/shapes ) > $OUT/shapes/log.txt 2>&1; echo "shapes rc $?"
  rm -f $OUT/*/peak.json
  tar czf $OUT/sweeps.tgz -C $OUT small square shapes && rm -rf $OUT/small $OUT/square $OUT/shapes
fi
