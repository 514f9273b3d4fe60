//! Pinned sizes of the search space (so that a change to the constraints or
//! the occupancy model is noticed), Figure 5, the listing, guidelines
//! monotonicity and the `--max-variants` sample.
//!
//! When a constraint changes on purpose, update the numbers here and in the
//! closing note of the change, with `cargo xtask space --figure5` and
//! `cargo xtask space --precision s --op nn` to print them.

use std::collections::{BTreeSet, HashSet};

use gemm_codegen::device::DeviceLimits;
use gemm_codegen::space::{Bounds, Count, FIGURE5_OPS, Guidelines, Space, figure5};
use gemm_codegen::{Op, Precision, validate_with};

fn sm90() -> DeviceLimits {
    DeviceLimits::for_arch("sm_90").unwrap()
}

/// The hard constraints alone admit 3,375,450 SGEMM NN kernels on sm_90
/// (the paper: "slightly more than one million" on Fermi, without our
/// `lds_width` and `ldg` dimensions).
#[test]
fn hard_only_sgemm_nn_on_sm90() {
    let count = Space::new(Precision::F32, Op::N, Op::N, sm90()).count();
    assert_eq!(count, Count { hard: 3_375_450, survivors: 3_375_450 });
}

/// Figure 5 on sm_90 under Table 1's guidelines, one precision per test so
/// they run in parallel.
fn figure5_row(precision: Precision, hard: u64, survivors: u64) {
    for (op_a, op_b) in FIGURE5_OPS {
        let space = Space::new(precision, op_a, op_b, sm90()).with_guidelines(Guidelines::table1(precision));
        assert_eq!(space.count(), Count { hard, survivors }, "{precision} {op_a}{op_b}");
    }
}

#[test]
fn figure5_sgemm() {
    figure5_row(Precision::F32, 3_375_450, 130_641);
}

#[test]
fn figure5_dgemm() {
    figure5_row(Precision::F64, 870_966, 30_798);
}

#[test]
fn figure5_cgemm() {
    figure5_row(Precision::C32, 870_966, 5_982);
}

#[test]
fn figure5_zgemm() {
    figure5_row(Precision::C64, 126_768, 8_439);
}

/// The count does not depend on the ops: transposing an operand swaps which
/// of its stripe's dimensions leads, and `(lead, cross) ↦ (cross, lead)` maps
/// the load shapes that fit one onto those that fit the other. The specs
/// differ, their number does not.
#[test]
fn counts_do_not_depend_on_the_ops_but_specs_do() {
    let bounds = Bounds::up_to(64, 96, 16);
    let space = |op_a, op_b| {
        Space::new(Precision::C32, op_a, op_b, sm90()).with_bounds(bounds.clone()).with_guidelines(
            Guidelines { min_threads_per_sm: 256, min_blocks_per_sm: 1, min_reuse: 2.0, ..Guidelines::NONE },
        )
    };
    let nn = space(Op::N, Op::N);
    let nn_specs: BTreeSet<_> =
        nn.specs().into_iter().map(|s| (s.load_a, s.load_b, s.m_blk, s.k_blk)).collect();
    for op_a in Op::ALL {
        for op_b in Op::ALL {
            let other = space(op_a, op_b);
            assert_eq!(other.count(), nn.count(), "{op_a}{op_b}");
            if (op_a, op_b) == (Op::T, Op::T) {
                let specs: BTreeSet<_> =
                    other.specs().into_iter().map(|s| (s.load_a, s.load_b, s.m_blk, s.k_blk)).collect();
                assert_ne!(specs, nn_specs);
            }
        }
    }
}

#[test]
fn figure5_helper_agrees_with_spaces() {
    let bounds = Bounds::up_to(32, 64, 8);
    let rows = figure5(&sm90(), &bounds);
    assert_eq!(rows.len(), 16);
    for row in rows {
        let space = Space::new(row.precision, row.ops.0, row.ops.1, sm90())
            .with_guidelines(Guidelines::table1(row.precision))
            .with_bounds(bounds.clone());
        assert_eq!(row.guidelines, Guidelines::table1(row.precision));
        assert_eq!(row.count, space.count());
    }
}

/// Every listed spec is legal (passes `validate_with`), within bounds,
/// followed by the guidelines, listed once, with the stats of its plan.
#[test]
fn every_listed_spec_is_legal() {
    for precision in Precision::ALL {
        let space =
            Space::new(precision, Op::N, Op::T, sm90()).with_guidelines(Guidelines::table1(precision));
        let limits = space.limits();
        let mut seen = HashSet::new();
        let mut n = 0u64;
        for c in space.iter() {
            let plan = validate_with(&c.spec, &limits).unwrap_or_else(|v| panic!("{}: {v:?}", c.spec));
            assert_eq!(c.stats, gemm_codegen::space::Stats::of(&plan, &space.device));
            assert!(space.guidelines.admits(&c.stats));
            assert!(space.bounds.contain(&c.spec));
            assert!(seen.insert(c.spec), "{} listed twice", c.spec);
            n += 1;
        }
        assert_eq!(n, space.count().survivors, "{precision}");
    }
}

/// The listing starts where Algorithm 2 starts, and the Table 2 SGEMM NN
/// configuration of the paper is among the survivors.
#[test]
fn generation_order_and_table2_kernel() {
    let space =
        Space::new(Precision::F32, Op::N, Op::N, sm90()).with_guidelines(Guidelines::table1(Precision::F32));
    let specs = space.specs();
    // N_dim is the outermost loop: the first survivors have the smallest N_dim.
    assert!(specs.windows(2).all(|w| w[0].n_dim <= w[1].n_dim));
    let table2 = specs.iter().find(|s| {
        (s.m_blk, s.n_blk, s.k_blk, s.m_dim, s.n_dim) == (96, 96, 16, 16, 16)
            && (s.load_a.lead, s.load_a.cross, s.load_b.lead, s.load_b.cross) == (32, 8, 8, 32)
            && s.lds_width == 1
    });
    assert!(table2.is_some());
}

/// Stricter guidelines keep a subset of the specs looser ones keep.
#[test]
fn guidelines_are_monotone() {
    let bounds = Bounds::up_to(64, 128, 32);
    let ladder = [
        Guidelines::NONE,
        Guidelines { min_threads_per_sm: 256, min_blocks_per_sm: 0, min_reuse: 0.0, ..Guidelines::NONE },
        Guidelines { min_threads_per_sm: 256, min_blocks_per_sm: 2, min_reuse: 1.5, ..Guidelines::NONE },
        Guidelines { min_threads_per_sm: 512, min_blocks_per_sm: 2, min_reuse: 2.0, ..Guidelines::NONE },
        Guidelines { min_threads_per_sm: 512, min_blocks_per_sm: 2, min_reuse: 3.0, ..Guidelines::NONE },
        Guidelines { min_threads_per_sm: 1024, min_blocks_per_sm: 4, min_reuse: 3.0, ..Guidelines::NONE },
    ];
    for precision in [Precision::F32, Precision::C64] {
        let sets: Vec<BTreeSet<_>> = ladder
            .iter()
            .map(|&g| {
                Space::new(precision, Op::T, Op::N, sm90())
                    .with_bounds(bounds.clone())
                    .with_guidelines(g)
                    .specs()
                    .into_iter()
                    .collect()
            })
            .collect();
        for (i, pair) in sets.windows(2).enumerate() {
            assert!(ladder[i + 1].at_least_as_strict_as(&ladder[i]));
            assert!(pair[1].is_subset(&pair[0]), "{precision}: step {i}");
            assert!(pair[1].len() < pair[0].len(), "{precision}: step {i} prunes nothing");
        }
    }
    // And on the full space, by count alone: the paper's CGEMM example
    // (reuse 5 → 6 leaves only a handful).
    let count = |g| Space::new(Precision::C32, Op::N, Op::N, sm90()).with_guidelines(g).count().survivors;
    let table1 = Guidelines::table1(Precision::C32);
    let six = Guidelines { min_reuse: 6.0, ..table1 };
    assert!(count(six) < count(table1));
    assert_eq!(count(six), 264);
}

#[test]
fn no_guidelines_keep_everything() {
    let space = Space::new(Precision::F64, Op::T, Op::T, sm90()).with_bounds(Bounds::up_to(32, 64, 16));
    let count = space.count();
    assert_eq!(count.hard, count.survivors);
    assert_eq!(count.hard, space.iter().count() as u64);
}

/// The `--max-variants` sample: deterministic, distinct, all in the space,
/// a prefix of a larger sample's dealing is spread over as many tile
/// configurations as it can be, and asking for more than the space holds
/// gives all of it.
#[test]
fn sample_is_spread_and_deterministic() {
    let space =
        Space::new(Precision::F32, Op::N, Op::N, sm90()).with_guidelines(Guidelines::table1(Precision::F32));
    let tiles = |cs: &[gemm_codegen::Candidate]| -> HashSet<_> {
        cs.iter().map(|c| (c.spec.m_blk, c.spec.n_blk, c.spec.k_blk, c.spec.m_dim, c.spec.n_dim)).collect()
    };
    let a = space.sample(200);
    assert_eq!(a, space.sample(200));
    assert_eq!(a.len(), 200);
    assert_eq!(tiles(&a).len(), 200, "200 variants from 200 different tile configurations");
    let specs: HashSet<_> = a.iter().map(|c| c.spec).collect();
    assert_eq!(specs.len(), 200);
    for c in &a {
        assert!(space.contains(&c.spec), "{}", c.spec);
    }
    // Spread: the sample's reuse spans most of the space's range, not its top.
    let range = |reuse: &mut dyn Iterator<Item = f64>| {
        reuse.fold((f64::MAX, f64::MIN), |(lo, hi), r| (lo.min(r), hi.max(r)))
    };
    let (lo, hi) = range(&mut a.iter().map(|c| c.stats.reuse));
    let (space_lo, space_hi) = range(&mut space.iter().map(|c| c.stats.reuse));
    assert!(lo - space_lo < 0.1 * (space_hi - space_lo), "reuse from {lo}, the space's from {space_lo}");
    assert!(space_hi - hi < 0.1 * (space_hi - space_lo), "reuse up to {hi}, the space's up to {space_hi}");
    assert!(space.sample(0).is_empty());

    // A small space: asking for more gives everything, dealt round-robin.
    let small = Space::new(Precision::C64, Op::N, Op::N, sm90())
        .with_bounds(Bounds::up_to(16, 32, 8))
        .with_guidelines(Guidelines {
            min_threads_per_sm: 0,
            min_blocks_per_sm: 1,
            min_reuse: 1.0,
            ..Guidelines::NONE
        });
    let all: BTreeSet<_> = small.specs().into_iter().collect();
    let sample = small.sample(all.len() + 10);
    assert_eq!(sample.len(), all.len());
    assert_eq!(sample.iter().map(|c| c.spec).collect::<BTreeSet<_>>(), all);
    let groups = tiles(&sample).len();
    assert_eq!(tiles(&sample[..groups]).len(), groups, "the first deal covers every tile configuration");
}
