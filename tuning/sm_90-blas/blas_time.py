"""Host-to-host GEMM timings of libgemmforge_blas.so (GEMMFORGE_BLAS_BACKEND=gpu)
beside NumPy's own BLAS (CPU) and torch (cuBLAS, copies included), in one run.

python3 blas_time.py <path/to/libgemmforge_blas.so> [sizes...]
Each call: C = A @ B, column-major n x n, alpha = 1, beta = 0, random inputs;
the median of 5 timed calls after 1 warm-up; the max relative difference of
gemmforge's C from NumPy's printed beside the time.
"""
import ctypes, sys, time
import numpy as np
import torch

lib = ctypes.CDLL(sys.argv[1])
sizes = [int(s) for s in sys.argv[2:]] or [1024, 2048, 4096, 8192]
kinds = [("s", np.float32), ("d", np.float64), ("c", np.complex64), ("z", np.complex128)]


def median(f, reps=5):
    f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2]


def ours(letter, a, b, c):
    n = a.shape[0]
    dt = a.dtype
    one = np.ones(1, dtype=dt); zero = np.zeros(1, dtype=dt)
    ni = ctypes.c_int(n)
    p = lambda x: x.ctypes.data_as(ctypes.c_void_p)
    r = ctypes.byref
    getattr(lib, letter + "gemm_")(b"N", b"N", r(ni), r(ni), r(ni), p(one), p(a), r(ni), p(b), r(ni), p(zero), p(c), r(ni),
                                   ctypes.c_size_t(1), ctypes.c_size_t(1))


print(f"{'precision':>9} {'n':>6} {'gemmforge s':>12} {'numpy s':>9} {'torch s':>9} {'vs numpy':>9} {'vs torch':>9} {'rel diff':>9}")
for letter, dt in kinds:
    for n in sizes:
        rng = np.random.default_rng(n)
        mk = lambda: np.asfortranarray((rng.random((n, n)) - 0.5 + (1j * (rng.random((n, n)) - 0.5) if np.iscomplexobj(dt(0)) else 0)).astype(dt))
        a, b = mk(), mk()
        c = np.asfortranarray(np.zeros((n, n), dtype=dt))
        t_ours = median(lambda: ours(letter, a, b, c))
        ref = a @ b
        t_np = median(lambda: a @ b, reps=3 if n >= 4096 else 5)
        def th():
            x = torch.from_numpy(a).cuda(); y = torch.from_numpy(b).cuda()
            return (x @ y).cpu().numpy()
        t_th = median(th)
        diff = float(np.max(np.abs(c - ref)) / np.max(np.abs(ref)))
        print(f"{letter + 'gemm':>9} {n:>6} {t_ours:>12.4f} {t_np:>9.4f} {t_th:>9.4f} {t_np / t_ours:>9.2f} {t_th / t_ours:>9.2f} {diff:>9.1e}", flush=True)
