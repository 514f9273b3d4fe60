//! The hard constraints of a Hopper `wgmma` math (`math = tf32 | tf32x3`
//! with `mma = (64, n, 8)`, `stencil/wgmma.rs`): part of the one
//! constraints implementation, called from [`super::math`].
//!
//! A warpgroup (four consecutive warps) computes a `64 × n` block of C
//! with `wgmma.mma_async`, each warp its 16 rows. The block's warps are
//! `warps = (wm, wn)` as for `mma.sync`, warp `w` at `(w mod wm, w div
//! wm)`, so four consecutive warps stack along M: `wm` is a multiple of 4,
//! the warp tile is `16 × n` (`tile.0 = 16 · wm`, `tile.1 = n · wn`) and the
//! threads are `(8 · wm, 4 · wn)`, the fragments' 8 × 4 lane grid in each
//! warp. Operands reach shared memory through the `cp.async` ring
//! (`stages ≥ 2`) and are converted there to the TF32 parts `wgmma` reads,
//! 16 bytes a load (`lds_width = 4` for `f32`, 2 for `c32`). A `c32`
//! kernel converts its pairs into planes of real and imaginary parts and
//! makes each complex product of four real `wgmma`s into real and
//! imaginary accumulators: twice an `f32` kernel's registers for one `n`.

use super::{Field, Operand, ParamPath, Report, Rule, free_blk, mma_lds_width, violation};
use crate::ptx::{MmaShape, WgmmaShape};
use crate::spec::{GlobalLoad, KernelSpec, Math, Precision, Target, WarpShape};

/// The widest `n` of an `f32` `tf32x3` warpgroup: its products accumulate
/// in a second set of `n / 2` registers a thread before they join C's, and
/// two sets of 64 leave room in 255 registers for the rest.
pub const TF32X3_MAX_N: u32 = 128;

/// The widest `n` of a warpgroup of `math` on `precision` (`f32` or
/// `c32`): 256, the instruction's, for `tf32`; [`TF32X3_MAX_N`] for
/// `tf32x3`; half of those for `c32`, whose accumulators are pairs.
pub const fn wgmma_max_n(math: Math, precision: Precision) -> u32 {
    // The 16-bit maths have no split and no planes: one set of n / 2.
    let n = if matches!(math, Math::Tf32x3) { TF32X3_MAX_N } else { 256 };
    if precision.is_complex() { n / 2 } else { n }
}

/// The shallowest ring a `wgmma` kernel takes: its stripes arrive by
/// `cp.async` and are converted in shared memory, so `stages ≥ 2`.
pub const WGMMA_MIN_STAGES: u32 = 2;

/// The stride byte offset of a `wgmma` kernel's converted operands: 8 rows
/// of `k_blk` TF32 values (`k_blk / 4` core matrices of 128 bytes side by
/// side along K) and 16 bytes more, so that the conversion's stores to the
/// same k of 8-row groups fall in different banks (`stencil/wgmma.rs`).
pub const fn wgmma_sbo(spec: &KernelSpec) -> u128 {
    128 * (spec.k_blk as u128 / 4) + 16
}

/// Bytes of one plane of one TF32 part of `operand`'s converted stripe in
/// a `wgmma` kernel: `free_blk / 8` groups of 8 rows, [`wgmma_sbo`] apart.
pub const fn wgmma_part_bytes(spec: &KernelSpec, operand: Operand) -> u128 {
    (free_blk(spec, operand) as u128).div_ceil(8) * wgmma_sbo(spec)
}

/// The TF32 parts a `wgmma` kernel splits each scalar into: big and small
/// for `tf32x3`, one for `tf32`.
pub const fn wgmma_parts(spec: &KernelSpec) -> u32 {
    if matches!(spec.math, Math::Tf32x3) { 2 } else { 1 }
}

/// The planes of each part of a `wgmma` kernel's converted stripe: real
/// and imaginary for `c32`, one for `f32`.
pub const fn wgmma_planes(spec: &KernelSpec) -> u32 {
    if spec.precision.is_complex() { 2 } else { 1 }
}

/// Bytes of a `wgmma` kernel's converted stripes after the rings: two sets
/// (one read by the stripe in flight, one being written) of the TF32 parts
/// ([`wgmma_parts`]) of each operand that is not read directly
/// ([`wgmma_direct`]), each of [`wgmma_planes`] planes; 0 for any other
/// kernel.
pub const fn wgmma_bytes(spec: &KernelSpec) -> u128 {
    if spec.wgmma().is_none() {
        return 0;
    }
    let planes = (wgmma_parts(spec) * wgmma_planes(spec)) as u128;
    2 * planes * (wgmma_converted_bytes(spec, Operand::A) + wgmma_converted_bytes(spec, Operand::B))
}

/// [`wgmma_part_bytes`] of `operand` if it is converted, 0 if `wgmma`
/// reads it from the ring ([`wgmma_direct`]).
pub const fn wgmma_converted_bytes(spec: &KernelSpec, operand: Operand) -> u128 {
    if wgmma_direct(spec, operand) { 0 } else { wgmma_part_bytes(spec, operand) }
}

/// Bytes between 8-row groups of a stripe that `wgmma` reads from the ring
/// ([`wgmma_direct`]): 8 rows of 128 bytes, one 128-byte swizzle atom.
pub const WGMMA_DIRECT_SBO: u32 = 1024;

/// Whether `wgmma` reads `operand`'s stripes straight from the `cp.async`
/// ring, with no conversion: exactly when the ring already holds them as
/// the instruction reads them and nothing needs splitting —
///
/// - `math = tf32` (no small part) on `f32` (no planes to separate): the
///   tensor cores take the f32 bits as they are, keeping TF32's (the
///   rounding `wgmma` does, truncation, where the conversion rounds to
///   nearest);
/// - a warp-specialized kernel (`producers = 1`), whose consumers tell the
///   producer when a stripe's group has retired, so that its slot is
///   overwritten only then;
/// - the operand's stripe K-contiguous ([`super::stripe_layout`]) with rows
///   of exactly 128 bytes (`k_blk = 32`): its chunks are swizzled by `row mod
///   8`, which on slots aligned to 1024 bytes ([`super::smem_align`]) is
///   the 128-byte swizzle of a K-major `wgmma` operand, 8-row groups
///   [`WGMMA_DIRECT_SBO`] apart.
///
/// A 16-bit kernel (`f16`, `bf16`) reads both operands from the ring, as
/// the tensor map's box lands them ([`super::half_box_fits`]): `wgmma` takes them
/// K-major or MN-major alike.
///
/// A 1xTF32 kernel's A whose M leads is read from the ring too, by the
/// consumers into registers ([`wgmma_a_regs`]).
pub const fn wgmma_direct(spec: &KernelSpec, operand: Operand) -> bool {
    if spec.precision.is_half() {
        return spec.wgmma().is_some() && spec.producers == 1 && matches!(spec.ldg, GlobalLoad::Tma);
    }
    if matches!(operand, Operand::A) && wgmma_a_regs(spec) {
        return true;
    }
    spec.wgmma().is_some()
        && matches!(spec.math, Math::Tf32)
        && matches!(spec.precision, Precision::F32)
        && spec.producers == 1
        && spec.k_blk as u64 * 4 == 128
        && super::stripe_layout(spec, operand).k_contiguous()
}

/// Elements after each k row of A's stripe, past its `m_blk`, where the
/// consumers load A's fragments into registers ([`wgmma_a_regs`]): rows
/// `m_blk + 8` elements apart put the four k rows a warp's fragment load
/// reads (`t = lane mod 4`) 8 banks apart, beside its 8 consecutive rows
/// of M (`g = lane / 4`), so the load meets no bank conflict.
pub const WGMMA_A_REGS_SKEW: u32 = 8;

/// Whether the consumers of a 1xTF32 kernel load A's fragments from the
/// ring into registers, rounded to TF32, for `wgmma`'s A-from-registers
/// form, instead of having A converted into K-major parts: `wgmma` has no
/// MN-major TF32 operand in shared memory, but a register fragment can be
/// gathered from any layout —
///
/// - `math = tf32` on `f32` (no split, no planes), warp-specialized
///   (`producers = 1`): the consumers tell the producer when a stripe's
///   groups have retired, and with them the fragments loaded from its slot;
/// - A's stripe K-major (`[k][m]`, M leads in global memory: `op.0 = N`),
///   rows [`WGMMA_A_REGS_SKEW`] elements longer than `m_blk`;
/// - a ring of at least 3 stages: a slot read by the consumers is free only
///   once the stripe's groups retire, so with 2 the producer could not copy
///   ahead while they multiply (run 43: NT 0.56–0.68× cuBLAS TF32 where
///   converting A, whose slot the conversion frees, gave 0.72–0.90×);
/// - with `ldg = tma`, such a row a box's (at most 256 elements): the box
///   is `m_blk + 8` wide and reads 8 columns of the next tile, as the
///   ring's skew holds them (`tma_box_fits`).
pub const fn wgmma_a_regs(spec: &KernelSpec) -> bool {
    spec.wgmma().is_some()
        && matches!(spec.math, Math::Tf32)
        && matches!(spec.precision, Precision::F32)
        && spec.producers == 1
        && !super::stripe_layout(spec, Operand::A).k_contiguous()
        && spec.stages >= 3
        && (!matches!(spec.ldg, GlobalLoad::Tma) || spec.m_blk as u64 + WGMMA_A_REGS_SKEW as u64 <= 256)
}

/// Registers a thread of the producer warpgroup keeps where it gives the
/// rest to the consumers ([`register_limits`]): its bulk copies' addresses,
/// coordinates and loop.
pub const PRODUCER_REGISTERS: u32 = 40;

/// The per-thread register limits `setmaxnreg` sets in a warp-specialized
/// kernel whose producer only issues bulk copies (`ldg = tma`, nothing
/// converted: both operands read from the ring): `(producer, consumers)` —
/// [`PRODUCER_REGISTERS`], and the consumers' even share of the rest of the
/// registers the block holds (every thread starts with the block's share
/// of the register file, a multiple of 8: 168 at 384 threads, 96 at 640),
/// in multiples of 8, at most 256 — where that gives the consumers more
/// than their share (two consumer warpgroups or more); `None` otherwise
/// (every warp keeps its share). The consumers' `.inc` waits until the
/// producer's `.dec` has filled the block's pool: asking for more than it
/// gives would hang (run 46: a 640-thread kernel asking 112 of a pool of
/// 96-thread shares hung at scale).
pub const fn register_limits(spec: &KernelSpec) -> Option<(u32, u32)> {
    use crate::ptx::{SETMAXNREG_MAX, WARPGROUP, register_share};
    let block = spec.block_threads();
    let consumer_groups = spec.threads() / WARPGROUP as u64;
    if spec.wgmma().is_none()
        || spec.producers != 1
        || !matches!(spec.ldg, GlobalLoad::Tma)
        || !wgmma_direct(spec, Operand::A)
        || !wgmma_direct(spec, Operand::B)
        || consumer_groups == 0
        || block == 0
    {
        return None;
    }
    let share = register_share(crate::constraints::proven_u32(block as u128)) as u64;
    let held = share * (consumer_groups + 1);
    if held < PRODUCER_REGISTERS as u64 {
        return None;
    }
    let consumers = ((held - PRODUCER_REGISTERS as u64) / consumer_groups) / 8 * 8;
    let consumers = if consumers > SETMAXNREG_MAX as u64 { SETMAXNREG_MAX as u64 } else { consumers };
    if consumers > share && share >= PRODUCER_REGISTERS as u64 {
        Some((PRODUCER_REGISTERS, consumers as u32))
    } else {
        None
    }
}

/// How consumers that load A's fragments into registers ([`wgmma_a_regs`])
/// pipeline them (`stencil/wgmma.rs`, "A from registers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FragmentPipeline {
    /// Each step its own group, one in flight, over two sets of registers:
    /// a step's fragment is loaded once the step two before has retired.
    Steps,
    /// A stripe a group: every step's fragment of the stripe loaded and
    /// fenced once, the stripe's `wgmma`s one group, the stripe before it
    /// in flight meanwhile (two stripes' sets), as the consumers of a
    /// kernel reading both operands in place keep a stripe's group in
    /// flight (run 49: 3–5% faster than four sets of steps with two in
    /// flight).
    Stripes,
}

impl FragmentPipeline {
    /// The sets of four registers it goes round, for stripes of `steps`
    /// steps.
    pub const fn sets(self, steps: u32) -> u32 {
        match self {
            FragmentPipeline::Steps => 2,
            FragmentPipeline::Stripes => 2 * steps,
        }
    }
}

/// The registers a thread of a `wgmma` kernel needs at least for one
/// `wgmma`: its accumulators (twice for tf32x3, whose products gather
/// apart; pairs for c32) and one converted 4 × 4 block of a stripe.
pub const fn wgmma_instr_regs(spec: &KernelSpec) -> u128 {
    (wgmma_parts(spec) * wgmma_planes(spec)) as u128 * spec.m_thr() as u128 * spec.n_thr() as u128 + 16
}

/// The registers a consumer thread of a `wgmma` kernel needs at least:
/// [`wgmma_instr_regs`], and where it loads A's fragments into registers
/// four for each set it goes round ([`wgmma_a_fragments`]).
pub const fn wgmma_thread_regs(spec: &KernelSpec) -> u128 {
    let fragments = match wgmma_a_fragments(spec) {
        Some(pipeline) => 4 * pipeline.sets(spec.stripe_steps()) as u128,
        None => 0,
    };
    wgmma_instr_regs(spec) + fragments
}

/// The registers a consumer thread of `spec` holds: what the producer
/// hands over ([`register_limits`]), else its share of the block's, at
/// most 255.
pub const fn consumer_registers(spec: &KernelSpec) -> u32 {
    let held = match register_limits(spec) {
        Some((_, consumers)) => consumers,
        None => crate::ptx::register_share(crate::constraints::proven_u32(spec.block_threads() as u128)),
    };
    let most = super::Limits::PORTABLE.max_regs_per_thread;
    if held > most { most } else { held }
}

/// How the consumers of `spec` pipeline A's fragments, where they load A
/// into registers ([`wgmma_a_regs`]): a stripe a group wherever two
/// stripes' fragments fit beside [`wgmma_instr_regs`] in what a consumer
/// thread holds ([`consumer_registers`]), else a step a group; `None` for
/// any other kernel. (Two consumer warpgroups of 128 × 256 beside a
/// producer that converts B keep 168 registers a thread: with two stripes'
/// fragments ptxas serializes their `wgmma`s and spills, C7512.)
pub const fn wgmma_a_fragments(spec: &KernelSpec) -> Option<FragmentPipeline> {
    if !wgmma_a_regs(spec) {
        return None;
    }
    let steps = spec.stripe_steps();
    let stripes = 4 * FragmentPipeline::Stripes.sets(steps) as u128;
    if wgmma_instr_regs(spec) + stripes <= consumer_registers(spec) as u128 {
        Some(FragmentPipeline::Stripes)
    } else {
        Some(FragmentPipeline::Steps)
    }
}

/// Whether either operand of `spec` is read from the ring ([`wgmma_direct`]).
pub const fn wgmma_any_direct(spec: &KernelSpec) -> bool {
    wgmma_direct(spec, Operand::A) || wgmma_direct(spec, Operand::B)
}

/// [`Rule::Mma`] for a warpgroup shape (`shape.m = 64`): `math = tf32` or
/// `tf32x3` on `f32` or `c32` with `k = 8`, `math = f16` on `f16` or `bf16`
/// on `bf16` with `k = 16`; `arch = sm_90a`, `n` a multiple of 8 up to
/// [`wgmma_max_n`].
pub const fn wgmma_allowed(math: Math, precision: Precision, shape: MmaShape, arch: Target) -> bool {
    let max_n = wgmma_max_n(math, precision);
    let Some(input) = math.wgmma_input() else { return false };
    let Some(wg) = WgmmaShape::new(input, shape.n) else { return false };
    wgmma_math_fits(math, precision)
        && matches!(arch, Target::Sm90a)
        && shape.m == WgmmaShape::M
        && shape.k == wg.k()
        && shape.n <= max_n
}

/// Whether a `wgmma` of `math` multiplies `precision`: TF32 maths `f32` and
/// `c32`, `f16` and `bf16` their own type.
pub const fn wgmma_math_fits(math: Math, precision: Precision) -> bool {
    match math {
        Math::Tf32 | Math::Tf32x3 => matches!(precision, Precision::F32 | Precision::C32),
        Math::F16 => matches!(precision, Precision::F16),
        Math::Bf16 => matches!(precision, Precision::Bf16),
        Math::Fma | Math::Dmma => false,
    }
}

/// [`Rule::MmaTile`] for a warpgroup shape: the threads, warps, tile,
/// stripe, ring and shared loads of the module docs.
pub const fn wgmma_fits(spec: &KernelSpec, shape: WgmmaShape, warps: WarpShape) -> bool {
    warps.m != 0
        && warps.m.is_multiple_of(4)
        && spec.m_dim as u64 == 8 * warps.m as u64
        && spec.n_dim as u64 == 4 * warps.n as u64
        && spec.m_blk as u64 == 16 * warps.m as u64
        && spec.n_blk as u64 == shape.n as u64 * warps.n as u64
        && spec.k_blk.is_multiple_of(shape.k())
        && spec.stages >= WGMMA_MIN_STAGES
        && (spec.precision.is_half() || spec.lds_width == mma_lds_width(spec.precision))
}

/// Why `shape` (with `shape.m = 64`) is not allowed, as a message.
pub(super) fn shape_message(spec: &KernelSpec, shape: MmaShape) -> String {
    let (n, math) = (shape.n, spec.math);
    if !matches!(spec.arch, Target::Sm90a) {
        return format!(
            "`mma = (64, {n}, {})` is a Hopper `wgmma` shape, which only sm_90a has (this kernel is for \
             {}): add `arch = sm_90a`, or use an `mma.sync` shape such as `(16, 8, 8)`",
            shape.k, spec.arch
        );
    }
    if !wgmma_math_fits(math, spec.precision) {
        return format!(
            "`mma = (64, {n}, {})` multiplies f32 and c32 with `wgmma` (this kernel is {}): use `precision = \
             f32` or `c32`, or an `mma.sync` shape such as `(16, 8, 8)`",
            shape.k, spec.precision
        );
    }
    let k = if spec.precision.is_half() { 16 } else { 8 };
    if shape.k != k {
        let unit = if spec.precision.is_half() { spec.precision.token() } else { "TF32" };
        return format!("`mma.2` of a {unit} `wgmma` is {k}, not {}: use `mma = (64, {n}, {k})`", shape.k);
    }
    let max_n = wgmma_max_n(math, spec.precision);
    let why = match (math, spec.precision.is_complex()) {
        (Math::Tf32x3, false) => " (tf32x3 keeps a second set of n / 2 accumulators a thread)",
        (Math::Tf32x3, true) => {
            " (a c32 thread keeps n / 2 complex accumulators, and tf32x3 a second set of them)"
        }
        (_, true) => " (a c32 thread keeps n / 2 complex accumulators)",
        _ => "",
    };
    format!(
        "`mma.1` ({n}) of a `wgmma` with `math = {math}` on {} must be a multiple of 8 from 8 to {max_n}{why}",
        spec.precision
    )
}

/// Whether `spec`'s `producers` can be built: none, or one producer
/// warpgroup beside a `wgmma` kernel's consumers ([`Rule::Producers`]),
/// tile by tile, its copies issued together (the producer has no product to
/// interleave them with), the block within `max_threads` threads.
pub const fn producers_allowed(spec: &KernelSpec, max_threads: u32) -> bool {
    match spec.producers {
        0 => true,
        1 => {
            spec.wgmma().is_some()
                && matches!(spec.schedule, crate::spec::Schedule::Tiles)
                && spec.interleave == 0
                && spec.block_threads() <= max_threads as u64
        }
        _ => false,
    }
}

/// [`Rule::Producers`], spanned on `producers`.
pub(super) fn check_producers(spec: &KernelSpec, max_threads: u32, out: &mut Report) {
    if producers_allowed(spec, max_threads) {
        return;
    }
    let p = spec.producers;
    violation(out, ParamPath::whole(Field::Producers), Rule::Producers, || {
        if p > 1 {
            format!("`producers` ({p}) must be 0 or 1: one producer warpgroup feeds every consumer")
        } else if spec.wgmma().is_none() {
            "`producers = 1` specializes a `wgmma` kernel (`math = tf32 | tf32x3`, `mma = (64, n, 8)`, \
             `arch = sm_90a`): use one, or leave `producers` out"
                .to_owned()
        } else if !matches!(spec.schedule, crate::spec::Schedule::Tiles) {
            "`producers = 1` needs `schedule = tiles`: leave out `producers` or `schedule`".to_owned()
        } else if spec.interleave != 0 {
            format!(
                "`interleave` ({}) spreads the copies over the product, which a producer warpgroup does not \
                 run: leave out `interleave` or `producers`",
                spec.interleave
            )
        } else {
            format!(
                "`producers = 1` adds 128 threads to the {} of `threads`, over the {max_threads} a block can \
                 hold: use fewer warpgroups",
                spec.threads()
            )
        }
    });
}

/// What a warpgroup shape asks of the rest of `spec` (the shape allowed).
pub(super) fn check(spec: &KernelSpec, shape: WgmmaShape, warps: WarpShape, out: &mut Report) {
    let math = spec.math;
    if warps.m == 0 || warps.n == 0 {
        return;
    }
    if !warps.m.is_multiple_of(4) {
        violation(out, ParamPath::at(Field::Warps, 0), Rule::MmaTile, || {
            format!(
                "`warps.0` ({}) must be a multiple of 4 with a `wgmma` shape: four consecutive warps \
                 form the warpgroup that computes 64 rows",
                warps.m
            )
        });
        return;
    }
    if spec.m_dim as u64 != 8 * warps.m as u64 || spec.n_dim as u64 != 4 * warps.n as u64 {
        violation(out, ParamPath::whole(Field::Threads), Rule::MmaTile, || {
            format!(
                "`threads` must be (8 * warps.0, 4 * warps.1) = ({}, {}) with `math = {math}`: the 32 \
                 lanes of each warp are the 8 x 4 grid of its accumulators",
                8 * u64::from(warps.m),
                4 * u64::from(warps.n),
            )
        });
    }
    if spec.m_blk as u64 != 16 * warps.m as u64 {
        violation(out, ParamPath::at(Field::Tile, 0), Rule::MmaTile, || {
            format!(
                "`tile.0` ({}) must be 16 * warps.0 = {} with a `wgmma` shape: each warp computes 16 rows \
                 of its warpgroup's 64",
                spec.m_blk,
                16 * u64::from(warps.m)
            )
        });
    }
    if spec.n_blk as u64 != shape.n as u64 * warps.n as u64 {
        violation(out, ParamPath::at(Field::Tile, 1), Rule::MmaTile, || {
            format!(
                "`tile.1` ({}) must be mma.1 * warps.1 = {} with a `wgmma` shape: each warpgroup computes \
                 {} columns",
                spec.n_blk,
                u64::from(shape.n) * u64::from(warps.n),
                shape.n
            )
        });
    }
    if !spec.k_blk.is_multiple_of(shape.k()) {
        violation(out, ParamPath::at(Field::Tile, 2), Rule::MmaTile, || {
            format!("`tile.2` ({}) must be a multiple of {}, the depth of one `wgmma`", spec.k_blk, shape.k())
        });
    }
    if spec.stages < WGMMA_MIN_STAGES {
        violation(out, ParamPath::whole(Field::Stages), Rule::MmaTile, || {
            format!(
                "a `wgmma` kernel brings its stripes in with a `cp.async` ring: set `stages = {WGMMA_MIN_STAGES}` or more"
            )
        });
    }
    let width = mma_lds_width(spec.precision);
    if spec.lds_width != width && !spec.precision.is_half() {
        violation(out, ParamPath::whole(Field::LdsWidth), Rule::MmaTile, || {
            format!(
                "a `wgmma` kernel converts its stripes to TF32 parts 16 bytes at a time: set `lds_width = \
                 {width}` for {} (not {})",
                spec.precision, spec.lds_width
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Op;
    use crate::validate;

    /// An SGEMM on Hopper's warpgroup MMA: two warpgroups of 64 × 128.
    pub(crate) fn spec() -> KernelSpec {
        KernelSpec {
            lds_width: 4,
            arch: Target::Sm90a,
            stages: 2,
            ldg_width: 4,
            warps: Some(WarpShape { m: 8, n: 1 }),
            math: Math::Tf32x3,
            mma: Some(MmaShape { m: 64, n: 128, k: 8 }),
            ..KernelSpec::new(Precision::F32, (Op::N, Op::N), (128, 128, 32), (64, 4), (32, 8), (8, 32))
        }
    }

    fn rules(s: &KernelSpec) -> Vec<(String, Rule)> {
        match validate(s) {
            Ok(_) => vec![],
            Err(v) => v.into_iter().map(|v| (v.at.to_string(), v.rule)).collect(),
        }
    }

    /// One producer warpgroup: the load shapes rearrange its 128 threads,
    /// and each way of getting `producers` wrong is its rule.
    #[test]
    fn a_producer_warpgroup_is_legal_and_its_rules_fire_on_producers() {
        let s = spec();
        let at = |p: &str, r: Rule| vec![(p.to_owned(), r)];
        let ws = KernelSpec {
            producers: 1,
            load_a: crate::LoadShape { lead: 32, cross: 4 },
            load_b: crate::LoadShape { lead: 8, cross: 16 },
            ..s
        };
        assert_eq!(rules(&ws), []);
        assert_eq!(ws.block(), (384, 1, 1));
        assert_eq!(ws.copy_threads(), 128);
        let shapes = [("load_a".to_owned(), Rule::LoadThreads), ("load_b".to_owned(), Rule::LoadThreads)];
        assert_eq!(rules(&KernelSpec { producers: 1, ..s }), shapes, "the loads still name 256 threads");
        let two = rules(&KernelSpec { producers: 2, ..ws });
        assert!(two.contains(&("producers".to_owned(), Rule::Producers)), "{two:?}");
        assert_eq!(rules(&KernelSpec { interleave: 2, ..ws }), at("producers", Rule::Producers));
        let sk = KernelSpec { schedule: crate::Schedule::StreamK, ..ws };
        assert_eq!(rules(&sk), at("producers", Rule::Producers));
        let fma = KernelSpec::new(Precision::F32, (Op::N, Op::N), (64, 64, 8), (16, 16), (16, 8), (8, 16));
        let fma = KernelSpec { producers: 1, ..fma };
        assert_eq!(rules(&fma), at("producers", Rule::Producers));
        // Eight consumer warpgroups and a producer: 1152 threads.
        let big = KernelSpec {
            m_blk: 512,
            m_dim: 256,
            warps: Some(WarpShape { m: 32, n: 1 }),
            load_a: crate::LoadShape { lead: 128, cross: 1 },
            ..ws
        };
        assert!(rules(&big).contains(&("producers".to_owned(), Rule::Producers)), "{:?}", rules(&big));
        for (spec, words) in [
            (KernelSpec { producers: 2, ..ws }, "must be 0 or 1"),
            (fma, "specializes a `wgmma` kernel"),
            (KernelSpec { interleave: 2, ..ws }, "leave out `interleave` or `producers`"),
            (sk, "needs `schedule = tiles`"),
            (big, "over the 1024 a block can hold"),
        ] {
            let message =
                validate(&spec).err().map(|v| v.iter().map(|v| v.message.clone()).collect::<Vec<_>>());
            assert!(message.as_ref().is_some_and(|m| m.iter().any(|m| m.contains(words))), "{message:?}");
        }
    }

    #[test]
    fn a_warpgroup_spec_is_legal_and_each_rule_fires_on_its_parameter() {
        let s = spec();
        let at = |p: &str, r: Rule| vec![(p.to_owned(), r)];
        assert_eq!(rules(&s), []);
        assert_eq!(rules(&KernelSpec { math: Math::Tf32, ..s }), []);
        assert_eq!(rules(&KernelSpec { arch: Target::Sm90, ..s }), at("mma", Rule::Mma));
        assert_eq!(
            rules(&KernelSpec { mma: Some(MmaShape { m: 64, n: 128, k: 16 }), ..s }),
            at("mma", Rule::Mma)
        );
        let wide = KernelSpec { mma: Some(MmaShape { m: 64, n: 256, k: 8 }), n_blk: 256, ..s };
        assert_eq!(rules(&wide), at("mma", Rule::Mma), "tf32x3 keeps two sets of accumulators");
        assert_eq!(rules(&KernelSpec { stages: 1, ..s })[..1], at("stages", Rule::MmaTile)[..]);
        assert_eq!(rules(&KernelSpec { lds_width: 1, ..s }), at("lds_width", Rule::MmaTile));
        let six = KernelSpec { warps: Some(WarpShape { m: 6, n: 1 }), ..s };
        assert!(rules(&six).contains(&("warps.0".to_owned(), Rule::MmaTile)), "{:?}", rules(&six));
        let short = KernelSpec { n_blk: 64, ..s };
        assert!(rules(&short).contains(&("tile.1".to_owned(), Rule::MmaTile)), "{:?}", rules(&short));
        assert!(wgmma_fits(&s, WgmmaShape::tf32(128).unwrap(), WarpShape { m: 8, n: 1 }));
        assert!(!wgmma_fits(
            &KernelSpec { k_blk: 12, ..s },
            WgmmaShape::tf32(128).unwrap(),
            WarpShape { m: 8, n: 1 }
        ));
    }

    /// Three consumer warpgroups of `m64n256k16` and a producer: 512
    /// threads of at least 144 registers, more than the register file holds
    /// (ptxas refuses it, C7602), refused on `tile`; two fit.
    #[test]
    fn a_wgmma_block_past_the_register_file_is_refused() {
        let text = |m: u32, wm: u32| {
            format!(
                "precision = f16, op = (N, N), tile = ({m}, 256, 64), threads = ({}, 4), load_a = (8, 16), \
                 load_b = (8, 16), arch = sm_90a, stages = 3, ldg = tma, ldg_width = 8, warps = ({wm}, 1), \
                 math = f16, mma = (64, 256, 16), producers = 1",
                8 * wm
            )
        };
        let three: KernelSpec = text(192, 12).parse().unwrap();
        assert_eq!(rules(&three), vec![("tile".to_owned(), Rule::Registers)]);
        let message = validate(&three).unwrap_err()[0].message.clone();
        assert!(message.contains("in a block of 512 threads, which hold at most 128 each"), "{message}");
        let two: KernelSpec = text(128, 8).parse().unwrap();
        assert_eq!(rules(&two), []);
    }

    /// Which kernels' consumers load A's fragments into registers: 1xTF32
    /// f32 with a producer, A's M leading and 3 stages or more; with TMA,
    /// A's skewed row a box's at most, else A is converted (and the spec
    /// stays legal).
    #[test]
    fn a_from_registers_where_its_rows_fit() {
        let one = |op: (Op, Op), m: u32, ldg: GlobalLoad| {
            let (wm, n) = (m / 16, 256 * 128 / m);
            // The producer's 128 threads, 4 elements a copy, along each stripe's leading side.
            let load = |lead_is_k: bool, free: u32| if lead_is_k { (8, 16) } else { (free / 4, 512 / free) };
            let (a, b) = (load(op.0 == Op::T, m), load(op.1 == Op::N, n));
            let text = format!(
                "precision = f32, op = ({:?}, {:?}), tile = ({m}, {n}, 32), threads = ({}, 4), load_a = {a:?}, \
                 load_b = {b:?}, lds_width = 4, arch = sm_90a, stages = 3, ldg_width = 4, warps = ({wm}, 1), \
                 math = tf32, mma = (64, {n}, 8), producers = 1, ldg = {ldg}",
                op.0,
                op.1,
                8 * wm
            );
            text.parse::<KernelSpec>().unwrap()
        };
        for (op, regs) in [((Op::N, Op::N), true), ((Op::N, Op::T), true), ((Op::T, Op::N), false)] {
            let s = one(op, 128, GlobalLoad::Tma);
            assert_eq!(rules(&s), [], "{s}");
            assert_eq!(wgmma_a_regs(&s), regs, "{s}");
            assert_eq!(super::super::smem_skew(&s, Operand::A), if regs { WGMMA_A_REGS_SKEW } else { 0 });
            assert!(!wgmma_a_regs(&KernelSpec { math: Math::Tf32x3, ..s }));
            assert!(!wgmma_a_regs(&KernelSpec { producers: 0, ..s }));
            assert!(!wgmma_a_regs(&KernelSpec { stages: 2, ..s }));
        }
        // A 256-row tile: by TMA its box would be 264 wide, so A is converted.
        let wide = one((Op::N, Op::N), 256, GlobalLoad::Tma);
        assert_eq!(rules(&wide), []);
        assert!(!wgmma_a_regs(&wide) && !wgmma_direct(&wide, Operand::A));
        assert!(wgmma_a_regs(&one((Op::N, Op::N), 256, GlobalLoad::Cg)));
    }

    /// Which kernels hand the producer's registers to the consumers: a
    /// producer that only copies (TMA, nothing converted) beside two
    /// consumer warpgroups or more; and the fragment sets A's loads then go
    /// round.
    #[test]
    fn the_registers_go_to_the_consumers_of_a_producer_that_only_copies() {
        let text = |op: &str, tile: &str, loads: &str, warps: u32, n: u32, ldg: &str| {
            format!(
                "precision = f32, op = {op}, tile = {tile}, threads = ({}, 4), {loads}, lds_width = 4, arch = \
                 sm_90a, stages = 3, ldg_width = 4, warps = ({warps}, 1), math = tf32, mma = (64, {n}, 8), \
                 producers = 1, ldg = {ldg}",
                8 * warps
            )
            .parse::<KernelSpec>()
            .unwrap()
        };
        let nn = "load_a = (32, 4), load_b = (8, 16)";
        let tn = "load_a = (8, 16), load_b = (8, 16)";
        use FragmentPipeline::{Steps, Stripes};
        let cases = [
            (text("(N, N)", "(128, 256, 32)", nn, 8, 256, "tma"), Some((40, 232)), Some(Stripes)),
            (text("(T, N)", "(128, 256, 32)", tn, 8, 256, "tma"), Some((40, 232)), None),
            // One consumer warpgroup: its share of the block is 256 already.
            (
                text("(N, N)", "(64, 256, 32)", "load_a = (16, 8), load_b = (8, 16)", 4, 256, "tma"),
                None,
                Some(Stripes),
            ),
            // Copied by the producer's threads, or B converted: they need
            // their registers, and every thread keeps the block's share, 168,
            // too few for two stripes' fragments beside the accumulators.
            (text("(N, N)", "(128, 256, 32)", nn, 8, 256, "cg"), None, Some(Steps)),
            (
                text("(N, T)", "(128, 256, 32)", "load_a = (32, 4), load_b = (64, 2)", 8, 256, "tma"),
                None,
                Some(Steps),
            ),
        ];
        for (s, limits, depth) in cases {
            assert_eq!(rules(&s), [], "{s}");
            assert_eq!(register_limits(&s), limits, "{s}");
            assert_eq!(wgmma_a_fragments(&s), depth, "{s}");
        }
        // Four warpgroups of consumers on 640 threads of 96 registers:
        // (5 · 96 − 40) / 4 = 110, 104 a thread — what the producer gives
        // back covers it (4 · 8 ≤ 56).
        let four = text("(T, N)", "(256, 128, 32)", tn, 16, 128, "tma");
        assert_eq!((rules(&four), register_limits(&four)), (vec![], Some((40, 104))));
        for s in [four, text("(N, N)", "(128, 256, 32)", nn, 8, 256, "tma")] {
            let (producer, consumers) = register_limits(&s).expect("limits");
            let (groups, share) = (s.threads() as u32 / 128, (65536 / s.block_threads() as u32) / 8 * 8);
            assert!(groups * (consumers - share) <= share - producer, "{s}: the pool covers the consumers");
        }
    }

    /// A CGEMM on the warpgroup MMA: legal at half an SGEMM's widest `n`,
    /// converting 2 elements a load; f64 has no `wgmma`.
    #[test]
    fn a_complex_warpgroup_is_legal_at_half_the_width() {
        let s: KernelSpec = "precision = c32, op = (N, C), tile = (128, 64, 16), threads = (64, 4), \
            load_a = (64, 4), load_b = (32, 8), lds_width = 2, ldg_width = 2, stages = 3, warps = (8, 1), \
            math = tf32x3, mma = (64, 64, 8), arch = sm_90a"
            .parse()
            .unwrap();
        let at = |p: &str, r: Rule| vec![(p.to_owned(), r)];
        assert_eq!(rules(&s), []);
        let wide = KernelSpec { mma: Some(MmaShape { m: 64, n: 128, k: 8 }), n_blk: 128, ..s };
        assert_eq!(rules(&wide), at("mma", Rule::Mma), "tf32x3 keeps two sets of complex accumulators");
        assert_eq!(rules(&KernelSpec { math: Math::Tf32, ..wide }), []);
        let widest = KernelSpec { mma: Some(MmaShape { m: 64, n: 256, k: 8 }), n_blk: 256, ..wide };
        assert_eq!(rules(&KernelSpec { math: Math::Tf32, ..widest }), at("mma", Rule::Mma));
        assert_eq!(rules(&KernelSpec { lds_width: 1, ..s }), at("lds_width", Rule::MmaTile));
        assert_eq!(
            (wgmma_max_n(Math::Tf32x3, Precision::C32), wgmma_max_n(Math::Tf32, Precision::C32)),
            (64, 128)
        );
        let shape = MmaShape { m: 64, n: 64, k: 8 };
        assert!(!wgmma_allowed(Math::Dmma, Precision::F64, shape, Target::Sm90a));
        assert!(!wgmma_allowed(Math::Tf32x3, Precision::C64, shape, Target::Sm90a));
    }
}
