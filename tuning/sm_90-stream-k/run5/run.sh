#!/bin/bash
# Stream-K, run 5: what the new f64 classes do to the squares above them. The 1024^3 classes (the
# 128 x 128 x 16 large-square kernel as stream-K) are now the nearest class for squares up to ~2600:
# the square sweep of f64 through the dispatch (transposes, 768..8192), and DgemmNN's spec as tiles
# and as stream-K side by side over the same sizes.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
P=(--peak tuning/sm_90-classes/call1/peak.json)
S=(--sweep square --min-size 768 --max-size 8192 --sizes 8)
NN="precision = f64, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), load_b = (8, 32), lds_width = 2, arch = sm_90, stages = 3, ldg_width = 2, warps = (2, 4), raster = 8, frag_sets = 2, interleave = 2, math = dmma, mma = (16, 8, 4)"
mkdir -p $OUT/dispatch $OUT/nn-tiles $OUT/nn-stream_k
( time timeout 200 /tmp/x bench --precision d --op transposes "${S[@]}" "${P[@]}" --out $OUT/dispatch ) > $OUT/dispatch/log.txt 2>&1; echo "dispatch rc $?"
for sched in tiles stream_k; do
  ( time timeout 120 /tmp/x bench --spec "$NN, schedule = $sched" "${S[@]}" "${P[@]}" --out $OUT/nn-$sched ) > $OUT/nn-$sched/log.txt 2>&1; echo "nn $sched rc $?"
done
grep -hE "square +[0-9]+³" $OUT/*/log.txt | head -60
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/sweeps.tgz -C $OUT dispatch nn-tiles nn-stream_k && rm -rf $OUT/dispatch $OUT/nn-*
