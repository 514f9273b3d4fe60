#!/usr/bin/env python3
"""The interleave A/B tables of this folder from ab.sh's CSV.

    ab-table.py ab.csv --base VARIANT

Rows are the specs with `interleave` taken out; a column is a variant, with
`:iG` for `interleave = G` in the spec. Values are ours / cuBLAS (f32, c32)
or % of the DFMA peak (f64, c64). Each row ends with its best and worst
column against the base column (the variant named, without interleave),
and the last line gives the range of those changes over all rows."""
import argparse
import csv
import re

ap = argparse.ArgumentParser()
ap.add_argument("csv")
ap.add_argument("--base", required=True)
args = ap.parse_args()

rows, cols = {}, []
for r in csv.DictReader(open(args.csv)):
    m = re.search(r", interleave = (\d+)", r["spec"])
    spec = re.sub(r", interleave = \d+", "", r["spec"])
    col = r["variant"] + (f":i{m.group(1)}" if m else "")
    if col not in cols:
        cols.append(col)
    fp64 = "f64" in spec or "c64" in spec
    rows.setdefault(spec, {})[col] = float(r["pct_of_peak" if fp64 else "ratio"])

lo, hi = 0.0, 0.0
print("line |", " | ".join(cols), "| best | worst")
for i, (spec, v) in enumerate(rows.items(), 1):
    base = v.get(args.base)
    change = {c: x / base - 1 for c, x in v.items() if base and c != args.base}
    best = max(change, key=change.get, default=None)
    worst = min(change, key=change.get, default=None)
    if best:
        lo, hi = min(lo, change[worst]), max(hi, change[best])
    cells = [f"{v[c]:g}" if c in v else "" for c in cols]
    tail = f"{best} {change[best]:+.1%} | {worst} {change[worst]:+.1%}" if best else "|"
    print(i, "|", " | ".join(cells), "|", tail, "|", spec[:110])
print(f"changes against {args.base}: {lo:+.1%} to {hi:+.1%}")
