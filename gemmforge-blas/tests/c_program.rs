//! The library as C and Fortran programs see it: `tests/blas_from_c.c`
//! (the 8 symbols against the netlib reference BLAS, every argument error
//! through the program's own `xerbla_` / `cblas_xerbla`) and
//! `tests/fortran_gemm.f90` (SGEMM and ZGEMM with the normal link line),
//! compiled against the `libgemmforge_blas.so` cargo built beside this test
//! and run with `GEMMFORGE_BLAS_BACKEND=emulate` and `GEMMFORGE_BLAS_LOG=stderr`.
//!
//! Needs `cc`; the netlib comparisons need `libblas.so.3` and the Fortran
//! program `gfortran`, which `cargo xtask test` installs: each prints a
//! visible SKIP when missing.

mod common;

use std::path::{Path, PathBuf};

use common::library_dir;
use std::process::{Command, Output};

/// The netlib reference BLAS of Debian's `libblas3` (not the alternatives
/// link, which may point to OpenBLAS).
const NETLIB: &str = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";

fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(name)
}

/// Compiles `src` with `compiler` into `exe`, linked against the library.
fn build(compiler: &str, extra: &[&str], src: &Path, exe: &Path) {
    let lib = library_dir();
    let out = Command::new(compiler)
        .args(extra)
        .arg(src)
        .arg("-o")
        .arg(exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lgemmforge_blas")
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("running {compiler}: {e}"));
    assert!(out.status.success(), "{compiler} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

fn run_emulated(exe: &Path, args: &[&str]) -> (Output, String, String) {
    run_on(exe, args, "emulate")
}

fn run_on(exe: &Path, args: &[&str], backend: &str) -> (Output, String, String) {
    let out = Command::new(exe)
        .args(args)
        .env("GEMMFORGE_BLAS_BACKEND", backend)
        .env("GEMMFORGE_BLAS_LOG", "stderr")
        .env_remove("GEMMFORGE_BLAS_CPU_LIB")
        .output()
        .expect("running the program");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    (out, stdout, stderr)
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `blas_from_c`, built once per test (tests run in parallel).
fn c_program(name: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    build("cc", &["-O1", "-std=c11", "-Wall", "-Werror"], &source("blas_from_c.c"), &exe);
    exe
}

#[test]
fn c_program_against_the_reference_blas() {
    let exe = c_program("blas_from_c");
    let (out, stdout, stderr) = run_emulated(&exe, &[NETLIB]);
    print!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("FAILURES 0"),
        "the C program failed ({}):\n{stdout}\nstderr (tail):\n{}",
        out.status,
        tail(&stderr)
    );
    if stdout.contains("SKIP") {
        eprintln!("SKIP: results not compared with netlib ({NETLIB} missing: apt-get install libblas3)");
        return;
    }
    // Every symbol was routed to the emulator, and the log says so.
    for routine in
        ["sgemm_", "dgemm_", "cgemm_", "zgemm_", "cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm"]
    {
        let emulated =
            stderr.lines().filter(|l| l.contains(&format!(" {routine} ")) && l.ends_with("path=emulate"));
        assert!(emulated.count() >= 10, "{routine}: too few emulated calls in the log:\n{}", tail(&stderr));
    }
    assert!(stderr.contains("m=0 n=5 k=3 flop=0 path=none (quick return)"), "{}", tail(&stderr));
    assert!(!stderr.contains("path=cpu"), "a call fell back to the CPU:\n{}", tail(&stderr));
    // The errors went to the program's handlers, which print nothing.
    assert!(!stderr.contains("illegal value") && !stderr.contains("was incorrect"), "{}", tail(&stderr));
}

/// `GEMMFORGE_BLAS_BACKEND=gpu`: on a GPU every computed call runs there
/// with the reference's results; without one, every call falls back to the
/// CPU with a single warning, and the results are still the reference's.
#[test]
fn c_program_on_the_gpu_backend() {
    let exe = c_program("blas_from_c_gpu");
    let (out, stdout, stderr) = run_on(&exe, &[NETLIB], "gpu");
    assert!(
        out.status.success() && stdout.contains("FAILURES 0"),
        "the C program failed ({}):\n{stdout}\nstderr (tail):\n{}",
        out.status,
        tail(&stderr)
    );
    let computed = stderr.lines().filter(|l| l.contains(" path=") && !l.contains("quick return"));
    let paths: std::collections::BTreeSet<&str> =
        computed.map(|l| &l[l.find(" path=").unwrap_or(0)..]).collect();
    let gpus = gemm_host::device::device_count().unwrap_or(0);
    if gpus == 0 {
        eprintln!("SKIP: no GPU: checked the CPU fallback of GEMMFORGE_BLAS_BACKEND=gpu instead");
        assert_eq!(stderr.matches("warning: no GPU").count(), 1, "{}", tail(&stderr));
        assert_eq!(paths.into_iter().collect::<Vec<_>>(), [" path=cpu (built-in reference loops)"]);
    } else {
        assert_eq!(paths.into_iter().collect::<Vec<_>>(), [" path=gpu"], "{}", tail(&stderr));
        assert!(!stderr.contains("warning"), "{}", tail(&stderr));
    }
}

/// `tests/device_pointers.c`: operands in device and managed memory (all
/// three, or beside host memory) run on the GPU in place, with
/// `GEMMFORGE_BLAS_BACKEND=cpu` (which cannot read them) and chunks small
/// enough that the host operands stream in several; without a GPU the
/// program says SKIP (and fails under `GEMMFORGE_REQUIRE_GPU=1`).
#[test]
fn device_memory_is_used_in_place() {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("device_pointers");
    build("cc", &["-O1", "-std=c11", "-Wall", "-Werror"], &source("device_pointers.c"), &exe);
    let out = Command::new(&exe)
        .env("GEMMFORGE_BLAS_BACKEND", "cpu")
        .env("GEMMFORGE_BLAS_CHUNK_BYTES", "1024")
        .env("GEMMFORGE_BLAS_LOG", "stderr")
        .output()
        .expect("running device_pointers");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    print!("{stdout}");
    assert!(out.status.success(), "device_pointers failed ({}):\n{stdout}\n{}", out.status, tail(&stderr));
    if stdout.starts_with("SKIP") {
        eprintln!("SKIP: no GPU: device-memory GEMMs not run");
        return;
    }
    assert!(stdout.contains("FAILURES 0"), "{stdout}");
    // 36 calls, each with an operand in device memory: all on the GPU.
    let in_place = stderr.matches("path=gpu (device memory in place)").count();
    assert_eq!(in_place, 36, "{}", tail(&stderr));
}

#[test]
fn fortran_program_with_the_normal_link_line() {
    if !have("gfortran") {
        eprintln!("SKIP: gfortran not installed (cargo xtask test installs it): Fortran program not run");
        return;
    }
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fortran_gemm");
    build("gfortran", &["-O1"], &source("fortran_gemm.f90"), &exe);
    let (out, stdout, stderr) = run_emulated(&exe, &[]);
    assert!(out.status.success() && stdout.contains("FORTRAN OK"), "{stdout}\n{}", tail(&stderr));
    for routine in ["sgemm_ transa=N transb=N m=5 n=4 k=3", "zgemm_ transa=C transb=T m=5 n=4 k=3"] {
        assert!(stderr.contains(&format!("{routine} flop=")), "{routine} not logged:\n{stderr}");
    }
    assert_eq!(stderr.matches("path=emulate").count(), 2, "{stderr}");
}

/// The last lines of a long output.
fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
