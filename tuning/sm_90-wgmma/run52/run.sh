#!/bin/bash
# wgmma, run 52 (H200): accuracy of 1xTF32 TT as the transposed product (run 48's line 1, operands = ba:
# the call's B rounded to TF32 as it is loaded into registers, A truncated by the tensor cores, as
# NN's A and B are), beside TT converting B (line 2) and NN (line 3): `xtask accuracy` at 1024 and
# 4096, every input distribution, against the f64 reference and cuBLAS (SGEMM and TF32) on the same
# inputs. The binary is 51cd50b's.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run52/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
for l in 1 2 3; do
  ( time timeout 120 /tmp/x accuracy --spec "$(sed -n ${l}p tuning/sm_90-wgmma/run48/specs.txt)" --sizes 1024,4096 \
      --out $OUT/accuracy$l ) > $OUT/accuracy$l.log 2>&1; echo "accuracy $l rc $?"
  rm -f $OUT/accuracy$l/*.svg
  tail -12 $OUT/accuracy$l.log | head -9
done
