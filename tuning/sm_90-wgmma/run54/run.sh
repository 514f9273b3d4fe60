#!/bin/bash
# wgmma, run 54 (H200): the L2 promotion of the tensor maps whose boxes land without swizzle (A's
# box of the kernels that load A into registers, m_blk + 8 = 136 elements = 544 bytes a row).
# Every map is encoded with CU_TENSOR_MAP_L2_PROMOTION_L2_256B (x.xz, 51cd50b); xNONE.xz is 51cd50b
# with run54/promotion-none.patch (those maps not promoted), x128B.xz the same patch with L2_128B in
# place of NONE (an experiment's builds, not committed to the source).
# NN and TT (run 48's lines 3 and 1) benched with each, two rounds; then ncu's L2 sectors, DRAM bytes
# and time of NN at 8192 with each.
# Usage (device): OUT=$OUT bash tuning/sm_90-wgmma/run54/run.sh
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT /tmp/b
for x in x x128B xNONE; do xz -dc .devc/$x.xz > /tmp/$x && chmod +x /tmp/$x; done
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/device.txt
S=tuning/sm_90-wgmma/run48/specs.txt
P=(--peak tuning/sm_90-half/run1/out/h/peak.json --sweep square --min-size 4096 --max-size 16384 --sizes 3 --reps 5)
bench() {  # bench BINARY LABEL LINE
  timeout 60 /tmp/$1 bench --spec "$(sed -n ${3}p $S)" "${P[@]}" --out /tmp/b/$2 > /dev/null 2>&1 || echo "bench $2 rc $?"
  tail -n +2 /tmp/b/$2/bench.csv | sed "s/^/$2,$3,/" >> $OUT/all.csv
}
# labels: the first letter names the binary (x 256B, h 128B, z none)
bench x x3 3; bench x128B h3 3; bench xNONE z3 3; bench x x1 1; bench x128B h1 1; bench xNONE z1 1
bench xNONE z3 3; bench x128B h3 3; bench x x3 3; bench xNONE z1 1; bench x128B h1 1; bench x x1 1
python3 tuning/sm_90-wgmma/run43/table.py $S $OUT/all.csv | tee $OUT/table.txt
for x in x x128B xNONE; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum \
    -k regex:gemmforge --launch-skip 1 --launch-count 1 --csv \
    /tmp/$x bench --spec "$(sed -n 3p $S)" --sweep square --min-size 8192 --max-size 8192 --sizes 1 --warmup 1 --reps 1 \
    --out /tmp/prof-$x 2>/dev/null | grep '^"' > $OUT/ncu-$x.csv
  echo "== $x"; awk -F'","' 'NR>1 {print $(NF-2), $NF}' $OUT/ncu-$x.csv
done
