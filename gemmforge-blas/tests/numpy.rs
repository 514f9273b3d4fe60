//! NumPy (Debian's `python3-numpy`, linked against the system BLAS) with
//! the library preloaded: `a @ b` on real and complex matrices goes to
//! gemmforge (the emulator here), as the log shows, with exact results
//! (small integers). Prints a SKIP when `/usr/bin/python3` has no NumPy
//! (`cargo xtask test` installs it). The same for a pip-installed NumPy ≥
//! 2, which calls its bundled OpenBLAS through the ILP64 CBLAS aliases
//! `scipy_cblas_?gemm64_`, when `GEMMFORGE_TEST_NUMPY2_PYTHON` names a
//! Python that has one.

mod common;

use std::process::Command;

const PYTHON: &str = "/usr/bin/python3";

const SCRIPT: &str = "
import numpy as np
a = np.arange(35 * 21, dtype=np.float64).reshape(35, 21) % 7 - 3
b = np.arange(21 * 17, dtype=np.float64).reshape(21, 17) % 5 - 2
ref = np.array([[sum(a[i, l] * b[l, j] for l in range(21)) for j in range(17)] for i in range(35)])
print('real', 'equal' if ((a @ b) == ref).all() else 'DIFFERENT')
za, zb = a + 1j * (a % 2), b - 2j
zref = np.array([[sum(za[i, l] * zb[l, j] for l in range(21)) for j in range(17)] for i in range(35)])
print('complex', 'equal' if ((za @ zb) == zref).all() else 'DIFFERENT')
";

#[test]
fn numpy_matmul_is_routed_to_gemmforge() {
    let has_numpy =
        Command::new(PYTHON).args(["-c", "import numpy"]).output().is_ok_and(|o| o.status.success());
    if !has_numpy {
        skip!("SKIP: {PYTHON} has no NumPy (apt-get install python3-numpy): NumPy test not run");
        return;
    }
    let lib = common::library_dir().join("libgemmforge_blas.so");
    let out = Command::new(PYTHON)
        .args(["-c", SCRIPT])
        .env("LD_PRELOAD", &lib)
        .env("GEMMFORGE_BLAS_BACKEND", "emulate")
        .env("GEMMFORGE_BLAS_LOG", "stderr")
        .output()
        .expect("running python3");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("real equal") && stdout.contains("complex equal"), "{stdout}\n{stderr}");
    // NumPy calls CBLAS; `a @ b` is one call per product, shape 35 × 17 × 21
    // in some order of m and n.
    for routine in ["cblas_dgemm", "cblas_zgemm"] {
        let routed = stderr
            .lines()
            .filter(|l| l.contains(routine) && l.contains("k=21") && l.ends_with("path=emulate"));
        assert!(routed.count() >= 1, "{routine} not routed to the emulator:\n{stderr}");
    }
}

/// A NumPy ≥ 2 wheel: `a @ b` reaches gemmforge through
/// `scipy_cblas_dgemm64_` and `scipy_cblas_zgemm64_` (the emulator); on
/// the `cpu` backend with `GEMMFORGE_BLAS_CPU_LIB` naming the wheel's
/// `libscipy_openblas64_`, it runs there (`scipy_dgemm_64_`, …). Needs
/// `GEMMFORGE_TEST_NUMPY2_PYTHON` (say, a virtual environment's `python`
/// after `pip install numpy`); prints a SKIP without it.
#[test]
fn numpy2_wheel_reaches_gemmforge_through_the_ilp64_aliases() {
    let Some(python) = std::env::var_os("GEMMFORGE_TEST_NUMPY2_PYTHON") else {
        skip!(
            "SKIP: GEMMFORGE_TEST_NUMPY2_PYTHON unset: the scipy_cblas_?gemm64_ aliases not run from NumPy"
        );
        return;
    };
    let find = "import glob, os, numpy; \
                print(glob.glob(os.path.join(os.path.dirname(numpy.__file__), '..', 'numpy.libs', \
                'libscipy_openblas64_*.so'))[0])";
    let out =
        Command::new(&python).args(["-c", find]).output().expect("running GEMMFORGE_TEST_NUMPY2_PYTHON");
    assert!(out.status.success(), "no NumPy >= 2 wheel there:\n{}", String::from_utf8_lossy(&out.stderr));
    let openblas = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let lib = common::library_dir().join("libgemmforge_blas.so");
    for (backend, path) in [("emulate", "path=emulate"), ("cpu", "path=cpu (system BLAS)")] {
        let out = Command::new(&python)
            .args(["-c", SCRIPT])
            .env("LD_PRELOAD", &lib)
            .env("GEMMFORGE_BLAS_BACKEND", backend)
            .env("GEMMFORGE_BLAS_CPU_LIB", &openblas)
            .env("GEMMFORGE_BLAS_LOG", "stderr")
            .output()
            .expect("running GEMMFORGE_TEST_NUMPY2_PYTHON");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("real equal") && stdout.contains("complex equal"), "{stdout}\n{stderr}");
        for routine in ["scipy_cblas_dgemm64_", "scipy_cblas_zgemm64_"] {
            let routed =
                stderr.lines().filter(|l| l.contains(routine) && l.contains("k=21") && l.ends_with(path));
            assert!(routed.count() >= 1, "{backend}: {routine} not routed to {path}:\n{stderr}");
        }
    }
}
