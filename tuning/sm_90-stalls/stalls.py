#!/usr/bin/env python3
"""Stall samples of one kernel from ncu's source page (prof-source.sh).

    stalls.py SOURCE.csv                  share of all samples per stall reason,
                                          with the opcodes that carry most of it
    stalls.py SOURCE.csv --reason R       the instructions carrying stall R
                                          (e.g. stall_long_sb), each with the
                                          three instructions before it
"""
import collections
import csv
import sys


def load(path):
    rows = list(csv.reader(open(path)))
    start = next(k for k, r in enumerate(rows) if r and r[0] == "Address")
    header = rows[start]
    return header, [r for r in rows[start + 1:] if len(r) >= len(header)]


def num(x):
    return float(x.replace(",", "") or 0)


def opcode(source):
    words = source.split()
    op = words[1] if words and words[0].startswith("@") else (words[0] if words else "")
    return op.split(".")[0]


def main():
    header, data = load(sys.argv[1])
    col = {name: i for i, name in enumerate(header)}
    total = sum(num(r[col["Warp Stall Sampling (All Samples)"]]) for r in data)
    src = col["Source"]
    if "--reason" in sys.argv:
        reason = col[sys.argv[sys.argv.index("--reason") + 1]]
        order = sorted(range(len(data)), key=lambda k: -num(data[k][reason]))[:8]
        for k in order:
            before = " | ".join(data[j][src].strip() for j in range(max(0, k - 3), k))
            print(f"{num(data[k][reason]) / total * 100:5.2f}%  {data[k][src].strip()}   <- {before}")
        return
    stalls = [c for c in header if c.startswith("stall_")]
    by_reason, by_op = collections.Counter(), collections.defaultdict(collections.Counter)
    for r in data:
        op = opcode(r[src])
        for c in stalls:
            by_reason[c] += num(r[col[c]])
            by_op[op][c] += num(r[col[c]])
    print("total samples", total)
    for c, v in by_reason.most_common(12):
        tops = sorted(((by_op[o][c], o) for o in by_op), reverse=True)[:4]
        print(f"{c:40s} {v / total * 100:5.1f}%  by", ", ".join(f"{o}:{x / total * 100:.1f}" for x, o in tops))


main()
