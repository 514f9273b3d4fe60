#!/usr/bin/env python3
"""Prints the figures of tuning/sm_90-stream-k/README.md from the files beside it:
run 1's small-square ratios per kernel and schedule, and run 4's medians (three
sweeps) beside run 13's (tuning/sm_90-wgmma/run13, five sweeps)."""
import collections, csv, io, os, statistics, tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
OPS9 = ["nn", "nt", "nc", "tn", "tt", "tc", "cn", "ct", "cc"]
SIZES = [256, 384, 512, 768, 1024]


def csvs(tgz):
    with tarfile.open(tgz) as t:
        for m in t.getmembers():
            if m.name.endswith("bench.csv"):
                yield m.name, list(csv.DictReader(io.TextIOWrapper(t.extractfile(m), "utf-8")))


def medians(tgz):
    d = collections.defaultdict(list)
    for _, rows in csvs(tgz):
        for r in rows:
            if r["sweep"] == "small":
                d[(r["precision"], r["op"], int(r["m"]))].append(float(r["ratio"]))
    return {k: statistics.median(v) for k, v in d.items()}


print("run 1: ours / cuBLAS, small squares")
for name, rows in sorted(csvs(os.path.join(HERE, "run1", "benches.tgz"))):
    ratios = {int(r["m"]): float(r["ratio"]) for r in rows}
    print(f"  {name.split('/')[0]:12}", " ".join(f"{ratios[s]:.2f}" for s in SIZES))

now = medians(os.path.join(HERE, "run4", "sweeps.tgz"))
before = medians(os.path.join(HERE, "..", "sm_90-wgmma", "run13", "sweeps.tgz"))
print("run 4 medians (run 13's in brackets), sizes", SIZES)
for p in ["f64", "c64"]:
    for o in ["nn", "nt", "nc", "tn", "tt", "tc", "cn", "ct", "cc"]:
        cells = []
        for s in SIZES:
            b = before.get((p, o, s))
            cells.append(f"{now[(p, o, s)]:.2f}" + (f" ({b:.2f})" if b is not None else ""))
        print(f"  {p} {o}:", "  ".join(cells))

print("run 5: f64 squares, ours / cuBLAS")
sq = collections.defaultdict(dict)
for name, rows in csvs(os.path.join(HERE, "run5", "sweeps.tgz")):
    for r in rows:
        key = name.split("/")[0] + (f" {r['op']}" if name.startswith("dispatch") else "")
        sq[key][int(r["m"])] = float(r["ratio"])
for key in sorted(sq):
    print(f"  {key:14}", " ".join(f"{n}³ {v:.2f}" for n, v in sorted(sq[key].items())))

print(f"run 4: {sum(v >= 1 for v in now.values())} of {len(now)} f64/c64 cells >= 1.0; 768^3:",
      ", ".join(f"{p} {min(now[(p, o, 768)] for o in OPS9):.2f}-{max(now[(p, o, 768)] for o in OPS9):.2f}"
                for p in ["f64", "c64"]))
