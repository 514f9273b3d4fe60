#!/usr/bin/env python3
"""The tables of this folder's README, from the committed bench.csv files (ratio = ours / cuBLAS,
timed in the same run): the small-square sweep before (call6) and after (call9) session 17's classes,
the cells at or above 1.0 (session 11's first sweep too), and the skinny and tall sweeps' ranges per precision (call9, before the tall
classes). Run from the repository root: python3 tuning/sm_90-classes/tables.py"""
import csv
from collections import defaultdict

D = "tuning/sm_90-classes/"


def small(path):
    out = {}
    for r in csv.DictReader(open(D + path)):
        if r["sweep"] == "small" and r["status"] == "ok":
            out[(r["precision"], r["op"], int(r["m"]))] = float(r["ratio"])
    return out


before, after = small("call6/small/bench.csv"), small("call9/small/bench.csv")
sizes = [256, 384, 512, 768, 1024]
print("| precision | op | " + " | ".join(map(str, sizes)) + " |")
print("|---|---|" + "---|" * len(sizes))
for p in ["f32", "f64", "c32", "c64"]:
    for op in ["nn", "nt", "tn", "tt"]:
        cells = []
        for s in sizes:
            x = after[(p, op, s)]
            cells.append("%.2f → %s" % (before[(p, op, s)], ("**%.2f**" if x >= 1.0 else "%.2f") % x))
        print("| %s | %s | %s |" % (p, op, " | ".join(cells)))
first = {}
for r in csv.DictReader(open("tuning/sm_90-sweeps/bench.csv")):
    if r["sweep"] == "small" and r["status"] == "ok":
        first[(r["precision"], r["op"], int(r["m"]))] = float(r["ratio"])
for name, table in [("session 11 (tuning/sm_90-sweeps)", first), ("session 16 (call6)", before),
                    ("session 17 (call9)", after)]:
    print("cells >= 1.0, %s: %d of %d" % (name, sum(x >= 1.0 for x in table.values()), len(table)))

ranges = defaultdict(list)
for r in csv.DictReader(open(D + "call9/shapes/bench.csv")):
    if r["status"] == "ok":
        what = "skinny K = %s" % r["k"] if r["sweep"] == "skinny" else r["sweep"]
        ranges[(what, r["precision"])].append(float(r["ratio"]))
for (what, p), xs in sorted(ranges.items()):
    print("%-14s %s %.2f–%.2f (%d cells)" % (what, p, min(xs), max(xs), len(xs)))
