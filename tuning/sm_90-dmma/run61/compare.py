"""Run 61: per sweep, precision, op and shape, ours / cuBLAS before and after the 32-byte dmma skew,
and whether the kernel the dispatch ran is a dmma one with a K-major stripe (A for op N, B for op T or
C: the skew moved it) or not (the same kernel before and after, so its cells show the run's spread).
Usage: python3 compare.py old.csv new.csv"""
import csv, sys
from statistics import median

def load(path):
    return {(r["sweep"], r["precision"], r["op"], int(r["m"]), int(r["n"]), int(r["k"])): r
            for r in csv.DictReader(open(path))}

old, new = load(sys.argv[1]), load(sys.argv[2])
moved = {True: [], False: []}
for key in sorted(new):
    if key not in old:
        continue
    o, n = float(old[key]["ratio"]), float(new[key]["ratio"])
    op = new[key]["op"]
    dmma = "math = dmma" in new[key]["spec"] and (op[0] == "n" or op[1] in "tc")
    moved[dmma].append(n / o)
    print(f"{key[0]:7} {key[1]:4} {key[2]:3} {key[3]:6} {key[4]:6} {key[5]:6}  {o:5.2f} -> {n:5.2f}"
          f"  {'moved' if dmma else 'same':5} {new[key]['kernel']}")
for dmma, xs in moved.items():
    if xs:
        print(f"{'skewed dmma' if dmma else 'unchanged'} kernels: {len(xs)} cells, new/old ratio median {median(xs):.3f}, "
              f"range {min(xs):.3f}-{max(xs):.3f}")
