"""Run 26's table: per spec and size, the median ratio to cuBLAS of the shipped spec and of its
warp-specialized twin, and twin / shipped. Usage: python3 table.py all.csv"""
import csv, statistics, sys

cells = {}
for r in csv.reader(open(sys.argv[1])):
    # label, variant, rep, then bench.csv's columns: m at 7 (10 here), tflops 14 (17), ratio 20 (23).
    cells.setdefault((r[0], int(r[10])), {}).setdefault(r[1], []).append((float(r[23]), float(r[17])))
for (label, m), by in sorted(cells.items()):
    med = lambda v, i: statistics.median(x[i] for x in by.get(v, [(0, 0)]))
    s, w = med("shipped", 0), med("ws", 0)
    print(f"{label:14} {m:6}  shipped {s:.3f} ({med('shipped', 1):.1f} TFLOP/s)  "
          f"warp-specialized {w:.3f} ({med('ws', 1):.1f})  ratio {w / s if s else 0:.3f}")
