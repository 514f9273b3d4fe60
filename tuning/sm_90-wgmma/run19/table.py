"""Run 19: ours / cuBLAS per cell, old binary beside new (median of the two runs each), from all.csv
(binary, rep, then bench.csv's columns). Usage: python3 table.py [all.csv]"""
import csv, statistics, sys, os
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "all.csv")
cells = {}
for r in csv.reader(open(path)):
    binary, kernel, precision, op, m, tflops, ratio, spec = r[0], r[5], r[7], r[8], r[9], r[16], r[22], r[25]
    # Only tf32x3 wgmma kernels changed; the others are the run's noise.
    changed = "mma = (64" in spec and "tf32x3" in spec
    key = (precision, op, int(m), kernel, changed)
    cells.setdefault(key, {}).setdefault(binary, []).append((float(ratio), float(tflops)))
print("precision op   size  kernel                      old ratio  new ratio  new/old  (* = a tf32x3 wgmma kernel)")
gains = {True: [], False: []}
for (precision, op, m, kernel, changed), by in sorted(cells.items()):
    if "old" not in by or "new" not in by:
        continue
    old = statistics.median(x[0] for x in by["old"])
    new = statistics.median(x[0] for x in by["new"])
    gains[changed].append(new / old)
    mark = "*" if changed else " "
    print(f"{precision:9} {op:4} {m:5}  {kernel:26}{mark} {old:9.3f}  {new:9.3f}  {new / old:7.3f}")
for changed, what in ((True, "wgmma tf32x3 kernels"), (False, "other kernels (unchanged code: noise)")):
    g = gains[changed]
    if g:
        print(f"{what}: {len(g)} cells, new/old median {statistics.median(g):.3f}, min {min(g):.3f}, max {max(g):.3f}")
big = [c for c in cells if c[2] >= 4096 and c[4]]
for precision in ("f32", "c32"):
    vals = [statistics.median(x[0] for x in cells[c]["new"]) for c in big if c[0] == precision]
    if vals:
        print(f"{precision} at 4096-16384, new: {min(vals):.2f}-{max(vals):.2f}x cuBLAS, {sum(v >= 1.6 for v in vals)} of {len(vals)} cells >= 1.6")
