"""Host-to-host GEMM timings for `cargo xtask blas-bench` (one mode per process).

    python3 numpy_time.py MODE SIZES
MODE: `numpy` (NumPy's `a @ b` on whatever BLAS serves it: NumPy's own, or
libgemmforge_blas.so when the caller put it in LD_PRELOAD), `torch`
(torch.from_numpy(a).cuda() @ ... .cpu(): cuBLAS, copies included), or
`torch-pinned` (the same through page-locked host tensors: each operand
copied into pinned memory, uploaded without blocking, C downloaded into a
pinned tensor and copied out: the fast way a torch user can write it).
SIZES: comma-separated n (square n x n x n products).

Each line printed is a JSON object: precision, n, seconds (median of the
timed calls after one warm-up), reps, and rel_err: the largest difference of
64 sampled elements of C from their f64 (complex128) dot products, over the
largest of them (computed elementwise, so no BLAS is involved).
"""
import json
import sys
import time

import numpy as np

KINDS = [("s", np.float32), ("d", np.float64), ("c", np.complex64), ("z", np.complex128)]


def matrices(n, dtype, seed):
    rng = np.random.default_rng(seed)
    def one():
        x = rng.random((n, n)) - 0.5
        if np.iscomplexobj(dtype(0)):
            x = x + 1j * (rng.random((n, n)) - 0.5)
        return x.astype(dtype)
    return one(), one()


def rel_err(a, b, c, seed):
    rng = np.random.default_rng(seed + 1)
    n = a.shape[0]
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    worst, scale = 0.0, 0.0
    for _ in range(64):
        i, j = int(rng.integers(n)), int(rng.integers(n))
        ref = np.sum(a[i, :].astype(wide) * b[:, j].astype(wide))
        worst = max(worst, abs(c[i, j] - ref))
        scale = max(scale, abs(ref))
    return float(worst / scale) if scale else float(worst)


def timed(f, n):
    reps = 3 if n >= 4096 else 7 if n >= 512 else 21
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2], reps


def main():
    mode, sizes = sys.argv[1], [int(s) for s in sys.argv[2].split(",") if s]
    if mode.startswith("torch"):
        import torch
        dev = torch.device("cuda")
    for letter, dtype in KINDS:
        for n in sizes:
            a, b = matrices(n, dtype, n)
            if mode == "numpy":
                out = {}
                def call():
                    out["c"] = a @ b
            elif mode == "torch":
                out = {}
                def call():
                    x = torch.from_numpy(a).to(dev)
                    y = torch.from_numpy(b).to(dev)
                    out["c"] = (x @ y).cpu().numpy()
            else:
                out = {}
                def call():
                    x = torch.from_numpy(a).pin_memory().to(dev, non_blocking=True)
                    y = torch.from_numpy(b).pin_memory().to(dev, non_blocking=True)
                    c = torch.empty((n, n), dtype=x.dtype, pin_memory=True)
                    c.copy_(x @ y, non_blocking=True)
                    torch.cuda.synchronize()
                    out["c"] = c.numpy().copy()
            seconds, reps = timed(call, n)
            err = rel_err(a, b, out["c"], n)
            print(json.dumps({"mode": mode, "precision": letter, "n": n, "seconds": seconds, "reps": reps,
                              "rel_err": err}), flush=True)


if __name__ == "__main__":
    main()
