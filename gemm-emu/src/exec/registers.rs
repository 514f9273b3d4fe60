//! `setmaxnreg`: a warp's per-thread register limit raised or lowered
//! against the block's pool (PTX ISA 9.7.17.4).
//!
//! A block starts with every warp at the limit its thread count allows
//! (the registers of an sm_90a block shared evenly, in multiples of 8, at
//! most 256 — what ptxas gives a kernel with `.reqntid` that uses
//! `setmaxnreg`) and an empty pool. `setmaxnreg.dec` lowers the warp's
//! limit and puts the registers it frees in the pool; `setmaxnreg.inc`
//! takes the ones it needs from the pool, and while the pool holds too few
//! the warp waits there (parked, as at a barrier, until another warp's
//! `.dec` fills it). When no warp can run and warps still wait, the block
//! deadlocks ([`FaultKind::SetMaxNRegDeadlock`]): typically a producer
//! that never gave its registers back, or consumers asking for more than
//! it gave. The instruction is `.sync.aligned` (the whole warp, unguarded:
//! [`FaultKind::SetMaxNRegNotConverged`]), raises with `.inc` and lowers
//! with `.dec` ([`FaultKind::SetMaxNRegWrongWay`]), and the warps of a
//! warpgroup must end with the same limit
//! ([`FaultKind::SetMaxNRegWarpgroupDiverged`]). The count's form (24 …
//! 256, a multiple of 8) is the parser's to check.

use gemm_codegen::ptx::{WARPGROUP, register_share};

use super::{Fault, FaultKind, WARP, Warp, Worker, first};

/// The barrier id that marks a group parked at `setmaxnreg.inc`.
pub(super) const REGISTER_WAIT: u32 = u32::MAX - 1;

/// The block's register pool and its warps' limits.
#[derive(Debug, Default)]
pub(super) struct RegisterPool {
    /// Per warp, its registers a thread.
    limits: Vec<u32>,
    /// Registers the pool holds.
    pool: u32,
}

impl RegisterPool {
    /// A new block of `warps` warps and `threads` threads: each warp at the
    /// even share, the pool empty.
    pub fn reset(&mut self, warps: usize, threads: u32) {
        self.limits.clear();
        self.limits.resize(warps, register_share(threads));
        self.pool = 0;
    }

    /// Warp `u`'s `setmaxnreg` to `count` registers a thread: `Ok(true)`
    /// when done, `Ok(false)` when an `.inc` must wait for the pool.
    pub fn set(&mut self, u: usize, inc: bool, count: u32) -> Result<bool, FaultKind> {
        let current = self.limits[u];
        if (inc && count < current) || (!inc && count > current) {
            return Err(FaultKind::SetMaxNRegWrongWay { inc, count, current });
        }
        if !inc {
            self.pool += (current - count) * WARP as u32;
            self.limits[u] = count;
            return Ok(true);
        }
        let need = (count - current) * WARP as u32;
        if self.pool < need {
            return Ok(false);
        }
        self.pool -= need;
        self.limits[u] = count;
        Ok(true)
    }

    /// Whether warp `u`, parked at `setmaxnreg.inc` to `count`, can have
    /// its registers now.
    fn grantable(&self, u: usize, count: u32) -> bool {
        self.pool >= count.saturating_sub(self.limits[u]) * WARP as u32
    }
}

impl Worker<'_> {
    /// Unparks warp `u`'s group waiting at `setmaxnreg.inc` if the pool
    /// now holds its registers (the instruction then runs again).
    pub(super) fn registers_released(&self, w: &mut Warp, u: usize) {
        for g in w.groups.iter_mut().filter(|g| g.barrier == Some(REGISTER_WAIT)) {
            let super::Op::SetMaxNReg { count, .. } = self.prog.code[g.pc as usize].op else {
                unreachable!("a group parks at REGISTER_WAIT on `setmaxnreg`");
            };
            if self.registers.grantable(u, count) {
                g.barrier = None;
            }
        }
    }

    /// The fault of a block whose warps wait at `setmaxnreg.inc` when
    /// nothing can run, if any does.
    pub(super) fn registers_deadlock(&self, warps: &[Warp]) -> Option<Fault> {
        let mut parked = warps.iter().enumerate().flat_map(|(u, w)| w.groups.iter().map(move |g| (u, w, g)));
        let (u, w, g) = parked.find(|(_, _, g)| g.barrier == Some(REGISTER_WAIT))?;
        let waiting = warps
            .iter()
            .flat_map(|w| &w.groups)
            .filter(|g| g.barrier == Some(REGISTER_WAIT))
            .map(|g| g.mask.count_ones())
            .sum();
        let super::Op::SetMaxNReg { count, .. } = self.prog.code[g.pc as usize].op else {
            unreachable!("a group parks at REGISTER_WAIT on `setmaxnreg`");
        };
        let requested = (count - self.registers.limits[u]) * WARP as u32;
        let kind = FaultKind::SetMaxNRegDeadlock { waiting, requested, available: self.registers.pool };
        Some(self.fault(kind, w.tid0 + first(g.mask), g.pc))
    }

    /// At the block's end: the warps of each warpgroup at one limit.
    pub(super) fn registers_agree(&self) -> Result<(), Fault> {
        let per_group = (WARPGROUP / WARP as u32) as usize;
        for (i, counts) in self.registers.limits.chunks(per_group).enumerate() {
            if counts.iter().any(|&c| c != counts[0]) {
                let kind =
                    FaultKind::SetMaxNRegWarpgroupDiverged { warpgroup: i as u32, counts: counts.to_vec() };
                let pc = self.prog.code.iter().position(|i| matches!(i.op, super::Op::SetMaxNReg { .. }));
                return Err(self.fault(kind, i as u32 * WARPGROUP, pc.unwrap_or(0) as u32));
            }
        }
        Ok(())
    }
}
