#!/bin/bash
# Stream-K, run 1: the GPU test of stream-K kernels (every precision, split tiles, two runs bitwise
# equal), the same under compute-sanitizer memcheck, then the small squares for four DMMA kernels of
# the tuned tables (DgemmNN, DgemmNN16384x64x4096, ZgemmNN, ZgemmNN768) as they ship (`schedule =
# tiles`, K split as a default call splits it) and with `schedule = stream_k` (never split), each
# beside cuBLAS in the same run.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x && xz -dc .devc/gpu_stream_k.xz > /tmp/t && chmod +x /tmp/t
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time GEMMFORGE_REQUIRE_GPU=1 timeout 120 /tmp/t --nocapture ) > $OUT/test.log 2>&1; echo "test rc $?"
grep -E "blocks|test result|panicked" $OUT/test.log | cut -c1-220
( time GEMMFORGE_REQUIRE_GPU=1 timeout 200 /usr/local/cuda-13.0/bin/compute-sanitizer --tool memcheck /tmp/t ) > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"
tail -4 $OUT/memcheck.log
P=(--peak tuning/sm_90-classes/call1/peak.json)
i=0
while IFS= read -r spec; do
  [ -z "$spec" ] && continue
  i=$((i+1))
  for sched in tiles stream_k; do
    d=$OUT/b$i-$sched; mkdir -p $d
    # tiles: K split as a default call splits it; stream_k: never split (the schedule is the balance).
    S=(); [ $sched = stream_k ] && S=(--slices 1)
    ( time timeout 90 /tmp/x bench --spec "$spec, schedule = $sched" --sweep small "${P[@]}" "${S[@]}" --out $d ) > $d/log.txt 2>&1; echo "bench $i $sched rc $?"
    grep -E "^\s*(256|384|512|768|1024)\b|ratio" $d/log.txt | head -8
  done
done < tuning/sm_90-stream-k/run1/specs.txt
rm -f $OUT/*/peak.json $OUT/*/*.svg
tar czf $OUT/benches.tgz -C $OUT $(cd $OUT && ls -d b*-*) && rm -rf $OUT/b*-tiles $OUT/b*-stream_k
