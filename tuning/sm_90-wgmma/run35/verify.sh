#!/bin/bash
# wgmma, run 35: verify --gpu of run 29's twelve 1xTF32 candidates (run29/specs.txt) on the quick
# ragged shapes, every log kept in one file (runs 29 and 33 kept only some of theirs).
# x.xz = xtask at 2fc6ec5 (PTX of these specs as at 02ffbe3).
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run35/verify.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
i=0
while IFS= read -r spec; do
  i=$((i + 1))
  echo "== candidate $i: $spec" >> $OUT/verify.log
  timeout 60 /tmp/x verify --gpu --spec "$spec" --shapes quick >> $OUT/verify.log 2>&1
  echo "exit $?" >> $OUT/verify.log
done < tuning/sm_90-wgmma/run29/specs.txt
grep -E "^summary|^exit" $OUT/verify.log | paste - -
