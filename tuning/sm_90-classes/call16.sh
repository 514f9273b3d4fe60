#!/bin/bash
# Session 18, device call 16: the tuned split of the shape classes (xtask tune's split phase, Phase::Split):
# the sm_90 journal resumed at each class shape, so the search and the confirmation are skipped (journaled)
# and only the confirmed winners whose tiles leave the GPU idle are timed with K split 2, 3 and 4 ways.
# SHAPES (default the small squares) and LIMIT (s per shape, default 110). The new records come back as
# split-new.jsonl.gz (append them to tuning/sm_90/tune.jsonl.gz).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
export GEMMFORGE_PTXAS=/usr/local/cuda/bin/ptxas
mkdir -p /tmp/none /tmp/tS $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
cp tuning/sm_90/tune.jsonl.gz /tmp/tS/tune.jsonl.gz
SEEDS=(); while IFS= read -r spec; do SEEDS+=(--seed "$spec"); done < tuning/sm_90-classes/seeds.txt
G=(--min-reuse 0 --min-threads-per-sm 0 --min-blocks-per-sm 0 --min-threads-per-sm-ring 0 --min-blocks-per-sm-ring 0 --max-variants 24 --tf32x3 --repo /tmp/none)
for shape in ${SHAPES:-512,512,512 768,768,768 256,256,256 1024,1024,1024}; do
  E=(); [[ $shape == 768,768,768 || $shape == 1024,1024,1024 ]] && E=(--wgmma)  # as session 17 tuned them
  ( time timeout ${LIMIT:-110} /tmp/x tune --resume --precision s,d,c,z --op nn,nt,tn,tt --shape $shape "${G[@]}" "${E[@]}" --gpu-minutes 4 --budget-minutes 4.3 --peak tuning/sm_90-classes/call1/peak.json --out /tmp/tS "${SEEDS[@]}" ) > $OUT/split-${shape//,/x}.log 2>&1; echo "$shape rc $?"
done
zcat /tmp/tS/tune.jsonl.gz | grep -vxFf <(zcat tuning/sm_90/tune.jsonl.gz) | gzip -9 > $OUT/split-new.jsonl.gz
echo "new records: $(zcat $OUT/split-new.jsonl.gz | wc -l), split ones: $(zcat $OUT/split-new.jsonl.gz | grep -c '"split"')"
