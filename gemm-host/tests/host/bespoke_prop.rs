//! Property: a bespoke call on random arguments — negative and huge `n`,
//! `ldb`, `ldc`, buffers short or long, widths their arguments miss, every
//! beta mode and `alpha`, `beta` of 0, 1 or another value — never panics in
//! `Emulator::bespoke`, and either is refused with C untouched or matches
//! the `f64` reference with nothing written outside C's `m × n` part.

use std::sync::{Arc, OnceLock};

use gemm_codegen::Math;
use gemm_host::bespoke::{BespokeCall, BespokeKernel, BespokeSpec, BetaMode, Operator};
use gemm_host::case::in_matrix;
use gemm_host::emulate::Emulator;
use gemm_host::reference::{self, same_bits};
use gemm_host::{GemmError, Matrix, Precision};
use proptest::prelude::*;

/// 5 × 4, one empty row, entries ±1 and others.
fn operator() -> Arc<Operator> {
    Arc::new(
        Operator::from_fn(5, 4, |i, j| match (i, j) {
            (2, _) => 0.0,
            _ if (i + j) % 2 == 0 => 1.0,
            _ if i == j + 1 => -1.0,
            _ => 0.25 * (i + 1) as f64 - 0.5 * j as f64,
        })
        .unwrap(),
    )
}

/// Kernels of widths 1 and 2 (staged or not), each beta mode, compiled once.
fn kernels() -> &'static Vec<BespokeKernel> {
    static KERNELS: OnceLock<Vec<BespokeKernel>> = OnceLock::new();
    KERNELS.get_or_init(|| {
        let mut out = Vec::new();
        for beta in BetaMode::ALL {
            for (width, msplit) in [(1, 1), (2, 1), (2, 2)] {
                let spec = BespokeSpec {
                    width,
                    msplit,
                    block: 32,
                    chunk: 2,
                    beta,
                    ..BespokeSpec::new(Precision::F64)
                };
                out.push(BespokeKernel::compile(operator(), &spec).unwrap());
            }
        }
        out
    })
}

fn emulator() -> &'static Emulator {
    static EMU: OnceLock<Emulator> = OnceLock::new();
    EMU.get_or_init(Emulator::new)
}

fn size() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => 0i64..48,
        1 => -3i64..0,
        1 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(i64::from(i32::MAX) + 1), (1i64 << 31)..(1i64 << 62)],
    ]
}

/// An `ld` relative to `n`: at least it (often odd), one below, or absolute.
fn ld() -> impl Strategy<Value = (u8, i64)> {
    prop_oneof![6 => (Just(0u8), 0i64..5), 1 => Just((1u8, 0)), 1 => (Just(2u8), -2i64..3)]
}

fn scalar() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(1.0), Just(-0.0), -2.0f64..2.0]
}

/// Buffer length relative to what is needed: exact, longer, one short, empty.
fn len() -> impl Strategy<Value = (u8, usize)> {
    prop_oneof![5 => (Just(0u8), 0usize..3), 1 => (Just(0u8), 3usize..40), 1 => Just((1u8, 0)), 1 => Just((2u8, 0))]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn bespoke_calls_never_panic_and_are_refused_or_right(
        kernel in 0usize..9,
        n in size(),
        (ldb, ldc) in (ld(), ld()),
        (alpha, beta) in (scalar(), scalar()),
        (b_len, c_len) in (len(), len()),
        seed in any::<u64>(),
    ) {
        let kernel = &kernels()[kernel];
        let resolve = |(kind, v): (u8, i64)| match kind {
            0 => n.max(1).saturating_add(v),
            1 => n.max(1) - 1,
            _ => v,
        };
        let call = BespokeCall::new(n).ldb(resolve(ldb)).ldc(resolve(ldc)).alpha(alpha).beta(beta);
        let cfg = call.gemm_config(5, 4);
        // Buffers no longer than 4096 elements: a huge call is refused for them.
        let sized = |matrix, (kind, extra): (u8, usize)| {
            let need = cfg.required_len(matrix).min(4096) as usize;
            match kind {
                0 => (need + extra).min(4096),
                1 => need.saturating_sub(1),
                _ => 0,
            }
        };
        let mut rng = reference::Random::new(seed);
        let b: Vec<f64> = rng.matrix(sized(Matrix::B, b_len));
        let c0: Vec<f64> = rng.matrix(sized(Matrix::C, c_len));
        let mut c = c0.clone();
        match emulator().bespoke(kernel, &call, &b, &mut c) {
            Err(e) => {
                prop_assert!(matches!(e, GemmError::Arg(_)), "not an argument error: {e}");
                prop_assert!(c.iter().zip(&c0).all(|(x, y)| same_bits(*x, *y)), "C written on error: {e}");
            }
            Ok(_) => {
                let a: Vec<f64> = operator().values().to_vec();
                let expected = reference::gemm(&cfg, &a, &b, &c0).expect("accepted, so valid");
                let bound = reference::gemm_bound(&cfg, &a, &b, &c0).expect("valid");
                let got = reference::logical_c(&cfg, &c);
                let err = reference::componentwise_error(&got, &expected, &bound);
                prop_assert!(err < reference::tolerance(Precision::F64, Math::Fma, cfg.k as u64), "error {err:e}");
                for (i, (x, y)) in c.iter().zip(&c0).enumerate() {
                    if !in_matrix(&cfg, Matrix::C, i) || i >= cfg.required_len(Matrix::C) as usize {
                        prop_assert!(same_bits(*x, *y), "C[{i}] outside the matrix written");
                    }
                }
            }
        }
    }
}
