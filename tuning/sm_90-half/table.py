"""16-bit GEMMs: ours / cuBLAS (cublasGemmEx, f32 compute) per precision, op pair and size, from
bench.csv, with issue 9's targets (>= 0.9x, stretch 1.05x).
Usage: python3 table.py bench.csv [bench.csv ...]"""
import csv, sys
rows = [r for path in sys.argv[1:] for r in csv.DictReader(open(path))]
sizes = sorted({int(r["m"]) for r in rows})
print("precision op   " + "  ".join(f"{s:>6}" for s in sizes) + "   (ours / cuBLAS; TFLOP/s at the largest)")
for precision in ("f16", "bf16"):
    for op in ("nn", "nt", "tn", "tt"):
        cells = {int(r["m"]): r for r in rows if r["precision"] == precision and r["op"] == op}
        if not cells:
            continue
        ratios = "  ".join(f"{float(cells[s]['ratio']):6.2f}" if s in cells else "     -" for s in sizes)
        top = cells[max(cells)]
        print(f"{precision:9} {op:4} {ratios}   {float(top['tflops']):.1f} vs {float(top['cublas_tflops']):.1f}")
for precision in ("f16", "bf16"):
    ratios = [float(r["ratio"]) for r in rows if r["precision"] == precision]
    if ratios:
        print(f"{precision}: {sum(x >= 0.9 for x in ratios)} of {len(ratios)} cells >= 0.9, "
              f"{sum(x >= 1.05 for x in ratios)} >= 1.05, {min(ratios):.2f}-{max(ratios):.2f}")
statuses = {r["status"] for r in rows}
print("statuses:", ", ".join(sorted(statuses)))
