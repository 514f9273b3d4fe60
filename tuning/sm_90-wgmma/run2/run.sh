#!/bin/bash
# wgmma, run 2: the pipelined product (two sets of parts, stripe t's conversion beside stripe t-1's wgmma group).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
exec > >(tee $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
spec() { # op la lb math stages tile threads warps n
  echo "precision = f32, op = ($1), load_a = $2, load_b = $3, math = $4, stages = $5, tile = $6, threads = $7, warps = $8, mma = (64, $9, 8), lds_width = 4, ldg_width = 4, arch = sm_90a"
}
T="(128, 128, 32)"; TH="(64, 4)"; W="(8, 1)"
for cfg in "tf32x3 2" "tf32 3"; do
  set -- $cfg; math=$1; st=$2
  for o in "N, N|(32, 8)|(8, 32)" "N, T|(32, 8)|(32, 8)" "T, N|(8, 32)|(8, 32)" "T, T|(8, 32)|(32, 8)"; do
    IFS='|' read op la lb <<< "$o"
    S=$(spec "$op" "$la" "$lb" $math $st "$T" "$TH" "$W" 128)
    shapes=quick; [ "$op" = "N, N" ] && shapes=small
    echo "=== $math stages $st $op ($shapes)"
    timeout 150 /tmp/x verify --gpu --spec "$S" --shapes $shapes --perf 8192 2>&1 | grep -E "^spec|failed|rc|error|Error" ; echo "rc=${PIPESTATUS[0]}"
  done
done
echo "=== other tiles, tf32x3 NN"
for t in "(128, 128, 16)|4|(64, 4)|(8, 1)|128" "(128, 64, 32)|3|(64, 4)|(8, 1)|64" "(64, 128, 32)|3|(32, 4)|(4, 1)|128" "(128, 128, 32)|2|(64, 8)|(8, 2)|64"; do
  IFS='|' read tile st th w n <<< "$t"
  S=$(spec "N, N" "(32, 8)" "(8, 32)" tf32x3 $st "$tile" "$th" "$w" $n)
  echo "--- tile $tile stages $st warps $w n $n"
  timeout 150 /tmp/x verify --gpu --spec "$S" --shapes tiny --perf 8192 2>&1 | grep -E "^spec|failed|error|Error"
done
NN=$(spec "N, N" "(32, 8)" "(8, 32)" tf32x3 2 "$T" "$TH" "$W" 128)
echo "=== bench, square, tf32x3 NN against cuBLAS SGEMM"
timeout 240 /tmp/x bench --spec "$NN" --precision s --op nn --sweep square --min-size 1024 --max-size 16384 --sizes 5 --out $OUT/bench 2>&1 | tail -12
cp $OUT/bench/bench.csv $OUT/bench.csv 2>/dev/null
echo "=== accuracy, tf32x3 NN beside the shipped kernel and cuBLAS"
timeout 200 /tmp/x accuracy --spec "$NN" --shipped --sizes 1024,4096,16384 --out $OUT/acc 2>&1 | tail -30
cp $OUT/acc/accuracy.csv $OUT/accuracy.csv 2>/dev/null
rm -rf $OUT/bench $OUT/acc
