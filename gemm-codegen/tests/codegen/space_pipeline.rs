//! The pipeline dimensions of the space (`arch`, `stages`, `ldg_width`,
//! `frag_sets`, `warps`, `raster`, `unroll`, `interleave`): the generator against a brute force over
//! `validate_with` on sub-ranges, counting against listing, every listed
//! spec legal, the limits of a space of an architecture, and the H100's
//! measured winners inside the tuner's space.

use std::collections::BTreeSet;

use gemm_codegen::device::DeviceLimits;
use gemm_codegen::space::{Bounds, Guidelines, LdgWidths, Pipeline, Space, Stats, Warps};
use gemm_codegen::{
    GlobalLoad, KernelSpec, LoadShape, Math, MmaShape, Op, Precision, Rule, Target, WarpShape, legal_with,
    validate_with,
};

fn sm90() -> DeviceLimits {
    DeviceLimits::for_arch("sm_90").unwrap()
}

/// Whether `spec` with `ldg_width = w` breaks no `ldg_width` rule: the
/// load rules alone, as [`LdgWidths::WidestOrOne`] reads them.
fn ldg_rules_allow(spec: &KernelSpec, w: u32, space: &Space) -> bool {
    match legal_with(&KernelSpec { ldg_width: w, ..*spec }, &space.limits()) {
        Ok(_) => true,
        Err(rules) => !rules.contains(&Rule::LdgWidth),
    }
}

/// Every spec of the sub-range `space.bounds` × the pipeline's values (and
/// values the pipeline leaves out: widths 0 and 3, stage 0 and 9, every
/// warp shape up to the thread dimensions), kept when `validate_with`
/// accepts it, the pipeline's rules choose it and the guidelines admit it.
/// Independent of the generator: no divisor tricks, no early exits other
/// than skipping a tile whose probe breaks a rule no load shape can mend.
fn brute_force(space: &Space) -> BTreeSet<KernelSpec> {
    let (b, pipe, limits) = (&space.bounds, &space.pipeline, space.limits());
    let widths: Vec<u32> = match &pipe.ldg_widths {
        LdgWidths::Each(list) => list.clone(),
        LdgWidths::WidestOrOne => vec![0, 1, 2, 3, 4],
    };
    let mut out = BTreeSet::new();
    for m_dim in b.m_dim.clone() {
        for n_dim in b.n_dim.clone() {
            let threads = m_dim * n_dim;
            let mut shapes: Vec<LoadShape> = (1..=threads)
                .filter(|lead| threads % lead == 0)
                .map(|lead| LoadShape { lead, cross: threads / lead })
                .collect();
            shapes.push(LoadShape { lead: 1, cross: threads + 1 });
            // None, and every warp shape that divides the thread
            // arrangement, legal (32-thread sub-grids) or not.
            let mut warps = vec![None];
            for m in (1..=m_dim).filter(|m| m_dim % m == 0) {
                for n in (1..=n_dim).filter(|n| n_dim % n == 0) {
                    warps.push(Some(WarpShape { m, n }));
                }
            }
            for m_blk in b.m_blk.clone() {
                for n_blk in b.n_blk.clone() {
                    for k_blk in b.k_blk.clone() {
                        for &lds_width in &b.lds_widths {
                            // `fma`, and `dmma` with each listed shape at the warps
                            // the threads are the lane grid of.
                            let dmma_warps = (m_dim % 8 == 0 && n_dim % 4 == 0)
                                .then_some(WarpShape { m: m_dim / 8, n: n_dim / 4 });
                            let maths = std::iter::once((Math::Fma, None, None)).chain(
                                pipe.mmas.iter().map(|&(math, shape)| (math, Some(shape), dmma_warps)),
                            );
                            for ((math, mma, math_warps), stages) in
                                maths.flat_map(|m| [0, 9].iter().chain(&pipe.stages).map(move |s| (m, s)))
                            {
                                if math.is_mma() && math_warps.is_none() {
                                    continue;
                                }
                                for (&ldg_width, &frag_sets) in widths
                                    .iter()
                                    .flat_map(|w| [0, 3].iter().chain(&pipe.frag_sets).map(move |f| (w, f)))
                                {
                                    let probe = KernelSpec {
                                        precision: space.precision,
                                        op_a: space.op_a,
                                        op_b: space.op_b,
                                        m_blk,
                                        n_blk,
                                        k_blk,
                                        m_dim,
                                        n_dim,
                                        load_a: shapes[0],
                                        load_b: shapes[0],
                                        lds_width,
                                        ldg: b.ldgs[0],
                                        arch: pipe.target.unwrap_or_default(),
                                        stages: *stages,
                                        ldg_width,
                                        warps: math_warps,
                                        raster: 1,
                                        unroll: None,
                                        frag_sets,
                                        interleave: 0,
                                        c_batch: 1,
                                        math,
                                        mma,
                                        schedule: gemm_codegen::Schedule::Tiles,
                                        producers: 0,
                                        operands: gemm_codegen::Operands::Ab,
                                    };
                                    let load_dependent =
                                        [Rule::LoadThreads, Rule::LoadNotDividingStripe, Rule::LdgWidth];
                                    if legal_with(&probe, &limits)
                                        .is_err_and(|rules| rules.iter().any(|r| !load_dependent.contains(r)))
                                    {
                                        continue;
                                    }
                                    for &load_a in &shapes {
                                        for &load_b in &shapes {
                                            let base = KernelSpec { load_a, load_b, ..probe };
                                            let Ok(plan) = legal_with(&base, &limits) else { continue };
                                            if let LdgWidths::WidestOrOne = pipe.ldg_widths {
                                                let widest = [4, 2, 1]
                                                    .into_iter()
                                                    .find(|&w| ldg_rules_allow(&base, w, space))
                                                    .unwrap();
                                                if ldg_width != 1 && ldg_width != widest {
                                                    continue;
                                                }
                                            }
                                            if !space.guidelines.admits(&Stats::of(&plan, &space.device)) {
                                                continue;
                                            }
                                            let math_warps = [math_warps];
                                            let warps =
                                                if math.is_mma() { &math_warps[..] } else { &warps[..] };
                                            let legal_warps: Vec<_> = warps
                                                .iter()
                                                .filter(|&&w| {
                                                    legal_with(&KernelSpec { warps: w, ..base }, &limits)
                                                        .is_ok()
                                                })
                                                .copied()
                                                .collect();
                                            let perimeter = |w: &WarpShape| m_dim / w.m + n_dim / w.n;
                                            let least = legal_warps.iter().flatten().map(perimeter).min();
                                            for &w in &legal_warps {
                                                let chosen = match (pipe.warps, w) {
                                                    _ if math.is_mma() => true,
                                                    (_, None) | (Warps::Every, _) => true,
                                                    (Warps::Default, Some(_)) => false,
                                                    (Warps::Squarest, Some(w)) => {
                                                        Some(perimeter(&w)) == least
                                                    }
                                                };
                                                for raster in [0].iter().chain(&pipe.rasters) {
                                                    for &ldg in &b.ldgs {
                                                        // The pipeline's unrolls, and ones it
                                                        // must leave out: zero, one dividing no
                                                        // stripe here (3), the whole stripe.
                                                        let mut unrolls = vec![0, 3, k_blk];
                                                        unrolls.extend(&pipe.unrolls);
                                                        unrolls.sort_unstable();
                                                        unrolls.dedup();
                                                        let unrolls = std::iter::once(None)
                                                            .chain(unrolls.into_iter().map(Some));
                                                        // The pipeline's interleaves, and ones
                                                        // past the stripe (k_blk + 1).
                                                        let interleaves: Vec<u32> = [0, k_blk + 1]
                                                            .into_iter()
                                                            .chain(pipe.interleaves.iter().copied())
                                                            .collect();
                                                        for (unroll, &interleave) in unrolls.flat_map(|u| {
                                                            interleaves.iter().map(move |g| (u, g))
                                                        }) {
                                                            let listed = unroll.is_none_or(|u| {
                                                                u < k_blk && pipe.unrolls.contains(&u)
                                                            }) && (interleave == 0
                                                                || pipe.interleaves.contains(&interleave));
                                                            let spec = KernelSpec {
                                                                warps: w,
                                                                raster: *raster,
                                                                ldg,
                                                                unroll,
                                                                interleave,
                                                                ..base
                                                            };
                                                            if chosen
                                                                && listed
                                                                && legal_with(&spec, &limits).is_ok()
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
                    }
                }
            }
        }
    }
    out
}

/// The space agrees with the brute force, lists each spec once, counts
/// what it lists, and holds each spec it lists; returns the count.
fn check(space: &Space) -> u64 {
    let listed = space.specs();
    let set: BTreeSet<KernelSpec> = listed.iter().copied().collect();
    assert_eq!(set.len(), listed.len(), "the space lists a spec twice");
    let expected = brute_force(space);
    let missing: Vec<_> = expected.difference(&set).take(3).collect();
    let extra: Vec<_> = set.difference(&expected).take(3).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:#?}\nextra {extra:#?}");
    assert_eq!(space.count().survivors, listed.len() as u64);
    for spec in listed.iter().step_by(7) {
        assert!(space.contains(spec), "{spec}");
    }
    listed.len() as u64
}

fn small_bounds() -> Bounds {
    Bounds {
        m_dim: 4..=8,
        n_dim: 4..=8,
        m_blk: 8..=16,
        n_blk: 8..=16,
        k_blk: 4..=8,
        lds_widths: vec![1, 2, 4],
        ldgs: vec![GlobalLoad::Nc, GlobalLoad::Cg],
    }
}

fn every_value(target: Target) -> Pipeline {
    Pipeline {
        target: Some(target),
        stages: vec![1, 2, 3],
        ldg_widths: LdgWidths::Each(vec![0, 1, 2, 3, 4]),
        warps: Warps::Every,
        rasters: vec![1, 8],
        frag_sets: vec![1, 2],
        unrolls: vec![1, 2, 4],
        interleaves: vec![1, 2, 8],
        mmas: MmaShape::F64
            .iter()
            .map(|&s| (Math::Dmma, s))
            .chain(MmaShape::TF32.iter().flat_map(|&s| [(Math::Tf32, s), (Math::Tf32x3, s)]))
            .collect(),
    }
}

/// Every legal value of every pipeline dimension, on sm_90 and on sm_75
/// (no `cp.async`: rings are illegal there), for each precision.
#[test]
fn every_legal_pipeline_value_matches_validate_with() {
    for precision in Precision::ALL {
        for target in [Target::Sm90, Target::Sm75] {
            let space = Space::new(precision, Op::N, Op::T, sm90())
                .with_bounds(small_bounds())
                .with_pipeline(every_value(target));
            let n = check(&space);
            assert!(n > 100, "{precision} {target}: only {n} specs");
            let specs = space.specs();
            let has = |f: &dyn Fn(&KernelSpec) -> bool| specs.iter().any(f);
            assert!(has(&|s| s.warps.is_some()) && has(&|s| s.raster == 8), "{precision} {target}");
            assert_eq!(has(&|s| s.stages == 3), target == Target::Sm90, "{precision} {target}");
            assert_eq!(has(&|s| s.ldg_width == 4), precision == Precision::F32, "{precision} {target}");
            assert!(has(&|s| s.frag_sets == 2) && has(&|s| s.unroll == Some(2)), "{precision} {target}");
            assert_eq!(has(&|s| s.interleave == 2), target == Target::Sm90, "{precision} {target}");
            assert!(!has(&|s| s.interleave == 8 && s.k_blk < 8), "{precision} {target}");
            // DMMA for f64 and c64 on sm_90: the m16 shapes whose k fits a
            // stripe of 4 or 8 (m8n8k4 too, on any sm_80+); TF32 for c32
            // (f32's 32-row warp blocks exceed these 16-row tiles).
            let dmma = matches!(precision, Precision::F64 | Precision::C64);
            for (math, shape, wanted) in [
                (Math::Dmma, (16, 8, 4), dmma),
                (Math::Dmma, (16, 8, 8), dmma),
                (Math::Dmma, (8, 8, 4), dmma),
                (Math::Tf32, (16, 8, 4), precision == Precision::C32),
                (Math::Tf32x3, (16, 8, 8), precision == Precision::C32),
            ] {
                let with = |s: &KernelSpec| s.math == math && s.mma.is_some_and(|m| (m.m, m.n, m.k) == shape);
                assert_eq!(has(&with), wanted && target == Target::Sm90, "{precision} {target} {shape:?}");
            }
            assert!(!has(&|s| s.math.is_mma() && s.unroll.is_some_and(|u| u % s.k_per_step() != 0)));
        }
    }
}

/// The tuner's rules: `ldg_width` 1 or the widest, the squarest warps,
/// under the ring guidelines (with a register reuse the small tiles reach).
#[test]
fn tuner_rules_match_validate_with() {
    for (precision, (op_a, op_b)) in
        [(Precision::F32, (Op::N, Op::N)), (Precision::C32, (Op::T, Op::N)), (Precision::F64, (Op::T, Op::T))]
    {
        let bounds = Bounds { m_blk: 16..=32, n_blk: 16..=32, ldgs: vec![GlobalLoad::Ca], ..small_bounds() };
        let space = Space::for_tuning(precision, op_a, op_b, sm90()).with_bounds(bounds);
        assert_eq!(space.guidelines, Guidelines::pipelined(precision));
        // `frag_sets` and `unroll` take every listed value (the brute force
        // of `every_legal_pipeline_value_matches_validate_with` covers them);
        // one value each keeps this brute force quick.
        let pipeline = Pipeline {
            frag_sets: vec![2],
            unrolls: Vec::new(),
            interleaves: vec![2],
            ..space.pipeline.clone()
        };
        let space = space.with_pipeline(pipeline);
        let min_reuse = if precision.is_complex() { 4.0 } else { 2.0 };
        let space = space.with_guidelines(Guidelines { min_reuse, ..Guidelines::pipelined(precision) });
        let relaxed = space.clone().with_guidelines(Guidelines::NONE);
        let (n, all) = (check(&space), check(&relaxed));
        assert!(n > 10 && n < all, "{precision}: {n} of {all}");
        // Never a middle width beside a wider one.
        let specs = relaxed.specs();
        for s in &specs {
            if s.ldg_width == 2 && precision == Precision::F32 {
                assert!(!specs.contains(&KernelSpec { ldg_width: 4, ..*s }), "{s}");
            }
        }
    }
}

/// Counting is exact on larger sub-ranges too (no brute force: the
/// listing), for each precision.
#[test]
fn tuner_counts_equal_listings() {
    for precision in Precision::ALL {
        let space = Space::for_tuning(precision, Op::T, Op::N, sm90()).with_bounds(Bounds::up_to(32, 64, 16));
        let count = space.count();
        assert_eq!(count.survivors, space.iter().count() as u64, "{precision}");
        assert!(count.survivors > 1000 && count.hard > count.survivors, "{precision}: {count:?}");
    }
}

/// A sample of the full tuner space on sm_90: every spec validates under
/// the space's limits and under its own architecture's
/// (`gemm_codegen::validate`, what `gemm_kernel!` checks), follows the
/// guidelines with the stats the sample carries, and is in the space.
#[test]
fn sampled_tuner_specs_are_legal() {
    for precision in Precision::ALL {
        let space = Space::for_tuning(precision, Op::N, Op::N, sm90());
        let sample = space.sample(150);
        assert_eq!(sample.len(), 150);
        assert!(sample.iter().any(|c| c.spec.stages > 1), "{precision}: no ring in the sample");
        for c in &sample {
            let plan =
                validate_with(&c.spec, &space.limits()).unwrap_or_else(|v| panic!("{}: {v:?}", c.spec));
            assert!(gemm_codegen::validate(&c.spec).is_ok(), "{}", c.spec);
            assert_eq!(c.stats, Stats::of(&plan, &space.device));
            assert!(space.guidelines.admits(&c.stats));
            assert!(space.contains(&c.spec), "{}", c.spec);
            assert_eq!(c.spec.arch, Target::Sm90);
        }
    }
}

/// The tuner's space on sm_90, pinned so that a change to the constraints
/// or the pipeline rules is noticed; the paper's space inside it is
/// unchanged (its pinned counts are in `space_counts.rs`).
#[test]
fn tuner_space_on_sm90_is_pinned() {
    let space = Space::for_tuning(Precision::F32, Op::N, Op::N, sm90());
    let count = space.count();
    assert_eq!((count.hard, count.survivors), (1_311_599_976, 219_720_444));
    let tf32x3 = space.clone().with_pipeline(space.pipeline.clone().with_tf32x3()).count();
    assert_eq!((tf32x3.hard, tf32x3.survivors), (1_321_552_614, 222_994_026));
    let wgmma = space.clone().with_pipeline(space.pipeline.clone().with_tf32x3().with_wgmma()).count();
    // Unskewed wgmma stripes fit more rings (e.g. 128 × 128 × 32 with three stages).
    assert_eq!((wgmma.hard, wgmma.survivors), (1_321_599_372, 223_026_588));
    let portable = Space::new(Precision::F32, Op::N, Op::N, sm90());
    assert_eq!(portable.pipeline, Pipeline::portable());
    assert!(count.hard > portable.count().hard);
}

/// `Pipeline::with_wgmma`: warpgroup points (`math = tf32x3`, `mma = (64,
/// n, 8)`, `arch = sm_90a`) join the f32 tuner space of sm_90, each legal
/// where `gemm_kernel!` checks it, with a ring, one fragment set and the
/// whole stripe unrolled; counting equals listing; the shipped 128 × 128 × 32
/// kernel is in it; c32 gains its narrower warpgroups, f64 and other
/// targets nothing.
#[test]
fn wgmma_points_join_the_sm90_tuner_space() {
    let bounds = Bounds {
        m_dim: 16..=32,
        n_dim: 2..=8,
        m_blk: 64..=64,
        n_blk: 64..=128,
        k_blk: 8..=32,
        ..Bounds::paper()
    };
    let base = Space::for_tuning(Precision::F32, Op::N, Op::N, sm90()).with_bounds(bounds.clone());
    let space = base.clone().with_pipeline(base.pipeline.clone().with_wgmma());
    let specs = space.specs();
    assert_eq!(space.count().survivors, specs.len() as u64);
    let wgmma: Vec<&KernelSpec> = specs.iter().filter(|s| s.wgmma().is_some()).collect();
    assert_eq!(specs.len() - wgmma.len(), base.specs().len(), "the other points are the base space's");
    assert!(wgmma.len() > 20, "{}", wgmma.len());
    for n in [64, 128] {
        assert!(wgmma.iter().any(|s| s.mma.is_some_and(|m| m.n == n)), "no (64, {n}, 8)");
    }
    for s in &wgmma {
        assert_eq!(
            (s.arch, s.math, s.frag_sets, s.unroll, s.lds_width),
            (Target::Sm90a, Math::Tf32x3, 1, None, 4),
            "{s}"
        );
        assert!(s.stages >= 2, "{s}");
        assert!(gemm_codegen::validate(s).is_ok(), "{s}");
        assert!(space.contains(s) && !base.contains(s), "{s}");
    }
    // Not on an sm_90a FMA spec, nor a warpgroup spec for sm_90.
    let fma = specs.iter().find(|s| s.wgmma().is_none()).expect("FMA points too");
    assert!(!space.contains(&KernelSpec { arch: Target::Sm90a, ..*fma }), "{fma}");
    assert!(!space.contains(&KernelSpec { arch: Target::Sm90, ..*wgmma[0] }));
    assert!(!space.contains(&KernelSpec { frag_sets: 2, ..*wgmma[0] }));

    let shipped: KernelSpec = "precision = f32, op = (N, N), tile = (128, 128, 32), threads = (64, 4), \
        load_a = (32, 8), load_b = (8, 32), lds_width = 4, arch = sm_90a, stages = 2, ldg_width = 4, \
        warps = (8, 1), raster = 8, math = tf32x3, mma = (64, 128, 8)"
        .parse()
        .unwrap();
    let full = Space::for_tuning(Precision::F32, Op::N, Op::N, sm90()).with_guidelines(Guidelines::NONE);
    assert!(!full.contains(&shipped));
    assert!(full.clone().with_pipeline(full.pipeline.clone().with_wgmma()).contains(&shipped));

    let f64s = Space::for_tuning(Precision::F64, Op::N, Op::N, sm90()).with_bounds(bounds.clone());
    let with = f64s.clone().with_pipeline(f64s.pipeline.clone().with_wgmma());
    assert_eq!(with.count(), f64s.count(), "f64 has no wgmma");
    // c32 gains warpgroups of n = 64 only (its tf32x3 accumulators are
    // pairs), converting 16 bytes (2 elements) a load.
    let c32 = Space::for_tuning(Precision::C32, Op::N, Op::N, sm90()).with_bounds(bounds.clone());
    let with = c32.clone().with_pipeline(c32.pipeline.clone().with_wgmma());
    let specs = with.specs();
    assert_eq!(with.count().survivors, specs.len() as u64);
    let wgmma: Vec<&KernelSpec> = specs.iter().filter(|s| s.wgmma().is_some()).collect();
    assert_eq!(specs.len() - wgmma.len(), c32.specs().len(), "the other c32 points are the base space's");
    assert!(!wgmma.is_empty());
    for s in &wgmma {
        let n = s.mma.map(|m| m.n);
        assert_eq!((s.arch, s.math, s.lds_width, n), (Target::Sm90a, Math::Tf32x3, 2, Some(64)), "{s}");
        assert!(gemm_codegen::validate(s).is_ok(), "{s}");
    }
    assert_eq!(Pipeline::tuner(Target::Sm80).with_wgmma(), Pipeline::tuner(Target::Sm80));
}

/// What the H100 measured best (issue 8) is in the tuner's space,
/// 1-block-per-SM rings included, and Table 1 alone would prune the best
/// SGEMM.
#[test]
fn measured_h100_winners_are_in_the_tuner_space() {
    let winners = [
        "precision = f32, op = (N, N), tile = (256, 128, 32), threads = (16, 16), load_a = (64, 4), \
         load_b = (8, 32), lds_width = 4, ldg_width = 4, stages = 3, warps = (4, 2), raster = 8, arch = sm_90",
        "precision = f32, op = (N, N), tile = (128, 128, 32), threads = (16, 16), load_a = (32, 8), \
         load_b = (8, 32), lds_width = 4, ldg_width = 4, stages = 3, warps = (2, 4), raster = 8, arch = sm_90",
        "precision = c32, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), \
         load_b = (8, 32), lds_width = 2, ldg_width = 2, stages = 3, warps = (2, 4), raster = 8, arch = sm_90",
        "precision = f64, op = (N, N), tile = (128, 128, 16), threads = (16, 16), load_a = (64, 4), \
         load_b = (8, 32), lds_width = 2, ldg_width = 2, stages = 3, warps = (2, 4), raster = 8, arch = sm_90",
    ];
    for text in winners {
        let spec: KernelSpec = text.parse().unwrap();
        let space = Space::for_tuning(spec.precision, spec.op_a, spec.op_b, sm90());
        assert!(space.contains(&spec), "{spec}");
    }
    let best: KernelSpec = winners[0].parse().unwrap();
    let table1 = Space::for_tuning(Precision::F32, Op::N, Op::N, sm90())
        .with_guidelines(Guidelines::table1(Precision::F32));
    assert!(!table1.contains(&best));
}

/// The limits: 48 KiB for the portable space; the device's opt-in maximum
/// capped by the architecture's for a space of an architecture.
#[test]
fn limits_follow_the_target_and_the_device() {
    let portable = Space::new(Precision::F32, Op::N, Op::N, sm90());
    assert_eq!(portable.limits().max_shared_per_block, 48 * 1024);
    let tuner = Space::for_tuning(Precision::F32, Op::N, Op::N, sm90());
    assert_eq!(tuner.limits().max_shared_per_block, 227 * 1024);
    // An sm_80 kernel on the H100 may use only what sm_80 allows.
    let older = tuner.clone().with_pipeline(Pipeline::tuner(Target::Sm80));
    assert_eq!(older.limits().max_shared_per_block, 163 * 1024);
    // A device that grants less than its architecture's table.
    let mut small = sm90();
    small.driver.max_shared_per_block_optin = 100 * 1024;
    let space = Space::for_tuning(Precision::F32, Op::N, Op::N, small);
    assert_eq!(space.limits().max_shared_per_block, 100 * 1024);
    // A Turing GPU: no rings.
    let t4 = Space::for_tuning(Precision::F32, Op::N, Op::N, DeviceLimits::for_arch("sm_75").unwrap());
    assert_eq!(t4.pipeline, Pipeline::tuner(Target::Sm75));
    assert_eq!(t4.pipeline.stages, [1]);
}

/// `tile_variants` lists one tile configuration in preference order, and
/// the sample's first deal is each group's first variant.
#[test]
fn tile_variants_prefer_rings_and_wide_loads() {
    let space = Space::for_tuning(Precision::F32, Op::N, Op::N, sm90());
    let tile: KernelSpec = "precision = f32, op = (N, N), tile = (128, 128, 16), threads = (16, 16), \
                            load_a = (32, 8), load_b = (8, 32)"
        .parse()
        .unwrap();
    let variants = space.tile_variants(&tile, 40);
    assert_eq!(variants.len(), 40);
    let first = variants[0].spec;
    assert_eq!((first.stages, first.ldg_width, first.lds_width, first.raster), (3, 4, 4, 8));
    assert!(first.warps.is_some());
    for c in &variants {
        assert_eq!(
            (c.spec.m_blk, c.spec.n_blk, c.spec.k_blk, c.spec.m_dim, c.spec.n_dim),
            (128, 128, 16, 16, 16)
        );
        assert!(space.contains(&c.spec));
    }
    let all = space.tile_variants(&tile, usize::MAX);
    assert_eq!(&all[..40], &variants[..]);
    let distinct: BTreeSet<_> = all.iter().map(|c| c.spec).collect();
    assert_eq!(distinct.len(), all.len());
}
