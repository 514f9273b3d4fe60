#!/bin/bash
# wgmma, run 32 (where the warps wait): Nsight Compute's SourceCounters section on run 29's 1xTF32 TN
# 128 x 256 kernel at 8192 — the SASS lines with the most stall samples, to tell which barrier (the
# consumers' FULL, the producer's EMPTY, wgmma.wait_group) holds the warps. x.xz = run 29's second xtask.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
mkdir -p $OUT && xz -dc .devc/x.xz > /tmp/x && chmod +x /tmp/x
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
spec=$(sed -n 7p tuning/sm_90-wgmma/run29/specs.txt)
timeout 300 $NCU --section SourceCounters --section WarpStateStats --print-details all \
  -k regex:gemmforge --launch-skip 2 --launch-count 1 -o $OUT/tn \
  /tmp/x verify --gpu --spec "$spec" --shapes none --perf 8192 > $OUT/ncu-source.txt 2>&1
echo "rc=$?"
$NCU --import $OUT/tn.ncu-rep --page source --csv --print-source sass > $OUT/tn-sass.csv 2>&1  # committed gzipped
echo "source rc=$?"
python3 - $OUT/tn-sass.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next((i for i, r in enumerate(rows) if any("Source" == c or "Address" in c for c in r)), None)
if head is None:
    print("no table"); sys.exit()
h = rows[head]
col = next((i for i, c in enumerate(h) if "Warp Stall Sampling (All" in c), None)
src = next((i for i, c in enumerate(h) if c == "Source"), 1)
body = [r for r in rows[head + 1:] if len(r) > max(col or 0, src)]
total = sum(float(r[col] or 0) for r in body)
print(f"{len(body)} SASS lines, {total:.0f} stall samples; the top 15:")
for r in sorted(body, key=lambda r: -float(r[col] or 0))[:15]:
    print(f"{float(r[col] or 0) / total:6.1%}  {r[src][:110]}")
PY
