#!/usr/bin/env python3
"""Writes the DGEMM dmma specs of the first H100 exploration (explore.txt)
and of its bench (bench.txt, after `explore`): `python3 specs.py explore`.
Each line is `-|spec` for tuning/sm_90-stalls/specs.sh."""
import sys

def loads(op_a, op_b, m, n, k, threads, w=2):
    # A is m x k after its op: stored M-leading for N, K-leading for T.
    def shape(lead_len, cross_len):
        lead = min(lead_len // w, threads)
        while threads % lead or lead_len % (lead * w) or cross_len % (threads // lead):
            lead //= 2
        return (lead, threads // lead)
    la = shape(m, k) if op_a == 'N' else shape(k, m)
    lb = shape(k, n) if op_b == 'N' else shape(n, k)
    return la, lb

def spec(ops, tile, warps, mma, stages=3, frag=1, inter=0, raster=8, precision='f64'):
    (m, n, k), (wm, wn) = tile, warps
    threads = 32 * wm * wn
    w = 2 if precision == 'f64' else 1
    la, lb = loads(ops[0], ops[1], m, n, k, threads, w)
    s = (f"precision = {precision}, op = ({ops[0]}, {ops[1]}), tile = ({m}, {n}, {k}), threads = ({8*wm}, {4*wn}), "
         f"load_a = {la}, load_b = {lb}, lds_width = {w}, arch = sm_90, stages = {stages}, ldg_width = {w}, "
         f"warps = ({wm}, {wn}), raster = {raster}")
    if frag != 1: s += f", frag_sets = {frag}"
    if inter: s += f", interleave = {inter}"
    return s + f", math = dmma, mma = {mma}"

M16 = [(16, 8, 4), (16, 8, 8), (16, 8, 16)]
out = []
if sys.argv[1] == 'explore':
    nn = ('N', 'N')
    for mma in M16 + [(8, 8, 4)]:
        out.append(spec(nn, (128, 128, 16), (2, 4), mma))
    for mma in M16[1:]:
        out.append(spec(nn, (128, 128, 32), (2, 4), mma))
    out.append(spec(nn, (128, 128, 16), (2, 4), (16, 8, 8), stages=4))
    out.append(spec(nn, (128, 128, 16), (2, 4), (16, 8, 8), inter=2))
    out.append(spec(nn, (128, 64, 16), (2, 2), (16, 8, 8)))
    for frag in (1, 2):
        out.append(spec(nn, (64, 64, 16), (2, 2), (16, 8, 8), frag=frag))
        out.append(spec(nn, (128, 128, 16), (4, 4), (16, 8, 8), frag=frag))
        out.append(spec(nn, (64, 128, 16), (2, 4), (16, 8, 8), frag=frag))
    out.append(spec(nn, (128, 128, 16), (4, 2), (16, 8, 8)))
    for ops in [('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 16), (2, 4), (16, 8, 8)))
if sys.argv[1] == 'explore2':
    nn = ('N', 'N')
    k32 = (128, 128, 32)
    out.append(spec(nn, k32, (2, 4), (16, 8, 8)))
    out.append(spec(nn, k32, (2, 4), (16, 8, 8), stages=2))
    out.append(spec(nn, k32, (2, 4), (16, 8, 8), inter=2))
    out.append(spec(nn, k32, (2, 4), (16, 8, 8), inter=4))
    out.append(spec(nn, k32, (2, 4), (16, 8, 8), raster=1))
    out.append(spec(nn, k32, (2, 4), (16, 8, 4)))
    out.append(spec(nn, k32, (2, 4), (16, 8, 4), frag=2))
    out.append(spec(nn, (128, 128, 16), (2, 4), (16, 8, 4), frag=2))
    for ops in [('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, k32, (2, 4), (16, 8, 8)))
        out.append(spec(ops, k32, (2, 4), (16, 8, 8), inter=2))
if sys.argv[1] == 'explore3':
    k16, k4 = (128, 128, 16), (16, 8, 4)
    for ops in [('N', 'N'), ('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, k16, (2, 4), k4, frag=2))
        out.append(spec(ops, k16, (2, 4), k4, frag=2, inter=2))
        out.append(spec(ops, k16, (2, 4), k4, frag=2, inter=4))
    out.append(spec(('N', 'N'), k16, (2, 4), k4, frag=2, stages=4))
    out.append(spec(('N', 'N'), k16, (2, 4), k4, frag=2, stages=2))
    out.append(spec(('N', 'N'), k16, (2, 4), (8, 8, 4), frag=2))
if sys.argv[1] == 'explore4':
    k16, k4 = (128, 128, 16), (16, 8, 4)
    for ops in [('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 32), (2, 4), k4, frag=2, inter=8))
        out.append(spec(ops, k16, (2, 4), k4, frag=2, inter=4, stages=4))
        out.append(spec(ops, (128, 128, 32), (2, 4), k4, frag=2, inter=4, stages=3))
    out.append(spec(("N", "N"), (128, 128, 32), (2, 4), k4, frag=2, inter=8))
    out.append(spec(("N", "T"), (128, 128, 32), (2, 4), k4, frag=2, inter=8))
if sys.argv[1] == 'bench':
    # The best of explore3 per op pair (H100, 6144).
    k16, k4 = (128, 128, 16), (16, 8, 4)
    for ops, inter in [(('N', 'N'), 2), (('N', 'T'), 4), (('T', 'N'), 4), (('T', 'T'), 2)]:
        out.append(spec(ops, k16, (2, 4), k4, frag=2, inter=inter))
if sys.argv[1] == 'zexplore':
    # ZGEMM: four real mmas per complex one; warp tiles of 32 x 32.
    z = lambda ops, tile, warps, mma, **kw: spec(ops, tile, warps, mma, precision='c64', **kw)
    nn, k4, k8 = ('N', 'N'), (16, 8, 4), (16, 8, 8)
    for frag in (1, 2):
        for inter in (0, 2):
            out.append(z(nn, (64, 128, 16), (2, 4), k4, frag=frag, inter=inter))
    out.append(z(nn, (64, 128, 16), (2, 4), k8, frag=1, inter=2))
    out.append(z(nn, (64, 128, 16), (2, 4), k8, frag=2, inter=2))
    out.append(z(nn, (128, 64, 16), (4, 2), k4, frag=2, inter=2))
    out.append(z(nn, (64, 64, 16), (2, 2), k4, frag=2, inter=2))
    out.append(z(nn, (64, 128, 8), (2, 4), k4, frag=2, inter=2, stages=4))
    for ops in [('N', 'T'), ('T', 'N'), ('T', 'T'), ('C', 'N'), ('N', 'C')]:
        out.append(z(ops, (64, 128, 16), (2, 4), k4, frag=2, inter=2))
if sys.argv[1] == 'zbench':
    # The ZGEMM kernel of zexplore (64 x 128 x 16, m16n8k4, 2 sets, i2) per op pair.
    for ops in [('N', 'N'), ('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (64, 128, 16), (2, 4), (16, 8, 4), frag=2, inter=2, precision='c64'))
    # DGEMM TT with explore4's stripe 32 deep and interleave 8.
    out.append(spec(('T', 'T'), (128, 128, 32), (2, 4), (16, 8, 4), frag=2, inter=8))
for s in out:
    print("-|" + s)
