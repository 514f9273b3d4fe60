//! Bespoke constant-A kernels in the PTX emulator, checked like every GEMM
//! by [`Case::check`]: the bespoke call `C = alpha · A · B + beta · C` is the
//! row-major GEMM with A the operator (`lda = k`), so the one f64 reference
//! and the one result check apply unchanged — B untouched, nothing written
//! outside C's `m × n` part (gaps between rows included, `ldc > n`), NaN in
//! C never read when `beta = 0`, C within the precision's tolerance.

use gemm_codegen::bespoke::{self, BespokeImage, BespokeSpec, BetaMode, Form, Operator, operators};
use gemm_codegen::{Element, Precision, Target};
use gemm_emu::{Bespoke, FaultKind, Options};
use gemm_host::case::{Case, GUARD};
use gemm_host::reference::Random;
use gemm_host::{GemmConfig, Matrix, Op};

/// Runs `image` on random B and C of `n` columns with row strides `ldb`,
/// `ldc` and checks the result.
fn run<T: Element>(
    image: &BespokeImage,
    a: &Operator,
    n: i64,
    (ldb, ldc): (i64, i64),
    (alpha, beta): (T, T),
    rng: &mut Random,
) -> Result<(), String> {
    let (m, k) = (a.rows() as i64, a.cols() as i64);
    let cfg = GemmConfig::<T>::row_major(Op::N, Op::N, m, n, k).ldb(ldb).ldc(ldc).alpha(alpha).beta(beta);
    let values: Vec<T> = a.values().iter().map(|&v| narrow::<T>(v)).collect();
    let case = Case::with_a(cfg, &values, rng);
    assert!(image.ptx.is_ascii(), "{}: PTX must be ASCII", image.entry);
    let emu = Bespoke::new(image).map_err(|e| e.to_string())?;
    let (b, mut c) = (case.guarded(Matrix::B).to_vec(), case.guarded(Matrix::C).to_vec());
    let len = c.len();
    let what = format!("{} n={n} ldb={ldb} ldc={ldc} beta={beta:?}", image.entry);
    emu.run(
        n as u32,
        ldb as u64,
        ldc as u64,
        alpha,
        beta,
        &b[GUARD..b.len() - GUARD],
        &mut c[GUARD..len - GUARD],
        &Options::default(),
    )
    .map_err(|e| format!("{what}: {e}"))?;
    case.check(case.guarded(Matrix::A), &b, &c, image.spec.math())
        .map(|_| ())
        .map_err(|e| format!("{what}: {e}"))
}

fn narrow<T: Element>(v: f64) -> T {
    gemm_host::reference::narrow(gemm_host::num_complex::Complex::new(v, 0.0))
}

/// A small operator with every case the generator distinguishes: entries
/// ±1 (no multiply), an empty row, an empty column, a dense row.
fn awkward() -> Operator {
    Operator::from_fn(7, 6, |i, j| match (i, j) {
        (3, _) | (_, 4) => 0.0,
        (0, _) => 0.5 + j as f64,
        _ if (i + j) % 3 == 0 => 1.0,
        _ if (i + j) % 3 == 1 => -1.0,
        _ if (i * j) % 2 == 0 => -0.375 * i as f64,
        _ => 0.0,
    })
    .unwrap()
}

fn specs(precision: Precision) -> Vec<BespokeSpec> {
    let base = BespokeSpec { block: 32, chunk: 4, ..BespokeSpec::new(precision) };
    let widths: &[u32] = if precision == Precision::F32 { &[1, 2, 4] } else { &[1, 2] };
    let mut out = Vec::new();
    {
        for (width, chunk, arch) in
            [(1, 1, Target::Sm80), (2, 4, Target::Sm80), (4, 2, Target::Sm90), (1, 3, Target::Sm90)]
        {
            for beta in BetaMode::ALL {
                out.push(BespokeSpec { form: Form::Mma, width, chunk, beta, arch, block: 64, ..base });
            }
        }
    }
    for &width in widths {
        for beta in BetaMode::ALL {
            out.push(BespokeSpec { width, beta, ..base });
            out.push(BespokeSpec { width, beta, form: Form::CStream, chunk: 3, ..base });
            out.push(BespokeSpec { width, beta, msplit: 3, chunk: 2, ..base });
            out.push(BespokeSpec { width, beta, form: Form::Split, msplit: 3, chunk: 2, ..base });
        }
    }
    out
}

fn sweep<T: Element>(seed: u64) {
    let mut rng = Random::new(seed);
    let a = awkward();
    let mut failures = Vec::new();
    for spec in specs(T::PRECISION) {
        let image = bespoke::compile(&a, &spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
        let w = i64::from(spec.width);
        // Ragged n (not a multiple of the block's columns), padded rows.
        for (n, pad) in [(w, 0), (13 * w, w), (40 * w, 3 * w)] {
            let beta: T = match spec.beta {
                BetaMode::Zero => T::ZERO,
                BetaMode::One => T::ONE,
                BetaMode::Runtime => narrow(-0.75),
            };
            let alpha: T = narrow(1.25);
            if let Err(e) = run(&image, &a, n, (n + pad, n + 2 * pad), (alpha, beta), &mut rng) {
                failures.push(e);
            }
        }
        if spec.beta == BetaMode::Runtime {
            // beta = 0 at run time: C (NaN-poisoned by the case) is not read.
            if let Err(e) = run(&image, &a, 9 * w, (9 * w, 9 * w), (T::ONE, T::ZERO), &mut rng) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_form_width_split_and_beta_mode_matches_the_reference_f32() {
    sweep::<f32>(1);
}

#[test]
fn every_form_width_split_and_beta_mode_matches_the_reference_f64() {
    sweep::<f64>(2);
}

/// Operators of the test set small enough for the emulator in CI: real
/// interpolation and differentiation operators and random sparse ones.
#[test]
fn test_set_operators_in_both_precisions() {
    let mut rng = Random::new(3);
    let mut ran = 0;
    for (name, a) in operators::test_set() {
        if a.rows() * a.cols() > 4096 || a.rows() > 64 {
            continue;
        }
        for precision in [Precision::F32, Precision::F64] {
            for form in [Form::BStream, Form::Split] {
                let spec =
                    BespokeSpec { form, block: 32, width: 2, msplit: 2, ..BespokeSpec::new(precision) };
                let image = bespoke::compile(&a, &spec).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                let r = match precision {
                    Precision::F32 => run::<f32>(&image, &a, 70, (72, 70), (1.0, 0.5), &mut rng),
                    _ => run::<f64>(&image, &a, 70, (72, 70), (1.0, 0.5), &mut rng),
                };
                r.unwrap_or_else(|e| panic!("{name} {spec}: {e}"));
                ran += 1;
            }
        }
    }
    assert!(ran >= 40, "only {ran} kernels ran");
}

/// Mutations the emulator must catch in a staged kernel: a missing
/// `cp.async` wait, a missing barrier, a vector access misaligned by an odd
/// row stride.
#[test]
fn the_emulator_catches_the_staged_kernels_typical_mistakes() {
    let a = awkward();
    let spec = BespokeSpec { block: 32, msplit: 3, chunk: 2, width: 2, ..BespokeSpec::new(Precision::F64) };
    let image = bespoke::compile(&a, &spec).unwrap();
    let fault = |ptx: String, ldb: u64| -> FaultKind {
        let mutated = BespokeImage { ptx: ptx.into(), ..image.clone() };
        let emu = Bespoke::new(&mutated).unwrap();
        let n = 64;
        let b = vec![1.0f64; (6 * ldb) as usize];
        let mut c = vec![0.0f64; 7 * n];
        let e = emu.run(n as u32, ldb, n as u64, 1.0, 0.5, &b, &mut c, &Options::default()).unwrap_err();
        e.fault().unwrap_or_else(|| panic!("not a fault: {e}")).kind.clone()
    };
    let no_wait = image.ptx.replacen("cp.async.wait_group\t1;", "", 1);
    assert!(matches!(fault(no_wait, 64), FaultKind::AsyncCopyInFlight { .. }), "missing wait");
    let lines: Vec<&str> = image.ptx.lines().collect();
    let last_bar = lines.iter().rposition(|l| l.trim() == "bar.sync\t0;").unwrap();
    let first_bar = lines.iter().position(|l| l.trim() == "bar.sync\t0;").unwrap();
    assert!(first_bar < last_bar);
    let mut cut = lines.clone();
    cut.remove(first_bar);
    let kind = fault(cut.join("\n"), 64);
    assert!(
        matches!(
            kind,
            FaultKind::AsyncCopyInFlight { .. }
                | FaultKind::Race { .. }
                | FaultKind::SharedUninitialized { .. }
        ),
        "missing barrier: {kind:?}"
    );
    assert!(matches!(fault(image.ptx.to_string(), 63), FaultKind::Misaligned { .. }), "odd ldb with width 2");
}

/// Mutations of a tensor-core kernel: a fragment word in the wrong lane
/// fails the result check, and an `mma` some lanes skip is a fault.
#[test]
fn the_mma_forms_typical_mistakes_are_caught() {
    let a = awkward();
    let spec =
        BespokeSpec { form: Form::Mma, block: 64, width: 2, chunk: 2, ..BespokeSpec::new(Precision::F64) };
    let image = bespoke::compile(&a, &spec).unwrap();
    let mut rng = Random::new(9);
    run::<f64>(&image, &a, 40, (41, 43), (1.0, 0.5), &mut rng).expect("the kernel as generated");
    // Lanes 0 and 1 of the first fragment swapped: A[0][0] and A[0][1].
    let text = image.ptx.to_string();
    let start = text.find("= {").unwrap();
    let words: Vec<&str> =
        text[start..].split(['{', ',', '}']).map(str::trim).filter(|w| w.starts_with("0x")).take(2).collect();
    assert_ne!(words[0], words[1], "the test needs two different entries");
    let swapped =
        text.replacen(words[0], "SWAP", 1).replacen(words[1], words[0], 1).replacen("SWAP", words[1], 1);
    let wrong = BespokeImage { ptx: swapped.into(), ..image.clone() };
    let e = run::<f64>(&wrong, &a, 40, (41, 43), (1.0, 0.5), &mut rng).unwrap_err();
    assert!(e.contains("relative error"), "{e}");
    // The mma guarded by a per-lane predicate: lanes past n skip it.
    let mma_line = text.lines().find(|l| l.trim_start().starts_with("mma.sync")).unwrap();
    let guarded = text.replacen(mma_line, &format!("\t@%p_bcol0 {}", mma_line.trim_start()), 1);
    let diverged = BespokeImage { ptx: guarded.into(), ..image };
    let e = run::<f64>(&diverged, &a, 3, (3, 3), (1.0, 0.5), &mut rng).unwrap_err();
    assert!(e.contains("mma"), "{e}");
}

/// The tensor-core form with warp groups splitting A's row tiles: a tall
/// operator with an all-zero row tile and a zero k-tile, in both
/// precisions, 1 to 3 groups, every beta mode.
#[test]
fn mma_warp_groups_split_the_row_tiles() {
    let a = Operator::from_fn(41, 13, |i, j| match (i / 8, j / 4) {
        (2, _) | (_, 1) => 0.0,
        _ => ((i * 13 + j) % 7) as f64 - 3.0,
    })
    .unwrap();
    let mut rng = Random::new(11);
    let mut failures = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        for (msplit, block, width, arch) in
            [(2, 64, 1, Target::Sm80), (3, 96, 2, Target::Sm80), (2, 128, 1, Target::Sm90)]
        {
            for beta in BetaMode::ALL {
                let spec = BespokeSpec {
                    form: Form::Mma,
                    msplit,
                    block,
                    width,
                    chunk: 2,
                    beta,
                    arch,
                    ..BespokeSpec::new(precision)
                };
                let image = bespoke::compile(&a, &spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
                let n = 8 * width as i64 * (block as i64 / 32 / msplit as i64) + 5;
                let r = match (precision, beta) {
                    (Precision::F64, BetaMode::Zero) => {
                        run::<f64>(&image, &a, n, (n + 1, n + 2), (0.5, 0.0), &mut rng)
                    }
                    (Precision::F64, BetaMode::One) => {
                        run::<f64>(&image, &a, n, (n + 1, n + 2), (0.5, 1.0), &mut rng)
                    }
                    (Precision::F64, _) => run::<f64>(&image, &a, n, (n, n), (0.5, -2.0), &mut rng),
                    (_, BetaMode::Zero) => run::<f32>(&image, &a, n, (n + 1, n + 2), (0.5, 0.0), &mut rng),
                    (_, BetaMode::One) => run::<f32>(&image, &a, n, (n + 1, n + 2), (0.5, 1.0), &mut rng),
                    _ => run::<f32>(&image, &a, n, (n, n), (0.5, -2.0), &mut rng),
                };
                if let Err(e) = r {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
