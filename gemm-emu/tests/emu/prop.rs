//! Property: any legal spec — drawn from all the macro's constraints, every
//! precision, op pair, shared-load width and cache path — emits PTX that
//! runs clean in the emulator and matches the f64 reference on random small
//! shapes.
//!
//! The draw is biased towards legal specs (thread arrangements, depths and
//! load shapes are picked among the values that can satisfy the divisibility
//! rules) and keeps only those [`gemm_codegen::validate`] accepts. Cases:
//! 48 by default, 1000 with `GEMMFORGE_SLOW=1` (or `PROPTEST_CASES`).
//! Each case also checks that the PTX reads back into the same IR.

use crate::common as emu_common;

use emu_common::{Case, Rng, Scalar, check_spec_any, slow};
use gemm_codegen::{GlobalLoad, KernelSpec, LoadShape, Op, Precision, validate};
use proptest::prelude::*;

fn divisors(n: u32) -> Vec<u32> {
    (1..=n).filter(|&d| n.is_multiple_of(d)).collect()
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn lcm(a: u32, b: u32) -> u32 {
    a / gcd(a, b) * b
}

/// Raw draws, turned into a spec by [`build`].
#[derive(Clone, Debug)]
struct Draw {
    precision: Precision,
    op_a: Op,
    op_b: Op,
    threads: u32,
    m_dim_pick: usize,
    m_thr: u32,
    n_thr: u32,
    k_mult: u32,
    /// A width among those dividing the per-thread tile (any of 1, 2, 4 when
    /// wild).
    lds_pick: usize,
    ldg: GlobalLoad,
    load_a_pick: usize,
    load_b_pick: usize,
    /// Sometimes ignore the bias and take any shape: most of these are
    /// illegal and filtered out, the rest cover shapes the bias never picks.
    wild: bool,
}

/// A load shape for a stored stripe `lead_len × cross_len` read by `threads`
/// threads: one that tiles it, if any (picked by `pick`), else any split.
fn load_shape(threads: u32, lead_len: u32, cross_len: u32, pick: usize, wild: bool) -> LoadShape {
    let all = divisors(threads);
    let fitting: Vec<u32> = all
        .iter()
        .copied()
        .filter(|&l| lead_len.is_multiple_of(l) && cross_len.is_multiple_of(threads / l))
        .collect();
    let options = if fitting.is_empty() || wild { &all } else { &fitting };
    let lead = options[pick % options.len()];
    LoadShape { lead, cross: threads / lead }
}

/// The smallest depth at which both stripes of an `m_dim × n_dim`
/// arrangement computing `m_thr × n_thr` elements each hold a multiple of
/// the thread count.
fn k_base(m_dim: u32, n_dim: u32, m_thr: u32, n_thr: u32) -> u32 {
    lcm(n_dim / gcd(n_dim, m_thr), m_dim / gcd(m_dim, n_thr))
}

fn build(d: &Draw) -> Option<KernelSpec> {
    let t = d.threads;
    // Arrangements whose stripes can be tiled at a depth of at most 32.
    let m_dims: Vec<u32> = divisors(t)
        .into_iter()
        .filter(|&m| d.wild || k_base(m, t / m, d.m_thr, d.n_thr) * d.k_mult <= 32)
        .collect();
    let m_dim = *m_dims.get(d.m_dim_pick % m_dims.len().max(1))?;
    let n_dim = t / m_dim;
    let (m_blk, n_blk) = (m_dim * d.m_thr, n_dim * d.n_thr);
    let k_blk = if d.wild { d.k_mult } else { k_base(m_dim, n_dim, d.m_thr, d.n_thr) * d.k_mult };
    if k_blk > 32 {
        return None;
    }
    let mut spec = KernelSpec {
        ldg: d.ldg,
        ..KernelSpec::new(
            d.precision,
            (d.op_a, d.op_b),
            (m_blk, n_blk, k_blk),
            (m_dim, n_dim),
            (1, 1),
            (1, 1),
        )
    };
    let widths: Vec<u32> = [1, 2, 4]
        .into_iter()
        .filter(|&w| {
            d.wild
                || d.m_thr.is_multiple_of(w)
                    && d.n_thr.is_multiple_of(w)
                    && w * d.precision.element_bytes() <= 16
        })
        .collect();
    spec.lds_width = widths[d.lds_pick % widths.len()];
    let (a_t, b_t) = (spec.eff_op_a() != Op::N, spec.eff_op_b() != Op::N);
    let (a_lead, a_cross) = if a_t { (k_blk, m_blk) } else { (m_blk, k_blk) };
    let (b_lead, b_cross) = if b_t { (n_blk, k_blk) } else { (k_blk, n_blk) };
    spec.load_a = load_shape(t, a_lead, a_cross, d.load_a_pick, d.wild);
    spec.load_b = load_shape(t, b_lead, b_cross, d.load_b_pick, d.wild);
    validate(&spec).ok().map(|_| spec)
}

fn draws() -> impl Strategy<Value = Draw> {
    (
        (
            prop::sample::select(Precision::ALL.to_vec()),
            prop::sample::select(Op::ALL.to_vec()),
            prop::sample::select(Op::ALL.to_vec()),
            prop::sample::select(vec![32u32, 64, 96, 128, 192, 256]),
            any::<usize>(),
        ),
        (1u32..=4, 1u32..=4, 1u32..=2, any::<usize>(), prop::sample::select(GlobalLoad::ALL.to_vec())),
        (any::<usize>(), any::<usize>(), prop::bool::weighted(0.1)),
    )
        .prop_map(
            |(
                (precision, op_a, op_b, threads, m_dim_pick),
                (m_thr, n_thr, k_mult, lds_pick, ldg),
                (la, lb, wild),
            )| {
                Draw {
                    precision,
                    op_a,
                    op_b,
                    threads,
                    m_dim_pick,
                    m_thr,
                    n_thr,
                    k_mult: if wild { k_mult * 4 } else { k_mult },
                    lds_pick,
                    ldg,
                    load_a_pick: la,
                    load_b_pick: lb,
                    wild,
                }
            },
        )
}

fn specs() -> impl Strategy<Value = KernelSpec> {
    draws().prop_filter_map("illegal spec", |d| build(&d))
}

fn cases(spec: &KernelSpec, seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    let mut size = |tile: u32| rng.below(u64::from(2 * tile + 4)) as u32;
    let mut out: Vec<Case> = (0..count)
        .map(|_| Case {
            m: size(spec.m_blk),
            n: size(spec.n_blk),
            k: size(spec.k_blk),
            alpha: Scalar::Random,
            beta: Scalar::Random,
        })
        .collect();
    let mut rng = Rng::new(seed ^ 1);
    for c in &mut out {
        c.alpha = Scalar::ALL[rng.below(3) as usize];
        c.beta = Scalar::ALL[rng.below(3) as usize];
    }
    out
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(if slow() {
        1000
    } else {
        48
    });
    ProptestConfig {
        cases,
        failure_persistence: None,
        max_global_rejects: 100_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_legal_spec_runs_clean_and_matches_the_reference(spec in specs(), seed in any::<u64>()) {
        let module = gemm_codegen::lower(&validate(&spec).unwrap());
        let text = gemm_codegen::ptx::write_string(&module);
        prop_assert_eq!(&gemm_emu::parse(&text).unwrap(), &module);
        let shapes = if slow() { 6 } else { 3 };
        let cases = cases(&spec, seed, shapes);
        if let Err(e) = check_spec_any(&spec, &cases, seed) {
            return Err(TestCaseError::fail(format!("{}\n{e}", spec.to_invocation("Failing"))));
        }
    }
}

#[test]
fn the_draw_is_mostly_legal_and_covers_every_option() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut legal, mut total) = (0, 0);
    let mut seen = std::collections::HashSet::new();
    let mut threads = std::collections::HashSet::new();
    for _ in 0..2000 {
        let d = draws().new_tree(&mut runner).unwrap().current();
        total += 1;
        if let Some(s) = build(&d) {
            legal += 1;
            seen.insert((s.precision, s.eff_op_a(), s.eff_op_b(), s.lds_width, s.ldg));
            threads.insert((s.m_dim, s.n_dim));
        }
    }
    eprintln!(
        "{legal} of {total} draws legal, {} combinations, {} thread arrangements",
        seen.len(),
        threads.len()
    );
    assert!(threads.len() > 20, "{} thread arrangements", threads.len());
    assert!(legal * 2 > total, "only {legal} of {total} draws are legal");
    // Of the 141 precision × effective op pair × width × cache path
    // combinations that can be legal (widths: f32 1, 2, 4; f64 and c32 1, 2;
    // c64 1), nearly all show up.
    assert!(seen.len() >= 120, "{} combinations", seen.len());
}
