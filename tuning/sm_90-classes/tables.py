#!/usr/bin/env python3
"""The tables of this folder's README, from the committed bench.csv files (ratio = ours / cuBLAS,
timed in the same run): the small-square sweep before (call6) and after (call9) session 17's classes,
then call9 against call12 (session 18: the tall classes in, another H100 of the same kind) and call12
against call18 (the large-K classes in, before the classes' tuned splits), the cells at
or above 1.0 (session 11's first sweep too), and the skinny and tall sweeps' ranges per precision (call9,
before the tall classes; call12, after them); session 19: call19 against call23 (the skinny update classes
with c_batch), call21's c_batch bench and the c_batch siblings of calls 20 and 22; session 20: call23 against
call28 (update classes at K = 64 with the form-aware dispatch, tall 16-wide classes) and call31 (64-wide tall
classes for every type), and call28's five small sweeps. Run from the repository root: python3 tuning/sm_90-classes/tables.py"""
import csv
import glob
import gzip
import json
import re
import statistics
import tarfile
import tempfile
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


# Session 19. Call 19 (before) against call 23 (after the skinny update classes with c_batch): every
# sweep through the dispatch, per precision and, for skinny, per K, with the fraction of the copy
# bandwidth (bench's copy_fraction) after.
def cells(path, sweep, root=D):
    return {(r["precision"], r["op"], r["m"], r["n"], r["k"]): r
            for r in csv.DictReader(open(root + path)) if r["sweep"] == sweep and r["status"] == "ok"}


for sweep, before, after in [("skinny", "call19/shapes/bench.csv", "call23/shapes/bench.csv"),
                             ("tall", "call19/shapes/bench.csv", "call23/shapes/bench.csv"),
                             ("small", "call19/small/bench.csv", "call23/small/bench.csv")]:
    a, b = cells(before, sweep), cells(after, sweep)
    ok = lambda t: sum(float(r["ratio"]) >= 1.0 for r in t.values())
    print("%s: cells >= 1.0, call19 %d of %d, call23 %d of %d" % (sweep, ok(a), len(a), ok(b), len(b)))
    groups = defaultdict(list)
    for key, r in b.items():
        group = (key[0], int(key[4])) if sweep == "skinny" else (key[0],)
        groups[group].append((float(a[key]["ratio"]), float(r["ratio"]), float(r["copy_fraction"] or 0)))
    for g in sorted(groups):
        xs = groups[g]
        print("  %-12s %.2f–%.2f → %.2f–%.2f%s" % (
            " K=".join(map(str, g)), min(x[0] for x in xs), max(x[0] for x in xs), min(x[1] for x in xs),
            max(x[1] for x in xs),
            "  (copy %.2f–%.2f)" % (min(x[2] for x in xs), max(x[2] for x in xs)) if sweep == "skinny" else ""))

# Call 21: four shipped skinny kernels with old C read c_batch columns at a time, the skinny sweep's
# update (beta = 1); time against c_batch = 1, ratio to cuBLAS, copy fraction.
print("call21: kernel, M = N, K: c_batch time/time(1) ratio copy")
runs = defaultdict(dict)
for d in ["s-cb1", "s-cb4", "s-cb8", "d-cb1", "d-cb2", "d-cb4", "c-cb1", "c-cb4", "c-cb8", "z-cb1", "z-cb4",
          "z-cb8"]:
    p, cb = d.split("-cb")
    for r in csv.DictReader(open(D + "call21/b/%s/bench.csv" % d)):
        runs[(p, int(r["m"]), int(r["k"]))][int(cb)] = (float(r["median_ms"]), float(r["ratio"]),
                                                        float(r["copy_fraction"]))
for key in sorted(runs):
    base = runs[key][1][0]
    print("  %s %5d %3d  " % key + "  ".join("%d: %.2f %.2f× %.2f" % (cb, ms / base, ratio, copy)
                                            for cb, (ms, ratio, copy) in sorted(runs[key].items())))


# Calls 20 and 22: the tuner's search, each class kernel beside its c_batch siblings (best median per
# c_batch). Call 20 timed C = A.B (beta = 0: C never read, nothing to gain); call 22 the update.
def siblings(path):
    best = defaultdict(dict)
    for line in gzip.open(D + path, "rt"):
        r = json.loads(line)
        if r["status"] != "ok" or r["phase"] != "search" or r["subject"]["kind"] != "variant":
            continue
        spec = dict(r["subject"]["spec"])
        cb = spec.pop("c_batch", 1)
        t = r["kernel_type"]
        key = (t["precision"], t["op_a"] + t["op_b"], json.dumps(spec, sort_keys=True))
        best[key][cb] = min(best[key].get(cb, 1e9), r["median_ms"])
    for (p, op, _), v in best.items():
        if len(v) > 1 and 1 in v:
            print("  %s %s best sibling / c_batch 1: %.3f  (%s)" % (
                p, op, min(v.values()) / v[1], ", ".join("%d: %.4f ms" % kv for kv in sorted(v.items()))))


for path in ["call20/tune-8192x8192x64.jsonl.gz", "call20/tune-256x256x256.jsonl.gz",
             "call20/tune-512x512x512.jsonl.gz", "call22/tune-8192x8192x32.jsonl.gz",
             "call22/tune-8192x8192x64.jsonl.gz", "call22/tune-8192x8192x128.jsonl.gz"]:
    print(path)
    siblings(path)

# Call 19's large-K sweep (all 96 cells, with call 18's tuned splits in), and its small squares against
# call 18's on the same cells: how much cuBLAS's time and ours moved between the two machines.
lk = defaultdict(list)
for r in cells("call19/large-k/bench.csv", "large-k").values():
    lk[r["precision"]].append(float(r["ratio"]))
print("large K (call19, %d cells): " % sum(map(len, lk.values())) +
      ", ".join("%s %.2f–%.2f" % (p, min(v), max(v)) for p, v in sorted(lk.items())))
a, b = cells("call18/small/bench.csv", "small"), cells("call19/small/bench.csv", "small")
theirs = [float(b[k]["cublas_median_ms"]) / float(a[k]["cublas_median_ms"]) for k in b]
ours = [float(b[k]["median_ms"]) / float(a[k]["median_ms"]) for k in b]
print("small, call19 / call18 time: cuBLAS %.2f–%.2f, ours %.2f–%.2f" % (min(theirs), max(theirs), min(ours), max(ours)))

# Call 24: the small sweep three times back to back on one machine (bench's 2 warm-ups and 7 timed runs
# twice, then 5 and 31): cells >= 1.0 and how much cuBLAS's time, ours and the ratio move per cell.
c24 = {run: cells("call24/small-%s/bench.csv" % run, "small") for run in ["a", "b", "long"]}
print("call24 small, cells >= 1.0: " + ", ".join(
    "%s %d of %d" % (run, sum(float(r["ratio"]) >= 1.0 for r in t.values()), len(t)) for run, t in c24.items()))
for x, y in [("a", "b"), ("a", "long")]:
    move = lambda col: [float(c24[y][k][col]) / float(c24[x][k][col]) for k in c24[y]]
    print("  %s → %s per cell: cuBLAS %.2f–%.2f, ours %.2f–%.2f, ratio %.2f–%.2f" % (
        x, y, *[f(move(col)) for col in ["cublas_median_ms", "median_ms", "ratio"] for f in (min, max)]))


# Session 20. Call 28 (sweeps.tgz: shapes/, small-1 … small-5/) against call 23: the skinny sweep with
# update calls taking update classes (f32/c32 at K = 64 new), the tall sweep with the 16-wide classes,
# and the small squares five times back to back (the median of each cell's five ratios).
c28 = tempfile.mkdtemp() + "/"
with tarfile.open(D + "call28/sweeps.tgz") as t:
    t.extractall(c28, filter="data")
# The tall sweep twice: call 28 (the 16-wide classes in, which took the 64-wide cells of the types
# without a 64-wide class) and call 31 (after calls 29, 30 and 32 gave every type its 64-wide classes).
for sweep, label, b in [("skinny", "call28", cells("shapes/bench.csv", "skinny", c28)),
                        ("tall", "call28", cells("shapes/bench.csv", "tall", c28)),
                        ("tall", "call31", cells("call31/tall/bench.csv", "tall"))]:
    a = cells("call23/shapes/bench.csv", sweep)
    ok = lambda t: sum(float(r["ratio"]) >= 1.0 for r in t.values())
    print("%s: cells >= 1.0, call23 %d of %d, %s %d of %d" % (sweep, ok(a), len(a), label, ok(b), len(b)))
    groups = defaultdict(list)
    for key, r in b.items():
        if sweep == "skinny":
            group = (key[0], "K=" + key[4])
        else:
            group = (key[0], "%sx%s" % ("m" if key[2] == "16384" else key[2], "n" if key[3] == "16384" else key[3]))
        groups[group].append((float(a[key]["ratio"]) if key in a else float("nan"), float(r["ratio"]),
                              float(r["copy_fraction"] or 0)))
    for g in sorted(groups):
        xs = groups[g]
        print("  %-12s %.2f–%.2f → %.2f–%.2f%s" % (
            " ".join(g), min(x[0] for x in xs), max(x[0] for x in xs), min(x[1] for x in xs),
            max(x[1] for x in xs),
            "  (copy %.2f–%.2f)" % (min(x[2] for x in xs), max(x[2] for x in xs)) if sweep == "skinny" else ""))
runs = [cells("small-%d/bench.csv" % i, "small", c28) for i in range(1, 6)]
print("call28 small, cells >= 1.0 per run: " + ", ".join(
    "%d of %d" % (sum(float(r["ratio"]) >= 1.0 for r in t.values()), len(t)) for t in runs))
median = {k: statistics.median(float(t[k]["ratio"]) for t in runs if k in t) for k in runs[0]}
print("  medians: %d of %d cells >= 1.0; below:" % (sum(m >= 1.0 for m in median.values()), len(median)))
for k in sorted(median, key=lambda k: (k[0], k[1], int(k[2]))):
    if median[k] < 1.0:
        print("    %s %s %4s  %.2f  (%s)" % (k[0], k[1], k[2], median[k], runs[0][k]["kernel"]))
# Call 28 against call 24 (another H100): every small cell ran the same kernel; how the times moved.
a, b = cells("call24/small-a/bench.csv", "small"), runs[0]
print("small, call28 run 1 against call24 run a: %d cells with another spec; time ratio cuBLAS median %.2f, ours %.2f" % (
    sum(a[k]["spec"] != b[k]["spec"] for k in b),
    statistics.median(float(b[k]["cublas_median_ms"]) / float(a[k]["cublas_median_ms"]) for k in b),
    statistics.median(float(b[k]["median_ms"]) / float(a[k]["median_ms"]) for k in b)))

# Call 25's update classes at 8192 x 8192 x 64 as the tuner confirmed them (winner and cuBLAS back to back),
# and how long reseeding a cached pruning took on the GPU machine (calls 26-32).
for line in open(D + "call25/tune-8192x8192x64.log"):
    m = re.match(r"(\w+): .*confirmed best ([\d.]+) TFLOP/s, Table 2 [\d.]+, cuBLAS ([\d.]+)", line)
    if m:
        print("call25 update 8192x8192x64 %s: %.2fx cuBLAS" % (m[1], float(m[2]) / float(m[3])))
reseeds = [float(m[1]) for c in ["call26", "call27", "call29", "call30", "call32"]
           for f in glob.glob(D + c + "/tune-*.log") for line in open(f)
           for m in [re.search(r"candidates reseeded in ([\d.]+) s", line)] if m]
print("reseeded lists: %d, %.1f–%.1f s each" % (len(reseeds), min(reseeds), max(reseeds)))
