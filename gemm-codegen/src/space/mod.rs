//! The search space of the universal GEMM stencil (Section 5.3 of Kurzak,
//! Tomov and Dongarra): every legal [`KernelSpec`] of one precision and op
//! pair on one GPU, pruned by performance [`Guidelines`].
//!
//! # Generation (Algorithm 2)
//!
//! The nested loops run over `N_dim`, `M_dim`, `K_blk`, `N_blk` (in steps of
//! `N_dim`) and `M_blk` (in steps of `M_dim`), within [`Bounds`] (the paper's
//! 256 for the dimensions and tiles, 64 for `K_blk`). For each legal tile
//! they yield every `lds_width`, `stages` and `ldg_width` (a *point*), then
//! every `load_a` shape, `load_b` shape, and the free dimensions `ldg`,
//! `warps` and `raster`: our stencil's further parameters are further
//! dimensions of the space. Which values the parameters added after the
//! paper take is the space's [`Pipeline`] (the [`pipeline`] module says how
//! a new one joins); [`Pipeline::portable`], the default, holds each at its
//! default, which is the paper's space. The order is fixed, so every
//! listing, count and sample is deterministic.
//!
//! # Hard constraints
//!
//! A spec is in the space exactly when `validate_with(&spec, &space.limits())`
//! accepts it and its pipeline parameters are among the [`Pipeline`]'s
//! values ([`LdgWidths::WidestOrOne`] and [`Warps::Squarest`] choose among
//! the legal values by a rule). The limits are the device's
//! ([`Space::limits`]): 48 KiB of shared memory per block for the portable
//! space, the opt-in maximum for a space of an architecture (the lowering
//! then declares the stripes dynamically).
//! The same per-part predicates of [`crate::constraints`] decide,
//! applied at the loop level where their inputs are fixed (threads per
//! block at the thread arrangement, resources at the tile, the load rules
//! per shape). The load shapes that fit A's stripe (which depends on `M_blk`
//! and `K_blk` only) and B's (`K_blk`, `N_blk`) are counted from the divisors
//! of the thread count, so [`Space::count`] multiplies counts instead of
//! building the specs it counts: a count takes a fraction of a second.
//!
//! With `ldg_width = 1` the counts do not depend on the ops: transposing an
//! operand swaps which dimension of its stripe leads, and `(lead, cross) ↦
//! (cross, lead)` maps the shapes that fit one way onto those that fit the
//! other. The specs differ; their number does not. A wider `ldg_width`
//! asks more of the leading dimension only, so the tuner's space differs
//! slightly between ops. (Figure 5 of the paper differs between
//! ops; its stencil had constraints ours has not.)
//!
//! # Performance guidelines (Algorithm 3, second to fourth sections)
//!
//! For each legal spec, [`Stats`] estimates its shared memory and registers
//! and [`DeviceLimits::occupancy`] turns them into resident blocks and
//! threads per SM; [`Guidelines`] then asks for a minimum of each and a
//! minimum register reuse ([`crate::constraints::register_reuse`], real
//! and complex formulas). Specs with a `cp.async` ring have minimums of
//! their own ([`Guidelines`] says why).
//!
//! The register estimate is the paper's: per thread, `M_thr·N_thr`
//! accumulators plus `M_thr + N_thr` fragments of A and B, plus the
//! prefetched stripes `M_blk·K_blk + K_blk·N_blk`, times the element's size
//! in 32-bit registers. The paper adds the stripes per block; our kernels
//! hold them in registers spread over the threads, so we add each thread's
//! share, rounded up, which is [`crate::constraints::regs_lower_bound`] — the
//! same number the hard register rule checks. A ring kernel stages nothing
//! in registers (`cp.async` copies straight to shared memory), so its
//! estimate has no stripes. Like the paper's it is a lower
//! bound: addresses and counters come on top, and the tuner replaces it with
//! `ptxas`'s count.

mod guidelines;
pub mod pipeline;
mod sample;

use std::ops::RangeInclusive;
use std::rc::Rc;

pub use guidelines::{Guidelines, Stats};
pub use pipeline::{LdgWidths, Pipeline, Warps};

use crate::constraints::{
    Limits, Operand, StripePlan, WGMMA_MIN_STAGES, frag_sets_allowed, ldg_width_allowed,
    ldg_width_fits_precision, lds_width_allowed, lds_width_fits_precision, lds_width_fits_tile,
    mma_lds_width, proven_u32, regs_fit, shared_fits, stages_allowed, threads_rule, tile_divides,
};
use crate::device::DeviceLimits;
use crate::spec::{GlobalLoad, KernelSpec, LoadShape, Op, Precision, Target};
use pipeline::{MathChoice, free_count, free_settings, ldg_fits, widest};
/// The ranges the generator's loops run over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// `M_dim` (`threads.0`).
    pub m_dim: RangeInclusive<u32>,
    /// `N_dim` (`threads.1`).
    pub n_dim: RangeInclusive<u32>,
    /// `M_blk` (`tile.0`); only multiples of `M_dim` are legal.
    pub m_blk: RangeInclusive<u32>,
    /// `N_blk` (`tile.1`); only multiples of `N_dim` are legal.
    pub n_blk: RangeInclusive<u32>,
    /// `K_blk` (`tile.2`).
    pub k_blk: RangeInclusive<u32>,
    /// The `lds_width`s to try, each once, in this order.
    pub lds_widths: Vec<u32>,
    /// The `ldg` paths to try, each once, in this order.
    pub ldgs: Vec<GlobalLoad>,
}

impl Bounds {
    /// The paper's bounds: thread dimensions and tiles up to 256, `K_blk` up
    /// to 64; every `lds_width` and `ldg`.
    pub fn paper() -> Bounds {
        Bounds::up_to(256, 256, 64)
    }

    /// Thread dimensions up to `max_dim`, `M_blk` and `N_blk` up to
    /// `max_blk`, `K_blk` up to `max_k_blk`; every `lds_width` and `ldg`.
    pub fn up_to(max_dim: u32, max_blk: u32, max_k_blk: u32) -> Bounds {
        Bounds {
            m_dim: 1..=max_dim,
            n_dim: 1..=max_dim,
            m_blk: 1..=max_blk,
            n_blk: 1..=max_blk,
            k_blk: 1..=max_k_blk,
            lds_widths: vec![1, 2, 4],
            ldgs: GlobalLoad::INSTRUCTIONS.to_vec(),
        }
    }

    /// Whether `spec`'s parameters lie within these bounds.
    pub fn contain(&self, spec: &KernelSpec) -> bool {
        self.m_dim.contains(&spec.m_dim)
            && self.n_dim.contains(&spec.n_dim)
            && self.m_blk.contains(&spec.m_blk)
            && self.n_blk.contains(&spec.n_blk)
            && self.k_blk.contains(&spec.k_blk)
            && self.lds_widths.contains(&spec.lds_width)
            && self.ldgs.contains(&spec.ldg)
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds::paper()
    }
}

/// A spec of the space and its stats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The spec (legal under the device's hard limits).
    pub spec: KernelSpec,
    /// Its stats.
    pub stats: Stats,
}

/// How many specs a space holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Count {
    /// Specs the hard constraints admit.
    pub hard: u64,
    /// Of those, the specs the guidelines admit too.
    pub survivors: u64,
}

/// The legal specs of one precision and op pair on one device, within
/// bounds, that follow the guidelines.
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    /// Element type.
    pub precision: Precision,
    /// `op(A)`.
    pub op_a: Op,
    /// `op(B)`.
    pub op_b: Op,
    /// The GPU.
    pub device: DeviceLimits,
    /// Performance guidelines ([`Guidelines::NONE`] by default).
    pub guidelines: Guidelines,
    /// Loop bounds ([`Bounds::paper`] by default).
    pub bounds: Bounds,
    /// The pipeline dimensions ([`Pipeline::portable`] by default).
    pub pipeline: Pipeline,
}

/// One legal (tile, threads, `lds_width`, `stages`, `ldg_width`) point
/// with its (load_a, load_b) pairs and free settings counted: every
/// combination of the two is a legal spec.
#[derive(Clone, Copy, Debug)]
struct Point {
    /// The point's spec, with fitting load shapes and its first free
    /// setting.
    spec: KernelSpec,
    stats: Stats,
    /// (load_a, load_b) pairs at the point.
    pairs: u64,
    /// Settings of the free dimensions.
    free: u64,
    admitted: bool,
}

/// How many load shapes fit a stripe, and the first of them.
type Loads = (u32, Option<LoadShape>);

/// Multiples of `step` (nonzero) within `range`, ascending: Algorithm 2's
/// `for X_blk = X_dim to X_blkMAX step X_dim`. Empty if the first would
/// exceed `u32`.
fn multiples(step: u32, range: &RangeInclusive<u32>) -> impl Iterator<Item = u32> + use<> {
    let (first, end) = (range.start().div_ceil(step).max(1).checked_mul(step), *range.end());
    first.into_iter().flat_map(move |first| first..=end).step_by(step as usize)
}

/// Divisors of `n` (nonzero), ascending.
fn divisors(n: u32) -> Vec<u32> {
    (1..=n).filter(|d| n.is_multiple_of(*d)).collect()
}

impl Space {
    /// The space of `precision` and `op_a`, `op_b` on `device`, with no
    /// guidelines, the paper's bounds and the portable pipeline: the
    /// paper's space.
    pub fn new(precision: Precision, op_a: Op, op_b: Op, device: DeviceLimits) -> Space {
        Space {
            precision,
            op_a,
            op_b,
            device,
            guidelines: Guidelines::NONE,
            bounds: Bounds::paper(),
            pipeline: Pipeline::portable(),
        }
    }

    /// What the tuner searches on `device`: the paper's bounds, the
    /// pipeline of the newest portable architecture the device runs
    /// ([`Pipeline::tuner`]; the portable one for a GPU older than every
    /// target) and [`Guidelines::pipelined`].
    pub fn for_tuning(precision: Precision, op_a: Op, op_b: Op, device: DeviceLimits) -> Space {
        let pipeline = Target::newest_for(device.compute_capability().sm())
            .map_or_else(Pipeline::portable, Pipeline::tuner);
        Space::new(precision, op_a, op_b, device)
            .with_guidelines(Guidelines::pipelined(precision))
            .with_pipeline(pipeline)
    }

    /// The same space under `guidelines`.
    pub fn with_guidelines(self, guidelines: Guidelines) -> Space {
        Space { guidelines, ..self }
    }

    /// The same space within `bounds`.
    pub fn with_bounds(self, bounds: Bounds) -> Space {
        Space { bounds, ..self }
    }

    /// The same space over `pipeline`'s dimensions.
    pub fn with_pipeline(self, pipeline: Pipeline) -> Space {
        Space { pipeline, ..self }
    }

    /// The hard limits specs are checked against: the device's
    /// ([`DeviceLimits::hard`], 48 KiB of static shared memory per block)
    /// for the portable space; for a space of an architecture, shared
    /// memory up to the block's opt-in maximum on the device, capped by
    /// what the architecture allows ([`Target::max_shared_per_block`], so
    /// that every spec also passes [`crate::validate`]).
    pub fn limits(&self) -> Limits {
        let hard = self.device.hard();
        match self.pipeline.target {
            None => hard,
            Some(target) => {
                let opt_in = self.device.driver.max_shared_per_block_optin.max(hard.max_shared_per_block);
                Limits { max_shared_per_block: opt_in.min(target.max_shared_per_block()), ..hard }
            }
        }
    }

    /// Counts the specs the hard constraints admit and those the guidelines
    /// keep, without building them.
    pub fn count(&self) -> Count {
        self.points().fold(Count::default(), |mut count, p| {
            let n = p.pairs * p.free;
            count.hard += n;
            if p.admitted {
                count.survivors += n;
            }
            count
        })
    }

    /// Every spec that follows the guidelines, with its stats, in generation
    /// order.
    pub fn iter(&self) -> impl Iterator<Item = Candidate> + '_ {
        self.points().filter(|p| p.admitted).flat_map(move |p| self.expand(p))
    }

    /// Every spec that follows the guidelines, in generation order.
    pub fn specs(&self) -> Vec<KernelSpec> {
        self.iter().map(|c| c.spec).collect()
    }

    /// Whether `spec` is in the space: within bounds, of the space's
    /// precision, ops and pipeline values, legal, and following the
    /// guidelines.
    pub fn contains(&self, spec: &KernelSpec) -> bool {
        if (spec.precision, spec.op_a, spec.op_b) != (self.precision, self.op_a, self.op_b)
            || !self.bounds.contain(spec)
            || !self.pipeline.lists(spec)
        {
            return false;
        }
        match crate::constraints::legal_with(spec, &self.limits()) {
            Ok(plan) => self.guidelines.admits(&Stats::of(&plan, &self.device)),
            Err(_) => false,
        }
    }

    /// The legal points, in generation order.
    ///
    /// Registers and shared memory grow with `M_blk`, `N_blk` and `K_blk`,
    /// so each tile loop stops at the first tile whose smallest possible
    /// demand (its smallest tile inside, no skew, the fewest stages for
    /// shared memory and the deepest for registers) breaks the register or
    /// shared-memory rule: every later tile would break it too.
    fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let limits = self.limits();
        let b = &self.bounds;
        let arch = self.pipeline.arch();
        let widths = self.pipeline.ldg_widths.candidates();
        let tile = move |m_dim, n_dim, m_blk, n_blk, k_blk| KernelSpec {
            lds_width: 0,
            arch,
            ..KernelSpec::new(
                self.precision,
                (self.op_a, self.op_b),
                (m_blk, n_blk, k_blk),
                (m_dim, n_dim),
                (0, 0),
                (0, 0),
            )
        };
        // No allowed stage: an empty space (every tile "breaks" a rule).
        let (fewest, deepest) = self.pipeline.stage_extremes().unwrap_or((0, 0));
        let may_fit = move |tile: KernelSpec| {
            fewest > 0
                && self.pipeline.regs_fit_some_math(&KernelSpec { stages: deepest, ..tile }, &limits)
                && shared_fits(&KernelSpec { stages: fewest, ..tile }, &limits)
        };
        b.n_dim
            .clone()
            .flat_map(move |n_dim| b.m_dim.clone().map(move |m_dim| (m_dim, n_dim)))
            .filter(move |&(m_dim, n_dim)| {
                m_dim > 0 && n_dim > 0 && threads_rule(m_dim, n_dim, &limits).is_none()
            })
            .flat_map(move |(m_dim, n_dim)| {
                // The thread rule bounds m_dim × n_dim by a u32 limit.
                let divisors: Rc<[u32]> = divisors(proven_u32(u128::from(m_dim) * u128::from(n_dim))).into();
                let m_min = multiples(m_dim, &b.m_blk).next().unwrap_or(m_dim);
                let n_min = multiples(n_dim, &b.n_blk).next().unwrap_or(n_dim);
                b.k_blk
                    .clone()
                    .filter(|&k_blk| k_blk > 0)
                    .take_while(move |&k_blk| may_fit(tile(m_dim, n_dim, m_min, n_min, k_blk)))
                    .flat_map(move |k_blk| {
                        // A's stripe depends on M_blk and K_blk only, B's on
                        // K_blk and N_blk: fit their load shapes once each,
                        // per candidate `ldg_width` (`widths.len()` per tile).
                        let loads_a: Rc<[Loads]> = multiples(m_dim, &b.m_blk)
                            .flat_map(|m_blk| {
                                let t = tile(m_dim, n_dim, m_blk, n_min, k_blk);
                                self.fitting_loads(t, Operand::A, &divisors, widths)
                            })
                            .collect();
                        let loads_b: Rc<[Loads]> = multiples(n_dim, &b.n_blk)
                            .flat_map(|n_blk| {
                                let t = tile(m_dim, n_dim, m_min, n_blk, k_blk);
                                self.fitting_loads(t, Operand::B, &divisors, widths)
                            })
                            .collect();
                        let nw = widths.len();
                        multiples(n_dim, &b.n_blk)
                            .zip(0..)
                            .take_while(move |&(n_blk, _)| may_fit(tile(m_dim, n_dim, m_min, n_blk, k_blk)))
                            .flat_map(move |(n_blk, j)| {
                                let (loads_a, loads_b) = (loads_a.clone(), loads_b.clone());
                                multiples(m_dim, &b.m_blk)
                                    .zip(0..)
                                    .map(move |(m_blk, i)| (tile(m_dim, n_dim, m_blk, n_blk, k_blk), i))
                                    .take_while(move |&(tile, _)| may_fit(tile))
                                    .flat_map(move |(tile, i)| {
                                        let a = &loads_a[i * nw..(i + 1) * nw];
                                        let b = &loads_b[j * nw..(j + 1) * nw];
                                        self.tile_points(tile, a, b, &limits)
                                    })
                            })
                    })
            })
    }

    /// The legal points of one (tile, threads) whose stripes fit `loads_a`
    /// and `loads_b` load shapes per candidate `ldg_width`: nothing if a
    /// width-free rule fails, else one per legal (`lds_width`, `stages`,
    /// `ldg_width`) with at least one spec.
    fn tile_points(
        &self,
        tile: KernelSpec,
        loads_a: &[Loads],
        loads_b: &[Loads],
        limits: &Limits,
    ) -> Vec<Point> {
        debug_assert!(tile_divides(tile.m_blk, tile.m_dim) && tile_divides(tile.n_blk, tile.n_dim));
        let Some((_, deepest)) = self.pipeline.stage_extremes() else { return Vec::new() };
        // The register bound does not depend on the widths or the loads,
        // and is least with a ring.
        if !self.pipeline.regs_fit_some_math(&KernelSpec { stages: deepest, ..tile }, limits) {
            return Vec::new();
        }
        // Any `ldg` a thread loads with decides legality as well as another
        // (`tma` is never generated: see `FREE`).
        let Some(first_ldg) = self.bounds.ldgs.iter().copied().find(|&l| l != GlobalLoad::Tma) else {
            return Vec::new();
        };
        let precision = tile.precision;
        let cp_async = tile.arch.has_cp_async();
        let widths = self.pipeline.ldg_widths.candidates();
        let legal_width = |w: u32| ldg_width_allowed(w) && ldg_width_fits_precision(w, precision);
        let pairs_of = |i: usize| u64::from(loads_a[i].0) * u64::from(loads_b[i].0);
        let mut out = Vec::new();
        let maths: Vec<MathChoice> = self.pipeline.maths(&tile).collect();
        for (&lds_width, choice) in
            self.bounds.lds_widths.iter().flat_map(|w| maths.iter().map(move |c| (w, *c)))
        {
            if !(lds_width_allowed(lds_width) && lds_width_fits_precision(lds_width, precision))
                || (choice.math.is_mma() && lds_width != mma_lds_width(precision))
            {
                continue;
            }
            let tile = choice.apply(KernelSpec { lds_width, ..tile });
            if !lds_width_fits_tile(&tile) {
                continue;
            }
            // A warpgroup product needs a ring and reads its fragments from
            // shared memory itself (no fragment sets).
            let wgmma = tile.wgmma().is_some();
            let stages_ok = |s: u32| stages_allowed(s, cp_async) && (!wgmma || s >= WGMMA_MIN_STAGES);
            for &stages in self.pipeline.stages.iter().filter(|&&s| stages_ok(s)) {
                let frag_sets = self
                    .pipeline
                    .frag_sets
                    .iter()
                    .copied()
                    .filter(|&f| frag_sets_allowed(f) && (!wgmma || f == 1));
                let legal = widths.iter().copied().enumerate().filter(|&(_, w)| legal_width(w));
                for ((wi, ldg_width), frag_sets) in legal.flat_map(|w| frag_sets.clone().map(move |f| (w, f)))
                {
                    let mut spec = KernelSpec { stages, ldg_width, frag_sets, ldg: first_ldg, ..tile };
                    if !(shared_fits(&spec, limits) && regs_fit(&spec, limits)) {
                        continue;
                    }
                    let pairs = match self.pipeline.ldg_widths {
                        LdgWidths::Each(_) => pairs_of(wi),
                        LdgWidths::WidestOrOne if ldg_width == 1 => pairs_of(wi),
                        // Pairs whose widest common width is this one: the
                        // candidates widen, and a shape that fits a width
                        // fits every narrower one.
                        LdgWidths::WidestOrOne => {
                            let wider = (wi + 1..widths.len()).find(|&j| legal_width(widths[j]));
                            pairs_of(wi) - wider.map_or(0, pairs_of)
                        }
                    };
                    let (Some(load_a), Some(load_b)) = (loads_a[wi].1, loads_b[wi].1) else { continue };
                    if pairs == 0 {
                        continue;
                    }
                    (spec.load_a, spec.load_b) = (load_a, load_b);
                    let free = free_count(self, &spec);
                    if free == 0 {
                        continue;
                    }
                    let stats = Stats::compute(&spec, &self.device);
                    let admitted = self.guidelines.admits(&stats);
                    out.push(Point { spec, stats, pairs, free, admitted });
                }
            }
        }
        out
    }

    /// Per width of `widths`, the load shapes that fit `operand`'s stripe
    /// of `tile` with that `ldg_width`, in ascending `lead`: how many, and
    /// the first.
    fn fitting_loads(
        &self,
        tile: KernelSpec,
        operand: Operand,
        divisors: &[u32],
        widths: &[u32],
    ) -> Vec<Loads> {
        let mut out: Vec<Loads> = vec![(0, None); widths.len()];
        for shape in self.load_shapes(tile, operand, divisors) {
            let stripe = StripePlan::new(&with_load(tile, operand, shape), operand);
            for (loads, &w) in out.iter_mut().zip(widths) {
                if ldg_fits(w, tile.precision, &stripe) {
                    loads.0 += 1;
                    loads.1.get_or_insert(shape);
                }
            }
        }
        out
    }

    /// The load shapes that fit `operand`'s stripe of `tile`, in ascending
    /// `lead`: the divisor pairs of the thread count that the load rules of
    /// [`StripePlan`] accept.
    fn load_shapes<'a>(
        &self,
        tile: KernelSpec,
        operand: Operand,
        divisors: &'a [u32],
    ) -> impl Iterator<Item = LoadShape> + 'a {
        let threads = tile.threads();
        divisors.iter().filter_map(move |&lead| {
            let shape = LoadShape { lead, cross: u32::try_from(threads / u64::from(lead)).ok()? };
            StripePlan::new(&with_load(tile, operand, shape), operand).shape_fits(threads).then_some(shape)
        })
    }

    /// Every spec at a point: load_a, then load_b, then the free
    /// dimensions.
    fn expand(&self, p: Point) -> impl Iterator<Item = Candidate> + '_ {
        let spec = p.spec;
        let divisors = divisors(proven_u32(u128::from(spec.threads())));
        // Each shape with the widest `ldg_width` it allows.
        let shapes = |operand| -> Vec<(LoadShape, u32)> {
            self.load_shapes(spec, operand, &divisors)
                .map(|shape| {
                    let stripe = StripePlan::new(&with_load(spec, operand, shape), operand);
                    (shape, widest(spec.precision, &[stripe]))
                })
                .filter(|&(shape, _)| {
                    let stripe = StripePlan::new(&with_load(spec, operand, shape), operand);
                    ldg_fits(spec.ldg_width, spec.precision, &stripe)
                })
                .collect()
        };
        let (shapes_a, shapes_b) = (shapes(Operand::A), shapes(Operand::B));
        let only_widest = self.pipeline.ldg_widths == LdgWidths::WidestOrOne && spec.ldg_width > 1;
        let pairs: Vec<(LoadShape, LoadShape)> = shapes_a
            .iter()
            .flat_map(|&(a, wa)| shapes_b.iter().map(move |&(b, wb)| (a, b, wa.min(wb))))
            .filter(|&(_, _, w)| !only_widest || w == spec.ldg_width)
            .map(|(a, b, _)| (a, b))
            .collect();
        debug_assert_eq!(pairs.len() as u64, p.pairs, "{spec}");
        pairs.into_iter().flat_map(move |(load_a, load_b)| {
            free_settings(self, KernelSpec { load_a, load_b, ..spec })
                .map(move |spec| Candidate { spec, stats: p.stats })
        })
    }
}

/// `tile` with `shape` as `operand`'s load shape.
fn with_load(mut tile: KernelSpec, operand: Operand, shape: LoadShape) -> KernelSpec {
    match operand {
        Operand::A => tile.load_a = shape,
        Operand::B => tile.load_b = shape,
    }
    tile
}

/// The four op pairs of Figure 5: NN, NT, TN, TT.
pub const FIGURE5_OPS: [(Op, Op); 4] = [(Op::N, Op::N), (Op::N, Op::T), (Op::T, Op::N), (Op::T, Op::T)];

/// One cell of Figure 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure5Row {
    /// The kernel type's precision.
    pub precision: Precision,
    /// Its op pair.
    pub ops: (Op, Op),
    /// The guidelines applied (Table 1's for the precision).
    pub guidelines: Guidelines,
    /// The counts.
    pub count: Count,
}

/// Figure 5 of the paper on `device`: the space of each of the 16 kernel
/// types (S, D, C, Z × NN, NT, TN, TT) under Table 1's guidelines, within
/// `bounds`, in that order. The 16 counts run on parallel threads.
pub fn figure5(device: &DeviceLimits, bounds: &Bounds) -> Vec<Figure5Row> {
    let kinds: Vec<(Precision, (Op, Op))> =
        Precision::ALL.into_iter().flat_map(|p| FIGURE5_OPS.into_iter().map(move |ops| (p, ops))).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = kinds
            .into_iter()
            .map(|(precision, ops)| {
                scope.spawn(move || {
                    let guidelines = Guidelines::table1(precision);
                    let space = Space::new(precision, ops.0, ops.1, device.clone())
                        .with_guidelines(guidelines)
                        .with_bounds(bounds.clone());
                    Figure5Row { precision, ops, guidelines, count: space.count() }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("counting does not panic")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiples_follow_algorithm_2() {
        assert_eq!(multiples(16, &(1..=64)).collect::<Vec<_>>(), [16, 32, 48, 64]);
        assert_eq!(multiples(16, &(17..=64)).collect::<Vec<_>>(), [32, 48, 64]);
        assert_eq!(multiples(16, &(0..=15)).count(), 0);
        assert_eq!(divisors(12), [1, 2, 3, 4, 6, 12]);
    }
}
