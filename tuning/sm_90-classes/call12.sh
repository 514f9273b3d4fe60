#!/bin/bash
# Session 18, device call 12 (one call, ~9.5 min): (1) issue 11: the tall classes' 28 kernels verified
# on the GPU and every sweep through the dispatch (check.sh, SQUARE=1); (2) the small sweep with K split
# into 1, 2, 3 and 4 slices (does a split help the small squares?); (3) issue 10: the fixed-stride GPU
# test (tests/gpu_bespoke.rs, binary in .devc/gpu_bespoke.xz) and xtask bespoke plain beside
# --fixed-strides on three large operators (JIT time and speed; the bespoke part lands in
# tuning/sm_90-bespoke/run16-fixed/).
set -u
START=$SECONDS
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
KERNELS=tuning/sm_90-classes/new-kernels-tall.txt SQUARE=1 bash tuning/sm_90-classes/check.sh
mkdir -p $OUT/slices
( time timeout 150 /tmp/x bench --sweep small --slices 1,2,3,4 --out $OUT/slices ) > $OUT/slices/log.txt 2>&1; echo "slices rc $?"
rm -f $OUT/slices/peak.json; tar czf $OUT/slices.tgz -C $OUT slices && rm -rf $OUT/slices
xz -dc .devc/gpu_bespoke.xz > /tmp/gb && chmod +x /tmp/gb
GEMMFORGE_REQUIRE_GPU=1 timeout 90 /tmp/gb bespoke_gemm_with_fixed_strides --nocapture --test-threads 1 > $OUT/gpu_bespoke.log 2>&1; echo "gpu_bespoke rc $?"
tail -3 $OUT/gpu_bespoke.log
OPS=rand-1000x1000-d0.01,hex-p5-gl-grad,rand-512x512-d0.01
LEFT=$(( 580 - (SECONDS - START) )); EACH=$(( LEFT / 2 ))
echo "bespoke: $EACH s per mode"
for mode in plain fixed; do
  F=(); [[ $mode == fixed ]] && F=(--fixed-strides)
  mkdir -p $OUT/bespoke/$mode
  ( time timeout $EACH /tmp/x bespoke --set test --precision both --beta 0 --n 131072 --max-candidates 4 --operator $OPS "${F[@]}" --out $OUT/bespoke/$mode ) > $OUT/bespoke/$mode/stdout.txt 2>&1
  echo "$mode rc $?"; grep -A4 "^operator  " $OUT/bespoke/$mode/bespoke.log | cut -c1-160
done
tar czf $OUT/bespoke.tgz -C $OUT bespoke && rm -rf $OUT/bespoke
