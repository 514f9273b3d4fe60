#!/bin/bash
# Device call 3: the f32 operators run 2 did not reach (hex p3-p6, at most 6
# candidates each), and the f64 large sparse operators again with the
# candidates changed after run 1 (48-row stages, register share).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && gunzip -c $D/.devc/xtask-s.gz > xtask && chmod +x xtask
mkdir -p $OUT/s0-hex $OUT/d0-large
timeout 290 ./xtask bespoke --set test --precision s --beta 0 --n 131072 --max-candidates 6 --out $OUT/s0-hex \
  --operator hex-p3-gll-gl-interp,hex-p3-gl-grad,hex-p4-gl-gll-interp,hex-p4-gll-gl-interp,hex-p4-gl-grad,hex-p5-gl-gll-interp,hex-p5-gll-gl-interp,hex-p5-gl-grad,hex-p6-gl-gll-interp,hex-p6-gll-gl-interp,hex-p6-gl-grad \
  > $OUT/s0-hex/stdout.txt 2>&1
echo "f32 rc=$?"; tail -3 $OUT/s0-hex/stdout.txt
timeout 200 ./xtask bespoke --set test --precision d --beta 0 --n 131072 --out $OUT/d0-large \
  --operator rand-1000x1000-d0.01,rand-1100x400-d0.01,rand-512x512-d0.10,rand-512x512-d0.01 \
  > $OUT/d0-large/stdout.txt 2>&1
echo "f64 rc=$?"; tail -3 $OUT/d0-large/stdout.txt
