//! NumPy (Debian's `python3-numpy`, linked against the system BLAS) with
//! the library preloaded: `a @ b` on real and complex matrices goes to
//! gemmforge (the emulator here), as the log shows, with exact results
//! (small integers). Prints a SKIP when `/usr/bin/python3` has no NumPy
//! (`cargo xtask test` installs it).

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
        eprintln!("SKIP: {PYTHON} has no NumPy (apt-get install python3-numpy): NumPy test not run");
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
