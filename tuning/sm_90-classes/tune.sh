#!/bin/bash
# Issue 11, session 16: shape classes of their own for small squares, tall shapes and skinny K = 128,
# every precision and transpose pair (xtask tune --shape), tf32x3 searched for f32 and c32, seeded with
# the hand-written small specs (seeds.txt: tuning/sm_90-batched/tune/seeds-small.txt and
# tune-ops/seeds-ops.txt; SEEDFILE names another file, # lines skipped). Arguments: shapes m,n,k (a
# trailing ":update" times C = C - A.B).
# PRECISION (default s,d,c,z) picks the types and OPS (default nn,nt,tn,tt) the transpose pairs;
# RESUME=DIR resumes each shape's journal from DIR's tune-<shape>.jsonl.gz (an earlier call's output);
# PRUNED=DIR takes each shape's pruned candidates from DIR/t<shape>/candidates/*.json (a fresh GPU
# machine spends ~1 min a type pruning; the lists' cubins, ~150 MB a shape, stay behind: the tracked
# tree leaves ~10 MB of what a call carries, and the driver JIT-compiles instead); PRUNE_ONLY=DIR makes them, on a machine without a GPU
# (xtask tune --prune-only --arch sm_90 with these same flags; X names the xtask binary, default
# target/release/xtask). EXTRA adds tune flags (e.g. --wgmma); MAXV is --max-variants (default 24);
# LIMIT is each shape's time limit in seconds (default 275) and BUDGET its --budget-minutes (default
# 4.3); PEAK=FILE takes a measured peak.json instead of measuring.
set -u
SEEDS=(); while IFS= read -r spec; do [[ $spec == \#* ]] || SEEDS+=(--seed "$spec"); done < ${SEEDFILE:-tuning/sm_90-classes/seeds.txt}
G=(--min-reuse 0 --min-threads-per-sm 0 --min-blocks-per-sm 0 --min-threads-per-sm-ring 0 --min-blocks-per-sm-ring 0 --max-variants ${MAXV:-24} --tf32x3 --repo /tmp/none)
T=(--precision ${PRECISION:-s,d,c,z} --op ${OPS:-nn,nt,tn,tt})
if [[ -n ${PRUNE_ONLY:-} ]]; then
  mkdir -p $PRUNE_ONLY
  for arg in "$@"; do
    shape=${arg%%:*}; name=${shape//,/x}; U=(); [[ $arg == *:update ]] && U=(--update)
    ( time ${X:-target/release/xtask} tune "${T[@]}" --shape $shape "${U[@]}" "${G[@]}" ${EXTRA:-} --prune-only --arch sm_90 --out $PRUNE_ONLY/t$name "${SEEDS[@]}" ) > $PRUNE_ONLY/prune-$name.log 2>&1; echo "$name rc $?"
  done
  exit
fi
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
mkdir -p /tmp/none $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
if [[ -n ${RESUME:-}${PEAK:-} ]]; then cp ${PEAK:-$RESUME/peak.json} $OUT/peak.json; else /tmp/x peak --out $OUT > $OUT/peak-log.txt 2>&1; fi
for arg in "$@"; do
  shape=${arg%%:*}; name=${shape//,/x}; U=(); [[ $arg == *:update ]] && U=(--update)
  R=(); if [[ -n ${RESUME:-} ]]; then mkdir -p /tmp/t$name && zcat $RESUME/tune-$name.jsonl.gz > /tmp/t$name/tune.jsonl && R=(--resume); fi
  if [[ -n ${PRUNED:-} && -d $PRUNED/t$name/candidates ]]; then mkdir -p /tmp/t$name/candidates && cp $PRUNED/t$name/candidates/*.json /tmp/t$name/candidates/; fi
  ( time timeout ${LIMIT:-275} /tmp/x tune "${T[@]}" "${R[@]}" --shape $shape "${U[@]}" "${G[@]}" ${EXTRA:-} --gpu-minutes 4 --budget-minutes ${BUDGET:-4.3} --peak $OUT/peak.json --out /tmp/t$name "${SEEDS[@]}" ) > $OUT/tune-$name.log 2>&1; echo "$name rc $?"
  gzip -c /tmp/t$name/tune.jsonl > $OUT/tune-$name.jsonl.gz
done
grep -E "^[sdcz]gemm_.. .*confirmed|budget|left" $OUT/tune-*.log | cut -c1-200
