//! On the GPU: bespoke constant-A kernels through `Gemm::bespoke` (every
//! form, width and beta mode, the unaligned twin, `alpha = 0` with NaN in
//! B) checked against the `f64` reference with guards ([`Case::check`]),
//! argument errors that write nothing, and `BespokeGemm`: a tuning, its
//! runs, its cache through JSON, and an operator only the dense GEMM takes.
//!
//! Without a GPU each test prints `skipping: no CUDA GPU (<reason>)` and
//! passes; with `GEMMFORGE_REQUIRE_GPU=1` it fails instead.

use std::sync::Arc;

use crate::common::{Guarded, gpu, say};
use gemm_codegen::bespoke::{Form, operators};
use gemm_codegen::{Element, Math, Precision};
use gemm_host::bespoke::{
    BespokeCall, BespokeGemm, BespokeKernel, BespokeSpec, BetaMode, Choice, Operator, TuneCache, TuneOptions,
};
use gemm_host::case::Case;
use gemm_host::cudarc::driver::DevicePtr;
use gemm_host::reference::{Random, narrow};
use gemm_host::timing::Plan;
use gemm_host::{Arg, Gemm, GemmError, Matrix};

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
    a.values().iter().map(|&v| narrow(gemm_host::num_complex::Complex::new(v, 0.0))).collect()
}

/// Runs `run` on a guarded random case of `call` and checks the result.
fn check_case<T: Element>(
    gemm: &Gemm,
    a: &Operator,
    call: BespokeCall<T>,
    math: Math,
    rng: &mut Random,
    run: impl FnOnce(&BespokeCall<T>, &Guarded<T>, &mut Guarded<T>) -> Result<(), GemmError>,
) -> Result<f64, String> {
    let case = Case::with_a(call.gemm_config(a.rows(), a.cols()), &values::<T>(a), rng);
    let b = Guarded::upload(gemm, case.guarded(Matrix::B).to_vec());
    let mut c = Guarded::upload(gemm, case.guarded(Matrix::C).to_vec());
    run(&call, &b, &mut c).map_err(|e| e.to_string())?;
    case.check(case.guarded(Matrix::A), &b.download(gemm), &c.download(gemm), math)
}

fn kernels_of<T: Element>(gemm: &Gemm, seed: u64) -> Vec<String> {
    let mut rng = Random::new(seed);
    let arch = gemm_codegen::Target::newest_for(gemm.device().arch()).expect("a target");
    let widths: &[u32] = if T::PRECISION == Precision::F32 { &[1, 2, 4] } else { &[1, 2] };
    let mut failures = Vec::new();
    let mut ops = vec![("awkward".to_owned(), awkward())];
    ops.extend(operators::test_set().into_iter().filter(|(_, a)| a.rows() <= 64 && a.cols() <= 64).take(4));
    for (name, a) in &ops {
        let a = Arc::new(a.clone());
        for &width in widths {
            for beta in BetaMode::ALL {
                for (form, msplit) in [(Form::BStream, 1), (Form::CStream, 1), (Form::BStream, 3)] {
                    let spec = BespokeSpec {
                        form,
                        msplit,
                        width,
                        beta,
                        block: 64,
                        chunk: 4,
                        arch,
                        ldb: None,
                        ldc: None,
                        ..BespokeSpec::new(T::PRECISION)
                    };
                    let Ok(kernel) = BespokeKernel::compile(Arc::clone(&a), &spec) else { continue };
                    let beta_value: T = match beta {
                        BetaMode::Zero => T::ZERO,
                        BetaMode::One => T::ONE,
                        BetaMode::Runtime => rng.scalar(),
                    };
                    let w = i64::from(width);
                    let calls = [
                        ("aligned", BespokeCall::new(1000 * w).ldb(1000 * w + 4 * w)),
                        ("odd ldb (twin)", BespokeCall::new(1000 * w).ldb(1000 * w + 1)),
                        ("ragged n (twin)", BespokeCall::new(1000 * w + 1)),
                    ];
                    for (what, call) in calls {
                        let call = call.alpha(rng.scalar()).beta(beta_value);
                        let run = |call: &BespokeCall<T>, b: &Guarded<T>, c: &mut Guarded<T>| {
                            gemm.bespoke(&kernel, call, &b.view(), &mut c.view_mut())
                        };
                        if let Err(e) = check_case(gemm, &a, call, spec.math(), &mut rng, run) {
                            failures.push(format!("{name} {spec} {what}: {e}"));
                        }
                    }
                }
            }
        }
    }
    failures
}

#[test]
fn bespoke_kernels_match_the_reference() {
    let Some(gemm) = gpu() else { return };
    let mut failures = kernels_of::<f32>(&gemm, 1);
    failures.extend(kernels_of::<f64>(&gemm, 2));
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    say("bespoke kernels: every form, width and beta mode within tolerance");
}

#[test]
fn zero_alpha_never_reads_b_and_errors_write_nothing() {
    let Some(gemm) = gpu() else { return };
    let a = Arc::new(awkward());
    let kernel =
        BespokeKernel::compile(Arc::clone(&a), &BespokeSpec { width: 2, ..BespokeSpec::new(Precision::F64) })
            .unwrap();
    let n = 1000usize;
    let b = Guarded::new(&gemm, &vec![f64::NAN; 6 * n]);
    let c0: Vec<f64> = (0..7 * n).map(|i| i as f64).collect();
    let mut c = Guarded::new(&gemm, &c0);
    gemm.bespoke(&kernel, &BespokeCall::new(n as i64).alpha(0.0).beta(-0.5), &b.view(), &mut c.view_mut())
        .unwrap();
    let got = c.download(&gemm);
    assert!(Guarded::<f64>::inner(&got).iter().zip(&c0).all(|(&x, &y)| x == -0.5 * y), "C = beta C");

    let good = BespokeCall::<f64>::new(n as i64).beta(0.5);
    let cases = [
        (BespokeCall { n: -3, ..good }, Arg::N),
        (good.ldb(n as i64 - 1), Arg::Ldb),
        (good.ldc(n as i64 - 1), Arg::Ldc),
        (good.ldb(n as i64 + 1), Arg::B),
        (good.ldc(n as i64 + 1), Arg::C),
    ];
    let mut c = Guarded::new(&gemm, &c0);
    for (call, arg) in cases {
        let e = gemm.bespoke(&kernel, &call, &b.view(), &mut c.view_mut()).unwrap_err();
        assert_eq!(e.as_arg().map(|e| e.arg()), Some(arg), "{e}");
    }
    let zero =
        BespokeKernel::compile(a, &BespokeSpec { beta: BetaMode::Zero, ..BespokeSpec::new(Precision::F64) })
            .unwrap();
    let e = gemm.bespoke(&zero, &good, &b.view(), &mut c.view_mut()).unwrap_err();
    assert_eq!(e.as_arg().map(|e| e.arg()), Some(Arg::Beta), "{e}");
    // B and C in one allocation, overlapping: only the raw layer can say so.
    let one = gemm.alloc_zeros::<f64>(20 * n).unwrap();
    let (base, _use) = one.device_ptr(gemm.stream());
    // SAFETY: both extents lie inside `one`; the call is refused anyway.
    let e = unsafe {
        gemm.bespoke_raw(&kernel, &BespokeCall::<f64>::new(n as i64), base, base + 8 * 5 * n as u64)
    }
    .unwrap_err();
    assert_eq!(e.as_arg().map(|e| e.arg()), Some(Arg::C), "{e}");
    gemm.synchronize().unwrap();
    let after = c.download(&gemm);
    assert!(c.changed(&after).is_empty(), "a refused call wrote C");
}

#[test]
fn bespoke_gemm_tunes_runs_and_caches() {
    let Some(gemm) = gpu() else { return };
    let options = TuneOptions { plan: Plan { warmup: 1, reps: 3 }, ..TuneOptions::default() };
    let a = Arc::new(awkward());
    let tuner =
        BespokeGemm::<f64>::new(&gemm, Arc::clone(&a), BetaMode::Runtime).unwrap().with_options(options);
    let n = 4099;
    let report = tuner.tune(n).unwrap();
    say(&format!(
        "awkward f64 n = {n}: {} ({:.1} µs); compile {:.2?}, benchmark {:.2?}",
        report.winner.choice, report.winner.median_us, report.compile, report.benchmark
    ));
    assert!(report.dense().is_some_and(|d| d.timing.is_some()), "{report:#?}");
    assert!(report.best_bespoke().is_some(), "{report:#?}");
    assert!(
        report.candidates.iter().all(|c| c.timing.is_none() || c.error.is_some_and(|e| e < 1e-12)),
        "{report:#?}"
    );
    let mut rng = Random::new(3);
    let call = BespokeCall::new(i64::from(n)).ldb(4100).alpha(2.0).beta(0.25);
    let run = |call: &BespokeCall<f64>, b: &Guarded<f64>, c: &mut Guarded<f64>| {
        tuner.run(call, &b.view(), &mut c.view_mut())
    };
    let math = match report.winner.choice {
        Choice::Dense(name) => gemm_kernels::all().find(|e| e.name == name).unwrap().spec.math,
        Choice::Bespoke(spec) => spec.math(),
    };
    check_case(&gemm, &a, call, math, &mut rng, run).unwrap();

    // Through JSON: a new tuner with the loaded cache runs without tuning.
    let text = tuner.cache().to_json();
    let cache = Arc::new(TuneCache::from_json(&text, "test").unwrap());
    let again = BespokeGemm::<f64>::new(&gemm, a, BetaMode::Runtime).unwrap().with_cache(cache);
    assert_eq!(again.choice(n).unwrap(), report.winner.choice);

    // An operator no bespoke kernel takes runs the dense GEMM.
    let dense = Arc::new(Operator::from_fn(600, 600, |i, j| 1.0 + ((i * 7 + j) % 11) as f64 / 8.0).unwrap());
    let tuner =
        BespokeGemm::<f32>::new(&gemm, Arc::clone(&dense), BetaMode::Zero).unwrap().with_options(options);
    let Choice::Dense(name) = tuner.choice(512).unwrap() else {
        panic!("a bespoke kernel for a 600 x 600 dense operator")
    };
    let run = |call: &BespokeCall<f32>, b: &Guarded<f32>, c: &mut Guarded<f32>| {
        tuner.run(call, &b.view(), &mut c.view_mut())
    };
    let call = BespokeCall::new(512);
    let math = gemm_kernels::all().find(|e| e.name == name).unwrap().spec.math;
    check_case(&gemm, &dense, call, math, &mut rng, run).unwrap();
}

/// `TuneOptions::fixed_strides` (the default): every bespoke candidate is
/// timed with the packed call's strides in its code (verified at them), the
/// fastest also with them as arguments, and a winner so compiled serves a packed call as it is and a call with other strides
/// through its runtime-stride twin ([`BespokeSpec::with_runtime_strides`]),
/// both matching the reference.
#[test]
fn bespoke_gemm_with_fixed_strides() {
    let Some(gemm) = gpu() else { return };
    assert!(TuneOptions::default().fixed_strides);
    let options = TuneOptions { plan: Plan { warmup: 1, reps: 3 }, ..TuneOptions::default() };
    let (_, a) = operators::test_set().into_iter().find(|(name, _)| name == "hex-p3-gl-grad").unwrap();
    let a = Arc::new(a);
    let tuner = BespokeGemm::<f64>::new(&gemm, Arc::clone(&a), BetaMode::Zero).unwrap().with_options(options);
    let n = 8192;
    let report = tuner.tune(n).unwrap();
    let bespoke: Vec<&BespokeSpec> = report
        .candidates
        .iter()
        .filter_map(|c| match &c.choice {
            Choice::Bespoke(spec) => Some(spec),
            Choice::Dense(_) => None,
        })
        .collect();
    // Every candidate with the strides in its code, but the fastest one's
    // runtime-stride form, timed last.
    let (runtime, fixed) = bespoke.split_last().expect("bespoke candidates");
    assert!(!fixed.is_empty() && fixed.iter().all(|s| (s.ldb, s.ldc) == (Some(n), Some(n))), "{report:#?}");
    assert_eq!((runtime.ldb, runtime.ldc), (None, None), "{report:#?}");
    assert!(fixed.iter().any(|s| s.with_runtime_strides() == **runtime), "{report:#?}");
    let best = report.best_bespoke().expect("a bespoke kernel for a small operator");
    assert!(best.error.is_some_and(|e| e < 1e-12), "{report:#?}");
    say(&format!(
        "hex-p3-gl-grad f64 n = {n}, fixed strides: {} ({:.1} µs); best bespoke {}; compile {:.2?}",
        report.winner.choice, report.winner.median_us, best.choice, report.compile
    ));
    let math = match report.winner.choice {
        Choice::Dense(name) => gemm_kernels::all().find(|e| e.name == name).unwrap().spec.math,
        Choice::Bespoke(spec) => spec.math(),
    };
    let mut rng = Random::new(5);
    let run = |call: &BespokeCall<f64>, b: &Guarded<f64>, c: &mut Guarded<f64>| {
        tuner.run(call, &b.view(), &mut c.view_mut())
    };
    let packed = BespokeCall::new(i64::from(n)).alpha(1.5);
    check_case(&gemm, &a, packed, math, &mut rng, run).unwrap();
    let padded = packed.ldb(i64::from(n) + 4).ldc(i64::from(n) + 8);
    check_case(&gemm, &a, padded, math, &mut rng, run).unwrap();
}
