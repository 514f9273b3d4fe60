#!/bin/bash
# wgmma, run 13: the dispatch after runs 10 and 12 (c32's 6656^3 and 1024^3 classes now the c32 wgmma
# kernels): the small squares five times back to back for every precision (as session 20's call 28,
# whose medians are the figure to compare), and c32's squares at 2048 and 4096, every op pair.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
P=(--peak tuning/sm_90-classes/call1/peak.json)
for run in 1 2 3 4 5; do
  mkdir -p $OUT/small-$run
  ( time timeout 60 /tmp/x bench --sweep small "${P[@]}" --out $OUT/small-$run ) > $OUT/small-$run/log.txt 2>&1; echo "small-$run rc $?"
done
mkdir -p $OUT/square
( time timeout 120 /tmp/x bench --precision c --op all --sweep square --min-size 2048 --max-size 4096 --sizes 2 "${P[@]}" --out $OUT/square ) > $OUT/square/log.txt 2>&1; echo "square rc $?"
grep -E "square +[0-9]+³" $OUT/square/log.txt
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/sweeps.tgz -C $OUT square small-1 small-2 small-3 small-4 small-5 && rm -rf $OUT/square $OUT/small-*
