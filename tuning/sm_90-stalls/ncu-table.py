#!/usr/bin/env python3
"""The stall and issue figures of ncu's raw CSV pages (prof.sh), one column
per kernel: ncu-table.py [--stall-min X] A.csv B.csv ...
Stall rows where every kernel is below X (default 0.05) are left out."""
import csv
import re
import sys

WANTED = [
    r"smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$",
    r"smsp__issue_active\.avg\.pct_of_peak_sustained_active$",
    r"sm__inst_executed_pipe_fma\.avg\.pct_of_peak_sustained_active$",
    r"sm__pipe_fp64_cycles_active\.avg\.pct_of_peak_sustained_active$",
    r"launch__registers_per_thread$",
    r"launch__grid_size$",
    r"sm__warps_active\.avg\.pct_of_peak_sustained_active$",
    r"smsp__inst_executed\.sum$",
    r"gpu__time_duration\.sum$",
    r"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_(ld|st|ldgsts)\.sum$",
]

args = sys.argv[1:]
stall_min = 0.05
if args[:1] == ["--stall-min"]:
    stall_min, args = float(args[1]), args[2:]
kernels = {}
for path in args:
    rows = list(csv.reader(line for line in open(path) if line.startswith('"')))
    header = rows[0]
    for row in rows[2:]:  # rows[1] holds the units
        d = dict(zip(header, row))
        kernels[f"{path.split('/')[-1][:-4]}:{d['Kernel Name'][:28]}"] = d
names = list(kernels)
print("metric", *names, sep=" | ")
for metric in sorted({m for d in kernels.values() for m in d}):
    if not any(re.search(p, metric) for p in WANTED):
        continue
    values = [kernels[n].get(metric, "") for n in names]
    stall = metric.startswith("smsp__average_warps_issue_stalled_")
    if stall and all(float(v.replace(",", "") or 0) < stall_min for v in values):
        continue
    label = metric.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", "")
    print(label, *values, sep=" | ")
