//! The search space of the universal GEMM stencil (Section 5.3 of Kurzak,
//! Tomov and Dongarra): every legal [`KernelSpec`] of one precision and op
//! pair on one GPU, pruned by performance [`Guidelines`].
//!
//! # Generation (Algorithm 2)
//!
//! The nested loops run over `N_dim`, `M_dim`, `K_blk`, `N_blk` (in steps of
//! `N_dim`) and `M_blk` (in steps of `M_dim`), within [`Bounds`] (the paper's
//! 256 for the dimensions and tiles, 64 for `K_blk`). For each legal tile
//! they yield every `lds_width` and then every `load_a` shape, `load_b`
//! shape and `ldg` path: our stencil's further parameters are further
//! dimensions of the space. The order is fixed, so every listing, count and
//! sample is deterministic.
//!
//! # Hard constraints
//!
//! A spec is in the space exactly when `validate_with(&spec, &device.hard())`
//! accepts it: the same per-part predicates of [`crate::constraints`] decide,
//! applied at the loop level where their inputs are fixed (threads per
//! block at the thread arrangement, resources at the tile, the load rules
//! per shape). The load shapes that fit A's stripe (which depends on `M_blk`
//! and `K_blk` only) and B's (`K_blk`, `N_blk`) are counted from the divisors
//! of the thread count, so [`Space::count`] multiplies counts instead of
//! building the specs it counts: a count takes a fraction of a second.
//!
//! The counts do not depend on the ops: transposing an operand swaps which
//! dimension of its stripe leads, and `(lead, cross) ↦ (cross, lead)` maps
//! the shapes that fit one way onto those that fit the other. The specs
//! differ; their number does not. (Figure 5 of the paper differs between
//! ops; its stencil had constraints ours has not.)
//!
//! # Performance guidelines (Algorithm 3, second to fourth sections)
//!
//! For each legal spec, [`Stats`] estimates its shared memory and registers
//! and [`DeviceLimits::occupancy`] turns them into resident blocks and
//! threads per SM; [`Guidelines`] then asks for a minimum of each and a
//! minimum register reuse ([`register_reuse`], real and complex formulas).
//!
//! The register estimate is the paper's: per thread, `M_thr·N_thr`
//! accumulators plus `M_thr + N_thr` fragments of A and B, plus the
//! prefetched stripes `M_blk·K_blk + K_blk·N_blk`, times the element's size
//! in 32-bit registers. The paper adds the stripes per block; our kernels
//! hold them in registers spread over the threads, so we add each thread's
//! share, rounded up, which is [`crate::constraints::regs_lower_bound`] — the
//! same number the hard register rule checks. Like the paper's it is a lower
//! bound: addresses and counters come on top, and the tuner replaces it with
//! `ptxas`'s count.

use crate::spec::Target;
use std::cmp::Reverse;
use std::ops::RangeInclusive;
use std::rc::Rc;

use crate::constraints::{
    Limits, Operand, Plan, StripePlan, lds_width_allowed, lds_width_divides, lds_width_fits_precision,
    proven_u32, register_reuse, regs_fit, regs_lower_bound, shared_bytes, shared_fits, threads_rule,
    tile_divides,
};
use crate::device::{DeviceLimits, Occupancy};
use crate::spec::{GlobalLoad, KernelSpec, LoadShape, Op, Precision};

/// The performance guidelines of Section 5.3.2: soft limits that prune specs
/// which would build and run, but slowly.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Guidelines {
    /// Resident threads per SM the spec must allow (the paper's "minimum
    /// occupancy"), by shared memory and by registers alike.
    pub min_threads_per_sm: u32,
    /// Resident blocks per SM the spec must allow.
    pub min_blocks_per_sm: u32,
    /// FMAs per shared-memory load in the innermost loop ([`register_reuse`]).
    pub min_reuse: f64,
}

impl Guidelines {
    /// No guidelines: the hard constraints alone.
    pub const NONE: Guidelines = Guidelines { min_threads_per_sm: 0, min_blocks_per_sm: 0, min_reuse: 0.0 };

    /// Table 1 of the paper: 512 threads and 2 blocks per SM, and a register
    /// reuse of 3 (S), 2 (D), 5 (C) or 2 (Z).
    pub const fn table1(precision: Precision) -> Guidelines {
        let min_reuse = match precision {
            Precision::F32 => 3.0,
            Precision::F64 => 2.0,
            Precision::C32 => 5.0,
            Precision::C64 => 2.0,
        };
        Guidelines { min_threads_per_sm: 512, min_blocks_per_sm: 2, min_reuse }
    }

    /// Whether a spec with these stats follows the guidelines.
    pub fn admits(&self, stats: &Stats) -> bool {
        let o = &stats.occupancy;
        o.blocks_by_shared >= self.min_blocks_per_sm
            && o.blocks_by_regs >= self.min_blocks_per_sm
            && o.threads_by_shared() >= self.min_threads_per_sm
            && o.threads_by_regs() >= self.min_threads_per_sm
            && stats.reuse >= self.min_reuse
    }

    /// Whether every spec these guidelines admit, `other` admits too.
    pub fn at_least_as_strict_as(&self, other: &Guidelines) -> bool {
        self.min_threads_per_sm >= other.min_threads_per_sm
            && self.min_blocks_per_sm >= other.min_blocks_per_sm
            && self.min_reuse >= other.min_reuse
    }
}

impl Default for Guidelines {
    fn default() -> Self {
        Guidelines::NONE
    }
}

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
            ldgs: GlobalLoad::ALL.to_vec(),
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

/// What the guidelines look at, for one legal spec.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Stats {
    /// Shared memory per block, in bytes (exact: it is declared statically).
    pub shared_bytes: u32,
    /// Estimated registers per thread (the module documentation says how).
    pub regs_estimate: u32,
    /// Resident blocks and threads per SM by each resource.
    pub occupancy: Occupancy,
    /// FMAs per shared-memory load in the innermost loop.
    pub reuse: f64,
}

impl Stats {
    /// The stats of a validated spec on `device`.
    pub fn of(plan: &Plan, device: &DeviceLimits) -> Stats {
        Stats::compute(plan.spec(), device)
    }

    /// As [`Stats::of`], for a spec known to pass the hard constraints,
    /// which bound its threads, shared bytes and registers by `u32` limits.
    fn compute(spec: &KernelSpec, device: &DeviceLimits) -> Stats {
        let shared = proven_u32(shared_bytes(spec));
        let regs = proven_u32(regs_lower_bound(spec));
        let threads = proven_u32(u128::from(spec.threads()));
        Stats {
            shared_bytes: shared,
            regs_estimate: regs,
            occupancy: device.occupancy(threads, shared, regs),
            reuse: register_reuse(spec),
        }
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
}

/// One legal (tile, threads, `lds_width`) point with its fitting load shapes
/// counted: every (load_a, load_b, ldg) at it is a legal spec.
#[derive(Clone, Copy, Debug)]
struct Point {
    /// The point's spec, with its first fitting load shapes and first `ldg`.
    spec: KernelSpec,
    stats: Stats,
    loads_a: u32,
    loads_b: u32,
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
    /// guidelines and the paper's bounds.
    pub fn new(precision: Precision, op_a: Op, op_b: Op, device: DeviceLimits) -> Space {
        Space { precision, op_a, op_b, device, guidelines: Guidelines::NONE, bounds: Bounds::paper() }
    }

    /// The same space under `guidelines`.
    pub fn with_guidelines(self, guidelines: Guidelines) -> Space {
        Space { guidelines, ..self }
    }

    /// The same space within `bounds`.
    pub fn with_bounds(self, bounds: Bounds) -> Space {
        Space { bounds, ..self }
    }

    /// The hard limits specs are checked against.
    pub fn limits(&self) -> Limits {
        self.device.hard()
    }

    /// Counts the specs the hard constraints admit and those the guidelines
    /// keep, without building them.
    pub fn count(&self) -> Count {
        let per_point = self.bounds.ldgs.len() as u64;
        self.points().fold(Count::default(), |mut count, p| {
            let n = u64::from(p.loads_a) * u64::from(p.loads_b) * per_point;
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
    /// precision and ops, legal, and following the guidelines.
    pub fn contains(&self, spec: &KernelSpec) -> bool {
        if (spec.precision, spec.op_a, spec.op_b) != (self.precision, self.op_a, self.op_b)
            || !self.bounds.contain(spec)
        {
            return false;
        }
        match crate::constraints::validate_with(spec, &self.limits()) {
            Ok(plan) => self.guidelines.admits(&Stats::of(&plan, &self.device)),
            Err(_) => false,
        }
    }

    /// `n` specs of the space spread over it, for a tuner that cannot run
    /// them all (`--max-variants`). Deterministic; all of them if the space
    /// holds at most `n`.
    ///
    /// The rule:
    ///
    /// 1. Group the specs by tile configuration (`tile` and `threads`); the
    ///    variants of a group differ in `lds_width`, load shapes and `ldg`.
    /// 2. Rank the groups by register reuse, then resident threads per SM
    ///    (both descending), then generation order.
    /// 3. If there are more groups than `n`, take `n` evenly spaced along
    ///    that ranking (the midpoints of `n` equal slices), so the sample
    ///    spans high to low reuse and occupancy rather than crowding at
    ///    either end; else take every group.
    /// 4. Order each chosen group's variants by a heuristic preference:
    ///    wider `lds_width` first, then better-coalesced loads (more bytes
    ///    read contiguously per row of the load shapes, up to a 128-byte
    ///    line, A and B summed), then `ldg` in [`GlobalLoad::ALL`] order, then
    ///    generation order.
    /// 5. Deal round-robin: every chosen group's first variant in ranking
    ///    order, then every group's second, and so on until `n`.
    ///
    /// The result is in dealing order, so a prefix of it is itself a spread
    /// sample.
    pub fn sample(&self, n: usize) -> Vec<Candidate> {
        if n == 0 {
            return Vec::new();
        }
        // Groups: consecutive points that share a tile configuration.
        struct Group {
            points: Vec<Point>,
            reuse: f64,
            threads_per_sm: u32,
        }
        let mut groups: Vec<Group> = Vec::new();
        for p in self.points().filter(|p| p.admitted) {
            let key = |s: &KernelSpec| (s.m_blk, s.n_blk, s.k_blk, s.m_dim, s.n_dim);
            match groups.last_mut() {
                Some(g) if key(&g.points[0].spec) == key(&p.spec) => {
                    g.threads_per_sm = g.threads_per_sm.max(p.stats.occupancy.threads_per_sm());
                    g.points.push(p);
                }
                _ => groups.push(Group {
                    points: vec![p],
                    reuse: p.stats.reuse,
                    threads_per_sm: p.stats.occupancy.threads_per_sm(),
                }),
            }
        }
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by(|&a, &b| {
            let (ga, gb) = (&groups[a], &groups[b]);
            gb.reuse.total_cmp(&ga.reuse).then(gb.threads_per_sm.cmp(&ga.threads_per_sm)).then(a.cmp(&b))
        });
        let chosen: Vec<usize> = if order.len() > n {
            (0..n).map(|i| order[(2 * i + 1) * order.len() / (2 * n)]).collect()
        } else {
            order
        };
        let element_bytes = self.precision.element_bytes();
        let coalesced = |shape: LoadShape| shape.lead.saturating_mul(element_bytes).min(128);
        let mut variants: Vec<Vec<Candidate>> = chosen
            .iter()
            .map(|&g| {
                let mut all: Vec<Candidate> = groups[g].points.iter().flat_map(|&p| self.expand(p)).collect();
                // A stable sort keeps generation order among equals.
                all.sort_by_key(|c| {
                    let s = &c.spec;
                    let ldg = GlobalLoad::ALL.iter().position(|&l| l == s.ldg);
                    (Reverse(s.lds_width), Reverse(coalesced(s.load_a) + coalesced(s.load_b)), ldg)
                });
                all.reverse(); // pop() from the front
                all
            })
            .collect();
        let total = variants.iter().map(Vec::len).sum::<usize>();
        let mut out = Vec::with_capacity(n.min(total));
        while out.len() < n {
            let before = out.len();
            for v in &mut variants {
                if out.len() == n {
                    break;
                }
                if let Some(c) = v.pop() {
                    out.push(c);
                }
            }
            if out.len() == before {
                break;
            }
        }
        out
    }

    /// The legal (tile, threads, `lds_width`) points, in generation order.
    ///
    /// Registers and shared memory grow with `M_blk`, `N_blk` and `K_blk`,
    /// so each tile loop stops at the first tile whose smallest possible
    /// demand (its smallest tile inside, no skew) breaks the register or
    /// shared-memory rule: every later tile would break it too.
    fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let limits = self.limits();
        let b = &self.bounds;
        let tile = move |m_dim, n_dim, m_blk, n_blk, k_blk| KernelSpec {
            precision: self.precision,
            op_a: self.op_a,
            op_b: self.op_b,
            m_blk,
            n_blk,
            k_blk,
            m_dim,
            n_dim,
            load_a: LoadShape { lead: 0, cross: 0 },
            load_b: LoadShape { lead: 0, cross: 0 },
            lds_width: 0,
            ldg: GlobalLoad::Nc,
            arch: Target::Sm70,
            stages: 1,
            ldg_width: 1,
            warps: None,
            raster: 1,
            unroll: None,
            frag_sets: 1,
        };
        let may_fit = move |tile: KernelSpec| regs_fit(&tile, &limits) && shared_fits(&tile, &limits);
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
                        // K_blk and N_blk: fit their load shapes once each.
                        let loads_a: Rc<[Loads]> = multiples(m_dim, &b.m_blk)
                            .map(|m_blk| {
                                self.fitting_loads(
                                    tile(m_dim, n_dim, m_blk, n_min, k_blk),
                                    Operand::A,
                                    &divisors,
                                )
                            })
                            .collect();
                        let loads_b: Rc<[Loads]> = multiples(n_dim, &b.n_blk)
                            .map(|n_blk| {
                                self.fitting_loads(
                                    tile(m_dim, n_dim, m_min, n_blk, k_blk),
                                    Operand::B,
                                    &divisors,
                                )
                            })
                            .collect();
                        multiples(n_dim, &b.n_blk)
                            .zip(0..)
                            .take_while(move |&(n_blk, _)| may_fit(tile(m_dim, n_dim, m_min, n_blk, k_blk)))
                            .flat_map(move |(n_blk, j)| {
                                let (loads_a, load_b) = (loads_a.clone(), loads_b[j]);
                                multiples(m_dim, &b.m_blk)
                                    .zip(0..)
                                    .map(move |(m_blk, i)| {
                                        (tile(m_dim, n_dim, m_blk, n_blk, k_blk), loads_a[i])
                                    })
                                    .take_while(move |&(tile, _)| may_fit(tile))
                                    .flat_map(move |(tile, load_a)| {
                                        self.tile_points(tile, load_a, load_b, &limits)
                                    })
                            })
                    })
            })
    }

    /// The legal points of one (tile, threads) whose stripes fit `loads_a`
    /// and `loads_b` load shapes: nothing if a width-free rule fails, else
    /// one per legal `lds_width`.
    fn tile_points(
        &self,
        mut tile: KernelSpec,
        loads_a: Loads,
        loads_b: Loads,
        limits: &Limits,
    ) -> Vec<Point> {
        debug_assert!(tile_divides(tile.m_blk, tile.m_dim) && tile_divides(tile.n_blk, tile.n_dim));
        // The register bound does not depend on the width or the loads.
        if !regs_fit(&tile, limits) {
            return Vec::new();
        }
        let ((loads_a, Some(first_a)), (loads_b, Some(first_b))) = (loads_a, loads_b) else {
            return Vec::new();
        };
        let Some(&first_ldg) = self.bounds.ldgs.first() else {
            return Vec::new();
        };
        tile.load_a = first_a;
        tile.load_b = first_b;
        tile.ldg = first_ldg;
        let (m_thr, n_thr) = (tile.m_thr(), tile.n_thr());
        self.bounds
            .lds_widths
            .iter()
            .map(|&lds_width| KernelSpec { lds_width, ..tile })
            .filter(|s| {
                lds_width_allowed(s.lds_width)
                    && lds_width_fits_precision(s.lds_width, s.precision)
                    && lds_width_divides(s.lds_width, m_thr, n_thr)
                    && shared_fits(s, limits)
            })
            .map(|spec| {
                let stats = Stats::compute(&spec, &self.device);
                let admitted = self.guidelines.admits(&stats);
                Point { spec, stats, loads_a, loads_b, admitted }
            })
            .collect()
    }

    /// The load shapes that fit `operand`'s stripe of `tile`, in ascending
    /// `lead`: how many, and the first.
    fn fitting_loads(&self, tile: KernelSpec, operand: Operand, divisors: &[u32]) -> Loads {
        let mut shapes = self.load_shapes(tile, operand, divisors);
        let first = shapes.next();
        (u32::from(first.is_some()) + shapes.count() as u32, first)
    }

    /// The load shapes that fit `operand`'s stripe of `tile`, in ascending
    /// `lead`: the divisor pairs of the thread count that the load rules of
    /// [`StripePlan`] accept.
    fn load_shapes<'a>(
        &self,
        mut tile: KernelSpec,
        operand: Operand,
        divisors: &'a [u32],
    ) -> impl Iterator<Item = LoadShape> + 'a {
        let threads = tile.threads();
        divisors.iter().filter_map(move |&lead| {
            let shape = LoadShape { lead, cross: u32::try_from(threads / u64::from(lead)).ok()? };
            match operand {
                Operand::A => tile.load_a = shape,
                Operand::B => tile.load_b = shape,
            }
            StripePlan::new(&tile, operand).shape_fits(threads).then_some(shape)
        })
    }

    /// Every spec at a point: load_a, then load_b, then ldg.
    fn expand(&self, p: Point) -> impl Iterator<Item = Candidate> + '_ {
        let divisors = divisors(proven_u32(u128::from(p.spec.threads())));
        let shapes_a: Vec<LoadShape> = self.load_shapes(p.spec, Operand::A, &divisors).collect();
        let shapes_b: Vec<LoadShape> = self.load_shapes(p.spec, Operand::B, &divisors).collect();
        debug_assert_eq!((shapes_a.len() as u32, shapes_b.len() as u32), (p.loads_a, p.loads_b));
        shapes_a.into_iter().flat_map(move |load_a| {
            let shapes_b = shapes_b.clone();
            shapes_b.into_iter().flat_map(move |load_b| {
                self.bounds.ldgs.iter().map(move |&ldg| Candidate {
                    spec: KernelSpec { load_a, load_b, ldg, ..p.spec },
                    stats: p.stats,
                })
            })
        })
    }
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

    #[test]
    fn table1_guidelines() {
        assert_eq!(Guidelines::table1(Precision::C32).min_reuse, 5.0);
        assert_eq!(Guidelines::table1(Precision::F32).min_threads_per_sm, 512);
        assert_eq!(Guidelines::table1(Precision::C64).min_blocks_per_sm, 2);
        assert!(Guidelines::table1(Precision::F32).at_least_as_strict_as(&Guidelines::NONE));
    }
}
