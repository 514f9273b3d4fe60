//! `Emulator::bespoke`: a bespoke call through `gemm_host::bespoke`'s
//! checks, on host slices. Every argument error names its argument and
//! writes nothing (guards and C untouched); valid calls match the `f64`
//! reference through [`Case::check`] — the aligned kernel, its unaligned
//! twin for an odd `ldb`, `alpha = 0` (C = beta · C with a NaN in B never
//! read), `n = 0`.

use std::sync::Arc;

use gemm_codegen::bespoke::operators;
use gemm_emu::{FaultKind, Options};
use gemm_host::bespoke::{BespokeCall, BespokeKernel, BespokeSpec, BetaMode, Operator};
use gemm_host::case::{Case, GUARD};
use gemm_host::emulate::Emulator;
use gemm_host::reference::{Random, same_bits};
use gemm_host::{Arg, ArgError, Element, GemmError, Matrix, Precision};

/// Entries ±1, an empty row and column, a dense row.
fn awkward() -> Operator {
    Operator::from_fn(7, 6, |i, j| match (i, j) {
        (3, _) | (_, 4) => 0.0,
        (0, _) => 0.5 + j as f64,
        _ if (i + j) % 3 == 0 => 1.0,
        _ if (i + j) % 3 == 1 => -1.0,
        _ => -0.375 * i as f64,
    })
    .unwrap()
}

fn values<T: Element>(a: &Operator) -> Vec<T> {
    a.values()
        .iter()
        .map(|&v| gemm_host::reference::narrow(gemm_host::num_complex::Complex::new(v, 0.0)))
        .collect()
}

fn kernel(a: &Operator, spec: BespokeSpec) -> BespokeKernel {
    BespokeKernel::compile(Arc::new(a.clone()), &spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Runs `call` on a random case and checks it: the error, or what failed.
fn run<T: Element>(
    emu: &Emulator,
    kernel: &BespokeKernel,
    call: BespokeCall<T>,
    rng: &mut Random,
) -> Result<f64, String> {
    let a = kernel.operator();
    let case = Case::with_a(call.gemm_config(a.rows(), a.cols()), &values::<T>(a), rng);
    let (b, mut c) = (case.guarded(Matrix::B).to_vec(), case.guarded(Matrix::C).to_vec());
    let len = c.len();
    emu.bespoke(kernel, &call, &b[GUARD..b.len() - GUARD], &mut c[GUARD..len - GUARD])
        .map_err(|e| format!("{}: {e}", kernel.image().entry))?;
    case.check(case.guarded(Matrix::A), &b, &c, kernel.image().spec.math())
        .map_err(|e| format!("{}: {e}", kernel.image().entry))
}

#[test]
fn every_argument_error_names_its_argument_and_writes_nothing() {
    let a = awkward();
    let zero = kernel(
        &a,
        BespokeSpec { width: 2, block: 32, beta: BetaMode::Zero, ..BespokeSpec::new(Precision::F64) },
    );
    let emu = Emulator::new();
    let n = 10i64;
    let good = BespokeCall::<f64>::new(n).ldb(12).ldc(11);
    // (k - 1) ldb + n and (m - 1) ldc + n.
    let (b_len, c_len) = (5 * 12 + n as usize, 6 * 11 + n as usize);
    let cases: Vec<(&str, BespokeCall<f64>, usize, usize, Arg)> = vec![
        ("negative n", BespokeCall { n: -1, ..good }, b_len, c_len, Arg::N),
        ("ldb below n", good.ldb(9), b_len, c_len, Arg::Ldb),
        ("ldc below n", good.ldc(9), b_len, c_len, Arg::Ldc),
        ("short b", good, b_len - 1, c_len, Arg::B),
        ("short c", good, b_len, c_len - 1, Arg::C),
        ("beta the kernel does not compute", good.beta(0.5), b_len, c_len, Arg::Beta),
    ];
    for (what, call, bl, cl, arg) in cases {
        let b: Vec<f64> = (0..bl + 2 * GUARD).map(|x| x as f64).collect();
        let mut c = vec![-7.25f64; cl + 2 * GUARD];
        let (b0, c0) = (b.clone(), c.clone());
        let err = emu.bespoke(&zero, &call, &b[GUARD..GUARD + bl], &mut c[GUARD..GUARD + cl]).unwrap_err();
        let arg_err = err.as_arg().unwrap_or_else(|| panic!("{what}: not an argument error: {err}"));
        assert_eq!(arg_err.arg(), arg, "{what}: {err}");
        assert!(err.to_string().contains(&format!("argument `{}`", arg.name())), "{what}: {err}");
        assert!(b.iter().zip(&b0).all(|(x, y)| same_bits(*x, *y)), "{what}: B written");
        assert!(c.iter().zip(&c0).all(|(x, y)| same_bits(*x, *y)), "{what}: C or its guards written");
    }
    // The element type is the kernel's.
    let (b, mut c) = (vec![1.0f32; 200], vec![2.0f32; 200]);
    let err = emu.bespoke(&zero, &BespokeCall::new(10), &b, &mut c).unwrap_err();
    assert!(matches!(err, GemmError::PrecisionMismatch { .. }), "{err}");
    assert!(c.iter().all(|&x| x == 2.0));
    assert!(matches!(
        err,
        GemmError::PrecisionMismatch { kernel_precision: Precision::F64, buffers: Precision::F32, .. }
    ));
    let e = ArgError::Negative { arg: Arg::N, value: -1 };
    assert_eq!(e.to_string(), "argument `n` = -1: must be at least 0");
}

fn aligned_and_twin<T: Element>(seed: u64) {
    let mut rng = Random::new(seed);
    let emu = Emulator::new();
    let mut failures = Vec::new();
    let mut operators: Vec<(String, Operator)> = vec![("awkward".into(), awkward())];
    operators
        .extend(operators::test_set().into_iter().filter(|(_, a)| a.rows() <= 24 && a.cols() <= 24).take(3));
    for (name, a) in &operators {
        for (form_split, chunk) in [(1, 4), (3.min(a.rows() as u32), 2)] {
            let spec = BespokeSpec {
                width: 2,
                block: 32,
                msplit: form_split,
                chunk,
                ..BespokeSpec::new(T::PRECISION)
            };
            let k = kernel(a, spec);
            let calls = [
                ("aligned", BespokeCall::<T>::new(70).ldb(72).alpha(rng.scalar()).beta(rng.scalar())),
                ("odd ldb: the twin", BespokeCall::new(70).ldb(71).alpha(rng.scalar()).beta(rng.scalar())),
                ("odd n: the twin", BespokeCall::new(67).beta(T::ZERO)),
                ("n = 0", BespokeCall::new(0).ldb(1).ldc(1)),
            ];
            for (what, call) in calls {
                if let Err(e) = run(&emu, &k, call, &mut rng) {
                    failures.push(format!("{name} {what}: {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_kernel_and_its_unaligned_twin_match_the_reference_f64() {
    aligned_and_twin::<f64>(11);
}

#[test]
fn the_kernel_and_its_unaligned_twin_match_the_reference_f32() {
    aligned_and_twin::<f32>(12);
}

/// The wide kernel itself faults on the odd `ldb` that `Emulator::bespoke`
/// hands to its twin.
#[test]
fn an_odd_ldb_would_fault_the_wide_kernel() {
    let a = awkward();
    let k = kernel(&a, BespokeSpec { width: 2, block: 32, ..BespokeSpec::new(Precision::F64) });
    let wide = gemm_emu::Bespoke::new(k.image()).unwrap();
    let (n, ldb) = (70usize, 71usize);
    let b = vec![1.0f64; 5 * ldb + n];
    let mut c = vec![0.0f64; 7 * n];
    let e = wide.run(n as u32, ldb as u64, n as u64, 1.0, 0.5, &b, &mut c, &Options::default()).unwrap_err();
    assert!(matches!(e.fault().map(|f| &f.kind), Some(FaultKind::Misaligned { .. })), "{e}");
    let mut c2 = vec![0.0f64; 7 * n];
    Emulator::new().bespoke(&k, &BespokeCall::new(n as i64).ldb(ldb as i64).beta(0.5), &b, &mut c2).unwrap();
}

/// `alpha = 0`: C = beta · C exactly, B not referenced (BLAS), so a NaN in
/// B stays out of C; with `beta = 0` too, C becomes 0 whatever it held.
#[test]
fn zero_alpha_never_reads_b() {
    let a = awkward();
    let emu = Emulator::new();
    for beta_mode in [BetaMode::Runtime, BetaMode::Zero] {
        let k = kernel(&a, BespokeSpec { block: 32, beta: beta_mode, ..BespokeSpec::new(Precision::F64) });
        let n = 33;
        let b = vec![f64::NAN; 6 * n];
        let beta = if beta_mode == BetaMode::Zero { 0.0 } else { -1.5 };
        let c0: Vec<f64> = (0..7 * n).map(|i| if beta == 0.0 { f64::NAN } else { i as f64 * 0.25 }).collect();
        let mut c = c0.clone();
        emu.bespoke(&k, &BespokeCall::new(n as i64).alpha(0.0).beta(beta), &b, &mut c).unwrap();
        for (i, (&x, &x0)) in c.iter().zip(&c0).enumerate() {
            let want = if beta == 0.0 { 0.0 } else { beta * x0 };
            assert!(x == want, "{beta_mode:?}: c[{i}] = {x}, want {want}");
        }
        // alpha = 0 and beta = 1: C stays as it is, bit for bit.
        if beta_mode == BetaMode::Runtime {
            let mut same = c0.clone();
            emu.bespoke(&k, &BespokeCall::new(n as i64).alpha(0.0).beta(1.0), &b, &mut same).unwrap();
            assert!(same.iter().zip(&c0).all(|(x, y)| same_bits(*x, *y)));
        }
    }
}

/// `ldb = N` and `ldc = N` in a spec: every form computes the call with
/// those strides (its twin too, for an odd n), the PTX multiplies by no
/// argument, and a call with another stride is refused naming it, nothing
/// written — the kernel would ignore it (shown by launching it anyway).
#[test]
fn a_fixed_stride_kernel_computes_its_strides_and_refuses_others() {
    let a = awkward();
    let emu = Emulator::new();
    let mut rng = Random::new(17);
    let (ldb, ldc) = (72u32, 74u32);
    let fixed = BespokeSpec {
        width: 2,
        block: 32,
        chunk: 4,
        ldb: Some(ldb),
        ldc: Some(ldc),
        ..BespokeSpec::new(Precision::F64)
    };
    let specs = [
        fixed,
        BespokeSpec { msplit: 3, chunk: 2, ..fixed },
        BespokeSpec { form: gemm_codegen::bespoke::Form::CStream, ..fixed },
        BespokeSpec { form: gemm_codegen::bespoke::Form::Split, msplit: 3, ..fixed },
        BespokeSpec { form: gemm_codegen::bespoke::Form::Mma, block: 64, ..fixed },
        BespokeSpec { ldc: None, ..fixed },
    ];
    let mut failures = Vec::new();
    for spec in specs {
        let k = kernel(&a, spec);
        let ptx = &k.image().ptx;
        assert!(!ptx.contains("%ldb_bytes, %ldb,"), "{spec}: B's stride is still multiplied");
        assert!(ptx.contains(&format!("row stride fixed at {ldb} elements")), "{spec}");
        assert!(k.image().entry.contains("_ldb72"), "{}", k.image().entry);
        let exact = BespokeCall::<f64>::new(70).ldb(ldb.into()).ldc(ldc.into());
        for (what, call) in [
            ("its strides", exact.alpha(rng.scalar()).beta(rng.scalar())),
            ("odd n: the twin", BespokeCall { n: 67, ..exact }),
        ] {
            let call = if spec.beta == BetaMode::Runtime { call } else { call.beta(0.0) };
            if let Err(e) = run(&emu, &k, call, &mut rng) {
                failures.push(format!("{spec} {what}: {e}"));
            }
        }
        let wrong = [(Arg::Ldb, exact.ldb(76)), (Arg::Ldc, exact.ldc(76))];
        for (arg, call) in wrong.into_iter().filter(|(arg, _)| *arg == Arg::Ldb || spec.ldc.is_some()) {
            let (b, mut c) = (vec![0.5f64; 6 * 76 + 70], vec![-7.25f64; 7 * 76 + 70]);
            let err = emu.bespoke(&k, &call, &b, &mut c).unwrap_err();
            let arg_err = err.as_arg().unwrap_or_else(|| panic!("{spec}: not an argument error: {err}"));
            assert!(matches!(arg_err, ArgError::FixedStride { fixed: 72 | 74, value: 76, .. }), "{err}");
            assert_eq!(arg_err.arg(), arg, "{err}");
            assert!(err.to_string().contains(&format!("is generated for {} =", arg.name())), "{err}");
            assert!(c.iter().all(|&x| x == -7.25), "{spec}: C written on a refused call");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Past the check, the kernel ignores the ldb argument: rows 76 apart
    // are read 72 apart, and C is wrong.
    let k = kernel(&a, fixed);
    let call = BespokeCall::<f64>::new(70).ldb(76).ldc(ldc.into());
    let case = Case::with_a(call.gemm_config(a.rows(), a.cols()), &values::<f64>(&a), &mut rng);
    let (b, mut c) = (case.guarded(Matrix::B).to_vec(), case.guarded(Matrix::C).to_vec());
    let len = c.len();
    gemm_emu::Bespoke::new(k.image())
        .unwrap()
        .run(
            70,
            76,
            ldc.into(),
            1.0,
            0.0,
            &b[GUARD..b.len() - GUARD],
            &mut c[GUARD..len - GUARD],
            &Options::default(),
        )
        .unwrap();
    let err = case.check(case.guarded(Matrix::A), &b, &c, k.image().spec.math()).unwrap_err();
    assert!(err.contains("relative error"), "{err}");
}
