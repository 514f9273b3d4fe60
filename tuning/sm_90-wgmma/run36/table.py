"""Run 36's table: per candidate (specs.txt line, found by the tile and ldg of the spec each bench.csv row names) and size,
both rounds' ours / cuBLAS TF32 and ours in TFLOP/s. all.csv's first column counts the candidates in
each round's order (round 2 runs specs.txt bottom up), so it is not used.
Usage: python3 table.py specs.txt all.csv"""
import csv, sys

specs = [l.strip() for l in open(sys.argv[1]) if l.strip()]
rows = {}
for r in csv.reader(open(sys.argv[2])):
    # bench.csv's columns after the candidate: m at 8, tflops 15, cublas_tflops 19, ratio 21, spec 24.
    key = lambda s: (s.split("tile = ")[1].split(")")[0], "ldg = tma" in s)
    line = next(i for i, s in enumerate(specs, 1) if key(s) == key(r[24]))
    rows.setdefault((line, int(r[8])), []).append((float(r[21]), float(r[15]), float(r[19])))
for (line, m), runs in sorted(rows.items()):
    s = specs[line - 1]
    tile = s.split("tile = ")[1].split(")")[0] + ")"
    stages = s.split("stages = ")[1].split(",")[0]
    ldg = "tma" if "ldg = tma" in s else "cp.async"
    cells = "  ".join(f"{q:.3f} ({o:5.1f} vs {c:5.1f})" for q, o, c in runs)
    print(f"{line} {ldg:8} {tile:15} s{stages} {m:6}  {cells}")
