#!/bin/bash
# 16-bit GEMMs, run 3: the GPU tests of the 16-bit kernels (tests/gpu/half.rs: hgemm and bgemm with
# the default kernels, every op pair, both layouts, edge shapes; the refusal of operands the tensor
# maps cannot describe) and of the TMA and SGEMM kernels; run 2's candidate 19 again (it timed out
# at 16384 there); the accuracy of the f16 and bf16 NN defaults beside cublasGemmEx (xtask accuracy);
# and issue 9's table through the dispatch a second time (run 1 was the first).
# Usage (device): OUT=$OUT bash tuning/sm_90-half/run3/run.sh   (x.xz = xtask, gpu.xz = the tests/gpu binary)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x && xz -dc .devc/gpu.xz > /tmp/gpu && chmod +x /tmp/gpu
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
GEMMFORGE_REQUIRE_GPU=1 timeout 240 /tmp/gpu half:: tma_kernels sgemm_default 2>&1 | grep -E "passed|FAILED|panicked|^test |test result" > $OUT/gpu-tests.log
tail -4 $OUT/gpu-tests.log
spec=$(sed -n 19p tuning/sm_90-half/run2/specs.txt)
( time timeout 240 /tmp/x bench --spec "$spec" --peak tuning/sm_90-half/run1/out/h/peak.json --sweep square \
    --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --out $OUT/c19 ) > $OUT/c19.log 2>&1; echo "candidate 19 rc $?"
tail -4 $OUT/c19.log
for p in 1 5; do
  spec=$(sed -n ${p}p tuning/sm_90-half/run1/specs.txt)
  dist=uniform,normal; [ $p = 5 ] && dist=uniform,normal,wide
  ( time timeout 200 /tmp/x accuracy --spec "$spec" --dist $dist --sizes 1024,4096,16384 --out $OUT/accuracy-$p ) > $OUT/accuracy-$p.log 2>&1
  echo "accuracy $p rc $?"; tail -12 $OUT/accuracy-$p.log
done
S=(--op transposes --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5 --peak tuning/sm_90-half/run1/out/h/peak.json)
( time timeout 200 /tmp/x bench --precision h "${S[@]}" --out $OUT/h ) > $OUT/h.log 2>&1; echo "bench h rc $?"
( time timeout 200 /tmp/x bench --precision b "${S[@]}" --out $OUT/b ) > $OUT/b.log 2>&1; echo "bench b rc $?"
rm -f $OUT/*/*.svg
python3 tuning/sm_90-half/table.py $OUT/h/bench.csv $OUT/b/bench.csv
