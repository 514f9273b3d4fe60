#!/bin/bash
# wgmma, run 9: CGEMM on the warpgroup MMA (c32: pairs split into planes of real and imaginary
# TF32 parts, four real wgmma products per complex one, signs by imm-scale-a). Every op pair
# verified and timed at 8192 beside the shipped CGEMM (mma.sync tf32x3) and cuBLAS CGEMM; other
# tiles of NN; the square sweep and the accuracy of the NN candidate.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
mkdir -p $OUT
exec > >(tee $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
spec() { # op la lb math stages tile threads warps n
  echo "precision = c32, op = ($1), load_a = $2, load_b = $3, math = $4, stages = $5, tile = $6, threads = $7, warps = $8, mma = (64, $9, 8), lds_width = 2, ldg_width = 2, arch = sm_90a, raster = 8"
}
T="(128, 64, 16)"; TH="(64, 4)"; W="(8, 1)"
echo "=== the shipped CGEMMs (mma.sync tf32x3) at 8192"
timeout 120 /tmp/x verify --gpu --precision c --kernel sm_90::CgemmNN,sm_90::CgemmNT,sm_90::CgemmNC,sm_90::CgemmTN,sm_90::CgemmTT,sm_90::CgemmTC,sm_90::CgemmCN,sm_90::CgemmCT,sm_90::CgemmCC --shapes none --perf 8192 2>&1 | tail -14
for a in N T C; do
  for b in N T C; do
    la="(64, 4)"; [ $a != N ] && la="(8, 32)"
    lb="(8, 32)"; [ $b != N ] && lb="(32, 8)"
    S=$(spec "$a, $b" "$la" "$lb" tf32x3 3 "$T" "$TH" "$W" 64)
    shapes=quick; [ "$a$b" = NN ] && shapes=small; [ "$a$b" = CC ] && shapes=small
    echo "=== tf32x3 $a$b ($shapes): $S"
    timeout 150 /tmp/x verify --gpu --spec "$S" --shapes $shapes --perf 8192 2>&1 | grep -E "^spec|failed|passed|TFLOP|ratio|error|Error" | tail -6; echo "rc=${PIPESTATUS[0]}"
  done
done
echo "=== other tiles, NN"
for t in "tf32x3|2|(128, 64, 16)|(64, 4)|(8, 1)|64|(64, 4)|(8, 32)" "tf32x3|4|(128, 64, 8)|(64, 4)|(8, 1)|64|(64, 4)|(4, 64)" \
         "tf32x3|3|(64, 64, 16)|(32, 4)|(4, 1)|64|(32, 4)|(8, 16)" "tf32x3|2|(64, 64, 32)|(32, 4)|(4, 1)|64|(32, 4)|(16, 8)" \
         "tf32|3|(128, 128, 16)|(64, 4)|(8, 1)|128|(64, 4)|(8, 32)" "tf32|3|(128, 64, 16)|(64, 4)|(8, 1)|64|(64, 4)|(8, 32)"; do
  IFS='|' read math st tile th w n la lb <<< "$t"
  S=$(spec "N, N" "$la" "$lb" $math $st "$tile" "$th" "$w" $n)
  echo "--- $math tile $tile stages $st warps $w n $n"
  timeout 150 /tmp/x verify --gpu --spec "$S" --shapes tiny --perf 8192 2>&1 | grep -E "^spec|failed|passed|TFLOP|ratio|error|Error" | tail -4
done
NN=$(spec "N, N" "(64, 4)" "(8, 32)" tf32x3 3 "$T" "$TH" "$W" 64)
echo "=== bench, square, tf32x3 NN against cuBLAS CGEMM"
timeout 200 /tmp/x bench --spec "$NN" --precision c --op nn --sweep square --min-size 1024 --max-size 16384 --sizes 5 --out $OUT/bench 2>&1 | tail -12
cp $OUT/bench/bench.csv $OUT/bench.csv 2>/dev/null
echo "=== accuracy, tf32x3 NN beside the shipped kernel and cuBLAS"
timeout 150 /tmp/x accuracy --spec "$NN" --shipped --sizes 1024,4096,8192 --out $OUT/acc 2>&1 | tail -30
cp $OUT/acc/accuracy.csv $OUT/accuracy.csv 2>/dev/null
rm -rf $OUT/bench $OUT/acc
