//! The hard constraints of the stencil (Algorithm 3 of Kurzak, Tomov and
//! Dongarra, first section) and the derived quantities of a legal spec.
//!
//! This is the one implementation of "is this kernel legal": the macro reports
//! its [`Violation`]s as compile errors, the search space uses it to prune,
//! and the lowering accepts only the [`Plan`] it returns.
//!
//! [`validate_with`] accepts a spec exactly when every per-part rule holds:
//! [`threads_rule`], [`tile_divides`], [`StripePlan::shape_fits`] for A and B,
//! [`lds_width_allowed`], [`lds_width_fits_precision`], [`lds_width_divides`],
//! [`shared_fits`] and [`regs_fit`] (with every parameter nonzero). These
//! predicates are public so that the search space can count legal specs
//! part by part without building each one; the checks below call the same
//! predicates and only add the message.

use crate::spec::{GlobalLoad, KernelSpec, LoadShape, Math, Op, Precision, Target};

mod layout;
mod math;
mod pipeline;
mod registers;
mod tma;
mod violation;
mod wgmma;

pub use registers::{regs_fit, regs_lower_bound};
pub use violation::{Field, ParamPath, Rule, Violation};

pub use layout::{StripeLayout, Swizzle, stripe_layout};
pub use math::{
    math_allowed, mma_allowed, mma_fits, mma_lds_width, mma_stripe_fits, mma_threads_fit, mma_unroll_fits,
    mma_warp_block, mma_warp_tile_fits,
};
pub use pipeline::{
    c_batch_allowed, frag_sets_allowed, interleave_allowed, ldg_width_allowed, ldg_width_divides,
    ldg_width_fits_precision, stages_allowed, unroll_divides, warps_fit,
};
pub use tma::{
    HALF_BOX, TMA_IN_PLACE_MAX_STAGES, half_box_fits, tma_allowed, tma_barrier_bytes, tma_box_fits,
    tma_stages_fit,
};
pub use wgmma::{
    FragmentPipeline, PRODUCER_REGISTERS, TF32X3_MAX_N, WGMMA_A_REGS_SKEW, WGMMA_DIRECT_SBO,
    WGMMA_MIN_STAGES, consumer_registers, producers_allowed, register_limits, wgmma_a_fragments,
    wgmma_a_regs, wgmma_allowed, wgmma_any_direct, wgmma_bytes, wgmma_converted_bytes, wgmma_direct,
    wgmma_fits, wgmma_instr_regs, wgmma_math_fits, wgmma_max_n, wgmma_part_bytes, wgmma_parts, wgmma_planes,
    wgmma_sbo, wgmma_thread_regs,
};

/// Hardware limits that decide whether a kernel can be built and launched at
/// all (not how fast it runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Threads per warp.
    pub warp_size: u32,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// Bytes of statically declared shared memory per block.
    pub max_shared_per_block: u32,
    /// 32-bit registers one thread can address.
    pub max_regs_per_thread: u32,
}

impl Limits {
    /// Limits that hold on every GPU from sm_70 up; what `gemm_kernel!`
    /// checks at compile time, when the GPU is not yet known.
    pub const PORTABLE: Limits = Limits {
        warp_size: 32,
        max_threads_per_block: 1024,
        max_shared_per_block: 48 * 1024,
        max_regs_per_thread: 255,
    };
}

impl Limits {
    /// The limits of `target`: what `gemm_kernel!` checks for a spec with
    /// `arch = target`. Shared memory goes up to the architecture's opt-in
    /// maximum (the lowering declares it dynamically above 48 KiB).
    pub const fn for_target(target: Target) -> Limits {
        Limits { max_shared_per_block: target.max_shared_per_block(), ..Limits::PORTABLE }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::PORTABLE
    }
}

/// A, or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The left operand, `m × k` after its op.
    A,
    /// The right operand, `k × n` after its op.
    B,
}

impl Operand {
    /// `"a"` or `"b"`: used in register and parameter names.
    pub const fn lower(self) -> &'static str {
        match self {
            Operand::A => "a",
            Operand::B => "b",
        }
    }

    /// `"A"` or `"B"`.
    pub const fn upper(self) -> &'static str {
        match self {
            Operand::A => "A",
            Operand::B => "B",
        }
    }

    const fn load_field(self) -> Field {
        match self {
            Operand::A => Field::LoadA,
            Operand::B => Field::LoadB,
        }
    }

    /// The other operand: whose place this one takes in the transposed
    /// product (`operands = ba`).
    pub const fn other(self) -> Operand {
        match self {
            Operand::A => Operand::B,
            Operand::B => Operand::A,
        }
    }
}

/// How one thread block reads its stripe of A or B each iteration.
///
/// The stored stripe is `k_blk` deep along K and `free_blk` wide along the
/// operand's free dimension (M for A, N for B). Which of the two is the
/// leading (contiguous) dimension in memory depends on the op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StripePlan {
    /// Which operand.
    pub operand: Operand,
    /// Its op as performed (`C` only on complex precisions).
    pub op: Op,
    /// Whether K is the stored stripe's leading dimension.
    pub lead_is_k: bool,
    /// Extent of the stored stripe along its leading dimension.
    pub lead_len: u32,
    /// Extent of the stored stripe across its leading dimension.
    pub cross_len: u32,
    /// The thread arrangement that reads it.
    pub shape: LoadShape,
    /// Elements each thread reads along the leading dimension.
    pub per_thread_lead: u32,
    /// Elements each thread reads across the leading dimension.
    pub per_thread_cross: u32,
}

impl StripePlan {
    /// How `spec`'s block reads `operand`'s stripe with the shape `spec`
    /// names for it (`load_a` or `load_b`), whether or not that shape fits.
    pub const fn new(spec: &KernelSpec, operand: Operand) -> StripePlan {
        let (op, shape) = match operand {
            Operand::A => (spec.kernel_op_a(), spec.load_a),
            Operand::B => (spec.kernel_op_b(), spec.load_b),
        };
        let free_blk = free_blk(spec, operand);
        // A is m × k after its op: stored as-is (op N) its leading dimension
        // is M; stored transposed, K. B is k × n: stored as-is, K leads.
        let lead_is_k = match operand {
            Operand::A => op.is_transposed(),
            Operand::B => !op.is_transposed(),
        };
        let (lead_len, cross_len) = if lead_is_k { (spec.k_blk, free_blk) } else { (free_blk, spec.k_blk) };
        StripePlan {
            operand,
            op,
            lead_is_k,
            lead_len,
            cross_len,
            shape,
            per_thread_lead: match lead_len.checked_div(shape.lead) {
                Some(n) => n,
                None => 0,
            },
            per_thread_cross: match cross_len.checked_div(shape.cross) {
                Some(n) => n,
                None => 0,
            },
        }
    }

    /// Elements of the stripe each thread moves per iteration (in `u64`, as
    /// the product of two `u32`s).
    pub const fn per_thread(&self) -> u64 {
        self.per_thread_lead as u64 * self.per_thread_cross as u64
    }

    /// Elements of the stripe (in `u64`, as the product of two `u32`s).
    pub const fn elements(&self) -> u64 {
        self.lead_len as u64 * self.cross_len as u64
    }

    /// [`Rule::LoadThreads`]: whether the shape rearranges exactly `threads`
    /// threads.
    pub const fn shape_has_threads(&self, threads: u64) -> bool {
        self.shape.threads() == threads
    }

    /// [`Rule::LoadNotDividingStripe`] on `load_x.0`: whether the shape's
    /// `lead` divides the stripe's leading dimension.
    pub const fn lead_divides(&self) -> bool {
        self.lead_len.is_multiple_of(self.shape.lead)
    }

    /// [`Rule::LoadNotDividingStripe`] on `load_x.1`: whether the shape's
    /// `cross` divides the stripe's other dimension.
    pub const fn cross_divides(&self) -> bool {
        self.cross_len.is_multiple_of(self.shape.cross)
    }

    /// Whether the shape reads this stripe with `threads` threads and no
    /// thread idle: the three load rules together.
    pub const fn shape_fits(&self, threads: u64) -> bool {
        self.shape_has_threads(threads) && self.lead_divides() && self.cross_divides()
    }
}

/// A validated spec and everything the lowering derives from it.
///
/// Only [`validate`] builds one, so code holding a `Plan` knows the spec obeys
/// every hard constraint. In particular its thread count, shared memory and
/// register bound are at most the `u32` limits it was checked against, and
/// every stride, offset and size inside its shared arrays is below its
/// shared bytes: so the accessors below return them as `u32`, exactly, and
/// the lowering's `u32` arithmetic on them cannot overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    spec: KernelSpec,
    limits: Limits,
    a: StripePlan,
    b: StripePlan,
}

impl Plan {
    /// The spec.
    pub const fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// The limits it was checked against.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Precision shorthand.
    pub const fn precision(&self) -> Precision {
        self.spec.precision
    }

    /// How the block reads A's stripe.
    pub const fn stripe_a(&self) -> &StripePlan {
        &self.a
    }

    /// How the block reads B's stripe.
    pub const fn stripe_b(&self) -> &StripePlan {
        &self.b
    }

    /// `M_thr`: rows of C per thread.
    pub const fn m_thr(&self) -> u32 {
        self.spec.m_thr()
    }

    /// `N_thr`: columns of C per thread.
    pub const fn n_thr(&self) -> u32 {
        self.spec.n_thr()
    }

    /// Threads per block.
    pub const fn threads(&self) -> u32 {
        proven_u32(self.spec.threads() as u128)
    }

    /// Skew of each shared-memory row of `operand`, in elements: one
    /// element (the paper's `+1`), or one vector of `lds_width` elements so
    /// that vector loads stay aligned ([`smem_skew`]).
    pub const fn skew(&self, operand: Operand) -> u32 {
        smem_skew(&self.spec, operand)
    }

    /// How `operand`'s stripe is laid out in shared memory.
    pub const fn layout(&self, operand: Operand) -> StripeLayout {
        stripe_layout(&self.spec, operand)
    }

    /// Elements between consecutive rows of `operand`'s shared array: k
    /// rows, or M (N) rows of a K-contiguous stripe ([`smem_stride`]).
    pub const fn stride(&self, operand: Operand) -> u32 {
        proven_u32(smem_stride(&self.spec, operand) as u128)
    }

    /// Bytes of A's shared array.
    pub const fn smem_a_bytes(&self) -> u32 {
        proven_u32(smem_bytes(&self.spec, Operand::A))
    }

    /// Bytes of B's shared array.
    pub const fn smem_b_bytes(&self) -> u32 {
        proven_u32(smem_bytes(&self.spec, Operand::B))
    }

    /// Shared memory per block, in bytes.
    pub const fn shared_bytes(&self) -> u32 {
        proven_u32(shared_bytes(&self.spec))
    }

    /// Whether the stripes live in dynamic shared memory: above the 48 KiB
    /// a block may declare statically. The launch then passes
    /// [`Plan::shared_bytes`] as its dynamic size (and the host raises the
    /// kernel's dynamic limit to it).
    pub const fn dynamic_shared(&self) -> bool {
        dynamic_shared_bytes(&self.spec) > 0
    }

    /// A lower bound on the 32-bit registers a thread needs in the main loop:
    /// the C accumulators, one column of A and row of B, and the prefetched
    /// next stripes. Addresses, indices and predicates come on top.
    pub const fn regs_lower_bound(&self) -> u32 {
        proven_u32(regs_lower_bound(&self.spec))
    }

    /// Multiply-adds per shared-memory load in the innermost loop: the
    /// paper's register reuse, with complex elements counting four real
    /// multiply-adds for two loads.
    pub fn register_reuse(&self) -> f64 {
        register_reuse(&self.spec)
    }
}

/// `value`, known to fit a `u32`, as one: a size of a validated spec, which
/// validation has bounded by a `u32` limit (see [`Plan`]). Saturates rather
/// than wraps, so even a caller that broke that invariant would get a value
/// above every limit, never a small wrong one, and never a panic.
pub(crate) const fn proven_u32(value: u128) -> u32 {
    if value > u32::MAX as u128 { u32::MAX } else { value as u32 }
}

/// The paper's register reuse: FMAs per load in the innermost loop. For a
/// `wgmma` kernel, whose tensor cores read both operands from shared
/// memory, the same ratio for its warpgroup: `64·n` multiply-adds per
/// `64 + n` elements read, each 8-deep step (for `c32`, four real ones per
/// two scalars read).
pub fn register_reuse(spec: &KernelSpec) -> f64 {
    if let Some(wg) = spec.wgmma() {
        let n = f64::from(wg.n);
        let complex = if spec.precision.is_complex() { 2.0 } else { 1.0 };
        return complex * 64.0 * n / (64.0 + n);
    }
    let (m, n) = (f64::from(spec.m_thr()), f64::from(spec.n_thr()));
    if spec.precision.is_complex() { (4.0 * m * n) / (2.0 * (m + n)) } else { (m * n) / (m + n) }
}

/// The most shared memory a block may declare statically, on every GPU.
pub const MAX_STATIC_SHARED: u32 = 48 * 1024;

/// The dynamic shared memory a launch of `spec`'s kernel passes: all of its
/// shared memory when that is over [`MAX_STATIC_SHARED`] or the kernel is a
/// `wgmma` one (the lowering then declares one dynamic array), else 0. For
/// a spec that validates.
pub const fn dynamic_shared_bytes(spec: &KernelSpec) -> u32 {
    let bytes = shared_bytes(spec);
    // A `wgmma` kernel addresses its converted stripes past the rings of
    // one array.
    if bytes > MAX_STATIC_SHARED as u128 || spec.wgmma().is_some() { proven_u32(bytes) } else { 0 }
}

// The sizes below are exact for any field values, so that the rules compare,
// and the messages show, true numbers. A sum of two `u32`s fits `u64`; a
// product of three (`k_blk × (m_blk + lds_width) × element bytes`, or the
// register bound's `element regs × k_blk × (m_blk + n_blk)`) can exceed
// `u64` but stays below 2^70, so those are `u128`.

/// `operand`'s free dimension in `spec`'s tile: `m_blk` for A, `n_blk` for B.
pub const fn free_blk(spec: &KernelSpec, operand: Operand) -> u32 {
    match operand {
        Operand::A => spec.m_blk,
        Operand::B => spec.n_blk,
    }
}

/// Skew of each shared-memory row of `operand`'s stripe in `spec`, in
/// elements (see [`Plan::skew`]).
///
/// One vector of the wider of the shared-load and global-load widths, so
/// that the vector accesses of both stay aligned (for a `dmma` kernel,
/// [`DMMA_SKEW_BYTES`], a multiple of both widths); none for a `wgmma`
/// kernel, whose stripes only its copies, its conversion and `wgmma` touch,
/// each a warp's 16-byte accesses along a row (conflict-free unskewed),
/// and whose shared memory goes to the ring and the TF32 parts (unskewed, a
/// 128 × 128 × 32 tf32x3 tile fits a third stage) — but for an A whose
/// fragments the consumers load into registers ([`wgmma_a_regs`]):
/// [`WGMMA_A_REGS_SKEW`].
pub const fn smem_skew(spec: &KernelSpec, operand: Operand) -> u32 {
    // The copies' width in bytes, exact for any field values.
    let copy_bytes = spec.ldg_width as u64 * spec.precision.element_bytes() as u64;
    if spec.wgmma().is_some() {
        if matches!(operand, Operand::A) && wgmma_a_regs(spec) { WGMMA_A_REGS_SKEW } else { 0 }
    } else if matches!(spec.math, Math::Dmma) && copy_bytes <= DMMA_SKEW_BYTES as u64 {
        DMMA_SKEW_BYTES / spec.precision.element_bytes()
    } else if spec.ldg_width > spec.lds_width {
        spec.ldg_width
    } else {
        spec.lds_width
    }
}

/// The skew of a `dmma` kernel's K-major stripe rows, in bytes: a lane
/// `(g, t)` reads k row `t` (`t + 4i`), and a quarter warp (8 lanes of
/// 16-byte loads) or half warp (16 of 8 bytes) reads 32 bytes of each of
/// 4 consecutive rows; rows 32 bytes apart in the banks put them in 4
/// disjoint quarters of the 128 bytes, one wavefront (16-byte rows
/// overlap two by two).
pub const DMMA_SKEW_BYTES: u32 = 32;

/// Elements between consecutive rows of `operand`'s shared array (in
/// `u64`): k rows of a K-major stripe, `m_blk` or `n_blk` plus the skew;
/// free rows of a K-contiguous one, `k_blk` (see [`stripe_layout`]).
pub const fn smem_stride(spec: &KernelSpec, operand: Operand) -> u64 {
    match stripe_layout(spec, operand) {
        StripeLayout::KMajor => free_blk(spec, operand) as u64 + smem_skew(spec, operand) as u64,
        StripeLayout::KContiguous(_) => spec.k_blk as u64,
    }
}

/// Bytes of `operand`'s shared array, exactly (in `u128`).
///
/// With `stages = s ≥ 2` the array is a ring of `s` stripes, each
/// [`smem_stage_bytes`] long.
pub const fn smem_bytes(spec: &KernelSpec, operand: Operand) -> u128 {
    spec.stages as u128 * smem_stage_bytes(spec, operand)
}

/// Bytes of one stripe of `operand` in shared memory, exactly: `k_blk`
/// K-major rows of `m_blk` or `n_blk` plus the skew elements, rounded up to
/// [`smem_align`] when stripes form a ring (or the math is a tensor-core
/// one) so that every stripe starts as aligned as the arrays. A
/// K-contiguous stripe ([`stripe_layout`]) uses the first `free_blk ×
/// k_blk` elements of the same room: the size depends on the tile, the
/// stages and the math, never on the loads that decide the layout.
pub const fn smem_stage_bytes(spec: &KernelSpec, operand: Operand) -> u128 {
    let bytes = spec.k_blk as u128
        * (free_blk(spec, operand) as u128 + smem_skew(spec, operand) as u128)
        * spec.precision.element_bytes() as u128;
    if spec.stages > 1 || spec.math.is_mma() {
        bytes.next_multiple_of(smem_align(spec) as u128)
    } else {
        bytes
    }
}

/// The alignment of `spec`'s shared arrays and stripes, in bytes: 16 for
/// `cp.async` and vector loads; 128 for a tensor-core math, whose
/// K-contiguous stripes are swizzled on the absolute address (the banks
/// see it); 1024 where `wgmma` reads a stripe from the ring
/// ([`wgmma_direct`]) or bulk copies land with the 128-byte swizzle
/// (`ldg = tma`), since that swizzle repeats every 8 rows of 128 bytes from
/// an address aligned so.
pub const fn smem_align(spec: &KernelSpec) -> u32 {
    if wgmma_any_direct(spec) || matches!(spec.ldg, GlobalLoad::Tma) {
        WGMMA_DIRECT_SBO
    } else if spec.math.is_mma() {
        128
    } else {
        16
    }
}

/// Shared memory per block of `spec`, in bytes, exactly (in `u128`; see
/// [`Plan::shared_bytes`]).
pub const fn shared_bytes(spec: &KernelSpec) -> u128 {
    smem_bytes(spec, Operand::A) + smem_bytes(spec, Operand::B) + wgmma_bytes(spec) + tma_barrier_bytes(spec)
}

/// [`Rule::TooManyThreads`] and [`Rule::PartialWarp`]: which of the two
/// `m_dim × n_dim` threads per block break under `limits`, if any.
pub const fn threads_rule(m_dim: u32, n_dim: u32, limits: &Limits) -> Option<Rule> {
    let threads = m_dim as u64 * n_dim as u64;
    if threads > limits.max_threads_per_block as u64 {
        Some(Rule::TooManyThreads)
    } else if !threads.is_multiple_of(limits.warp_size as u64) {
        Some(Rule::PartialWarp)
    } else {
        None
    }
}

/// [`Rule::TileNotMultipleOfThreads`] for one dimension: whether `blk`
/// (`tile.i`) is a multiple of `dim` (`threads.i`, nonzero).
pub const fn tile_divides(blk: u32, dim: u32) -> bool {
    blk.is_multiple_of(dim)
}

/// [`Rule::LdsWidth`], first part: `lds_width` is 1, 2 or 4.
pub const fn lds_width_allowed(width: u32) -> bool {
    matches!(width, 1 | 2 | 4)
}

/// [`Rule::LdsWidth`], second part: one shared load of `width` (allowed)
/// elements of `precision` moves at most 16 bytes.
pub const fn lds_width_fits_precision(width: u32, precision: Precision) -> bool {
    width as u64 * precision.element_bytes() as u64 <= 16
}

/// [`Rule::LdsWidth`], third part: `width` (nonzero) divides the rows
/// `m_thr` and columns `n_thr` of C each thread computes.
pub const fn lds_width_divides(width: u32, m_thr: u32, n_thr: u32) -> bool {
    m_thr.is_multiple_of(width) && n_thr.is_multiple_of(width)
}

/// [`Rule::LdsWidth`], third part, as it applies to `spec` (whose
/// `lds_width` is nonzero): [`lds_width_divides`] its thread's block of C —
/// but for a `wgmma` spec, whose thread's C elements are its accumulators'
/// (two rows, runs of two columns) whatever its 16-byte shared loads; true
/// where the tile does not divide (the tile rule reports that).
pub const fn lds_width_fits_tile(spec: &KernelSpec) -> bool {
    !tile_divides(spec.m_blk, spec.m_dim)
        || !tile_divides(spec.n_blk, spec.n_dim)
        || spec.wgmma().is_some()
        || lds_width_divides(spec.lds_width, spec.m_thr(), spec.n_thr())
}

/// [`Rule::SharedMemory`]: whether `spec`'s shared memory fits a block.
pub const fn shared_fits(spec: &KernelSpec, limits: &Limits) -> bool {
    shared_bytes(spec) <= limits.max_shared_per_block as u128
}

/// Checks `spec` against every hard constraint under the limits of its
/// architecture ([`Limits::for_target`] of `spec.arch`).
pub fn validate(spec: &KernelSpec) -> Result<Plan, Vec<Violation>> {
    validate_with(spec, &Limits::for_target(spec.arch))
}

/// Checks `spec` against every hard constraint under `limits`, reporting all
/// violations at once. Never panics, whatever the field values: every size
/// it computes is exact (see [`shared_bytes`] and [`regs_lower_bound`]).
pub fn validate_with(spec: &KernelSpec, limits: &Limits) -> Result<Plan, Vec<Violation>> {
    check(spec, limits, true)
}

/// [`validate_with`]'s verdict without its messages: the plan, or the
/// rules broken (the same rules, in the same order). For callers that only
/// ask whether a spec is legal — the tuner's space and pruning, the
/// brute-force tests — and meet millions of illegal specs: formatting
/// their messages was two thirds of that time.
pub fn legal_with(spec: &KernelSpec, limits: &Limits) -> Result<Plan, Vec<Rule>> {
    check(spec, limits, false).map_err(|v| v.into_iter().map(|v| v.rule).collect())
}

/// Every rule, into a report that formats its messages if `messages`.
fn check(spec: &KernelSpec, limits: &Limits, messages: bool) -> Result<Plan, Vec<Violation>> {
    let mut out = Report { list: Vec::new(), messages };
    check_nonzero(spec, &mut out);
    if !out.list.is_empty() {
        // Every later rule divides by these.
        return Err(out.list);
    }
    check_threads(spec, limits, &mut out);
    check_tile(spec, &mut out);
    check_operands(spec, &mut out);
    let a = StripePlan::new(spec, Operand::A);
    let b = StripePlan::new(spec, Operand::B);
    check_load(spec, &a, &mut out);
    check_load(spec, &b, &mut out);
    check_lds_width(spec, &mut out);
    pipeline::check(spec, &a, &b, &mut out);
    math::check(spec, &mut out);
    wgmma::check_producers(spec, limits.max_threads_per_block, &mut out);
    tma::check_tma(spec, &mut out);
    if !out.list.is_empty() {
        // Resource estimates assume the divisibility rules hold.
        return Err(out.list);
    }
    check_resources(spec, limits, &mut out);
    if out.list.is_empty() { Ok(Plan { spec: *spec, limits: *limits, a, b }) } else { Err(out.list) }
}

/// Where the rules report: the violations found, with their messages
/// unless `messages` is off.
pub(crate) struct Report {
    list: Vec<Violation>,
    messages: bool,
}

/// Reports that `rule` is broken at `at`, with `message` unless the
/// report is quiet.
fn violation(out: &mut Report, at: ParamPath, rule: Rule, message: impl FnOnce() -> String) {
    let message = if out.messages { message() } else { String::new() };
    out.list.push(Violation { at, rule, message });
}

fn check_nonzero(spec: &KernelSpec, out: &mut Report) {
    let values = [
        (ParamPath::at(Field::Tile, 0), spec.m_blk),
        (ParamPath::at(Field::Tile, 1), spec.n_blk),
        (ParamPath::at(Field::Tile, 2), spec.k_blk),
        (ParamPath::at(Field::Threads, 0), spec.m_dim),
        (ParamPath::at(Field::Threads, 1), spec.n_dim),
        (ParamPath::at(Field::LoadA, 0), spec.load_a.lead),
        (ParamPath::at(Field::LoadA, 1), spec.load_a.cross),
        (ParamPath::at(Field::LoadB, 0), spec.load_b.lead),
        (ParamPath::at(Field::LoadB, 1), spec.load_b.cross),
        (ParamPath::whole(Field::LdsWidth), spec.lds_width),
        (ParamPath::whole(Field::Stages), spec.stages),
        (ParamPath::whole(Field::LdgWidth), spec.ldg_width),
        (ParamPath::whole(Field::Raster), spec.raster),
        (ParamPath::whole(Field::Unroll), spec.unroll.unwrap_or(1)),
        (ParamPath::whole(Field::FragSets), spec.frag_sets),
        (ParamPath::whole(Field::CBatch), spec.c_batch),
        (ParamPath::at(Field::Warps, 0), spec.warps.map_or(1, |w| w.m)),
        (ParamPath::at(Field::Warps, 1), spec.warps.map_or(1, |w| w.n)),
    ];
    for (at, value) in values {
        if value == 0 {
            violation(out, at, Rule::Zero, || format!("`{at}` must be at least 1"));
        }
    }
}

fn check_threads(spec: &KernelSpec, limits: &Limits, out: &mut Report) {
    let at = ParamPath::whole(Field::Threads);
    let threads = spec.threads();
    let rule = threads_rule(spec.m_dim, spec.n_dim, limits);
    if rule == Some(Rule::TooManyThreads) {
        violation(out, at, Rule::TooManyThreads, || {
            format!(
                "`threads` ({} × {} = {threads}) exceeds the {} threads a block can hold: \
                 reduce `threads.0` or `threads.1`",
                spec.m_dim, spec.n_dim, limits.max_threads_per_block
            )
        });
    } else if rule == Some(Rule::PartialWarp) {
        violation(out, at, Rule::PartialWarp, || {
            format!(
                "`threads` ({} × {} = {threads}) must be a multiple of the warp size ({}): \
                 change `threads.0` or `threads.1`",
                spec.m_dim, spec.n_dim, limits.warp_size
            )
        });
    }
}

fn check_tile(spec: &KernelSpec, out: &mut Report) {
    for (i, blk, dim) in [(0u8, spec.m_blk, spec.m_dim), (1, spec.n_blk, spec.n_dim)] {
        if !tile_divides(blk, dim) {
            violation(out, ParamPath::at(Field::Tile, i), Rule::TileNotMultipleOfThreads, || {
                format!("`tile.{i}` ({blk}) must be a multiple of `threads.{i}` ({dim})")
            });
        }
    }
}

/// `operands = ba` transposes both operands: a conjugated one would have to
/// be read conjugated but not transposed, which no op does.
fn check_operands(spec: &KernelSpec, out: &mut Report) {
    let conjugated = [spec.op_a, spec.op_b].into_iter().any(|op| op.conjugates(spec.precision));
    if spec.swaps_operands() && conjugated {
        violation(out, ParamPath::whole(Field::Operands), Rule::Operands, || {
            format!(
                "`operands = ba` cannot take a conjugating op (`op = ({}, {})` on {}): its transposed \
                 product would read the operand conjugated but not transposed, which no op does; \
                 write `operands = ab`",
                spec.op_a, spec.op_b, spec.precision
            )
        });
    }
}

fn check_load(spec: &KernelSpec, stripe: &StripePlan, out: &mut Report) {
    let field = stripe.operand.load_field();
    let name = field.name();
    let shape = stripe.shape;
    let (threads, shape_threads) = (spec.copy_threads(), shape.threads());
    if !stripe.shape_has_threads(threads) {
        violation(out, ParamPath::whole(field), Rule::LoadThreads, || {
            if spec.producers > 0 {
                format!(
                    "`{name}` ({} × {} = {shape_threads}) must reshape the {threads} threads of \
                     `producers = {}`, which copy the stripes",
                    shape.lead, shape.cross, spec.producers
                )
            } else {
                format!(
                    "`{name}` ({} × {} = {shape_threads}) must reshape the same {threads} threads as \
                     `threads` ({} × {})",
                    shape.lead, shape.cross, spec.m_dim, spec.n_dim
                )
            }
        });
    }
    let (op_name, x) = (stripe.op, stripe.operand.upper());
    let (free, free_blk) = match stripe.operand {
        Operand::A => ("M_blk", spec.m_blk),
        Operand::B => ("N_blk", spec.n_blk),
    };
    let (lead_dim, cross_dim) = if stripe.lead_is_k {
        (("K_blk", spec.k_blk), (free, free_blk))
    } else {
        ((free, free_blk), ("K_blk", spec.k_blk))
    };
    // With swapped operands the kernel's A is the call's B (`operands = ba`).
    let call = if spec.swaps_operands() {
        format!(" (the call's {})", stripe.operand.other().upper())
    } else {
        String::new()
    };
    let stored = || {
        format!(
            "the stored stripe of {x}{call} for op({x}) = {op_name} is {} × {} with {} contiguous",
            lead_dim.1,
            cross_dim.1,
            &lead_dim.0[..1]
        )
    };
    if !stripe.lead_divides() {
        violation(out, ParamPath::at(field, 0), Rule::LoadNotDividingStripe, || {
            format!(
                "`{name}.0` ({}) must divide the stripe's leading dimension ({} = {}): {}",
                shape.lead,
                lead_dim.0,
                lead_dim.1,
                stored()
            )
        });
    }
    if !stripe.cross_divides() {
        violation(out, ParamPath::at(field, 1), Rule::LoadNotDividingStripe, || {
            format!(
                "`{name}.1` ({}) must divide the stripe's other dimension ({} = {}): {}",
                shape.cross,
                cross_dim.0,
                cross_dim.1,
                stored()
            )
        });
    }
}

fn check_lds_width(spec: &KernelSpec, out: &mut Report) {
    let at = ParamPath::whole(Field::LdsWidth);
    let w = spec.lds_width;
    let bytes = spec.precision.element_bytes();
    if !lds_width_allowed(w) {
        violation(out, at, Rule::LdsWidth, || format!("`lds_width` ({w}) must be 1, 2 or 4"));
        return;
    }
    if !lds_width_fits_precision(w, spec.precision) {
        let max = 16 / bytes;
        violation(out, at, Rule::LdsWidth, || {
            format!(
                "`lds_width` ({w}) would load {} bytes at once but a shared load moves at most 16: \
                 use at most {max} for {}",
                w * bytes,
                spec.precision
            )
        });
        return;
    }
    if !lds_width_fits_tile(spec) {
        let (m_thr, n_thr) = (spec.m_thr(), spec.n_thr());
        violation(out, at, Rule::LdsWidth, || {
            format!(
                "`lds_width` ({w}) must divide the rows ({m_thr}) and columns ({n_thr}) of C each \
                 thread computes (`tile.0 / threads.0`, `tile.1 / threads.1`)"
            )
        });
    }
}

fn check_resources(spec: &KernelSpec, limits: &Limits, out: &mut Report) {
    let shared = shared_bytes(spec);
    if !shared_fits(spec, limits) {
        violation(out, ParamPath::whole(Field::Tile), Rule::SharedMemory, || {
            format!(
                "`tile` needs {shared} bytes of shared memory (k_blk × ({rows}) elements of {} \
                 bytes{}{}) but a block has at most {}: reduce `tile`{}",
                spec.precision.element_bytes(),
                if spec.stages > 1 { format!(" per stage, {} stages", spec.stages) } else { String::new() },
                if spec.wgmma().is_some() {
                    format!(", and {} bytes of converted TF32 parts", wgmma_bytes(spec))
                } else {
                    String::new()
                },
                limits.max_shared_per_block,
                if spec.stages > 1 { " or `stages`" } else { "" },
                rows = match (smem_skew(spec, Operand::A), smem_skew(spec, Operand::B)) {
                    (0, 0) => "m_blk + n_blk".to_owned(),
                    (a, 0) => format!("m_blk + {a} + n_blk"),
                    (a, b) => format!("m_blk + {a} + n_blk + {b}"),
                },
            )
        });
    }
    registers::check(spec, limits, out);
}

#[cfg(test)]
mod tests;
