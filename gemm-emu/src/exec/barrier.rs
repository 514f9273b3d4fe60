//! The block's scheduler and its barriers.
//!
//! Each pass runs every warp that can run until all its threads wait at a
//! `bar.sync` or have exited; a warp whose threads all wait then arrives
//! at that barrier ([`Clocks::arrive`]). `bar.arrive` arrives without
//! stopping the warp. A barrier completes when the warps its thread count
//! names (every warp of the block without a count) have arrived; the warps
//! waiting there run again in the next pass. When no warp can run, the
//! block is done if every thread has exited (with no barrier left half
//! arrived: [`FaultKind::BarrierUnfinished`]), and deadlocked otherwise.
//!
//! A warp arrives as a whole (counts are multiples of 32): `bar.arrive`
//! must be executed by every thread of the warp that has not exited,
//! converged. A `bar.sync` without a count waits for every thread of the
//! block, so it faults once any thread has exited, as the hardware would
//! hang.

use super::registers::REGISTER_WAIT;
use super::tma::MBARRIER_WAIT;
use super::{Fault, FaultKind, Op, WARP, Warp, Worker, first, merge};
use crate::memory::BadArrival;

impl Worker<'_> {
    /// Runs the block's warps until every thread has exited.
    pub(super) fn schedule(&mut self, warps: &mut [Warp]) -> Result<(), Fault> {
        loop {
            let mut ran = false;
            for u in 0..warps.len() {
                let w = &mut warps[u];
                if self.clocks.take_released(u) {
                    for g in &mut w.groups {
                        g.barrier = None;
                        g.pc += 1;
                    }
                    merge(&mut w.groups);
                }
                if self.prog.uses_tma
                    && let Some(g) = w.groups.iter_mut().find(|g| g.barrier == Some(MBARRIER_WAIT))
                    && self.mbarrier_wait_over(u)
                {
                    // Parked at a `try_wait`: again, its phase completed.
                    g.barrier = None;
                }
                if self.prog.uses_setmaxnreg {
                    self.registers_released(w, u);
                }
                if !w.groups.iter().any(|g| g.barrier.is_none()) {
                    continue;
                }
                self.view = self.clocks.view(u);
                self.run_warp(w)?;
                ran = true;
                let parked = self.prog.uses_tma && w.groups.iter().any(|g| g.barrier == Some(MBARRIER_WAIT))
                    || self.prog.uses_setmaxnreg && w.groups.iter().any(|g| g.barrier == Some(REGISTER_WAIT));
                if !w.groups.is_empty() && !parked {
                    self.bar_sync(warps, u)?;
                }
            }
            // Nothing ran: phases that waiting warps need may complete now.
            let completed = !ran && self.prog.uses_tma && self.complete_waited_phases()?;
            if !ran && !completed {
                break;
            }
        }
        if warps.iter().all(|w| w.groups.is_empty()) {
            if let Some(fault) = self.unfinished() {
                return Err(fault);
            }
            if self.prog.uses_tma
                && let Some(fault) = self.bulk_copies_at_end()
            {
                return Err(fault);
            }
            if self.prog.uses_setmaxnreg {
                self.registers_agree()?;
            }
            return if self.prog.uses_wgmma { self.warpgroups_complete() } else { Ok(()) };
        }
        if self.prog.uses_setmaxnreg
            && let Some(fault) = self.registers_deadlock(warps)
        {
            return Err(fault);
        }
        let parked = warps.iter().flat_map(|w| w.groups.iter().map(move |g| (w, g)));
        let mut at_mbarrier = parked.filter(|(_, g)| g.barrier == Some(MBARRIER_WAIT));
        if let Some((w, g)) = at_mbarrier.next() {
            let waiting = g.mask.count_ones() + at_mbarrier.map(|(_, g)| g.mask.count_ones()).sum::<u32>();
            if let Some(fault) = self.mbarrier_deadlock(waiting, w.tid0 + first(g.mask), g.pc) {
                return Err(fault);
            }
        }
        Err(self.deadlock(warps, None))
    }

    /// Warp `u`, every thread of which now waits at a `bar.sync`, arrives
    /// there.
    fn bar_sync(&mut self, warps: &[Warp], u: usize) -> Result<(), Fault> {
        let w = &warps[u];
        let g0 = w.groups[0];
        let id = g0.barrier.expect("a warp stops only when every group waits");
        let count = |pc: u32| match self.prog.code[pc as usize].op {
            Op::Bar { threads, .. } => threads,
            _ => unreachable!("a group waits at a barrier instruction"),
        };
        let threads = count(g0.pc);
        for g in &w.groups[1..] {
            if g.barrier != Some(id) {
                return Err(self.deadlock(warps, Some(u)));
            }
            if count(g.pc) != threads {
                return Err(self.count_mismatch(id, count(g.pc), threads, w.tid0 + first(g.mask), g.pc));
            }
        }
        let arrived = self.clocks.arrive(u, id, threads, true);
        match arrived {
            Err(bad) => Err(self.bad_arrival(bad, id, w.tid0 + first(g0.mask), g0.pc)),
            Ok(done) => {
                if done {
                    self.stats.barriers += 1;
                    if threads.is_none() && warps.iter().any(|w| w.exited != 0) {
                        return Err(self.deadlock(warps, None));
                    }
                }
                Ok(())
            }
        }
    }

    /// `bar.arrive id` by the whole of warp `w`, at `pc`: it arrives at
    /// `id`, whose generation waits for `warps` warps, and goes on.
    pub(super) fn bar_arrive(&mut self, w: &Warp, id: u32, threads: u32, pc: u32) -> Result<(), Fault> {
        let u = (w.tid0 / WARP as u32) as usize;
        self.arrivals[id as usize] = (w.tid0, pc);
        match self.clocks.arrive(u, id, Some(threads), false) {
            Err(bad) => Err(self.bad_arrival(bad, id, w.tid0, pc)),
            Ok(done) => {
                self.stats.barriers += u64::from(done);
                self.view = self.clocks.view(u);
                Ok(())
            }
        }
    }

    /// A barrier still under way once every thread has exited: arrivals
    /// nobody waited for (a `bar.sync` that never came would have
    /// deadlocked instead).
    fn unfinished(&self) -> Option<Fault> {
        (0..self.arrivals.len() as u32).find_map(|id| {
            let (arrived, expected) = self.clocks.pending(id)?;
            let kind =
                FaultKind::BarrierUnfinished { barrier: id, arrived: 32 * arrived, expected: 32 * expected };
            let (thread, pc) = self.arrivals[id as usize];
            Some(self.fault(kind, thread, pc))
        })
    }

    fn count_mismatch(
        &self,
        id: u32,
        threads: Option<u32>,
        expected: Option<u32>,
        thread: u32,
        pc: u32,
    ) -> Fault {
        let kind = FaultKind::BarrierCountMismatch { barrier: id, threads, expected };
        self.fault(kind, thread, pc)
    }

    fn bad_arrival(&self, bad: BadArrival, id: u32, thread: u32, pc: u32) -> Fault {
        match bad {
            BadArrival::Count { expected, threads } => self.count_mismatch(id, threads, expected, thread, pc),
            BadArrival::Twice => self.fault(FaultKind::BarrierArrivedTwice { barrier: id }, thread, pc),
        }
    }

    /// The block cannot go on: threads wait at barriers that will not
    /// complete (at different ones within warp `split`, if given).
    fn deadlock(&self, warps: &[Warp], split: Option<usize>) -> Fault {
        let (mut waiting, mut exited) = (0u32, 0u32);
        let mut ids: Vec<u32> = Vec::new();
        let mut at: Option<(u32, u32)> = None;
        for (u, w) in warps.iter().enumerate() {
            exited += w.exited.count_ones();
            for g in w.groups.iter().filter(|g| g.barrier.is_some()) {
                let id = g.barrier.expect("filtered");
                waiting += g.mask.count_ones();
                if !ids.contains(&id) {
                    ids.push(id);
                }
                if split.is_none_or(|s| s == u) {
                    at.get_or_insert((w.tid0 + first(g.mask), g.pc));
                }
            }
        }
        ids.sort_unstable();
        let counted = match ids[..] {
            [id] => self.clocks.pending(id).map(|(arrived, expected)| (id, 32 * arrived, 32 * expected)),
            _ => None,
        };
        let (thread, pc) = at.expect("a deadlock has a waiting thread");
        let kind = FaultKind::BarrierDeadlock {
            waiting,
            exited,
            barriers: if ids.len() > 1 { ids } else { Vec::new() },
            counted,
        };
        self.fault(kind, thread, pc)
    }
}
