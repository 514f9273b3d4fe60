#!/usr/bin/env python3
"""The tables of this folder's README, from the committed bench.csv files (ratio = ours / cuBLAS,
timed in the same run): the small-square sweep before (call6) and after (call9) session 17's classes,
then call9 against call12 (session 18: the tall classes in, another H100 of the same kind) and call12
against call18 (the large-K classes in, before the classes' tuned splits), the cells at
or above 1.0 (session 11's first sweep too), and the skinny and tall sweeps' ranges per precision (call9,
before the tall classes; call12, after them). Run from the repository root: python3 tuning/sm_90-classes/tables.py"""
import csv
import gzip
import json
import re
from collections import defaultdict

D = "tuning/sm_90-classes/"


def small(path):
    out = {}
    for r in csv.DictReader(open(D + path)):
        if r["sweep"] == "small" and r["status"] == "ok":
            out[(r["precision"], r["op"], int(r["m"]))] = float(r["ratio"])
    return out


before, after = small("call6/small/bench.csv"), small("call9/small/bench.csv")
latest = small("call12/small/bench.csv")
final = small("call18/small/bench.csv")
sizes = [256, 384, 512, 768, 1024]


def table(before, after):
    print("| precision | op | " + " | ".join(map(str, sizes)) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for p in ["f32", "f64", "c32", "c64"]:
        for op in ["nn", "nt", "tn", "tt"]:
            cells = []
            for s in sizes:
                x = after[(p, op, s)]
                cells.append("%.2f → %s" % (before[(p, op, s)], ("**%.2f**" if x >= 1.0 else "%.2f") % x))
            print("| %s | %s | %s |" % (p, op, " | ".join(cells)))


table(before, after)
print()
table(after, latest)
print()
table(latest, final)
first = {}
for r in csv.DictReader(open("tuning/sm_90-sweeps/bench.csv")):
    if r["sweep"] == "small" and r["status"] == "ok":
        first[(r["precision"], r["op"], int(r["m"]))] = float(r["ratio"])
for name, table in [("session 11 (tuning/sm_90-sweeps)", first), ("session 16 (call6)", before),
                    ("session 17 (call9)", after), ("session 18 (call12)", latest),
                    ("session 18 (call18, large-K classes in, before the tuned splits)", final)]:
    print("cells >= 1.0, %s: %d of %d" % (name, sum(x >= 1.0 for x in table.values()), len(table)))


def ranges(path):
    out = defaultdict(list)
    for r in csv.DictReader(open(D + path)):
        if r["status"] == "ok":
            what = "skinny K = %s" % r["k"] if r["sweep"] == "skinny" else "tall %sx%s" % (r["m"], r["n"])
            out[(what, r["precision"])].append(float(r["ratio"]))
    return out


old, new = ranges("call9/shapes/bench.csv"), ranges("call12/shapes/bench.csv")
lk = defaultdict(list)
for r in csv.DictReader(open(D + "call18/large-k/bench.csv")):
    if r["status"] == "ok":
        lk[r["precision"]].append(float(r["ratio"]))
for p, xs in sorted(lk.items()):
    print("large K (call18) %s %.2f–%.2f (%d cells)" % (p, min(xs), max(xs), len(xs)))
print("shape, precision: call9 → call12 (min–max over the ops)")
for key in sorted(new):
    (what, p), xs = key, new[key]
    ys = old.get(key, [])
    was = "%.2f–%.2f" % (min(ys), max(ys)) if ys else "-"
    print("%-18s %s %s → %.2f–%.2f (%d cells)" % (what, p, was, min(xs), max(xs), len(xs)))


# Session 18: split K on the small squares, with Table 2's sum (call12/slices) and with the split-sum
# kernels (tuning/sm_90-splitk/call14/sum/slices): split time / unsplit time over every cell and slice
# count, and the cells where some split is faster.
def slices(path):
    out = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        m = re.search(r"up to (\d+) slices", r["note"])
        out[(r["precision"], r["op"], r["m"])][int(m.group(1)) if m else 1] = float(r["median_ms"])
    return out


for name, path in [("Table 2's sum (call12)", D + "call12/slices/bench.csv"),
                   ("split-sum kernels (splitk call14)", "tuning/sm_90-splitk/call14/sum/slices/bench.csv")]:
    cells = slices(path)
    x = [v[s] / v[1] for v in cells.values() for s in v if s > 1]
    faster = sum(min(t for s, t in v.items() if s > 1) < v[1] for v in cells.values())
    print("small squares split, %s: split/unsplit time %.2f–%.2f; %d of %d cells faster split"
          % (name, min(x), max(x), faster, len(cells)))

# Large K through the dispatch: session 13 (tuning/sm_90-splitk/dispatch), after the small classes
# (call 14), with the large-K classes (call 18, above).
for name, path in [("session 13", "tuning/sm_90-splitk/dispatch/bench.csv"),
                   ("call 14", "tuning/sm_90-splitk/call14/sum/large-k/bench.csv")]:
    xs = [float(r["ratio"]) for r in csv.DictReader(open(path)) if r["ratio"]]
    print("large K, %s: %.2f–%.2f (%d cells)" % (name, min(xs), max(xs), len(xs)))

# The split phase of call 18 (xtask tune --split-only): per class, the best split against the same
# run's unsplit timing; a split > 2% faster became the class's.
runs = defaultdict(dict)
for line in gzip.open(D + "call18/split-new.jsonl.gz", "rt"):
    r = json.loads(line)
    kt = r["kernel_type"]
    runs[(kt["precision"] + kt["op_a"] + kt["op_b"], "x".join(map(str, r["size"])))][r["phase"]["split"]["slices"]] = r["median_ms"]
split = [(k, min((s for s in v if s > 1), key=v.get), v[1] / min(v[s] for s in v if s > 1))
         for k, v in sorted(runs.items()) if len(v) > 1]
chosen = [(k, s, g) for k, s, g in split if g > 1.02]
print("split phase (call18): %d classes timed, %d split:" % (len(runs), len(chosen)))
for (t, shape), s, g in chosen:
    print("  %s %s: %d slices, %.2fx faster" % (t, shape, s, g))
