#!/usr/bin/env python3
"""Every table and figure of this folder's README, from its bench.csv files.

f64: run1 (the whole test set), with the four large sparse operators taken
from run3-large-f64 (re-run after the candidate change of db22731).
f32: run2 (the set up to hex p3, where its 9-minute device call ended) and
run3-hex-f32 (the hex p3-p6 operators, at most 6 candidates each).
run4-dense-f64/-f32 (after 2be1ca6): the dense fallback timed with every
shipped kernel on 17 operators; its dense times replace the earlier runs'
(their bespoke candidates were cut to 2, so their bespoke times are not used).
run11-split-f64/-f32, run12-split-f64, run13-split-f64, run14-split-f64/-f32 (after d19ae7e, the split form; run 14 cut by its time limit: 6 and 4 operators): every
candidate on the large sparse operators; printed last, their rows replacing
the earlier runs'.
All on one NVIDIA H100 80GB HBM3 (sm_90), n = 2^17, beta = 0.
"""
import csv, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))

def load(run):
    with open(os.path.join(HERE, run, 'bench.csv')) as f:
        return {r['operator']: r for r in csv.DictReader(f)}

def merged(base, *patches):
    rows = dict(load(base))
    for p in patches:
        rows.update(load(p))
    return rows

def with_dense(rows, run):
    """`rows` with the dense times of `run` (every shipped kernel timed)."""
    for name, r in load(run).items():
        if name in rows and r['dense_us']:
            rows[name] = dict(rows[name], dense_us=r['dense_us'], cublas_dense=r['cublas_us'])
    return rows

def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')

def report(name, rows):
    ours = [r for r in rows.values() if r['ratio']]
    none = [r for r in rows.values() if not r['ratio']]
    # What a call runs: the faster of the best bespoke kernel and the dense GEMM.
    def best_us(r):
        return min(float(x) for x in (r['us'], r['dense_us']) if x)
    # run 4's cuBLAS for the operators it re-ran (its dense times are beside it).
    every = [float(r.get('cublas_dense', r['cublas_us'])) / best_us(r) for r in rows.values()]
    frac = [float(r['copy_fraction']) for r in ours]
    print(f"## {name}: {len(rows)} operators")
    print(f"- bespoke kernel for {len(ours)}; none (dense GEMM only) for {len(none)}: "
          + ", ".join(sorted(r['operator'] for r in none)))
    print(f"- geometric mean of cuBLAS us / best bespoke: {geo([float(r['ratio']) for r in ours]):.2f} over {len(ours)}")
    print(f"- geometric mean of cuBLAS us / what a tuned call runs (bespoke or dense): {geo(every):.2f} over {len(every)}")
    d = [float(r.get('cublas_dense', r['cublas_us'])) / float(r['dense_us']) for r in none]
    if d:
        print(f"- the dense fallback where no bespoke kernel runs: {min(d):.2f}-{max(d):.2f}x cuBLAS (same-run cuBLAS)")
    print(f"- fraction of the copy bandwidth: >= 0.85 for {sum(f >= 0.85 for f in frac)} of {len(frac)}; "
          f"geometric mean {geo(frac):.2f}; min {min(frac):.2f}")
    def span(sel, key):
        xs = [float(r[key]) for r in ours if sel(r)]
        return f"{min(xs):.2f}-{max(xs):.2f} ({len(xs)})" if xs else "none"
    small = lambda r: int(r['nnz']) <= 2000
    large = lambda r: int(r['m']) >= 512
    mma = lambda r: r['family'] == 'mma'
    print(f"- up to 2000 non-zeros: copy fraction {span(small, 'copy_fraction')}, ratio {span(small, 'ratio')}")
    print(f"- m >= 512 with a bespoke kernel: copy fraction {span(large, 'copy_fraction')}, ratio {span(large, 'ratio')}")
    print(f"- best form mma: ratio {span(mma, 'ratio')}")
    comp = sorted(float(r['tuner_compile_ms']) / 1e3 for r in rows.values() if r['tuner_compile_ms'])
    bench = sorted(float(r['tuner_benchmark_ms']) / 1e3 for r in rows.values() if r['tuner_benchmark_ms'])
    med = lambda xs: xs[len(xs) // 2]
    print(f"- run-time tuner per operator: compiling median {med(comp):.2f} s, max {comp[-1]:.1f} s; "
          f"verifying and timing median {med(bench):.2f} s, max {bench[-1]:.1f} s (the runs' own)")
    fams = {}
    for r in ours:
        fams[r['family']] = fams.get(r['family'], 0) + 1
    print(f"- best family: {fams}")
    print()
    print("| operator | m×k | nnz | density | best family | µs | GB/s | % copy | cuBLAS µs | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows.values(), key=lambda r: (int(r['m']) * int(r['k']), r['operator'])):
        if r['ratio']:
            print(f"| {r['operator']} | {r['m']}×{r['k']} | {r['nnz']} | {float(r['density']):.3f} | {r['family']} | "
                  f"{float(r['us']):.1f} | {float(r['gbps']):.0f} | {100*float(r['copy_fraction']):.0f} | "
                  f"{float(r['cublas_us']):.1f} | {float(r['ratio']):.2f} |")
        else:
            print(f"| {r['operator']} | {r['m']}×{r['k']} | {r['nnz']} | {float(r['density']):.3f} | dense GEMM | "
                  f"{float(r['dense_us']):.1f} | - | - | {float(r['cublas_us']):.1f} | "
                  f"{float(r.get('cublas_dense', r['cublas_us']))/float(r['dense_us']):.2f} |")
    print()

report("f64", with_dense(merged('run1-f64', 'run3-large-f64'), 'run4-dense-f64'))
report("f32", with_dense(merged('run2-f32', 'run3-hex-f32'), 'run4-dense-f32'))

# After the split form (d19ae7e): runs 11-12 re-ran every candidate (bsplit
# included; the dense GEMM with every shipped kernel) on the large sparse
# operators; their rows replace the earlier runs'.
def current(rows, *runs):
    rows = dict(rows)
    for run in runs:
        rows.update(load(run))
    return rows

print("# With the split form: runs 11-12 replace their operators\n")
report("f64", current(with_dense(merged('run1-f64', 'run3-large-f64'), 'run4-dense-f64'), 'run11-split-f64', 'run12-split-f64', 'run13-split-f64', 'run14-split-f64'))
report("f32", current(with_dense(merged('run2-f32', 'run3-hex-f32'), 'run4-dense-f32'), 'run11-split-f32', 'run14-split-f32'))

# The dense fallback before 2be1ca6 (the default dispatch's kernel only).
for name, rows in (("f64", merged('run1-f64', 'run3-large-f64')), ("f32", merged('run2-f32', 'run3-hex-f32'))):
    d = [float(r['cublas_us']) / float(r['dense_us']) for r in rows.values() if not r['ratio']]
    print(f"- {name}, runs 1-3: the dense fallback with the default dispatch's kernel: {min(d):.2f}-{max(d):.2f}x cuBLAS")

# Session 18: runtime against fixed strides, one device call (tuning/sm_90-classes/call12/bespoke), and
# the f64 set's random operators with fixed strides (call13) against the runs above.
print("\n## Fixed strides (session 18)")
pair = [os.path.join(HERE, "../sm_90-classes/call12/bespoke", x) for x in ("plain", "fixed")]
plain, fixed = (list(csv.DictReader(open(os.path.join(d, "bench.csv")))) for d in pair)
for p, f in zip(plain, fixed):
    print("%-22s %s runtime %s %8.1f us %5.2fx compile %5.1f s | fixed %s %8.1f us %5.2fx compile %5.1f s" % (
        p["operator"], p["precision"], p["family"], float(p["us"]), float(p["ratio"]),
        float(p["tuner_compile_ms"]) / 1e3, f["family"], float(f["us"]), float(f["ratio"]),
        float(f["tuner_compile_ms"]) / 1e3))
before = merged('run1-f64', 'run3-large-f64', 'run11-split-f64', 'run12-split-f64', 'run13-split-f64', 'run14-split-f64')
for name, r in load('call13/run16-d').items():
    if r["ratio"]:
        print("%-22s f64 fixed (call13) %5.2fx, before %s" % (name, float(r["ratio"]), before[name]["ratio"] or "dense"))
