//! Every `gemm_bespoke!` instance of `gemm_kernels::bespoke` in the PTX
//! emulator, against a direct `f64` computation of `C = alpha·A·B + beta·C`
//! from the operator file it was compiled from: ragged and padded `n`,
//! row gaps in B and C filled with NaN (B's never read, C's never written),
//! and C filled with NaN where the kernel computes `beta = 0` (never read).
//!
//! The instances are checked as types (`K::image()`, `K::Elem`), and the
//! list of them against [`ALL`], so a new instance without a check fails.

use gemm_codegen::Element;
use gemm_codegen::bespoke::{BespokeKernel, BetaMode, Operator, digest, mtx};
use gemm_emu::{Bespoke, Options};
use gemm_kernels::bespoke::{ALL, HexP3Grad, HexP3GradStaged, QuadP4Grad, QuadP4Interp, Rand48x40};

/// The element types of bespoke kernels, from and to `f64`.
trait Real: Element + Into<f64> {
    /// `v` rounded to this type.
    fn of(v: f64) -> Self;
    /// Its machine epsilon.
    const EPSILON: f64;
}

impl Real for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
    const EPSILON: f64 = f32::EPSILON as f64;
}

impl Real for f64 {
    fn of(v: f64) -> f64 {
        v
    }
    const EPSILON: f64 = f64::EPSILON;
}

/// A small deterministic generator (SplitMix64) of values in `[-2, 2)`.
struct Random(u64);

impl Random {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    }
}

/// The operator of the instance called `name`, read from its file.
fn operator_of(name: &str) -> Operator {
    let entry = ALL.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("{name} is not in ALL"));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(entry.file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    mtx::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One call: `n` columns, B's and C's rows padded by `pad` elements each.
#[derive(Clone, Copy, Debug)]
struct Call {
    n: u32,
    pad_b: u32,
    pad_c: u32,
    alpha: f64,
    beta: f64,
}

/// Runs `K` on one call with random B and C and compares every element of
/// C with the `f64` reference; the C gaps must keep their NaN bits.
fn run<K: BespokeKernel>(a: &Operator, call: Call, rng: &mut Random) -> Result<(), String>
where
    K::Elem: Real,
{
    let (m, k) = (a.rows(), a.cols());
    let Call { n, pad_b, pad_c, alpha, beta } = call;
    let (n, ldb, ldc) = (n as usize, (n + pad_b) as usize, (n + pad_c) as usize);
    let nan = <K::Elem as Real>::of(f64::NAN);
    let reads_c = K::SPEC.beta.computes(beta) && beta != 0.0;
    let mut b = vec![nan; k * ldb];
    let mut c = vec![nan; m * ldc];
    for (row, stride, rows) in [(&mut b, ldb, k), (&mut c, ldc, m)].map(|(v, s, r)| (v, s, r)) {
        for i in 0..rows {
            for j in 0..n {
                row[i * stride + j] = <K::Elem as Real>::of(rng.next());
            }
        }
    }
    if !reads_c {
        // Never read: a NaN that reached the result would show.
        for i in 0..m {
            c[i * ldc..i * ldc + n].fill(nan);
        }
    }
    let before = c.clone();
    let emu = Bespoke::new(&K::image()).map_err(|e| e.to_string())?;
    let (alpha_t, beta_t) = (<K::Elem as Real>::of(alpha), <K::Elem as Real>::of(beta));
    emu.run(n as u32, ldb as u64, ldc as u64, alpha_t, beta_t, &b, &mut c, &Options::default())
        .map_err(|e| format!("{call:?}: {e}"))?;

    let wide = |x: K::Elem| -> f64 { x.into() };
    let beta = match K::SPEC.beta {
        BetaMode::Zero => 0.0,
        BetaMode::One => 1.0,
        BetaMode::Runtime => beta,
    };
    for i in 0..m {
        for j in 0..ldc {
            let got = c[i * ldc + j];
            if j >= n {
                if wide(got).to_bits() != wide(before[i * ldc + j]).to_bits() {
                    return Err(format!("{call:?}: C({i}, {j}) in the row gap was written"));
                }
                continue;
            }
            // A's values as the kernel holds them, rounded to its precision.
            let (mut sum, mut size) = (0.0, 0.0);
            for l in 0..k {
                let term = wide(<K::Elem as Real>::of(a.get(i, l))) * wide(b[l * ldb + j]);
                sum += term;
                size += term.abs();
            }
            let c0 = if beta == 0.0 { 0.0 } else { wide(before[i * ldc + j]) };
            let want = alpha * sum + beta * c0;
            let bound =
                (k as f64 + 2.0) * <K::Elem as Real>::EPSILON * (alpha.abs() * size + beta.abs() * c0.abs());
            let got = wide(got);
            if !(got - want).abs().le(&(bound + f64::MIN_POSITIVE)) {
                return Err(format!("{call:?}: C({i}, {j}) = {got}, want {want} (within {bound:e})"));
            }
        }
    }
    Ok(())
}

/// Every call of one instance: `n` of one vector, ragged past one block,
/// and past two with padded rows; for a run-time beta, also `beta = 0`.
fn check<K: BespokeKernel>(name: &str) -> Vec<String>
where
    K::Elem: Real,
{
    let a = operator_of(name);
    let mut failures = Vec::new();
    // The compile-time operator is the file's.
    let facts = (K::M as usize, K::K as usize, K::DIGEST);
    if facts != (a.rows(), a.cols(), digest(&a)) {
        failures.push(format!(
            "{name}: compiled for {facts:?}, the file holds {:?}",
            (a.rows(), a.cols(), digest(&a))
        ));
    }
    let entry = ALL.iter().find(|e| e.name == name).expect("operator_of found it");
    if entry.image() != K::image() {
        failures.push(format!("{name}: ALL's entry is not the type's image"));
    }
    let w = K::SPEC.width;
    let per_block = K::SPEC.columns_per_block();
    let beta = match K::SPEC.beta {
        BetaMode::Zero => 0.0,
        BetaMode::One => 1.0,
        BetaMode::Runtime => -0.75,
    };
    let mut calls = vec![
        Call { n: w, pad_b: 0, pad_c: 0, alpha: 1.0, beta },
        Call { n: per_block + 3 * w, pad_b: w, pad_c: 2 * w, alpha: 1.25, beta },
        Call { n: 2 * per_block + 5 * w, pad_b: 3 * w, pad_c: w, alpha: -0.5, beta },
    ];
    if K::SPEC.beta == BetaMode::Runtime {
        calls.push(Call { n: 7 * w, pad_b: 0, pad_c: w, alpha: 1.0, beta: 0.0 });
    }
    let mut rng = Random(K::DIGEST);
    for call in calls {
        if let Err(e) = run::<K>(&a, call, &mut rng) {
            failures.push(format!("{name} ({}): {e}", K::ENTRY));
        }
    }
    failures
}

#[test]
fn every_instance_matches_the_f64_reference() {
    let checked = ["HexP3Grad", "HexP3GradStaged", "QuadP4Interp", "QuadP4Grad", "Rand48x40"];
    let failures: Vec<String> = [
        check::<HexP3Grad>(checked[0]),
        check::<HexP3GradStaged>(checked[1]),
        check::<QuadP4Interp>(checked[2]),
        check::<QuadP4Grad>(checked[3]),
        check::<Rand48x40>(checked[4]),
    ]
    .concat();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    let all: Vec<&str> = ALL.iter().map(|e| e.name).collect();
    assert_eq!(all, checked, "every instance of ALL is checked here");
}

#[test]
fn instances_with_and_without_family_take_the_spec_they_say() {
    use gemm_codegen::Precision;
    use gemm_codegen::bespoke::{BespokeSpec, Form, default_spec};
    // Given: exactly the invocation's fields, the rest BespokeSpec::new's.
    let staged = BespokeSpec {
        width: 2,
        block: 64,
        msplit: 4,
        chunk: 8,
        beta: BetaMode::Zero,
        ..BespokeSpec::new(Precision::F32)
    };
    assert_eq!(HexP3GradStaged::SPEC, staged);
    assert_eq!(QuadP4Interp::SPEC.form, Form::CStream);
    // Left out: the operator's default for its precision, beta and arch.
    let hex = operator_of("HexP3Grad");
    let s = HexP3Grad::SPEC;
    assert_eq!(Some(s), default_spec(&hex, Precision::F64, BetaMode::Runtime, s.arch));
    let quad = operator_of("QuadP4Grad");
    let s = QuadP4Grad::SPEC;
    assert_eq!(Some(s), default_spec(&quad, Precision::F64, BetaMode::Zero, s.arch));
    let _: <HexP3GradStaged as BespokeKernel>::Elem = 1.0f32;
    let _: <Rand48x40 as BespokeKernel>::Elem = 1.0f64;
}
