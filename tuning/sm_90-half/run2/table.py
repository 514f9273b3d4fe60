"""Run 2: each candidate's ours / cuBLAS at each size, from all.csv (candidate, then bench.csv's
columns). Usage: python3 table.py specs.txt all.csv"""
import csv, sys
specs = open(sys.argv[1]).read().splitlines()
cols = ["candidate", "sweep", "precision", "op", "m", "n", "k"]
rows = list(csv.reader(open(sys.argv[2])))
header = open(sys.argv[2].replace("all.csv", "header.csv")).read().strip().split(",")
at = {name: i for i, name in enumerate(header)}
cells = {}
for r in rows:
    cells.setdefault(int(r[0]), {})[int(r[at["m"]])] = (float(r[at["ratio"]]), float(r[at["tflops"]]), r[at["status"]])
for c in sorted(cells):
    s = specs[c - 1]
    short = s.split(", threads")[0].replace("precision = ", "").replace("tile = ", "") + " | " + \
        ", ".join(p for p in s.split(", ") if p.startswith(("stages", "raster", "mma")))
    line = "  ".join(f"{cells[c][m][0]:.3f}" for m in sorted(cells[c]))
    top = cells[c][max(cells[c])]
    print(f"{c:2} {line}   {top[1]:.0f} TFLOP/s {top[2]}   {short}")
