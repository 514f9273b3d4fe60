#!/usr/bin/env python3
"""The tables of README.md from this folder's bench.csv files (H100).

- `as-shipped.csv`: the small-square and skinny sweep as gemm-host runs it
  after the retune: ship-all/small/bench.csv, less its D/Z rows timed on the
  skinny class of tune-skinny/ (no longer shipped), plus the update-tuned
  D/Z skinny kernels' rows of tune-skinny-update/winners/bench-*/bench.csv
  (the kernels that ship for those shapes). Compare it with the kernels
  shipped before by tuning/ab-compare.py:

    python3 tuning/ab-compare.py tuning/sm_90-tf32/small/shipped/bench.csv tuning/sm_90-kcontig/as-shipped.csv
    python3 tuning/ab-compare.py tuning/sm_90-dmma/small/shipped/bench.csv tuning/sm_90-kcontig/as-shipped.csv

- printed: the large-square table of ship-all/large/bench.csv (ours / cuBLAS;
  a range where bench timed the same kernel more than once) and the small
  and skinny table of as-shipped.csv (the last of repeated timings).

Usage: python3 tuning/sm_90-kcontig/tables.py
"""
import collections, csv, glob, os

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ['f32', 'f64', 'c32', 'c64']
LETTER = {'f32': 'S', 'f64': 'D', 'c32': 'C', 'c64': 'Z'}
OPS = ['nn', 'nt', 'tn', 'tt']


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def old_skinny_class(r):
    """A D/Z row of the skinny class timed as C = A·B (tune-skinny/)."""
    return r['precision'] in ('f64', 'c64') and '8192x8192x64' in r['kernel']


def as_shipped():
    small = rows(os.path.join(HERE, 'ship-all/small/bench.csv'))
    keep = [r for r in small if not old_skinny_class(r)]
    dz_skinny = {(r['precision'], r['op']) for r in small if r['sweep'] == 'skinny' and old_skinny_class(r)}
    winners = []
    for path in sorted(glob.glob(os.path.join(HERE, 'tune-skinny-update/winners/bench-*/bench.csv'))):
        winners += [r for r in rows(path) if r['sweep'] == 'skinny']
    # Every D/Z skinny point dropped is measured again by a winner.
    assert {(r['precision'], r['op']) for r in winners} == dz_skinny, 'the winners cover the D/Z skinny types'
    keep = [r for r in keep if not (r['sweep'] == 'skinny' and r['precision'] in ('f64', 'c64'))]
    out = keep + winners
    with open(os.path.join(HERE, 'as-shipped.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(small[0].keys()))
        w.writeheader()
        w.writerows(out)
    return out


def ratios(rs):
    d = collections.defaultdict(list)
    for r in rs:
        if r['status'] == 'ok':
            d[(r['precision'], r['op'], r['sweep'], int(r['m']), int(r['k']))].append(float(r['ratio']))
    return d


def span(v):
    lo, hi = min(v), max(v)
    return f'{lo:.2f}' if f'{lo:.2f}' == f'{hi:.2f}' else f'{lo:.2f}–{hi:.2f}'


def large_table():
    d = ratios(rows(os.path.join(HERE, 'ship-all/large/bench.csv')))
    print('| type | 4096 | 8192 | 16384 |\n| --- | --- | --- | --- |')
    for p in ORDER:
        for op in OPS:
            cells = [span(v) for (pp, o, _, _, _), v in sorted(d.items()) if (pp, o) == (p, op)]
            print(f'| {LETTER[p]} {op.upper()} | ' + ' | '.join(cells) + ' |')
    repeats = [(abs(max(v) - min(v)) / max(v), k) for k, v in d.items() if len(v) > 1]
    print(f'\nlargest spread of repeated timings: {max(repeats)[0]:.2f} at {max(repeats)[1]}')


def small_table(shipped):
    d = ratios(shipped)
    print('\n| type | square n: ratio | skinny K = 32, M = N = 4096 / 8192 | K = 64 |\n| --- | --- | --- | --- |')
    for p in ORDER:
        for op in OPS:
            sq = sorted((m, v[-1]) for (pp, o, s, m, _), v in d.items() if (pp, o, s) == (p, op, 'square'))
            sk = {(m, k): v[-1] for (pp, o, s, m, k), v in d.items() if (pp, o, s) == (p, op, 'skinny')}
            cell = lambda k: ' / '.join(f'{sk[(m, k)]:.2f}' for m in (4096, 8192) if (m, k) in sk)
            squares = ', '.join(f'{m}: {v:.2f}' for m, v in sq if m < 4096)
            print(f'| {LETTER[p]} {op.upper()} | {squares} | {cell(32)} | {cell(64)} |')
    spread = [(max(v) - min(v)) / max(v) for v in d.values() if len(v) > 1]
    print(f'\nlargest spread of repeated timings: {max(spread):.2f}')


large_table()
small_table(as_shipped())
