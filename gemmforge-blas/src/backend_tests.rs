//! The configuration's reading, the quick returns and the `alpha = 0`
//! paths of single calls and batches, on the CPU and in the emulator.

use super::*;
use num_complex::Complex;

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

#[test]
fn defaults() {
    let (c, problems) = Config::from_vars(vars(&[]));
    assert!(problems.is_empty());
    assert_eq!((c.backend, c.device, c.threshold), (Backend::Auto, 0, None));
    assert_eq!((c.threshold::<f32>(), c.threshold::<Complex<f64>>()), (1 << 30, 1 << 21));
    assert!(c.cpu_lib.is_none() && matches!(c.log, Log::Off));
}

#[test]
fn values_are_read_and_bad_ones_reported() {
    let (c, problems) = Config::from_vars(vars(&[
        ("GEMMFORGE_BLAS_BACKEND", "Emulate"),
        ("GEMMFORGE_BLAS_DEVICE", "3"),
        ("GEMMFORGE_BLAS_THRESHOLD", "1000"),
        ("GEMMFORGE_BLAS_CPU_LIB", "/x/libblas.so"),
        ("GEMMFORGE_BLAS_LOG", "stderr"),
    ]));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!((c.backend, c.device, c.threshold), (Backend::Emulate, 3, Some(1000)));
    assert_eq!(c.threshold::<f64>(), 1000);
    assert_eq!(c.cpu_lib, Some(PathBuf::from("/x/libblas.so")));
    assert!(matches!(c.log, Log::Stderr));
    let (c, problems) = Config::from_vars(vars(&[
        ("GEMMFORGE_BLAS_BACKEND", "tpu"),
        ("GEMMFORGE_BLAS_THRESHOLD", "-5"),
        ("GEMMFORGE_BLAS_LOG", "/nonexistent-dir/x.log"),
    ]));
    assert_eq!((c.backend, c.threshold), (Backend::Auto, None));
    assert!(matches!(c.log, Log::Stderr));
    assert_eq!(problems.len(), 3, "{problems:?}");
}

fn config(backend: Backend) -> Config {
    Config {
        backend,
        device: 0,
        threshold: None,
        chunk_bytes: Tuning::default().chunk_bytes,
        cpu_lib: None,
        log: Log::Off,
    }
}

#[test]
fn quick_returns_touch_nothing() {
    let mut c = [f32::NAN; 4];
    let base = GemmConfig::new(gemm_codegen::Op::N, gemm_codegen::Op::N, 2, 2, 3).beta(1.0);
    // alpha = 0 or k = 0 with beta = 1; m = 0. A and B are null: not read.
    for cfg in [base.alpha(0.0), GemmConfig { k: 0, ..base }, GemmConfig { m: 0, ..base.beta(0.0) }] {
        let (a, b) = (std::ptr::null(), std::ptr::null());
        let call = Call { routine: "sgemm_", cfg, a, b, c: c.as_mut_ptr(), layout: Layout::ColMajor };
        for backend in [Backend::Cpu, Backend::Emulate, Backend::Auto] {
            // SAFETY: nothing is read or written.
            assert_eq!(unsafe { run(&config(backend), &call) }, Path::QuickReturn);
        }
    }
    assert!(c.iter().all(|x| x.is_nan()));
}

/// alpha = 0: C = beta·C without reading A and B (null here), also in the emulator.
#[test]
fn alpha_zero_scales_c_on_every_path() {
    for backend in [Backend::Cpu, Backend::Emulate] {
        for (beta, want) in [(0.0, [0.0; 4]), (3.0, [3.0, 6.0, 9.0, 12.0])] {
            let mut c = if beta == 0.0 { [f64::NAN; 4] } else { [1.0, 2.0, 3.0, 4.0] };
            let cfg =
                GemmConfig::new(gemm_codegen::Op::T, gemm_codegen::Op::N, 2, 2, 5).alpha(0.0).beta(beta);
            let (a, b) = (std::ptr::null(), std::ptr::null());
            let call = Call { routine: "dgemm_", cfg, a, b, c: c.as_mut_ptr(), layout: Layout::ColMajor };
            // SAFETY: C holds 2 × 2 elements; A and B are not read.
            let path = unsafe { run(&config(backend), &call) };
            assert_eq!(c, want, "{backend:?}");
            assert_ne!(path, Path::QuickReturn);
        }
    }
}

/// A batch of three 3 × 2 problems (k = 4) with gaps between and
/// inside them (ldc 5), A shared (stride 0): each problem is the
/// reference loops' on its own matrices, on the CPU and in the
/// emulator, and the gaps keep their sentinels.
#[test]
fn batches_run_problem_by_problem() {
    use gemm_host::reference::{Random, same_bits};
    let mut rng = Random::new(11);
    let cfg =
        GemmConfig::new(gemm_codegen::Op::N, gemm_codegen::Op::T, 3, 2, 4).ldc(5).alpha(1.5f64).beta(-0.5);
    let batch = StridedBatch { count: 3, stride_a: 0, stride_b: 9, stride_c: 13 };
    let a = rng.matrix::<f64>(cfg.a_len());
    let b = rng.matrix::<f64>(2 * 9 + cfg.b_len());
    let mut c0 = vec![-7.25; 2 * 13 + cfg.c_len() + 3];
    for j in 0..2 {
        for i in 0..3 {
            for p in 0..3 {
                c0[p * 13 + i + 5 * j] = rng.scalar();
            }
        }
    }
    let mut want = c0.clone();
    for p in 0..3 {
        crate::cpu::reference_gemm(&cfg, &a, &b[p * 9..], &mut want[p * 13..]);
    }
    for backend in [Backend::Cpu, Backend::Emulate] {
        let mut c = c0.clone();
        let call = Call {
            routine: "dgemm_batch_strided_",
            cfg,
            a: a.as_ptr(),
            b: b.as_ptr(),
            c: c.as_mut_ptr(),
            layout: Layout::ColMajor,
        };
        // SAFETY: the buffers hold every problem.
        let path = unsafe { run_batch(&config(backend), &call, &batch) };
        assert!(matches!(path, Path::Cpu(_) | Path::Emulate), "{path}");
        for (i, (&got, &w)) in c.iter().zip(&want).enumerate() {
            assert!(
                same_bits(got, w) || (got - w).abs() <= 1e-12 * w.abs(),
                "{backend:?} element {i}: {got} vs {w}"
            );
        }
    }
}

#[test]
fn batch_quick_returns_touch_nothing() {
    let mut c = [f32::NAN; 8];
    let base = GemmConfig::new(gemm_codegen::Op::N, gemm_codegen::Op::N, 2, 2, 3).beta(1.0);
    let batch = StridedBatch { count: 2, stride_a: 6, stride_b: 6, stride_c: 4 };
    let cases = [
        (base.alpha(0.0), batch),
        (GemmConfig { k: 0, ..base }, batch),
        (GemmConfig { n: 0, ..base.beta(0.0) }, batch),
        (base.beta(0.0), StridedBatch { count: 0, ..batch }),
    ];
    for (cfg, batch) in cases {
        let (a, b) = (std::ptr::null(), std::ptr::null());
        let call =
            Call { routine: "sgemm_batch_strided_", cfg, a, b, c: c.as_mut_ptr(), layout: Layout::ColMajor };
        for backend in [Backend::Cpu, Backend::Emulate, Backend::Auto] {
            // SAFETY: nothing is read or written.
            assert_eq!(unsafe { run_batch(&config(backend), &call, &batch) }, Path::QuickReturn);
        }
    }
    assert!(c.iter().all(|x| x.is_nan()));
}

/// alpha = 0 with beta = 0: every C zeroed over NaN, A and B (null) unread.
#[test]
fn a_batch_with_alpha_zero_reads_neither_a_nor_b() {
    for backend in [Backend::Cpu, Backend::Emulate] {
        let mut c = [f32::NAN; 11];
        let cfg = GemmConfig::new(gemm_codegen::Op::T, gemm_codegen::Op::N, 2, 2, 5).alpha(0.0).beta(0.0);
        let batch = StridedBatch { count: 2, stride_a: 100, stride_b: 100, stride_c: 7 };
        let (a, b) = (std::ptr::null(), std::ptr::null());
        let call =
            Call { routine: "sgemm_batch_strided_", cfg, a, b, c: c.as_mut_ptr(), layout: Layout::ColMajor };
        // SAFETY: C holds both problems; A and B are not read.
        unsafe { run_batch(&config(backend), &call, &batch) };
        let zeroed = [0, 1, 2, 3, 7, 8, 9, 10];
        for (i, x) in c.iter().enumerate() {
            assert_eq!(zeroed.contains(&i), *x == 0.0, "{backend:?} element {i}: {x}");
        }
    }
}

/// ILP64 sizes: past `i32::MAX` the kernels are not asked; sizes whose
/// product overflows even a u128 are logged without a panic.
#[test]
fn sizes_past_32_bits_stay_off_the_kernels_and_the_log_saturates() {
    let big = 1i64 << 31;
    let cfg = |m, n, k| GemmConfig::<f32>::new(gemm_codegen::Op::N, gemm_codegen::Op::N, m, n, k);
    assert!(launchable(&cfg(big - 1, big - 1, big - 1)));
    assert!(!launchable(&cfg(1, big, 1)) && !launchable(&cfg(1, 1, big)));
    let huge = 1i64 << 62;
    let quick = cfg(huge, huge, huge).lda(huge).ldb(huge).ldc(huge).alpha(0.0).beta(1.0);
    let call = Call {
        routine: "sgemm_64_",
        cfg: quick,
        a: std::ptr::null(),
        b: std::ptr::null(),
        c: std::ptr::null_mut(),
        layout: Layout::ColMajor,
    };
    let config = Config { log: Log::Stderr, ..config(Backend::Auto) };
    // SAFETY: a quick return reads and writes nothing.
    assert_eq!(unsafe { run(&config, &call) }, Path::QuickReturn);
    assert_eq!(work(&quick), u128::MAX);
}
