#!/bin/bash
# 16-bit GEMMs, run 1: the default f16 and bf16 kernels (gemm-kernels/src/half.rs: 128 x 256 x 64,
# two consumer warpgroups of wgmma m64n256k16, a TMA producer, 4 stages) for NN, NT, TN, TT
# (specs.txt, the same configurations). Each is first checked with verify --gpu on the quick ragged
# shapes (leading dimensions rounded up to 8 elements), then the dispatch's kernels are benched at
# 4096, 8192 and 16384 beside cuBLAS's cublasGemmEx on the same type (f32 compute) in the same process.
# Usage (device): OUT=$OUT bash tuning/sm_90-half/run1/run.sh   (x.xz = xtask with the change)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-half/run1
while IFS= read -r spec; do
  echo "== $spec" >> $OUT/verify.log
  timeout 120 /tmp/x verify --gpu --spec "$spec" --shapes quick >> $OUT/verify.log 2>&1
  echo "exit $?" >> $OUT/verify.log
done < $D/specs.txt
grep -E "^summary|^exit" $OUT/verify.log | paste - -
S=(--op transposes --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
( time timeout 200 /tmp/x bench --precision h "${S[@]}" --out $OUT/h ) > $OUT/h.log 2>&1; echo "bench h rc $?"
( time timeout 200 /tmp/x bench --peak $OUT/h/peak.json --precision b "${S[@]}" --out $OUT/b ) > $OUT/b.log 2>&1; echo "bench b rc $?"
rm -f $OUT/*/*.svg
python3 tuning/sm_90-half/table.py $OUT/h/bench.csv $OUT/b/bench.csv
tail -5 $OUT/h.log
