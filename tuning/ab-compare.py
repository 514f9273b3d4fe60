#!/usr/bin/env python3
"""Compare two bench.csv files of `xtask bench` (BASE, NEW): for each kernel
type and sweep point, NEW's ratio to cuBLAS over BASE's.

Points pair by position in the sweep (--pair position: the n-th square size
of one with the n-th of the other, each a multiple of its own kernel's tile)
or by nearest size on a log scale (--pair nearest, the default; skinny points
pair by equal K). Prints every pair (--all), the pairs losing more than
--loss (default 10%), per-type geometric mean and worst pair, and totals.

Usage: ab-compare.py BASE.csv NEW.csv [--pair position|nearest] [--all] [--loss 0.10]
"""
import argparse, collections, csv, math

ORDER = ['f32', 'c32', 'f64', 'c64']

def load(path):
    d = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        if r['status'] != 'ok':
            continue
        d[(r['precision'], r['op'], r['sweep'])].append(
            (int(r['m']), int(r['k']), float(r['ratio']), r['kernel'].split('::')[-1]))
    for v in d.values():
        v.sort()
    return d

def pairs(base, new, how):
    for key in sorted(base, key=lambda k: (ORDER.index(k[0]), k[1], k[2])):
        theirs = new.get(key, [])
        for i, b in enumerate(base[key]):
            if key[2] == 'skinny':
                cands = [n for n in theirs if n[1] == b[1]]
            elif how == 'position':
                cands = theirs[i:i + 1]
            else:
                cands = theirs
            if cands:
                n = min(cands, key=lambda n: abs(math.log(n[0] / b[0])))
                yield key, b, n

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('base'); ap.add_argument('new')
    ap.add_argument('--pair', choices=['position', 'nearest'], default='nearest')
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--loss', type=float, default=0.10)
    a = ap.parse_args()
    ps = list(pairs(load(a.base), load(a.new), a.pair))
    per_type = collections.defaultdict(list)
    for key, b, n in ps:
        q = n[2] / b[2]
        per_type[key[:2]].append((q, key[2], b[0], b[1]))
        if a.all or q < 1 - a.loss:
            where = f"K{b[1]}" if key[2] == 'skinny' else f"{b[0]}->{n[0]}"
            print(f"{key[0]} {key[1]} {key[2]:6} {where:>12}: {b[2]:.2f} -> {n[2]:.2f} ({n[3]})")
    print()
    for t, qs in per_type.items():
        g = math.exp(sum(math.log(q[0]) for q in qs) / len(qs))
        w = min(qs)
        print(f"{t[0]} {t[1]}: geomean {g:.2f}, worst {w[0]:.2f} at {w[1]} {w[2]}x{w[3]}")
    qs = sorted(q for v in per_type.values() for q, *_ in v)
    print(f"\n{len(qs)} pairs, median {qs[len(qs) // 2]:.2f}, "
          f"{sum(q < 1 - a.loss for q in qs)} lose more than {a.loss:.0%}, "
          f"{sum(q > 1 + a.loss for q in qs)} gain more than {a.loss:.0%}")

main()
