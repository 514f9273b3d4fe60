"""Run 29's table: per candidate (specs.txt line) and size, ours / cuBLAS TF32 and ours in TFLOP/s.
Usage: python3 table.py all.csv"""
import csv, sys

rows = list(csv.reader(open(sys.argv[1])))
# candidate, then bench.csv's columns: op at 6 (7 here), m at 7 (8), tflops 14 (15), cublas_tflops
# 18 (19), ratio 20 (21), status 21 (22), spec 23 (24).
for r in rows:
    tile = r[24].split("tile = ")[1].split(")")[0] + ")"
    stages = r[24].split("stages = ")[1].split(",")[0]
    print(f"{r[0]:>2} {r[7]:3} {tile:15} s{stages} {int(r[8]):6}  {float(r[21]):.3f}  "
          f"{float(r[15]):6.1f} vs {float(r[19]):6.1f} TFLOP/s  {r[22]}")
