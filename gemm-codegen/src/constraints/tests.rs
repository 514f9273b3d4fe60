//! Unit tests of the constraints.

use super::*;

fn rules(s: &KernelSpec) -> Vec<(String, Rule)> {
    match validate(s) {
        Ok(_) => vec![],
        Err(v) => v.into_iter().map(|v| (v.at.to_string(), v.rule)).collect(),
    }
}

#[test]
fn table2_sgemm_nn_is_legal_with_paper_resources() {
    let s = KernelSpec::new(Precision::F32, (Op::N, Op::N), (96, 96, 16), (16, 16), (32, 8), (8, 32));
    let plan = validate(&s).unwrap();
    assert_eq!((plan.m_thr(), plan.n_thr()), (6, 6));
    // (96 + 1) × 16 + (96 + 1) × 16 floats.
    assert_eq!(plan.shared_bytes(), 2 * 97 * 16 * 4);
    // 36 accumulators + 6 + 6 fragments + 12 prefetched elements.
    assert_eq!(plan.regs_lower_bound(), 60);
    assert_eq!(plan.register_reuse(), 3.0);
    let a = plan.stripe_a();
    assert!(!a.lead_is_k);
    assert_eq!((a.per_thread_lead, a.per_thread_cross), (3, 2));
    let b = plan.stripe_b();
    assert!(b.lead_is_k);
    assert_eq!((b.lead_len, b.cross_len), (16, 96));
}

#[test]
fn the_op_decides_which_stripe_is_stored() {
    // A transposed: its stripe is K_blk × M_blk with K contiguous, so
    // load_a.0 must divide K_blk = 8 and load_a.1 must divide M_blk = 16.
    let ok = KernelSpec::new(Precision::C64, (Op::T, Op::T), (16, 24, 8), (8, 8), (4, 16), (8, 8));
    assert!(validate(&ok).is_ok());
    let bad = KernelSpec::new(Precision::C64, (Op::N, Op::T), (16, 24, 8), (8, 8), (4, 16), (8, 8));
    assert_eq!(rules(&bad), vec![("load_a.1".into(), Rule::LoadNotDividingStripe)]);
}

#[test]
fn conjugate_on_reals_is_transpose() {
    let t = KernelSpec::new(Precision::F32, (Op::T, Op::C), (96, 96, 16), (16, 16), (16, 16), (32, 8));
    let plan = validate(&t).unwrap();
    assert_eq!(plan.stripe_b().op, Op::T);
    let c = KernelSpec::new(Precision::C32, (Op::C, Op::N), (64, 64, 16), (16, 16), (16, 16), (16, 16));
    assert_eq!(validate(&c).unwrap().stripe_a().op, Op::C);
}

#[test]
fn every_rule_fires_on_its_parameter() {
    let base = KernelSpec::new(Precision::F32, (Op::N, Op::N), (64, 64, 16), (16, 16), (16, 16), (16, 16));
    assert!(validate(&base).is_ok());

    let zero = KernelSpec { k_blk: 0, ..base };
    assert_eq!(rules(&zero), vec![("tile.2".into(), Rule::Zero)]);

    let big = KernelSpec::new(Precision::F32, (Op::N, Op::N), (64, 66, 16), (32, 33), (32, 33), (16, 66));
    assert!(rules(&big).contains(&("threads".into(), Rule::TooManyThreads)));

    let partial = KernelSpec::new(Precision::F32, (Op::N, Op::N), (60, 64, 16), (12, 4), (12, 4), (16, 3));
    assert!(rules(&partial).contains(&("threads".into(), Rule::PartialWarp)));

    let tile = KernelSpec { m_blk: 72, ..base };
    assert!(rules(&tile).contains(&("tile.0".into(), Rule::TileNotMultipleOfThreads)));

    let load = KernelSpec { load_a: LoadShape { lead: 16, cross: 8 }, ..base };
    assert_eq!(rules(&load), vec![("load_a".into(), Rule::LoadThreads)]);

    let stripe = KernelSpec { load_b: LoadShape { lead: 32, cross: 8 }, ..base };
    assert_eq!(rules(&stripe), vec![("load_b.0".into(), Rule::LoadNotDividingStripe)]);

    let width = KernelSpec { lds_width: 3, ..base };
    assert_eq!(rules(&width), vec![("lds_width".into(), Rule::LdsWidth)]);
    let z = KernelSpec { precision: Precision::C64, lds_width: 2, ..base };
    assert_eq!(rules(&z), vec![("lds_width".into(), Rule::LdsWidth)]);
    let odd = KernelSpec::new(Precision::F32, (Op::N, Op::N), (96, 96, 16), (16, 16), (32, 8), (8, 32));
    assert_eq!(rules(&KernelSpec { lds_width: 4, ..odd }), vec![("lds_width".into(), Rule::LdsWidth)]);
    assert!(rules(&KernelSpec { lds_width: 2, ..odd }).is_empty());

    let shared = KernelSpec { k_blk: 256, ..base };
    assert!(rules(&shared).contains(&("tile".into(), Rule::SharedMemory)));

    let regs = KernelSpec::new(Precision::F64, (Op::N, Op::N), (256, 256, 4), (16, 2), (16, 2), (4, 8));
    assert!(rules(&regs).contains(&("tile".into(), Rule::Registers)));
}

#[test]
fn messages_are_lowercase_without_period() {
    let bad = KernelSpec::new(Precision::F32, (Op::N, Op::N), (70, 64, 16), (16, 16), (16, 15), (16, 16));
    for v in validate(&bad).unwrap_err() {
        let first = v.message.chars().next().unwrap();
        assert!(!first.is_uppercase(), "{}", v.message);
        assert!(!v.message.ends_with('.'), "{}", v.message);
    }
}

/// A `dmma` kernel's K-major stripe rows are 32 bytes apart in the banks
/// (`DMMA_SKEW_BYTES`): the 4 k rows `t` a quarter warp's 16-byte fragment
/// loads (or a half warp's 8-byte ones) read start in 4 different 32-byte
/// quarters of the 128 bytes a bank row holds, so they never share a bank.
/// With the 16-byte skew of `lds_width = 2` they overlapped two by two
/// (ncu counted 12.9 G bank conflicts in a DGEMM NT at 16384, run 58).
#[test]
fn dmma_stripe_rows_take_disjoint_bank_quarters() {
    for (precision, lds, ldg) in [(Precision::F64, 2, 2), (Precision::F64, 2, 1), (Precision::C64, 1, 1)] {
        let spec = KernelSpec {
            lds_width: lds,
            ldg_width: ldg,
            arch: Target::Sm90,
            stages: 3,
            warps: Some(crate::WarpShape { m: 2, n: 4 }),
            math: Math::Dmma,
            mma: crate::ptx::MmaKind::F64.shape(16, 8, 4),
            ..KernelSpec::new(precision, (Op::N, Op::T), (64, 128, 16), (16, 16), (16, 16), (32, 8))
        };
        let plan = validate(&spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
        for operand in [Operand::A, Operand::B] {
            assert_eq!(plan.layout(operand), StripeLayout::KMajor, "{spec}");
            let row = u64::from(plan.stride(operand) * precision.element_bytes());
            let quarters: std::collections::BTreeSet<u64> = (0..4).map(|t| t * row % 128 / 32).collect();
            assert_eq!((row % 32, quarters.len()), (0, 4), "{spec}: {operand:?} rows {row} bytes apart");
        }
    }
    // Other maths keep the skew of their vectors.
    let fma = KernelSpec::new(Precision::F64, (Op::N, Op::T), (64, 64, 16), (16, 16), (16, 16), (16, 16));
    assert_eq!(smem_skew(&KernelSpec { lds_width: 2, ..fma }, Operand::A), 2);
}
