#!/bin/bash
# wgmma, run 46 (H200): A's boxes by TMA as the 16-bit kernels' MN-major ones — 32 elements of M by
# k_blk rows of 128 bytes, the 128-byte swizzle — instead of one box m_blk + 8 wide without swizzle
# (run 43's suspect for NN's gap to TN); the fragment loads follow the swizzle (two-way bank
# conflicts where the skewed rows had none). x.xz = this change (nI), old.xz = f55259d (oI).
# specs.txt: 1 NN 128 x 256, 2 NT 128 x 256 (run 43's lines 1, 2), 3 NN 256 x 128 (four consumer
# warpgroups: a box 264 wide did not fit before). verify --gpu --shapes quick of each with x, then
# all benched at 4096-16384 beside cuBLAS TF32, two rounds in opposite orders.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run46/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x old; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-wgmma/run46/specs.txt
for i in 1 2 3; do
  echo "== $i" >> $OUT/verify.log
  timeout 60 /tmp/x verify --gpu --spec "$(sed -n ${i}p $S)" --shapes quick >> $OUT/verify.log 2>&1; echo "exit $?" >> $OUT/verify.log
done
grep -E "^summary|^exit" $OUT/verify.log | paste - - | cut -c1-90
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $S)" "${P[@]}" --out /tmp/b/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/b/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/all.csv
}
bench x n1 1; bench old o1 1; bench x n2 2; bench old o2 2; bench x n3 3
bench x n3 3; bench old o2 2; bench x n2 2; bench old o1 1; bench x n1 1
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
