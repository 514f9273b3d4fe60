#!/usr/bin/env bash
# The second and third tuning calls on the GPU machine (carry .devc with the xtask
# binary X): ZGEMM at its full size (4608^3, dmma with K-contiguous stripes
# in the space), then SGEMM, CGEMM and ZGEMM at 1024^3, the small size
# class; each prunes on the machine's cores, then times. Returns
# $OUT/tune-z.tgz and $OUT/tune-small.tgz (journals, reports).
# STEP=skinny instead tunes all four precisions at 8192 x 8192 x 64, the
# skinny-K class ($OUT/tune-skinny.tgz); STEP=skinny-update tunes DGEMM and
# ZGEMM there as the update C = C - A.B, then benches each winner over the
# skinny sweep (M = N = 4096, 8192; K = 32, 64) and verifies it on the
# ragged shapes ($OUT/tune-skinny-update.tgz, with winners/).
# Usage (device): [STEP=skinny] OUT=$OUT bash tuning/sm_90-kcontig/tune2.sh X
set -u
X=$1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
TUNE=tuning/sm_90-kcontig/tune.sh
step() { # name, budget minutes, then env for tune.sh
  local name=$1 budget=$2; shift 2
  local T=/tmp/gf-$name; mkdir -p $T; local start=$(date +%s)
  env "$@" MODE=prune bash $TUNE "$X" $T > $T/prune.log 2>&1
  echo "$name: pruned in $(( $(date +%s) - start )) s"
  env "$@" BUDGET=$budget bash $TUNE "$X" $T 2>&1 | tee -a $T/tune.log | grep -v '^\s*$' | tail -12
}
pack() { tar czf $OUT/tune-$1.tgz -C /tmp/gf-$1 --exclude=candidates .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
case ${STEP:-} in
skinny) step skinny 3 PRECISION=s,d,c,z SHAPE=8192,8192,64; pack skinny;;
skinny-update)
  T=/tmp/gf-skinny-update; W=$T/winners; mkdir -p $W
  step skinny-update 3 PRECISION=d,z SHAPE=8192,8192,64 UPDATE=1
  i=0
  grep -o 'precision = [^}]*' $T/sm_90.rs | grep -v 'C)\|(C,' | sed 's/ *$//' | sort -u > $W/winners.txt
  while IFS= read -r spec; do
    i=$((i + 1))
    "$X" bench --spec "$spec" --sweep skinny --skinny-mn 4096,8192 --out $W/bench-$i > $W/bench-$i.log 2>&1
    "$X" verify --gpu --spec "$spec" > $W/verify-$i.log 2>&1; echo "exit $?" >> $W/verify-$i.log
    grep -h "^summary" -A3 $W/bench-$i.log | tail -1; tail -2 $W/verify-$i.log | head -1
  done < $W/winners.txt
  find $W -name '*.svg' -delete
  pack skinny-update;;
*) step z 2.5 PRECISION=z; pack z
   step small 4 PRECISION=s,c,z SIZE=1024; pack small;;
esac
