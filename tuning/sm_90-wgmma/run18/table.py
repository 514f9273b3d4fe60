"""Run 18: ours / cuBLAS with and without the ring's barrier (the experiment variable), and their
quotient, per kernel and size (median of the two runs each), from all.csv (name, variant, rep, then
bench.csv's columns). Usage: python3 table.py [all.csv]"""
import csv, os, statistics, sys
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "all.csv")
cells = {}
for r in csv.reader(open(path)):
    cells.setdefault((r[0], int(r[10])), {}).setdefault(r[1], []).append(float(r[23]))
for (name, m), by in sorted(cells.items()):
    base, nobar = statistics.median(by["base"]), statistics.median(by["nobar"])
    print(f"{name:8} {m:5}  with the barrier {base:.3f}  without {nobar:.3f}  gain {100 * (nobar / base - 1):+.1f}%")
