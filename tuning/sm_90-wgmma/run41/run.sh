#!/bin/bash
# wgmma, run 41: CGEMM's large-square class (6656^3) after the TMA producer: verify --gpu of the TMA
# twins of run 27's c32 warp-specialized seeds (seeds.txt: ldg = tma added), then the tuner at the
# class seeded with them (the shipped one-warpgroup specs are seeds of their own), one variant of its
# own beside them. Its journal is appended to tuning/sm_90/tune.jsonl.gz, sm_90.rs regenerated.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run41/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
while IFS= read -r spec; do
  echo "== $spec" >> $OUT/verify.log
  timeout 30 /tmp/x verify --gpu --spec "$spec" --shapes quick >> $OUT/verify.log 2>&1; echo "exit $?" >> $OUT/verify.log
done < tuning/sm_90-wgmma/run41/seeds.txt
grep -E "^summary|^exit" $OUT/verify.log | paste - - | cut -c1-90
SEEDFILE=tuning/sm_90-wgmma/run41/seeds.txt PRECISION=c EXTRA=--wgmma MAXV=1 LIMIT=${LIMIT:-230} \
  BUDGET=${BUDGET:-3.3} PEAK=tuning/sm_90-classes/call1/peak.json PRUNED= \
  bash tuning/sm_90-classes/tune.sh 6656,6656,6656
