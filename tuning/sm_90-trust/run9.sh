#!/bin/bash
# Issue 12, session 16, run 9: a soak that makes the first pass's calls three more times
# (--repeat 3), reading the host's RSS and heap in use and the device's memory after each pass.
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
R=$PWD; cd /tmp && xz -dc $R/.devc/x.xz > xtask && chmod +x xtask
mkdir -p $OUT/soak-repeat3
timeout 560 ./xtask soak --minutes 1.5 --repeat 3 --seed 2029 --out $OUT/soak-repeat3 > $OUT/soak-repeat3/soak-stdout.txt 2>&1; echo "soak rc $?"
tail -22 $OUT/soak-repeat3/soak-stdout.txt
