"""Run 38's table: per candidate (all.csv's first column: its specs.txt line) and size, ours / cuBLAS
(TF32 GEMM for math = tf32, SGEMM for tf32x3) and ours in TFLOP/s, cp.async and TMA side by side.
Usage: python3 table.py specs.txt all.csv"""
import csv, sys

specs = [l.strip() for l in open(sys.argv[1]) if l.strip()]
cells = {}
for r in csv.reader(open(sys.argv[2])):
    # bench.csv's columns after the candidate: m at 8, tflops 15, cublas_tflops 19, ratio 21.
    s = specs[int(r[0]) - 1]
    key = (s.split("op = ")[1][:6], s.split("tile = ")[1].split(")")[0] + ")", s.split("math = ")[1].split(",")[0])
    cells[(key, "tma" in s, int(r[8]))] = (float(r[21]), float(r[15]), float(r[19]))
for key in dict.fromkeys(k for k, _, _ in cells):
    for m in sorted({m for k, _, m in cells if k == key}):
        row = []
        for tma in (False, True):
            q, o, c = cells.get((key, tma, m), (0, 0, 0))
            row.append(f"{q:.3f} ({o:5.1f} vs {c:5.1f})")
        print(f"{key[0]} {key[2]:6} {key[1]:15} {m:6}  cp.async {row[0]}  tma {row[1]}")
