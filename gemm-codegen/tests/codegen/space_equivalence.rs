//! The search space and `validate_with` are one implementation: on every
//! spec of a sub-range, the space yields it exactly when `validate_with`
//! accepts it (and, with guidelines, when the guidelines admit its stats).

use gemm_codegen::Target;
use std::collections::BTreeSet;

use gemm_codegen::device::{ArchLimits, ComputeCapability, DeviceLimits, DriverLimits};
use gemm_codegen::space::{Bounds, Guidelines, Space, Stats};
use gemm_codegen::{GlobalLoad, KernelSpec, LoadShape, Math, Op, Precision, Rule, legal_with, validate_with};
use proptest::prelude::*;

/// A small imaginary GPU whose limits bite within small bounds: 4-thread
/// warps, 16 threads per block, 384 bytes of shared memory per block and 64
/// registers per thread, so every hard rule rejects something.
fn toy_device() -> DeviceLimits {
    DeviceLimits {
        driver: DriverLimits {
            name: "toy".into(),
            compute_capability: ComputeCapability::new(9, 0),
            warp_size: 4,
            max_threads_per_block: 16,
            max_regs_per_block: 1024,
            max_regs_per_sm: 2048,
            max_shared_per_block: 384,
            max_shared_per_block_optin: 384,
            max_shared_per_sm: 1536,
            sm_count: 1,
            clock_khz: 1_000_000,
        },
        arch: ArchLimits {
            compute_capability: ComputeCapability::new(9, 0),
            max_warps_per_sm: 12,
            max_blocks_per_sm: 5,
            max_regs_per_thread: 64,
            reserved_shared_per_block: 0,
            reg_alloc_unit: 8,
            warp_alloc_granularity: 1,
            shared_alloc_unit: 16,
        },
    }
}

/// How thoroughly [`brute_force`] tries load shapes.
#[derive(Clone, Copy, PartialEq)]
enum Loads {
    /// Every pair of shapes at every point.
    All,
    /// At a point where `validate_with` rejects the first pair of shapes for
    /// a rule that never reads the load shapes (threads, tile, lds_width,
    /// resources), no other pair: it would reject those too. Resources are
    /// load-independent as well: they are checked once the loads fit, and a
    /// pair that does not fit is rejected for that.
    SkipRejectedPoints,
}

/// Every spec of precision and ops with parameters in `bounds` and load
/// shapes that rearrange the block's threads (every divisor pair) — plus one
/// per operand that does not, which `validate_with` must reject — that
/// `validate_with` accepts and `guidelines` admit.
fn brute_force(
    precision: Precision,
    (op_a, op_b): (Op, Op),
    device: &DeviceLimits,
    bounds: &Bounds,
    guidelines: &Guidelines,
    loads: Loads,
) -> BTreeSet<KernelSpec> {
    let limits = device.hard();
    let mut out = BTreeSet::new();
    for m_dim in bounds.m_dim.clone() {
        for n_dim in bounds.n_dim.clone() {
            let threads = m_dim * n_dim;
            let mut shapes: Vec<LoadShape> = (1..=threads)
                .filter(|lead| threads % lead == 0)
                .map(|lead| LoadShape { lead, cross: threads / lead })
                .collect();
            shapes.push(LoadShape { lead: 1, cross: threads + 1 });
            for m_blk in bounds.m_blk.clone() {
                for n_blk in bounds.n_blk.clone() {
                    for k_blk in bounds.k_blk.clone() {
                        for &lds_width in &bounds.lds_widths {
                            if loads == Loads::SkipRejectedPoints {
                                let probe = KernelSpec {
                                    lds_width,
                                    ..KernelSpec::new(
                                        precision,
                                        (op_a, op_b),
                                        (m_blk, n_blk, k_blk),
                                        (m_dim, n_dim),
                                        (shapes[0].lead, shapes[0].cross),
                                        (shapes[0].lead, shapes[0].cross),
                                    )
                                };
                                let load_rules = [Rule::LoadThreads, Rule::LoadNotDividingStripe];
                                if legal_with(&probe, &limits)
                                    .is_err_and(|rules| rules.iter().any(|r| !load_rules.contains(r)))
                                {
                                    continue;
                                }
                            }
                            for &load_a in &shapes {
                                for &load_b in &shapes {
                                    for &ldg in &bounds.ldgs {
                                        let spec = KernelSpec {
                                            lds_width,
                                            ldg,
                                            ..KernelSpec::new(
                                                precision,
                                                (op_a, op_b),
                                                (m_blk, n_blk, k_blk),
                                                (m_dim, n_dim),
                                                (load_a.lead, load_a.cross),
                                                (load_b.lead, load_b.cross),
                                            )
                                        };
                                        if let Ok(plan) = legal_with(&spec, &limits)
                                            && guidelines.admits(&Stats::of(&plan, device))
                                        {
                                            out.insert(spec);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Checks the space against the brute force: same specs, each once, count
/// equal to the listing; returns the count.
fn check(space: &Space, loads: Loads) -> u64 {
    let listed = space.specs();
    let set: BTreeSet<KernelSpec> = listed.iter().copied().collect();
    assert_eq!(set.len(), listed.len(), "the space lists a spec twice");
    let expected = brute_force(
        space.precision,
        (space.op_a, space.op_b),
        &space.device,
        &space.bounds,
        &space.guidelines,
        loads,
    );
    let missing: Vec<_> = expected.difference(&set).take(3).collect();
    let extra: Vec<_> = set.difference(&expected).take(3).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:#?}\nextra {extra:#?}");
    let count = space.count();
    assert_eq!(count.survivors, listed.len() as u64);
    if space.guidelines == Guidelines::NONE {
        assert_eq!(count.hard, count.survivors);
    }
    count.survivors
}

fn toy_bounds() -> Bounds {
    Bounds {
        m_dim: 1..=6,
        n_dim: 1..=6,
        m_blk: 0..=8,
        n_blk: 1..=8,
        k_blk: 0..=4,
        lds_widths: vec![0, 1, 2, 3, 4],
        ldgs: vec![GlobalLoad::Nc, GlobalLoad::Cg],
    }
}

/// Exhaustive on a toy GPU: every hard rule rejects part of the sub-range.
#[test]
fn hard_constraints_match_validate_with_exhaustively_on_a_toy_gpu() {
    let device = toy_device();
    let cases = [
        (Precision::F32, (Op::N, Op::N)),
        (Precision::F64, (Op::N, Op::T)),
        (Precision::C32, (Op::C, Op::N)),
        (Precision::C64, (Op::T, Op::C)),
    ];
    for (precision, (op_a, op_b)) in cases {
        let space = Space::new(precision, op_a, op_b, device.clone()).with_bounds(toy_bounds());
        let n = check(&space, Loads::All);
        assert!(n > 50, "{precision} {op_a}{op_b}: only {n} specs, the sub-range tests too little");
    }
}

/// Exhaustive on a toy GPU with guidelines: the space keeps exactly the
/// legal specs whose stats the guidelines admit.
#[test]
fn guidelines_match_stats_exhaustively_on_a_toy_gpu() {
    let device = toy_device();
    let guidelines =
        Guidelines { min_threads_per_sm: 16, min_blocks_per_sm: 2, min_reuse: 1.0, ..Guidelines::NONE };
    let space = Space::new(Precision::F32, Op::T, Op::N, device)
        .with_bounds(toy_bounds())
        .with_guidelines(guidelines);
    let n = check(&space, Loads::All);
    let hard = space.count().hard;
    assert!(n > 10 && n < hard, "{n} of {hard}: the guidelines should prune some but not all");
}

/// SGEMM NN on sm_90 within thread dimensions ≤ 8, tiles ≤ 32, K_blk ≤ 8:
/// the space and the brute force agree, and the number is pinned so that a
/// change to the constraints is noticed.
#[test]
fn sm90_sub_range_is_pinned_and_matches_validate_with() {
    let device = DeviceLimits::for_arch("sm_90").unwrap();
    let bounds = Bounds {
        m_dim: 1..=8,
        n_dim: 1..=8,
        m_blk: 1..=32,
        n_blk: 1..=32,
        k_blk: 1..=8,
        lds_widths: vec![1, 2, 4],
        ldgs: vec![GlobalLoad::Nc],
    };
    let space = Space::new(Precision::F32, Op::N, Op::N, device).with_bounds(bounds);
    assert_eq!(check(&space, Loads::SkipRejectedPoints), 969);
}

fn any_precision() -> impl Strategy<Value = Precision> {
    prop::sample::select(Precision::ALL.to_vec())
}

fn any_op() -> impl Strategy<Value = Op> {
    prop::sample::select(Op::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random (tile, threads) points of the full sm_90 space: the space
    /// restricted to the point holds exactly the specs `validate_with`
    /// accepts there (every load shape, width 0 to 5, every ldg), and with
    /// Table 1's guidelines those its stats admit.
    #[test]
    fn sm90_points_match_validate_with(
        precision in any_precision(),
        op_a in any_op(),
        op_b in any_op(),
        m_dim in prop::sample::select(vec![1u32, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96]),
        n_dim in prop::sample::select(vec![1u32, 2, 4, 8, 16, 32, 64, 128, 256]),
        m_mul in 1u32..=16,
        n_mul in 1u32..=16,
        k_blk in 1u32..=64,
        table1 in any::<bool>(),
    ) {
        let (m_blk, n_blk) = ((m_dim * m_mul).min(256), (n_dim * n_mul).min(256));
        let device = DeviceLimits::for_arch("sm_90").unwrap();
        let bounds = Bounds {
            m_dim: m_dim..=m_dim,
            n_dim: n_dim..=n_dim,
            m_blk: m_blk..=m_blk,
            n_blk: n_blk..=n_blk,
            k_blk: k_blk..=k_blk,
            lds_widths: vec![0, 1, 2, 3, 4, 5],
            ldgs: GlobalLoad::ALL.to_vec(),
        };
        let guidelines = if table1 { Guidelines::table1(precision) } else { Guidelines::NONE };
        let space = Space::new(precision, op_a, op_b, device).with_bounds(bounds).with_guidelines(guidelines);
        check(&space, Loads::All);
        for spec in space.specs() {
            prop_assert!(space.contains(&spec));
        }
    }
}

/// The toy sub-range is worth testing on: `validate_with` rejects parts of
/// it for every rule there is.
#[test]
fn toy_sub_range_breaks_every_rule() {
    let limits = toy_device().hard();
    let bounds = toy_bounds();
    let mut seen = BTreeSet::new();
    for precision in [Precision::F32, Precision::C64] {
        for m_dim in bounds.m_dim.clone() {
            for n_dim in bounds.n_dim.clone() {
                let threads = m_dim * n_dim;
                for m_blk in bounds.m_blk.clone() {
                    for k_blk in bounds.k_blk.clone() {
                        for &lds_width in &bounds.lds_widths {
                            for (lead, cross) in [(1, threads), (threads, 1), (2, threads)] {
                                let spec = KernelSpec {
                                    precision,
                                    op_a: Op::N,
                                    op_b: Op::N,
                                    m_blk,
                                    n_blk: *bounds.n_blk.end(),
                                    k_blk,
                                    m_dim,
                                    n_dim,
                                    load_a: LoadShape { lead, cross },
                                    load_b: LoadShape { lead: cross, cross: lead },
                                    lds_width,
                                    ldg: GlobalLoad::Nc,
                                    arch: Target::Sm70,
                                    stages: 1,
                                    ldg_width: 1,
                                    warps: None,
                                    raster: 1,
                                    unroll: None,
                                    frag_sets: 1,
                                    interleave: 0,
                                    c_batch: 1,
                                    math: Math::Fma,
                                    mma: None,
                                    schedule: gemm_codegen::Schedule::Tiles,
                                    producers: 0,
                                    operands: gemm_codegen::Operands::Ab,
                                };
                                if let Err(violations) = validate_with(&spec, &limits) {
                                    seen.extend(violations.iter().map(|v| format!("{:?}", v.rule)));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let all = [
        "Zero",
        "TooManyThreads",
        "PartialWarp",
        "TileNotMultipleOfThreads",
        "LoadThreads",
        "LoadNotDividingStripe",
        "LdsWidth",
        "SharedMemory",
        "Registers",
    ];
    assert_eq!(seen, all.into_iter().map(String::from).collect());
}
