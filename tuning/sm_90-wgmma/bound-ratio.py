#!/usr/bin/env python3
"""How close each math's best SGEMM kernel comes to its analytic bound on the H100.

For each f32 kernel type, the fastest variant of each math (FMA, mma.sync tf32x3,
wgmma tf32x3) timed at a large square (m = n >= 4096) in tuning/sm_90/tune.csv.gz
(the tuner's journal as CSV, from `cargo xtask tune --report-only --out tuning/sm_90`),
and its measured TFLOP/s over its bound_tflops. Why the pruner caps the wgmma
candidates (xtask/src/tune/prune.rs): their bound is the loosest.
Run from the repository root: python3 tuning/sm_90-wgmma/bound-ratio.py
"""
import csv
import gzip

best = {}
for r in csv.DictReader(gzip.open("tuning/sm_90/tune.csv.gz", "rt")):
    if r["subject"] != "variant" or r["status"] != "ok" or not r["bound_tflops"]:
        continue
    if not r["kernel_type"].startswith("sgemm_") or r["m"] != r["n"] or int(r["m"]) < 4096:
        continue
    spec = r["spec"]
    math = "wgmma" if "mma = (64" in spec else ("mma.sync" if "mma =" in spec else "fma")
    key = (r["kernel_type"], math)
    tflops = float(r["tflops"])
    if key not in best or tflops > best[key][0]:
        best[key] = (tflops, float(r["bound_tflops"]), r["m"])
print(f"{'type':10} {'math':9} {'size':>6} {'TFLOP/s':>8} {'bound':>7} {'ratio':>6}")
for (kind, math), (t, b, m) in sorted(best.items()):
    print(f"{kind:10} {math:9} {m:>6} {t:8.1f} {b:7.1f} {t / b:6.2f}")
