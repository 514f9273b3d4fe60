"""Run 43's profile (prof.sh): a few of ncu's raw metrics per kernel, one column each.
Usage: python3 prof-table.py prof/nn-regs.csv.gz prof/nn-convert.csv.gz prof/tn.csv.gz prof/nt-regs.csv.gz"""
import csv, gzip, os, sys

WANTED = [
    "gpu__time_duration.sum",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    "smsp__inst_executed.sum",
]
cols = {}
for path in sys.argv[1:]:
    rows = list(csv.reader(l for l in gzip.open(path, "rt") if l.startswith('"')))
    cols[os.path.basename(path).split(".")[0]] = dict(zip(rows[0], rows[2]))
print(f"{'metric':78}" + "".join(f"{k:>16}" for k in cols))
for m in WANTED:
    print(f"{m:78}" + "".join(f"{c.get(m, '-'):>16}" for c in cols.values()))
