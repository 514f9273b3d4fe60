#!/bin/bash
# Session 18, device calls 13-14: the whole test set with each candidate's strides fixed in its code
# (xtask bespoke --fixed-strides, generator 759059b), one precision a call: P=d or P=s; OPS=a,b,...
# only those operators (a call cut by its limit goes on with the rest in the next).
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
D=$PWD
cd /tmp && xz -dc $D/.devc/x.xz > xtask && chmod +x xtask
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
O=(); [[ -n ${OPS:-} ]] && O=(--operator $OPS)
mkdir -p $OUT/run16-$P
timeout ${T:-570} ./xtask bespoke --set test --precision $P --beta 0 --n 131072 --fixed-strides "${O[@]}" --out $OUT/run16-$P > $OUT/run16-$P/stdout.txt 2>&1
echo "$P rc=$?"; tail -12 $OUT/run16-$P/bespoke.log | cut -c1-200
