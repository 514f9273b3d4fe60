#!/bin/bash
# Session 18 (device call 14): split K with the split-sum kernels (gemm_kernels::split_sum, 0a03dd7)
# instead of Table 2's NN kernel. gpu_batch (strided batches, split K run twice and compared bit for
# bit, the dispatch override; binary .devc/gpu_batch.xz), verify --gpu of the four split-sum kernels,
# then xtask bench: the small squares with K in 1-4 slices (sum/slices, against
# tuning/sm_90-classes/call12/slices before) and large K as the dispatch splits it (sum/large-k,
# against dispatch/ before).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT/sum && xz -dc .devc/x.xz > /tmp/x && xz -dc .devc/gpu_batch.xz > /tmp/gb && chmod +x /tmp/x /tmp/gb
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
( time GEMMFORGE_REQUIRE_GPU=1 timeout 150 /tmp/gb --test-threads 1 --nocapture ) > $OUT/gpu_batch.log 2>&1; echo "gpu_batch rc $?"
grep -E "test result|FAILED|panicked" $OUT/gpu_batch.log
( time timeout 60 /tmp/x verify --gpu --kernel SgemmSplitSum,DgemmSplitSum,CgemmSplitSum,ZgemmSplitSum --shapes quick ) > $OUT/verify.log 2>&1; echo "verify rc $?"
tail -3 $OUT/verify.log
mkdir -p $OUT/sum/slices $OUT/sum/large-k
( time timeout 150 /tmp/x bench --sweep small --slices 1,2,3,4 --out $OUT/sum/slices ) > $OUT/sum/slices/log.txt 2>&1; echo "slices rc $?"
( time timeout 150 /tmp/x bench --sweep large-k --peak $OUT/sum/slices/peak.json --out $OUT/sum/large-k ) > $OUT/sum/large-k/log.txt 2>&1; echo "large-k rc $?"
grep -E " large-k " $OUT/sum/large-k/log.txt | cut -c1-110 | head -100
rm -f $OUT/sum/*/peak.json; tar czf $OUT/sum.tgz -C $OUT sum && rm -rf $OUT/sum
