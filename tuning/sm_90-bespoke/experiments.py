#!/usr/bin/env python3
"""Prints the comparisons of the README's "Experiments" section: each
experiment's candidates against the same candidates (or the same family's
best) of runs 1-3, per operator, from the committed bespoke.log files.

python3 experiments.py
"""
import glob
import math
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = sorted(glob.glob(os.path.join(HERE, "run[123]*", "bespoke.log")))


def candidates(paths, precision, keep):
    """{(operator, spec): best µs} of the candidates `keep(spec)` accepts."""
    out = {}
    for path in paths:
        op = None
        for line in open(path, encoding="utf-8"):
            m = re.match(r"^(\S+) (f32|f64) \(", line)
            if m:
                op = m.group(1) if m.group(2) == precision else None
                continue
            s = re.search(r"(precision = .*?arch = sm_\d+)", line)
            t = re.search(r"([0-9.]+) µs, [0-9]+ GB/s", line)
            if op and s and t and keep(s.group(1)):
                key = (op, s.group(1))
                out[key] = min(out.get(key, math.inf), float(t.group(1)))
    return out


def best_per_operator(found):
    best = {}
    for (op, _), us in found.items():
        best[op] = min(best.get(op, math.inf), us)
    return best


def compare(title, new_logs, precision, keep, same_spec):
    new = candidates(new_logs, precision, keep)
    old = candidates(BASE, precision, keep)
    print(f"## {title} ({precision})")
    if same_spec:
        ratios = [old[k] / new[k] for k in new if k in old]
        print(f"- the same candidates: geometric mean of old µs / new µs {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} over {len(ratios)}")
    b_new, b_old = best_per_operator(new), best_per_operator(old)
    ratios = []
    for op in sorted(b_new):
        if op in b_old:
            ratios.append(b_old[op] / b_new[op])
            print(f"| {op} | {b_old[op]:.1f} | {b_new[op]:.1f} | {b_old[op] / b_new[op]:.2f} |")
    print(f"- best of the family per operator: geometric mean old / new {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} over {len(ratios)}\n")


mma = lambda spec: "family = mma" in spec
staged = lambda spec: "family = bstream" in spec and not re.search(r"msplit = 1,", spec)
log = lambda folder: [os.path.join(HERE, folder, "bespoke.log")]
compare("run 5: mma form, B staged through shared memory", log("run5-staged-f64"), "f64", mma, False)
compare("run 5: mma form, B staged through shared memory", log("run5-staged-f32"), "f32", mma, False)
compare("run 6: mma form, B staged, A resident in shared memory", log("run6-resident-f64"), "f64", mma, False)
compare("run 7: staged B-streaming with a ring of up to 4 stages", log("run7-ring-f64"), "f64", staged, True)
