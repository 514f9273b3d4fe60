#!/bin/bash
# wgmma, run 26: the warp-specialized kernel (`producers = 1`, stencil/specialized.rs) against the
# shipped specs it derives from (`ws.py`: one producer warpgroup takes over the copies and the
# conversion; `--tf32`: the same with math = tf32). verify --gpu of each twin on the quick ragged
# shapes, then shipped and twin alternating, twice, at 4096 and 8192, cuBLAS in the same process
# (its TF32 mode for a tf32 spec). x.xz = xtask with the change.
# Usage: NAMES="SgemmNN SgemmTT CgemmNN" TF32="SgemmNN" bash run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
D=tuning/sm_90-wgmma/run26
spec_of() { grep -h "name = $1," gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = [A-Za-z0-9]*, //; s/ *}.*//'; }
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 4096 --max-size 8192 --sizes 2 --reps 5)
pair() {  # name, label, base spec, twin spec
  local name=$1 label=$2 base=$3 twin=$4
  echo "$label: $twin" >> $OUT/specs.txt
  ( timeout 60 /tmp/x verify --gpu --spec "$twin" --shapes quick ) > $OUT/verify-$label.log 2>&1; echo "verify $label rc $?"
  grep -E "^summary" $OUT/verify-$label.log
  for rep in 1 2; do
    for var in shipped ws; do
      spec=$base; [ $var = ws ] && spec=$twin
      timeout 80 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$label-$var-$rep > /dev/null 2>&1 || echo "$label $var $rep rc $?"
      tail -n +2 /tmp/b/$label-$var-$rep/bench.csv | sed "s/^/$label,$var,$rep,/" >> $OUT/all.csv
    done
  done
}
for name in $NAMES; do
  base=$(spec_of $name); pair $name $name "$base" "$(python3 $D/ws.py $base)"
done
for name in ${TF32:-}; do
  base=$(spec_of $name | sed 's/math = tf32x3/math = tf32/'); pair $name $name-tf32 "$base" "$(python3 $D/ws.py --tf32 $(spec_of $name))"
done
head -1 /tmp/b/$(ls /tmp/b | head -1)/bench.csv | sed 's/^/label,variant,rep,/' > $OUT/header.csv
python3 $D/table.py $OUT/all.csv
