#!/usr/bin/env bash
# gemm-host's kernels after the K-contiguous retune (tuning/sm_90/tune.jsonl
# = this folder's tune/, tune-z/ and tune-small/ journals, then tune-skinny/):
# PART=bench times them beside cuBLAS at 4096, 8192, 16384 (square, the four
# transpose pairs, every precision), then over small squares 256-4096 and
# skinny K = 32, 64; PART=verify checks every kernel of gemm-kernels on the
# ragged shapes against the f64 reference and cuBLAS, PART=verify-tuned the
# tuned ones only (gemm-kernels/src/tuned/sm_90.rs); PART=all is bench and
# verify-tuned.
# Usage (device): PART=bench|verify|verify-tuned|all OUT=$OUT bash tuning/sm_90-kcontig/ship.sh X
set -u
X=$1; D=$OUT/ship-$PART; mkdir -p $D
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $D/gpu.txt
case $PART in
bench|all)
  "$X" bench --sweep square --min-size 4096 --max-size 16384 --sizes 3 --warmup 1 --reps 5 \
    --out $D/large > $D/large.log 2>&1; echo "large exit $?"
  "$X" bench --sweep square,skinny --min-size 256 --max-size 4096 --sizes 6 --skinny-mn 4096,8192 \
    --out $D/small > $D/small.log 2>&1; echo "small exit $?";;
esac
case $PART in
verify)
  "$X" verify --gpu > $D/verify-gpu.log 2>&1; echo "verify exit $?" | tee -a $D/verify-gpu.log;;
verify-tuned|all)
  TUNED=$(grep -o '"sm_90::[A-Za-z0-9]*"' gemm-kernels/src/tuned/sm_90.rs | tr -d '"' | sort -u | paste -sd,)
  "$X" verify --gpu --kernel "$TUNED" > $D/verify-gpu.log 2>&1; echo "verify exit $?" | tee -a $D/verify-gpu.log;;
esac
find $D -name '*.svg' -delete
tar czf $OUT/ship-$PART.tgz -C $OUT ship-$PART
