//! The library as C and Fortran programs see it: `tests/blas_from_c.c`
//! (the 8 symbols against the netlib reference BLAS, every argument error
//! through the program's own `xerbla_` / `cblas_xerbla`),
//! `tests/batch_from_c.c` (the 8 strided-batched symbols likewise; both
//! include `tests/blas_c_common.h`) and
//! `tests/fortran_gemm.f90` (SGEMM and ZGEMM with the normal link line),
//! compiled against the `libgemmforge_blas.so` cargo built beside this test
//! and run with `GEMMFORGE_BLAS_BACKEND=emulate` and `GEMMFORGE_BLAS_LOG=stderr`
//! (and on the `gpu` backend; the batches also on the `cpu` one, with
//! `tests/fake_batch_blas.c` as a CPU BLAS having the batched extension).
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
        // DT_RPATH, not DT_RUNPATH: searched before LD_LIBRARY_PATH, which
        // `cargo test` sets to directories that may hold an older build.
        .arg(format!("-Wl,--disable-new-dtags,-rpath,{}", lib.display()))
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
    c_program_from("blas_from_c.c", name)
}

/// The C program `src` (which includes `blas_c_common.h`) built as `name`.
fn c_program_from(src: &str, name: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    build("cc", &["-O1", "-std=c11", "-Wall", "-Werror"], &source(src), &exe);
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
        skip!("SKIP: results not compared with netlib ({NETLIB} missing: apt-get install libblas3)");
        return;
    }
    // Every symbol (LP64, ILP64, NumPy's aliases) was routed to the
    // emulator, and the log says so.
    for p in ["s", "d", "c", "z"] {
        let fortran = [format!("{p}gemm_"), format!("{p}gemm_64_")];
        let cblas =
            [format!("cblas_{p}gemm"), format!("cblas_{p}gemm64_"), format!("scipy_cblas_{p}gemm64_")];
        for routine in fortran.iter().chain(&cblas) {
            let emulated =
                stderr.lines().filter(|l| l.contains(&format!(" {routine} ")) && l.ends_with("path=emulate"));
            assert!(
                emulated.count() >= 10,
                "{routine}: too few emulated calls in the log:\n{}",
                tail(&stderr)
            );
        }
    }
    assert!(stderr.contains("m=0 n=5 k=3 flop=0 path=none (quick return)"), "{}", tail(&stderr));
    assert!(!stderr.contains("path=cpu"), "a call fell back to the CPU:\n{}", tail(&stderr));
    // The errors went to the program's handlers, which print nothing.
    assert!(!stderr.contains("illegal value") && !stderr.contains("was incorrect"), "{}", tail(&stderr));
}

/// `tests/batch_from_c.c`: the strided-batched symbols, problem by problem
/// against netlib's single GEMM, every one routed to the emulator as one
/// batch, and their argument errors.
#[test]
fn batch_program_against_the_reference_blas() {
    let exe = c_program_from("batch_from_c.c", "batch_from_c");
    let (out, stdout, stderr) = run_emulated(&exe, &[NETLIB]);
    print!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("FAILURES 0"),
        "the C program failed ({}):\n{stdout}\nstderr (tail):\n{}",
        out.status,
        tail(&stderr)
    );
    if stdout.contains("SKIP") {
        skip!("SKIP: results not compared with netlib ({NETLIB} missing: apt-get install libblas3)");
        return;
    }
    for p in ["s", "d", "c", "z"] {
        for routine in [format!("{p}gemm_batch_strided_"), format!("cblas_{p}gemm_batch_strided")] {
            let emulated = stderr.lines().filter(|l| {
                l.contains(&format!(" {routine} ")) && l.contains(" batch=") && l.ends_with("path=emulate")
            });
            assert!(
                emulated.count() >= 10,
                "{routine}: too few emulated batches in the log:\n{}",
                tail(&stderr)
            );
        }
    }
    // Logged as the caller passed it: a row-major call's own strides.
    let shared_a = "sgemm_batch_strided row-major transa=N transb=T m=9 n=7 k=5 batch=4 stridea=0 ";
    assert!(stderr.contains(&format!("cblas_{shared_a}")), "{}", tail(&stderr));
    assert!(
        stderr
            .contains("m=4 n=3 k=2 batch=0 stridea=10 strideb=7 stridec=15 flop=0 path=none (quick return)")
    );
    assert!(!stderr.contains("path=cpu"), "a batch fell back to the CPU:\n{}", tail(&stderr));
    assert!(!stderr.contains("illegal value") && !stderr.contains("was incorrect"), "{}", tail(&stderr));
}

/// An ILP64 call with `lda = 2³² + 1` (`tests/blas_from_c.c
/// beyond-32-bits`: `sgemm_64_`, `cblas_sgemm64_` row-major,
/// `scipy_cblas_sgemm64_`, A mapped at 16 GiB, mostly unbacked) is
/// accepted and computed with the whole `lda`: on the built-in loops when
/// the CPU BLAS is missing or only LP64 (netlib, whose `int` cannot hold
/// it), on the CPU BLAS's `sgemm_64_` when it has one
/// (`tests/fake_batch_blas.c`, which says the `lda` it got). The `cpu`
/// backend: the emulator would copy the whole 16 GiB.
#[test]
fn ilp64_lda_past_32_bits_is_not_truncated() {
    if !Path::new(NETLIB).is_file() {
        skip!("SKIP: {NETLIB} missing (apt-get install libblas3): not checked");
        return;
    }
    let exe = c_program_from("blas_from_c.c", "blas_from_c_ilp64");
    let fake = fake_blas("libfake_blas_ilp64.so");
    let builtin = "path=cpu (built-in reference loops)";
    for (cpu_lib, path) in
        [(None, builtin), (Some(Path::new(NETLIB)), builtin), (Some(&*fake), "path=cpu (system BLAS)")]
    {
        let mut cmd = Command::new(&exe);
        cmd.args([NETLIB, "beyond-32-bits"])
            .env("GEMMFORGE_BLAS_BACKEND", "cpu")
            .env("GEMMFORGE_BLAS_LOG", "stderr")
            .env("FAKE_BLAS_NETLIB", NETLIB)
            .env_remove("GEMMFORGE_BLAS_CPU_LIB");
        if let Some(lib) = cpu_lib {
            cmd.env("GEMMFORGE_BLAS_CPU_LIB", lib);
        }
        let out = cmd.output().expect("running the program");
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success() && stdout.contains("FAILURES 0"), "{cpu_lib:?}: {stdout}\n{stderr}");
        if stdout.contains("SKIP") {
            skip!("{stdout}");
            return;
        }
        let calls: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("gemmforge-blas: ") && l.contains(" m=2 n=3 k=2 "))
            .collect();
        assert_eq!(calls.len(), 3, "{cpu_lib:?}: {stderr}");
        assert!(calls.iter().all(|l| l.ends_with(path)), "{cpu_lib:?}: {stderr}");
        if cpu_lib == Some(&*fake) {
            // Every call reached the ILP64 symbol with lda whole (a
            // row-major call as the column-major one, A its second operand).
            let whole =
                stderr.lines().filter(|l| l.starts_with("fake BLAS: sgemm_64_") && l.contains("=4294967297"));
            assert_eq!(whole.count(), 3, "{stderr}");
        }
    }
}

/// `tests/private_blas.c`: a CPU BLAS the program loaded itself with
/// `RTLD_LOCAL` (as Python loads a NumPy wheel's OpenBLAS) is found among
/// the loaded objects for the ILP64 symbols: the call runs on its
/// `sgemm_64_` (which says so), not on the built-in loops.
#[test]
fn a_privately_loaded_ilp64_blas_is_found() {
    if !Path::new(NETLIB).is_file() {
        skip!("SKIP: {NETLIB} missing (apt-get install libblas3): not checked");
        return;
    }
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("private_blas");
    build("cc", &["-O1", "-std=c11", "-Wall", "-Werror"], &source("private_blas.c"), &exe);
    let fake = fake_blas("libfake_blas_private.so");
    let out = Command::new(&exe)
        .arg(&fake)
        .env("GEMMFORGE_BLAS_BACKEND", "cpu")
        .env("GEMMFORGE_BLAS_LOG", "stderr")
        .env("FAKE_BLAS_NETLIB", NETLIB)
        .env_remove("GEMMFORGE_BLAS_CPU_LIB")
        .output()
        .expect("running private_blas");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && stdout.contains("RESULT OK"), "{stdout}\n{stderr}");
    assert!(stderr.contains("fake BLAS: sgemm_64_ NN m=2 n=2 k=2"), "{stderr}");
    assert!(stderr.contains("path=cpu (system BLAS)"), "{stderr}");
}

/// `tests/fake_batch_blas.c` built as the shared library `name`.
fn fake_blas(name: &str) -> PathBuf {
    let fake = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let out = Command::new("cc")
        .args(["-O1", "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC"])
        .arg(source("fake_batch_blas.c"))
        .arg("-o")
        .arg(&fake)
        .arg("-ldl")
        .output()
        .expect("running cc");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    fake
}

/// `GEMMFORGE_BLAS_BACKEND=gpu`: on a GPU every computed call runs there
/// with the reference's results; without one, every call falls back to the
/// CPU with a single warning, and the results are still the reference's.
#[test]
fn c_program_on_the_gpu_backend() {
    for (src, name) in [("blas_from_c.c", "blas_from_c_gpu"), ("batch_from_c.c", "batch_from_c_gpu")] {
        let exe = c_program_from(src, name);
        let (out, stdout, stderr) = run_on(&exe, &[NETLIB], "gpu");
        assert!(
            out.status.success() && stdout.contains("FAILURES 0"),
            "{src} failed ({}):\n{stdout}\nstderr (tail):\n{}",
            out.status,
            tail(&stderr)
        );
        let computed = stderr.lines().filter(|l| l.contains(" path=") && !l.contains("quick return"));
        let paths: std::collections::BTreeSet<&str> =
            computed.map(|l| &l[l.find(" path=").unwrap_or(0)..]).collect();
        let gpus = gemm_host::device::device_count().unwrap_or(0);
        if gpus == 0 {
            skip!("SKIP: no GPU: checked the CPU fallback of GEMMFORGE_BLAS_BACKEND=gpu instead ({src})");
            assert_eq!(stderr.matches("warning: no GPU").count(), 1, "{}", tail(&stderr));
            assert_eq!(paths.into_iter().collect::<Vec<_>>(), [" path=cpu (built-in reference loops)"]);
        } else {
            assert_eq!(paths.into_iter().collect::<Vec<_>>(), [" path=gpu"], "{}", tail(&stderr));
            assert!(!stderr.contains("warning"), "{}", tail(&stderr));
        }
    }
}

/// `GEMMFORGE_BLAS_BACKEND=cpu` with a CPU BLAS that has the
/// strided-batched extension (`tests/fake_batch_blas.c`: netlib's GEMMs, a
/// batch problem by problem, each batch said on stderr) named by
/// `GEMMFORGE_BLAS_CPU_LIB`: every computed batch reaches its
/// `xgemm_batch_strided_` whole, as the column-major call (a row-major
/// call's operands and strides swapped), and the results are netlib's.
#[test]
fn batch_program_forwards_to_the_cpu_blas_batch() {
    if !Path::new(NETLIB).is_file() {
        skip!("SKIP: {NETLIB} missing (apt-get install libblas3): forwarding not checked");
        return;
    }
    let fake = fake_blas("libfake_batch_blas.so");
    let exe = c_program_from("batch_from_c.c", "batch_from_c_cpu");
    let out = Command::new(&exe)
        .arg(NETLIB)
        .env("GEMMFORGE_BLAS_BACKEND", "cpu")
        .env("GEMMFORGE_BLAS_LOG", "stderr")
        .env("GEMMFORGE_BLAS_CPU_LIB", &fake)
        .env("FAKE_BLAS_NETLIB", NETLIB)
        .output()
        .expect("running the program");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && stdout.contains("FAILURES 0"),
        "{stdout}\nstderr (tail):\n{}",
        tail(&stderr)
    );
    let computed: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(" batch=") && l.contains(" path=") && !l.contains("quick return"))
        .collect();
    assert!(computed.len() >= 100, "{}", tail(&stderr));
    assert!(computed.iter().all(|l| l.ends_with("path=cpu (system BLAS)")), "{}", tail(&stderr));
    assert_eq!(stderr.matches("fake BLAS: ").count(), computed.len(), "{}", tail(&stderr));
    // A row-major call arrives as the column-major one: the caller's
    // stridea = 0 (a shared A, m=9 n=7 k=5, NT) is the forwarded strideb.
    let swapped = "fake BLAS: sgemm_batch_strided_ TN m=7 n=9 k=5 lda=5 stridea=36 ldb=5 strideb=0 ldc=7 stridec=66 batch=4";
    assert!(stderr.contains(swapped), "{}", tail(&stderr));
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
        skip!("SKIP: no GPU: device-memory GEMMs not run");
        return;
    }
    assert!(stdout.contains("FAILURES 0"), "{stdout}");
    // 36 calls and 9 batches, each with an operand in device memory: all on the GPU.
    let in_place = stderr.matches("path=gpu (device memory in place)").count();
    assert_eq!(in_place, 45, "{}", tail(&stderr));
}

#[test]
fn fortran_program_with_the_normal_link_line() {
    if !have("gfortran") {
        skip!("SKIP: gfortran not installed (cargo xtask test installs it): Fortran program not run");
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
