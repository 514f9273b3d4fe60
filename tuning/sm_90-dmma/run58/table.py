"""Run 58's profile (prof.sh): ncu's raw metrics per kernel, one column each — time, the pipes,
shared memory, L2, issue and every stall reason (per issue).
Usage: python3 table.py out/k4.csv.gz out/k16.csv.gz ..."""
import csv, gzip, os, sys

FIRST = [
    "Kernel Name",
    "gpu__time_duration.sum",
    "sm__cycles_elapsed.avg.per_second",
    "launch__registers_per_thread",
    "smsp__inst_executed.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "dram__bytes_read.sum",
]
cols = {}
for path in sys.argv[1:]:
    rows = list(csv.reader(l for l in gzip.open(path, "rt") if l.startswith('"')))
    cols[os.path.basename(path).split(".")[0]] = dict(zip(rows[0], rows[2]))
names = set().union(*(c.keys() for c in cols.values()))
pipes = sorted(n for n in names if "pipe_" in n and n.endswith("cycles_active.avg.pct_of_peak_sustained_active")
               and ("tensor" in n or "fp64" in n or "fma" in n or "alu" in n or "lsu" in n))
stalls = sorted(n for n in names if n.startswith("smsp__average_warps_issue_stalled_") and n.endswith("_per_issue_active.ratio"))
print(f"{'metric':90}" + "".join(f"{k:>18}" for k in cols))
for m in FIRST + pipes + stalls:
    vals = [c.get(m, "-") for c in cols.values()]
    if m == "Kernel Name":
        vals = [v[:13] for v in vals]
    print(f"{m:90}" + "".join(f"{v:>18}" for v in vals))
