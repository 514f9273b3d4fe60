#!/usr/bin/env python3
"""c32's small squares (H100): medians of run 15's three sweeps beside call 28's five
(tuning/sm_90-classes/call28), per op pair and size. Run from the repository root."""
import collections, csv, io, statistics, tarfile

def medians(path):
    cells, kernels = collections.defaultdict(list), {}
    with tarfile.open(path) as tar:
        for member in tar.getmembers():
            if not member.name.endswith('bench.csv'):
                continue
            for row in csv.DictReader(io.TextIOWrapper(tar.extractfile(member))):
                if row['sweep'] == 'small' and row['precision'] == 'c32':
                    key = (row['op'], int(row['m']))
                    cells[key].append(float(row['ratio']))
                    kernels[key] = f"{row['kernel']} {row['note']}".strip()
    return {k: statistics.median(v) for k, v in cells.items()}, kernels

before, _ = medians('tuning/sm_90-classes/call28/sweeps.tgz')
after, kernels = medians('tuning/sm_90-wgmma/run15/sweeps.tgz')
print(f"c32 small squares, median ratio to cuBLAS CGEMM (H100): {sum(v >= 1 for v in after.values())} of "
      f"{len(after)} cells >= 1.0 in run 15; call 28: {sum(v >= 1 for v in before.values())} of {len(before)}")
print(f"{'op':4} {'n':>5} {'call28':>7} {'run15':>6}  kernel")
for key in sorted(after):
    old = f"{before[key]:.2f}" if key in before else '-'
    print(f"{key[0]:4} {key[1]:>5} {old:>7} {after[key]:>6.2f}  {kernels[key]}")
