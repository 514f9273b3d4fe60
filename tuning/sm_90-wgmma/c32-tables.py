#!/usr/bin/env python3
"""The c32 wgmma figures of session 21 and run 17's f32 small squares (session 22) (H100, cuBLAS CGEMM in the same runs), from the
committed outputs. Run from the repository root.

- run 9's accuracy: our max relative (componentwise) and normwise errors over cuBLAS's;
- the dispatch's squares: run 11's sweep (2048-16384) and run 13's (2048, 4096), per size;
- the small squares: medians of run 15's three sweeps beside call 28's five
  (tuning/sm_90-classes/call28), per op pair and size."""
import collections, csv, io, statistics, tarfile

W = 'tuning/sm_90-wgmma'


def tar_rows(path, folder=None):
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if member.name.endswith('bench.csv') and (folder is None or member.name.startswith(folder)):
                yield member.name, list(csv.DictReader(io.TextIOWrapper(tar.extractfile(member))))


rows = [r for r in csv.DictReader(open(f'{W}/run9/accuracy.csv')) if r['kernel'] == 'spec1']
print("run 9, c32 wgmma NN against cuBLAS CGEMM's error (xtask accuracy, n = 1024, 4096, 8192):")
for name, keep in [('uniform, normal, wide', lambda r: r['dist'] != 'tiny'), ('tiny', lambda r: r['dist'] == 'tiny')]:
    cw = [float(r['ratio']) for r in rows if keep(r)]
    nw = [float(r['ours_nw']) / float(r['cublas_nw']) for r in rows if keep(r)]
    print(f"  {name:22} max relative {min(cw):.2f}-{max(cw):.2f}x, normwise {min(nw):.2f}-{max(nw):.2f}x")

print("the dispatch's c32 squares, ratio to cuBLAS CGEMM over the op pairs (min-max; lowest op):")
squares = [('run 11', list(csv.DictReader(open(f'{W}/run11/bench.csv'))))]
squares += [('run 13', r) for _, r in tar_rows(f'{W}/run13/sweeps.tgz', 'square')]
for run, table in squares:
    for n in sorted({int(r['m']) for r in table}):
        cells = [(float(r['ratio']), r['op']) for r in table if int(r['m']) == n]
        print(f"  {run} {n:>6}^3: {min(cells)[0]:.2f}-{max(cells)[0]:.2f} (lowest {min(cells)[1]})")


def medians(path):
    cells, kernels = collections.defaultdict(list), {}
    for _, table in tar_rows(path):
        for row in table:
            if row['sweep'] == 'small' and row['precision'] == 'c32':
                key = (row['op'], int(row['m']))
                cells[key].append(float(row['ratio']))
                kernels[key] = f"{row['kernel']} {row['note']}".strip()
    return {k: statistics.median(v) for k, v in cells.items()}, kernels


before, _ = medians('tuning/sm_90-classes/call28/sweeps.tgz')
after, kernels = medians(f'{W}/run15/sweeps.tgz')
print(f"c32 small squares, median ratio to cuBLAS CGEMM: {sum(v >= 1 for v in after.values())} of "
      f"{len(after)} cells >= 1.0 in run 15; call 28: {sum(v >= 1 for v in before.values())} of {len(before)}")
print(f"{'op':4} {'n':>5} {'call28':>7} {'run15':>6}  kernel")
for key in sorted(after):
    old = f"{before[key]:.2f}" if key in before else '-'
    print(f"{key[0]:4} {key[1]:>5} {old:>7} {after[key]:>6.2f}  {kernels[key]}")

# Run 17 (session 22): the f32 small squares after run 16's 512^3 class, medians of three sweeps.
cells = collections.defaultdict(list)
for _, table in tar_rows(f'{W}/run17/sweeps.tgz'):
    for row in table:
        if row['sweep'] == 'small' and row['precision'] == 'f32':
            cells[(row['op'], int(row['m']))].append(float(row['ratio']))
f32 = {k: statistics.median(v) for k, v in cells.items()}
print(f"run 17, f32 small squares, median ratio to cuBLAS SGEMM: {sum(v >= 1 for v in f32.values())} of "
      f"{len(f32)} cells >= 1.0")
for n in sorted({n for _, n in f32}):
    vals = [v for (_, m), v in f32.items() if m == n]
    low = min((v, op) for (op, m), v in f32.items() if m == n)
    print(f"  {n:>5}: {min(vals):.2f}-{max(vals):.2f} (lowest {low[1]})")
