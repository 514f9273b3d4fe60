#!/bin/bash
# wgmma, run 30: the recurring slow 8192 cell of SGEMM TN (run 28: 1.48x cuBLAS at 8192 against 1.82 and
# 1.74 at 4096 and 16384; TT dips too). The shipped SgemmTN and SgemmTT with raster = 1, 4, 8 (shipped)
# and 16, at square sizes around 8192 (7680 ... 8704, multiples of the tile), cuBLAS in the same process:
# does the dip follow the power of two (leading dimensions 32 KiB apart), and does the block order move it?
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run30/run.sh   (x.xz = xtask)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
spec_of() { grep -h "name = $1," gemm-kernels/src/tuned/sm_90.rs | sed 's/.*name = [A-Za-z0-9]*, //; s/ *}.*//'; }
P=(--peak tuning/sm_90-classes/call1/peak.json --sweep square --min-size 7680 --max-size 8704 --sizes 5 --reps 5)
for name in SgemmTN SgemmTT; do
  for r in 1 4 8 16; do
    spec=$(spec_of $name | sed "s/raster = 8/raster = $r/")
    timeout 100 /tmp/x bench --spec "$spec" "${P[@]}" --out /tmp/b/$name-$r > /dev/null 2>&1 || echo "$name $r rc $?"
    tail -n +2 /tmp/b/$name-$r/bench.csv | sed "s/^/$name,$r,/" >> $OUT/all.csv
  done
done
head -1 /tmp/b/SgemmTN-8/bench.csv | sed 's/^/name,raster,/' > $OUT/header.csv
python3 - $OUT/all.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
# name, raster, then bench.csv: m at 7 (9 here), tflops 14 (16), cublas_tflops 18 (20), ratio 20 (22).
sizes = sorted({int(r[9]) for r in rows})
print("kernel   raster  " + "  ".join(f"{s:>13}" for s in sizes) + "   (ours/cuBLAS, ours TFLOP/s)")
for name in ("SgemmTN", "SgemmTT"):
    for raster in ("1", "4", "8", "16"):
        cells = {int(r[9]): r for r in rows if r[0] == name and r[1] == raster}
        print(f"{name} {raster:>6}  " + "  ".join(
            f"{float(cells[s][22]):5.2f} {float(cells[s][16]):6.1f}" if s in cells else " " * 13 for s in sizes))
PY
