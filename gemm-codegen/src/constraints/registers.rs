//! The register rules: a lower bound on the registers a thread of a spec
//! needs, and whether the block at that bound fits ([`Rule::Registers`]).

use super::{
    Field, Limits, ParamPath, Report, Rule, register_limits, violation, wgmma_a_regs, wgmma_instr_regs,
    wgmma_thread_regs,
};
use crate::spec::{KernelSpec, Math};

/// A lower bound on the 32-bit registers a thread of `spec` needs in the
/// main loop (see [`crate::Plan::regs_lower_bound`]); meaningful once the tile
/// divides by the threads and no parameter is zero, exact (in `u128`) and
/// panic-free for any spec: with no threads, the prefetched stripes count
/// whole. With a `cp.async` ring the next stripes bypass registers.
pub const fn regs_lower_bound(spec: &KernelSpec) -> u128 {
    let threads = spec.threads() as u128;
    let stripes = spec.k_blk as u128 * (spec.m_blk as u128 + spec.n_blk as u128);
    let prefetch = if spec.stages > 1 { 0 } else { stripes.div_ceil(if threads == 0 { 1 } else { threads }) };
    let (m, n) = (spec.m_thr() as u128, spec.n_thr() as u128);
    let sets = if spec.frag_sets > 1 { spec.frag_sets as u128 } else { 1 };
    // A step's fragments: a column of A and a row of B; with `mma` of depth
    // k, a lane's `m_thr · k / 4` elements of A and `n_thr · k / 8` of B
    // (tf32x3 keeps each as two TF32 parts).
    // A `wgmma` thread holds its accumulators and a converted block, and
    // consumers loading A's fragments four registers for each set they go
    // round (`wgmma_thread_regs`).
    if spec.wgmma().is_some() {
        return wgmma_thread_regs(spec);
    }
    let fragments = if spec.math.is_mma() {
        let k = spec.k_per_step() as u128;
        let parts = if matches!(spec.math, Math::Tf32x3) { 2 } else { 1 };
        parts * (m * k / 4 + n * k / 8)
    } else {
        m + n
    };
    spec.precision.element_regs() as u128 * (m * n + sets * fragments + prefetch)
}

/// [`Rule::Registers`]: whether `spec`'s register lower bound fits a thread,
/// and, for a `wgmma` kernel, whose accumulators cannot spill (an
/// instruction takes them all), whether its block at that bound fits the
/// register file ([`crate::ptx::BLOCK_REGISTERS`]: `ptxas` holds a block of `T`
/// threads to `65536 / T` registers a thread and refuses such a kernel,
/// C7602) — where `setmaxnreg` hands the producer's registers to the
/// consumers ([`register_limits`]), one `wgmma`'s own registers within
/// that share ([`wgmma_instr_regs`]: ptxas allocates an instruction within
/// it) and the rest within what they are handed. An FMA kernel past it
/// still builds, spilling.
pub const fn regs_fit(spec: &KernelSpec, limits: &Limits) -> bool {
    let regs = regs_lower_bound(spec);
    if regs > limits.max_regs_per_thread as u128 || spec.wgmma().is_none() {
        return regs <= limits.max_regs_per_thread as u128;
    }
    match register_limits(spec) {
        // A `wgmma` within the block's share, the rest within what the
        // consumers are handed.
        Some((_, consumers)) => regs <= consumers as u128 && block_holds(spec, wgmma_instr_regs(spec)),
        None => block_holds(spec, regs),
    }
}

/// Whether `regs` registers for each thread of `spec`'s block fit the
/// register file.
const fn block_holds(spec: &KernelSpec, regs: u128) -> bool {
    regs.saturating_mul(spec.block_threads() as u128) <= crate::ptx::BLOCK_REGISTERS as u128
}

/// [`Rule::Registers`], on `tile`.
pub(super) fn check(spec: &KernelSpec, limits: &Limits, out: &mut Report) {
    let regs = regs_lower_bound(spec);
    if !regs_fit(spec, limits) {
        violation(out, ParamPath::whole(Field::Tile), Rule::Registers, || {
            let handed = register_limits(spec).map(|(_, consumers)| consumers);
            if let (true, Some(consumers)) = (regs <= limits.max_regs_per_thread as u128, handed)
                && regs > u128::from(consumers)
            {
                let fragments = if wgmma_a_regs(spec) { " and A's fragments" } else { "" };
                return format!(
                    "`tile` needs at least {regs} registers per thread (its `wgmma` accumulators, a \
                     converted block{fragments}) in consumer warpgroups to which the producer hands at \
                     most {consumers} each: use fewer warpgroups"
                );
            }
            if regs <= limits.max_regs_per_thread as u128 {
                let need = if handed.is_some() { wgmma_instr_regs(spec) } else { regs };
                return format!(
                    "`tile` needs at least {need} registers per thread (its `wgmma` accumulators and a \
                     converted block) in a block of {} threads, which hold at most {} each: use fewer \
                     warpgroups",
                    spec.block_threads(),
                    u64::from(crate::ptx::BLOCK_REGISTERS) / spec.block_threads().max(1)
                );
            }
            format!(
                "`tile` needs at least {regs} registers per thread ({} × {} accumulators, a column \
                 of A, a row of B and the prefetched stripes) but a thread has at most {}: reduce \
                 `tile` or raise `threads`",
                spec.m_thr(),
                spec.n_thr(),
                limits.max_regs_per_thread
            )
        });
    }
}
