#!/bin/bash
# Issue 11: small-tile stencil kernels on strided batches, against cublasGemmStridedBatchedEx.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p /tmp/b && gunzip -c .devc/xtask-s.gz > /tmp/b/xtask && chmod +x /tmp/b/xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
/tmp/b/xtask peak --out $OUT > $OUT/peak-log.txt 2>&1
i=0
while IFS= read -r spec; do
  i=$((i+1)); d=$OUT/spec-$(printf %02d $i); mkdir -p $d
  echo "$spec" > $d/spec.txt
  ( timeout 100 /tmp/b/xtask bench --spec "$spec" --sweep batched --peak $OUT/peak.json --out $d ) > $d/log.txt 2>&1
  echo "== $i rc $? $spec"; grep -E " batched " $d/log.txt | cut -c30-160
done < .devc/specs.txt
cd $OUT && tar czf all.tgz spec-* && rm -rf spec-*
