#!/bin/bash
# Issue 12, session 14, run 4: compute-sanitizer (four tools) over every shipped kernel, then a soak.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; mkdir -p /tmp/t && cd /tmp/t && xz -dc $R/.devc/xtask-t.xz > xtask && chmod +x xtask
( time timeout 380 ./xtask sanitize --out $OUT/sanitize --timeout-minutes 5 ) > $OUT/sanitize-stdout.txt 2>&1; echo "sanitize rc $?"
grep -v "^\[" $OUT/sanitize-stdout.txt | tail -14
( timeout 200 ./xtask soak --minutes 2.5 --seed 2026 --out $OUT/soak ) > $OUT/soak-stdout.txt 2>&1; echo "soak rc $?"
tail -25 $OUT/soak-stdout.txt
