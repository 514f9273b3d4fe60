"""Run 43's table: per specs.txt line and size, ours / cuBLAS TF32 GEMM (ours vs cuBLAS TFLOP/s), this
change's binary (n) beside the one before it (o), every round in the order run.sh ran them.
Usage: python3 table.py specs.txt all.csv"""
import csv, sys

specs = [l.strip() for l in open(sys.argv[1]) if l.strip()]
cells = {}
for r in csv.reader(open(sys.argv[2])):
    # all.csv: candidate, line, then bench.csv's columns (m at 9, tflops 16, cublas_tflops 20, ratio 22).
    line, binary = int(r[1]), r[0][0]
    cells.setdefault((line, int(r[9])), []).append(f"{binary} {float(r[22]):.3f} ({float(r[16]):5.1f} vs {float(r[20]):5.1f})")
for (line, m), got in sorted(cells.items()):
    s = specs[line - 1]
    op, tile = s.split("op = ")[1][:6], s.split("tile = ")[1].split(")")[0] + ")"
    stages = s.split("stages = ")[1].split(",")[0]
    print(f"{line} {op} {tile:15} s{stages} {m:6}  " + "  ".join(got))
