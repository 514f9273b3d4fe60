#!/usr/bin/env python3
"""Writes the tf32x3 (and tf32) spec lists benched on the H100:
`python3 specs.py explore > explore.txt`. Each line is `-|spec` for
tuning/sm_90-stalls/specs.sh."""
import sys

def loads(op_a, op_b, m, n, k, threads, w):
    # A is m x k after its op: stored M-leading for N, K-leading for T.
    def shape(lead_len, cross_len):
        lead = min(lead_len // w, threads)
        while threads % lead or lead_len % (lead * w) or cross_len % (threads // lead):
            lead //= 2
        return (lead, threads // lead)
    la = shape(m, k) if op_a == 'N' else shape(k, m)
    lb = shape(k, n) if op_b == 'N' else shape(n, k)
    return la, lb

def spec(ops, tile, warps, mma=(16, 8, 8), stages=3, frag=1, inter=0, raster=8,
         precision='f32', math='tf32x3'):
    (m, n, k), (wm, wn) = tile, warps
    threads = 32 * wm * wn
    w = {'f32': 4, 'c64': 1}.get(precision, 2)
    la, lb = loads(ops[0], ops[1], m, n, k, threads, w)
    s = (f"precision = {precision}, op = ({ops[0]}, {ops[1]}), tile = ({m}, {n}, {k}), "
         f"threads = ({8*wm}, {4*wn}), load_a = {la}, load_b = {lb}, lds_width = {w}, arch = sm_90, "
         f"stages = {stages}, ldg_width = {w}, warps = ({wm}, {wn}), raster = {raster}")
    if frag != 1: s += f", frag_sets = {frag}"
    if inter: s += f", interleave = {inter}"
    return s + f", math = {math}, mma = {mma}"

NN = ('N', 'N')
K4 = (16, 8, 4)
out = []
if sys.argv[1] == 'explore':
    for mma in [(16, 8, 8), K4]:
        for frag in (1, 2):
            out.append(spec(NN, (128, 128, 16), (2, 4), mma, frag=frag))
    out.append(spec(NN, (128, 128, 32), (2, 4)))
    out.append(spec(NN, (128, 128, 32), (2, 4), frag=2))
    out.append(spec(NN, (128, 128, 16), (2, 4), stages=4))
    out.append(spec(NN, (128, 128, 16), (2, 4), inter=2))
    out.append(spec(NN, (128, 128, 16), (2, 4), frag=2, inter=2))
    out.append(spec(NN, (128, 128, 16), (4, 2)))
    out.append(spec(NN, (128, 128, 16), (2, 2)))
    out.append(spec(NN, (128, 256, 16), (2, 4)))
    out.append(spec(NN, (256, 128, 16), (4, 2)))
    out.append(spec(NN, (128, 64, 16), (2, 2)))
    out.append(spec(NN, (64, 128, 16), (2, 2)))
    out.append(spec(NN, (128, 128, 16), (2, 4), math='tf32'))
    for ops in [('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 16), (2, 4)))
    for ops in [NN, ('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (64, 64, 16), (2, 2), precision='c32'))
    out.append(spec(NN, (128, 64, 16), (4, 2), precision='c32'))
    out.append(spec(NN, (64, 128, 16), (2, 4), precision='c32'))
elif sys.argv[1] == 'explore2':
    # After the FMA rounding (06a3c44): what bounds 1xTF32 SGEMM, and a
    # tf32x3 SGEMM NN tile to replace the winner tuned for the old code.
    for ops, tile, warps in [(NN, (128, 128, 16), (2, 4)), (NN, (128, 128, 32), (2, 4)),
                             (NN, (128, 128, 32), (2, 2)), (NN, (128, 128, 16), (2, 2)),
                             (NN, (128, 256, 32), (2, 4)), (('N', 'T'), (128, 128, 32), (2, 4)),
                             (('T', 'N'), (128, 128, 32), (2, 4)), (('T', 'T'), (128, 128, 32), (2, 4))]:
        out.append(spec(ops, tile, warps, math='tf32'))
    out.append(spec(NN, (128, 128, 16), (2, 4), stages=4, math='tf32'))
    for tile, warps, frag in [((128, 128, 32), (2, 2), 1), ((128, 128, 16), (2, 2), 1),
                              ((128, 128, 32), (2, 4), 2), ((128, 256, 32), (2, 4), 1),
                              ((256, 128, 32), (4, 2), 1)]:
        out.append(spec(NN, tile, warps, frag=frag))
elif sys.argv[1] == 'kcontig':
    # K-contiguous stripes for a K-leading operand (each run with the build
    # before and after the change): 1xTF32 and tf32x3 SGEMM at K_blk = 32,
    # CGEMM's tf32x3 winners and a 1xTF32 one, DGEMM and ZGEMM on DMMA.
    for ops in [NN, ('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 32), (2, 4), math='tf32'))
    for ops in [NN, ('N', 'T'), ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 32), (2, 2)))
    for ops in [('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 32), (2, 4)))
    for ops in [NN, ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (64, 64, 16), (2, 2), precision='c32'))
    out.append(spec(('T', 'N'), (64, 64, 16), (2, 2), precision='c32', math='tf32'))
    for ops in [NN, ('T', 'N'), ('T', 'T')]:
        out.append(spec(ops, (128, 128, 16), (2, 4), (16, 8, 4), frag=2, inter=2,
                        precision='f64', math='dmma'))
    for ops in [NN, ('T', 'N')]:
        out.append(spec(ops, (64, 64, 8), (2, 2), (16, 8, 4), precision='c64', math='dmma'))
print('\n'.join('-|' + s for s in out))
