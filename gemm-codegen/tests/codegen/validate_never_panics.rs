//! Validation never panics, whatever the spec: every field an arbitrary
//! `u32`, under several [`Limits`], through [`validate`], [`validate_with`],
//! the per-part predicates the search space calls and, for the specs that
//! pass, what `gemm_kernel!` then calls on the plan ([`emit`]).
//!
//! Beyond "no panic", each case checks what validation promises: it accepts
//! exactly when every per-part predicate holds; an accepted plan's threads,
//! shared bytes and register bound are the exact sizes and within the
//! limits; a rejection names at least one violation, each message starting
//! lowercase without a trailing period, and the resource messages show the
//! true sizes (which can exceed `u64`), not wrapped ones.
//!
//! Half of the draws are wholly arbitrary; the other half are built so that
//! the thread count, tile and load shapes fit together (see [`matching`]),
//! with sizes from small to the top of `u32`, so that the deep rules
//! (shared memory, registers) and the accepted path are reached too, not
//! just the first rule an arbitrary spec breaks. Each field is drawn half
//! from any `u32` and half from values where arithmetic breaks ([`edgy`]).
//!
//! proptest rather than a seeded loop: on a failure it shrinks to a small
//! spec and prints it, which is what one wants from a panic hunt. 100,000
//! cases by default (`PROPTEST_CASES` overrides); one case costs a few
//! microseconds in the dev profile (gemm-codegen builds at opt-level 3), so
//! the run takes seconds.

use gemm_codegen::constraints::{
    c_batch_allowed, frag_sets_allowed, interleave_allowed, ldg_width_allowed, ldg_width_divides,
    ldg_width_fits_precision, lds_width_allowed, lds_width_divides, lds_width_fits_precision, math_allowed,
    mma_allowed, mma_fits, regs_fit, regs_lower_bound, shared_bytes, shared_fits, smem_stride,
    stages_allowed, threads_rule, tile_divides, tma_allowed, unroll_divides, warps_fit,
};
use gemm_codegen::device::DeviceLimits;
use gemm_codegen::space::{Bounds, Guidelines, Space, Stats};
use gemm_codegen::{
    Family, GlobalLoad, KernelSpec, Limits, LoadShape, Math, MmaShape, Op, Operand, Precision, Rule, Stencil,
    StripePlan, Target, Violation, WarpShape, emit, legal_with, register_reuse, validate, validate_with,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// Values where size arithmetic breaks: 0, 1, small numbers, powers of
/// two, around 2^16 (whose square is 2^32) and 2^31, and the top of `u32`.
fn edgy() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        1u32..=64,
        (0u32..32).prop_map(|e| 1 << e),
        ((1u32 << 16) - 4..=(1 << 16) + 4),
        ((1u32 << 31) - 4..=(1 << 31) + 4),
        (u32::MAX - 4..=u32::MAX),
    ]
}

/// Any `u32`, or an [`edgy`] one, evenly.
fn field() -> impl Strategy<Value = u32> {
    prop_oneof![any::<u32>(), edgy()]
}

/// A power of two up to 32: thread dimensions that legal blocks have.
fn small_pow2() -> impl Strategy<Value = u32> {
    (0u32..=5).prop_map(|e| 1 << e)
}

fn shape() -> impl Strategy<Value = LoadShape> {
    (field(), field()).prop_map(|(lead, cross)| LoadShape { lead, cross })
}

fn kind() -> impl Strategy<Value = (Precision, Op, Op, GlobalLoad)> {
    (
        // The 16-bit types now and then: they pass only as warp-specialized
        // TMA kernels, which few draws are.
        prop_oneof![8 => prop::sample::select(Precision::ALL.to_vec()), 1 => prop::sample::select(Precision::HALF.to_vec())],
        prop::sample::select(Op::ALL.to_vec()),
        prop::sample::select(Op::ALL.to_vec()),
        // `tma` one draw in eight: it is legal on a few `wgmma` specs only,
        // and the draw must still reach legal specs often.
        prop_oneof![7 => prop::sample::select(GlobalLoad::INSTRUCTIONS.to_vec()), 1 => Just(GlobalLoad::Tma)],
    )
}

/// The pipeline parameters, `(arch, stages, ldg_width, warps, raster,
/// unroll, frag_sets, interleave, c_batch)`, each drawn like `value` draws
/// a field.
fn pipeline<S: Strategy<Value = u32>>(
    value: impl Fn() -> S,
) -> impl Strategy<Value = (Target, u32, u32, Option<WarpShape>, u32, Option<u32>, u32, u32, u32)> {
    let warps = prop::option::weighted(0.2, (value(), value()).prop_map(|(m, n)| WarpShape { m, n }));
    let unroll = prop::option::weighted(0.2, value());
    (
        prop::sample::select(Target::ALL.to_vec()),
        value(),
        value(),
        warps,
        value(),
        unroll,
        value(),
        value(),
        value(),
    )
}

/// `(math, mma)`: mostly `fma` without a shape; otherwise any math with
/// one of PTX's `.f64` shapes, or with `value` drawing its fields.
fn math<S: Strategy<Value = u32>>(value: impl Fn() -> S) -> impl Strategy<Value = (Math, Option<MmaShape>)> {
    let shape = prop_oneof![
        2 => prop::sample::select(MmaShape::F64.to_vec()),
        1 => (value(), value(), value()).prop_map(|(m, n, k)| MmaShape { m, n, k }),
    ];
    prop_oneof![
        6 => Just((Math::Fma, None)),
        1 => (prop::sample::select(Math::ALL.to_vec()), prop::option::weighted(0.8, shape)),
    ]
}

/// Every field drawn on its own.
fn arbitrary() -> impl Strategy<Value = KernelSpec> {
    (
        kind(),
        (field(), field(), field()),
        (field(), field()),
        shape(),
        shape(),
        field(),
        pipeline(field),
        math(field),
        (
            prop_oneof![8 => Just(0), 1 => Just(1), 1 => field()],
            prop_oneof![9 => Just(gemm_codegen::Operands::Ab), 1 => Just(gemm_codegen::Operands::Ba)],
        ),
    )
        .prop_map(
            |(
                (precision, op_a, op_b, ldg),
                (m_blk, n_blk, k_blk),
                (m_dim, n_dim),
                load_a,
                load_b,
                lds_width,
                (arch, stages, ldg_width, warps, raster, unroll, frag_sets, interleave, c_batch),
                (math, mma),
                (producers, operands),
            )| {
                KernelSpec {
                    precision,
                    op_a,
                    op_b,
                    m_blk,
                    n_blk,
                    k_blk,
                    m_dim,
                    n_dim,
                    load_a,
                    load_b,
                    lds_width,
                    ldg,
                    arch,
                    stages,
                    ldg_width,
                    warps,
                    raster,
                    unroll,
                    frag_sets,
                    interleave,
                    c_batch,
                    math,
                    mma,
                    schedule: gemm_codegen::Schedule::Tiles,
                    producers,
                    operands,
                }
            },
        )
}

/// Specs whose parts fit together as far as `u32` allows, mostly small
/// enough to pass: the tile a multiple of the threads times `lds_width`
/// (so that the width divides each thread's rows and columns of C), and each load shape
/// the block's threads laid out so that they tile the stored stripe, with
/// `K_blk` a multiple of what that needs. A shape either lays the
/// arrangement over the stripe with `threads.0` along the free dimension
/// (M for A, N for B), which needs `threads.1` (A) or `threads.0` (B) to
/// divide `K_blk`; or lays all threads along K (K leading) or across it,
/// which needs the thread count to divide `K_blk`. Products wrap when they
/// overflow, which only gives another arbitrary spec. The issue's spec
/// (`tile = (65536, 32, 65536)`, `threads = (32, 1)`, loads `(32, 1)`) is
/// one of them.
fn matching() -> impl Strategy<Value = KernelSpec> {
    let dim = || prop_oneof![3 => small_pow2(), 1 => field()];
    let mult = || prop_oneof![3 => 1u32..=8, 1 => field()];
    let width = prop_oneof![12 => prop::sample::select(vec![1u32, 2, 4]), 1 => Just(8), 4 => field()];
    // Mostly 1 (or 1..=3), so that the pipeline rules pass and the deep
    // rules are reached.
    let small = || prop_oneof![30 => Just(1u32), 3 => 1u32..=3, 1 => field()];
    (kind(), (dim(), dim()), (mult(), mult(), mult()), width, any::<bool>(), pipeline(small), math(small))
        .prop_map(
            |(
                (precision, op_a, op_b, ldg),
                (m_dim, n_dim),
                (a, b, c),
                lds_width,
                along_k,
                pipeline,
                (math, mma),
            )| {
                let (arch, stages, ldg_width, warps, raster, unroll, frag_sets, interleave, c_batch) =
                    pipeline;
                // `interleave` is legal at 0 (mostly drawn here) and needs a
                // ring otherwise.
                let interleave = interleave.wrapping_sub(1);
                let threads = m_dim.wrapping_mul(n_dim);
                let k_unit = if along_k { threads } else { m_dim.max(n_dim) };
                let mut spec = KernelSpec {
                    precision,
                    op_a,
                    op_b,
                    m_blk: m_dim.wrapping_mul(a).wrapping_mul(lds_width),
                    n_blk: n_dim.wrapping_mul(b).wrapping_mul(lds_width),
                    k_blk: k_unit.wrapping_mul(c),
                    m_dim,
                    n_dim,
                    load_a: LoadShape { lead: 0, cross: 0 },
                    load_b: LoadShape { lead: 0, cross: 0 },
                    lds_width,
                    ldg,
                    arch,
                    stages,
                    ldg_width,
                    warps,
                    raster,
                    unroll,
                    frag_sets,
                    interleave,
                    c_batch,
                    math,
                    mma,
                    schedule: gemm_codegen::Schedule::Tiles,
                    producers: 0,
                    operands: gemm_codegen::Operands::Ab,
                };
                // (threads along the free dimension, threads along K).
                let (a_free_k, b_free_k) = ((m_dim, n_dim), (n_dim, m_dim));
                let load = |operand: Operand, (free, k): (u32, u32)| {
                    let lead_is_k = StripePlan::new(&spec, operand).lead_is_k;
                    match (along_k, lead_is_k) {
                        (true, true) => LoadShape { lead: threads, cross: 1 },
                        (true, false) => LoadShape { lead: 1, cross: threads },
                        (false, true) => LoadShape { lead: k, cross: free },
                        (false, false) => LoadShape { lead: free, cross: k },
                    }
                };
                (spec.load_a, spec.load_b) = (load(Operand::A, a_free_k), load(Operand::B, b_free_k));
                spec
            },
        )
}

fn specs() -> impl Strategy<Value = KernelSpec> {
    prop_oneof![arbitrary(), matching()]
}

/// Limits drawn like the fields: including zero warps and `u32::MAX` caps.
fn limits() -> impl Strategy<Value = Limits> {
    (field(), field(), field(), field()).prop_map(
        |(warp_size, max_threads_per_block, max_shared_per_block, max_regs_per_thread)| Limits {
            warp_size,
            max_threads_per_block,
            max_shared_per_block,
            max_regs_per_thread,
        },
    )
}

/// A GPU with nothing capped: specs near the top of `u32` validate.
const UNCAPPED: Limits = Limits {
    warp_size: 32,
    max_threads_per_block: u32::MAX,
    max_shared_per_block: u32::MAX,
    max_regs_per_thread: u32::MAX,
};

/// A small GPU whose limits bite on small specs.
const TOY: Limits =
    Limits { warp_size: 4, max_threads_per_block: 16, max_shared_per_block: 384, max_regs_per_thread: 64 };

fn sm90() -> DeviceLimits {
    DeviceLimits::for_arch("sm_90").unwrap()
}

/// Every per-part predicate of the hard constraints, as the search space
/// calls them: `validate_with` must accept exactly when all hold.
fn predicates_hold(spec: &KernelSpec, limits: &Limits) -> bool {
    let s = spec;
    let nonzero = [
        s.m_blk,
        s.n_blk,
        s.k_blk,
        s.m_dim,
        s.n_dim,
        s.load_a.lead,
        s.load_a.cross,
        s.load_b.lead,
        s.load_b.cross,
        s.lds_width,
        s.stages,
        s.ldg_width,
        s.raster,
        s.warps.map_or(1, |w| w.m),
        s.warps.map_or(1, |w| w.n),
        s.unroll.unwrap_or(1),
        s.frag_sets,
        s.c_batch,
    ]
    .iter()
    .all(|&v| v != 0);
    let (a, b) = (StripePlan::new(s, Operand::A), StripePlan::new(s, Operand::B));
    // Called for every spec, zeros included, so that they too are shown not
    // to panic; `validate_with` stops before them on a zero.
    let _ = (a.per_thread(), a.elements(), b.per_thread(), b.elements(), register_reuse(s));
    let width = lds_width_allowed(s.lds_width)
        && lds_width_fits_precision(s.lds_width, s.precision)
        && lds_width_divides(s.lds_width, s.m_thr(), s.n_thr());
    let resources = shared_fits(s, limits) && regs_fit(s, limits);
    let pipeline = stages_allowed(s.stages, s.arch.has_cp_async())
        && ldg_width_allowed(s.ldg_width)
        && ldg_width_fits_precision(s.ldg_width, s.precision)
        && ldg_width_divides(s.ldg_width, &a)
        && ldg_width_divides(s.ldg_width, &b)
        && s.warps.is_none_or(|w| warps_fit(w.m, w.n, s.m_dim, s.n_dim))
        && s.unroll.is_none_or(|u| unroll_divides(u, s.k_blk))
        && frag_sets_allowed(s.frag_sets)
        && interleave_allowed(s.interleave, s.stages, s.unroll.is_none(), s.k_blk / s.k_per_step())
        && (s.n_thr() == 0 || c_batch_allowed(s.c_batch, s.n_thr()))
        && tma_allowed(s);
    let math = math_allowed(s.math, s.precision, s.arch) && mma_allowed(s.math, s.mma, s.arch) && mma_fits(s);
    nonzero
        && math
        && pipeline
        && threads_rule(s.m_dim, s.n_dim, limits).is_none()
        && tile_divides(s.m_blk, s.m_dim)
        && tile_divides(s.n_blk, s.n_dim)
        && a.shape_fits(s.threads())
        && b.shape_fits(s.threads())
        && width
        && resources
}

/// The first letter of `message` is lowercase and it ends without a period.
fn well_formed(v: &Violation) -> bool {
    let first_letter = v.message.chars().find(|c| c.is_alphabetic());
    first_letter.is_some_and(char::is_lowercase) && !v.message.ends_with('.')
}

/// Validates `spec` under `limits` and checks what the outcome promises.
fn check(spec: &KernelSpec, limits: &Limits) -> Result<(), TestCaseError> {
    let all_hold = predicates_hold(spec, limits);
    let verdict = validate_with(spec, limits);
    // The quiet check breaks the same rules, in the same order.
    let rules = verdict.clone().map_err(|v| v.iter().map(|v| v.rule).collect::<Vec<_>>());
    prop_assert_eq!(legal_with(spec, limits), rules);
    match verdict {
        Ok(plan) => {
            prop_assert!(all_hold, "accepted, but a predicate fails under {:?}", limits);
            let shared = shared_bytes(spec);
            prop_assert_eq!(u128::from(plan.shared_bytes()), shared);
            prop_assert!(plan.shared_bytes() <= limits.max_shared_per_block);
            prop_assert_eq!(u128::from(plan.smem_a_bytes()) + u128::from(plan.smem_b_bytes()), shared);
            prop_assert_eq!(u64::from(plan.stride(Operand::A)), smem_stride(spec, Operand::A));
            prop_assert_eq!(u64::from(plan.stride(Operand::B)), smem_stride(spec, Operand::B));
            prop_assert_eq!(u128::from(plan.regs_lower_bound()), regs_lower_bound(spec));
            prop_assert!(plan.regs_lower_bound() <= limits.max_regs_per_thread);
            prop_assert_eq!(u64::from(plan.threads()), spec.threads());
            prop_assert!(plan.threads() <= limits.max_threads_per_block);
            prop_assert_eq!(spec.block(), (plan.threads(), 1, 1));
            // The search space's stats of any plan, on a real GPU.
            let _ = Stats::of(&plan, &sm90());
        }
        Err(violations) => {
            prop_assert!(!all_hold, "rejected, but every predicate holds under {:?}", limits);
            prop_assert!(!violations.is_empty());
            for v in &violations {
                prop_assert!(well_formed(v), "{}", v.message);
                // The true sizes, however large.
                match v.rule {
                    Rule::SharedMemory => {
                        prop_assert!(!shared_fits(spec, limits));
                        let needs = format!("`tile` needs {} bytes", shared_bytes(spec));
                        prop_assert!(v.message.starts_with(&needs), "{}", v.message);
                    }
                    Rule::Registers => {
                        prop_assert!(!regs_fit(spec, limits));
                        let needs = format!("`tile` needs at least {} registers", regs_lower_bound(spec));
                        prop_assert!(v.message.starts_with(&needs), "{}", v.message);
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// What `gemm_kernel!` does with a spec: validate under the limits of its
/// `arch` and, if that passes, emit the PTX; and the spec's own helpers.
fn check_macro_path(spec: &KernelSpec, (m, n): (u32, u32)) -> Result<(), TestCaseError> {
    let _ = (
        spec.m_thr(),
        spec.n_thr(),
        gemm_codegen::Stencil::launch_shape(spec).grid(m, n),
        spec.to_invocation("Kernel"),
        spec.entry_name(),
    );
    let portable = validate(spec);
    prop_assert_eq!(&portable, &validate_with(spec, &Limits::for_target(spec.arch)));
    if let Ok(plan) = portable {
        let image = emit(&plan);
        prop_assert_eq!(image.shared_bytes, plan.shared_bytes());
        prop_assert_eq!(image.entry.into_owned(), spec.entry_name());
    }
    Ok(())
}

/// The search space's own predicate on `spec` for sm_90: within bounds
/// around the spec, it holds exactly when `validate_with` accepts the spec
/// under the device's limits and Table 1 admits its stats; counting the
/// space there (the spec's tile with every load shape) does not panic.
///
/// The space does not enumerate the pipeline parameters yet (`stages`,
/// `ldg_width`, `warps`, `raster`, `arch`): it is checked on the spec with
/// those at their defaults.
fn check_space(spec: &KernelSpec) -> Result<(), TestCaseError> {
    let spec = &KernelSpec {
        arch: KernelSpec::DEFAULT_ARCH,
        stages: KernelSpec::DEFAULT_STAGES,
        ldg_width: KernelSpec::DEFAULT_LDG_WIDTH,
        warps: KernelSpec::DEFAULT_WARPS,
        raster: KernelSpec::DEFAULT_RASTER,
        unroll: KernelSpec::DEFAULT_UNROLL,
        frag_sets: KernelSpec::DEFAULT_FRAG_SETS,
        interleave: KernelSpec::DEFAULT_INTERLEAVE,
        c_batch: KernelSpec::DEFAULT_C_BATCH,
        ..*spec
    };
    let device = sm90();
    let guidelines = Guidelines::table1(spec.precision);
    let point = |v: u32| v..=v;
    let bounds = Bounds {
        m_dim: point(spec.m_dim),
        n_dim: point(spec.n_dim),
        m_blk: point(spec.m_blk),
        n_blk: point(spec.n_blk),
        k_blk: point(spec.k_blk),
        lds_widths: vec![spec.lds_width],
        ldgs: vec![spec.ldg],
    };
    let space = Space::new(spec.precision, spec.op_a, spec.op_b, device.clone())
        .with_bounds(bounds)
        .with_guidelines(guidelines);
    let expected =
        validate_with(spec, &device.hard()).is_ok_and(|plan| guidelines.admits(&Stats::of(&plan, &device)));
    prop_assert_eq!(space.contains(spec), expected);
    let count = space.count();
    prop_assert!(count.survivors >= u64::from(expected));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(100_000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn validation_never_panics_and_keeps_its_promises(
        spec in specs(),
        drawn in limits(),
        grid in (field(), field()),
    ) {
        for limits in [Limits::PORTABLE, sm90().hard(), TOY, UNCAPPED, drawn] {
            check(&spec, &limits)?;
        }
        check_macro_path(&spec, grid)?;
        check_space(&spec)?;
        check_unaligned_twin(&spec)?;
    }
}

/// A spec its architecture accepts has an unaligned twin (the kernel the
/// host runs for operands short of its alignment) that it accepts too —
/// what the host counts on, and what failed on the GPU when a 1xTF32
/// kernel reading its operands from the ring had a twin whose converted
/// parts did not fit.
fn check_unaligned_twin(spec: &KernelSpec) -> Result<(), TestCaseError> {
    if validate(spec).is_err() {
        return Ok(());
    }
    if let Some(twin) = Stencil::unaligned_twin(spec) {
        prop_assert_eq!(twin.ldg_width, 1);
        prop_assert!(validate(&twin).is_ok(), "{} is legal, its twin {} is not", spec, twin);
    }
    Ok(())
}

/// The draw is worth its 100,000 cases: it reaches every rule, including
/// the resource rules with sizes beyond `u32` and `u64`, and specs that
/// pass, under the portable limits and with nothing capped.
#[test]
fn the_draw_reaches_every_rule_and_the_overflow_region() {
    let mut runner = TestRunner::deterministic();
    let strategy = specs();
    let mut rules = std::collections::HashSet::new();
    let (mut passed, mut passed_uncapped, mut beyond_u32, mut beyond_u64) = (0, 0, 0, 0);
    for _ in 0..20_000 {
        let spec = strategy.new_tree(&mut runner).unwrap().current();
        for limits in [Limits::PORTABLE, UNCAPPED] {
            match validate_with(&spec, &limits) {
                Ok(_) if limits == UNCAPPED => passed_uncapped += 1,
                Ok(_) => passed += 1,
                Err(violations) => {
                    rules.extend(violations.iter().map(|v| v.rule));
                    if limits == Limits::PORTABLE && violations.iter().any(|v| v.rule == Rule::SharedMemory) {
                        let bytes = shared_bytes(&spec);
                        beyond_u32 += usize::from(bytes > u128::from(u32::MAX));
                        beyond_u64 += usize::from(bytes > u128::from(u64::MAX));
                    }
                }
            }
        }
    }
    eprintln!(
        "rules {rules:?}; {passed} pass, {passed_uncapped} pass uncapped; shared bytes past u32 {beyond_u32}, \
         past u64 {beyond_u64}"
    );
    assert_eq!(rules.len(), 22, "rules reached: {rules:?}");
    assert!(passed >= 50 && passed_uncapped >= 100, "{passed} and {passed_uncapped} specs pass");
    assert!(beyond_u32 >= 100 && beyond_u64 >= 10, "{beyond_u32} past u32, {beyond_u64} past u64");
}

fn spec(
    precision: Precision,
    tile: (u32, u32, u32),
    threads: (u32, u32),
    load_a: (u32, u32),
    load_b: (u32, u32),
) -> KernelSpec {
    KernelSpec::new(
        precision,
        (Op::N, Op::N),
        (tile.0, tile.1, tile.2),
        (threads.0, threads.1),
        (load_a.0, load_a.1),
        (load_b.0, load_b.1),
    )
}

fn rules_and_messages(spec: &KernelSpec) -> Vec<(String, Rule, String)> {
    validate(spec).unwrap_err().into_iter().map(|v| (v.at.to_string(), v.rule, v.message)).collect()
}

/// The issue's spec: its shared memory (and `m_blk × k_blk`, part of the
/// register bound) overflowed `u32` inside the macro. Both resource rules
/// now report it, on `tile`, with the true numbers:
/// 65536 × (65536 + 1 + 32 + 1) floats, and 2048 × 32 accumulators + 2048
/// + 32 fragments + 65536 × (65536 + 32) / 32 prefetched elements.
#[test]
fn issue_spec_reports_shared_memory_and_registers_with_true_sizes() {
    let s = spec(Precision::F32, (65536, 32, 65536), (32, 1), (32, 1), (32, 1));
    assert_eq!(shared_bytes(&s), 65536 * (65536 + 1 + 32 + 1) * 4);
    assert_eq!(regs_lower_bound(&s), 2048 * 32 + 2048 + 32 + 65536 * (65536 + 32) / 32);
    let got = rules_and_messages(&s);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].0.as_str(), got[0].1), ("tile", Rule::SharedMemory));
    assert_eq!(
        got[0].2,
        "`tile` needs 17188782080 bytes of shared memory (k_blk × (m_blk + 1 + n_blk + 1) elements of 4 \
         bytes) but a block has at most 98304: reduce `tile`"
    );
    assert_eq!((got[1].0.as_str(), got[1].1), ("tile", Rule::Registers));
    assert!(
        got[1].2.starts_with("`tile` needs at least 134350880 registers per thread (2048 × 32 accumulators"),
        "{}",
        got[1].2
    );
}

/// Shared memory past `u64`: `K_blk = M_blk = 2^31` complex doubles.
#[test]
fn shared_memory_beyond_u64_is_reported_exactly() {
    let s = spec(Precision::C64, (1 << 31, 32, 1 << 31), (32, 1), (32, 1), (32, 1));
    let bytes = (1u128 << 31) * ((1 << 31) + 1 + 32 + 1) * 16;
    assert!(bytes > u128::from(u64::MAX));
    let got = rules_and_messages(&s);
    assert_eq!(
        got.iter().map(|(at, rule, _)| (at.as_str(), *rule)).collect::<Vec<_>>(),
        [("tile", Rule::SharedMemory), ("tile", Rule::Registers)]
    );
    assert!(got[0].2.starts_with(&format!("`tile` needs {bytes} bytes of shared memory")), "{}", got[0].2);
}

/// With nothing capped, a spec whose shared memory needs more than 2^31
/// bytes validates, and the plan gives its sizes exactly.
#[test]
fn plans_past_i32_are_exact() {
    // 2^28 threads in a column, reading a 2^29-row A and a 2^28-column B
    // stripe of depth 1; each thread computes 2 × 2^28 elements of C.
    let s = spec(Precision::F32, (1 << 29, 1 << 28, 1), (1 << 28, 1), (1 << 28, 1), (1, 1 << 28));
    let plan = validate_with(&s, &UNCAPPED).unwrap();
    assert_eq!(plan.threads(), 1 << 28);
    assert_eq!(plan.smem_a_bytes(), ((1 << 29) + 1) * 4);
    assert_eq!(plan.shared_bytes(), 3 * (1 << 30) + 8);
    assert_eq!(plan.regs_lower_bound(), 2 * (1 << 28) + 2 + (1 << 28) + 3);
    assert_eq!(s.block(), (1 << 28, 1, 1));
    let tighter = Limits { max_shared_per_block: plan.shared_bytes() - 1, ..UNCAPPED };
    assert_eq!(validate_with(&s, &tighter).unwrap_err()[0].rule, Rule::SharedMemory);
}

/// The space's loops step through tile sizes in `u32`: bounds at the top
/// of `u32`, where the next multiple of the thread dimension overflows,
/// hold no tile rather than panicking.
#[test]
fn space_bounds_at_the_top_of_u32_hold_nothing() {
    let bounds = Bounds {
        m_dim: 32..=32,
        n_dim: 1..=1,
        m_blk: u32::MAX - 1..=u32::MAX,
        n_blk: 1..=u32::MAX,
        k_blk: u32::MAX..=u32::MAX,
        ..Bounds::paper()
    };
    let space = Space::new(Precision::F32, Op::N, Op::N, sm90()).with_bounds(bounds);
    assert_eq!(space.count().hard, 0);
    assert!(space.sample(usize::MAX).is_empty());
}

/// Asking for more samples than the space holds gives all of them.
#[test]
fn sampling_more_than_the_space_holds_gives_it_all() {
    let space = Space::new(Precision::F64, Op::T, Op::N, sm90()).with_bounds(Bounds::up_to(8, 16, 4));
    let all = space.count().survivors;
    assert!(all > 0);
    assert_eq!(space.sample(usize::MAX).len() as u64, all);
}
