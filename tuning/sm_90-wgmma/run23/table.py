"""Run 23: ours / cuBLAS per precision, op pair and size (issue 9's table), from bench.csv.
Usage: python3 table.py [bench.csv]"""
import csv, os, sys
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "bench.csv")
rows = list(csv.DictReader(open(path)))
sizes = sorted({int(r["m"]) for r in rows})
print("precision op   " + "  ".join(f"{s:>6}" for s in sizes) + "   (ours / cuBLAS; ours TFLOP/s at the largest)")
for precision in ("f32", "f64", "c32", "c64"):
    for op in ("nn", "nt", "tn", "tt"):
        cells = {int(r["m"]): r for r in rows if r["precision"] == precision and r["op"] == op}
        if not cells:
            continue
        ratios = "  ".join(f"{float(cells[s]['ratio']):6.2f}" if s in cells else "     -" for s in sizes)
        top = cells[max(cells)]
        print(f"{precision:9} {op:4} {ratios}   {float(top['tflops']):.1f} vs {float(top['cublas_tflops']):.1f}")
# Issue 9's targets: SGEMM and CGEMM >= 1.6x, DGEMM >= 0.95x, ZGEMM >= 1.0x cuBLAS.
for precision, target in (("f32", 1.6), ("f64", 0.95), ("c32", 1.6), ("c64", 1.0)):
    ratios = [float(r["ratio"]) for r in rows if r["precision"] == precision]
    if not ratios:
        continue
    print(f"{precision}: {sum(x >= target for x in ratios)} of {len(ratios)} cells >= {target}, "
          f"{min(ratios):.2f}-{max(ratios):.2f}")
