//! `atom.relaxed.gpu.global.inc.u32` and `fence.acq_rel.gpu`, and the
//! cross-block race check of a kernel that has them.
//!
//! `atom.inc` runs lane by lane, in lane order, each a compare-exchange
//! loop on the word's `AtomicU32`, so it is atomic across the workers too.
//! With race checks on it also takes the lock of the atomics' records
//! ([`Ordered::lock`]) for the whole check and update: the order atomics
//! take it in is the word's modification order, along which releases are
//! read. `fence.acq_rel.gpu` changes no value; with race checks on it
//! acquires what the thread's atomics read and makes the thread's release
//! (see `memory/order.rs`). With race checks off, neither costs more than
//! its own work, and a kernel without them nothing.

use std::sync::atomic::{AtomicU32, Ordering::SeqCst};

use super::lanes::{lanes, need};
use super::{LaneTrap, Trap, WARP, Warp, Worker};
use crate::error::AccessKind;
use crate::memory::{Conflict, Event, Ordered};
use crate::program::{Base, Mem, Op, Program, Src};

/// `atom.inc.u32` on `cell`: `old >= bound ? 0 : old + 1`; returns `old`.
fn increment(cell: &AtomicU32, bound: u32) -> u32 {
    let step = |old: u32| Some(if old >= bound { 0 } else { old + 1 });
    // `step` always gives a value, so the update always succeeds.
    cell.fetch_update(SeqCst, SeqCst, step).unwrap_or_else(|old| old)
}

/// Whether instruction `pc` of `prog` is an atomic.
pub(super) fn is_atomic(prog: &Program, pc: u32) -> bool {
    matches!(prog.code.get(pc as usize).map(|i| i.op), Some(Op::AtomInc { .. }))
}

impl Worker<'_> {
    /// `atom.inc` for lanes `m`: `d = [base + off]`, then the word becomes
    /// `0` if it was at least `bound`, one more otherwise.
    pub(super) fn atom_inc(
        &mut self,
        w: &mut Warp,
        pc: u32,
        m: u32,
        d: u32,
        (base, off): (Base, i64),
        bound: Src,
    ) -> Result<(), LaneTrap> {
        need(w, bound, m)?;
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        let bounds = lanes(w, bound);
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let old = self
                .atom_inc_lane(addrs[l as usize], bounds[l as usize] as u32, w.tid0 + l, pc)
                .map_err(|t| (t, l))?;
            w.vals[d as usize][l as usize] = u64::from(old);
        }
        w.written[d as usize] |= m;
        Ok(())
    }

    /// One lane's `atom.inc`: its checks, then the update; the old value.
    fn atom_inc_lane(&mut self, addr: u64, bound: u32, tid: u32, pc: u32) -> Result<u32, Trap> {
        let (buf, word) = self.locate(Mem::Global, AccessKind::Atomic, addr, 4, 4)?;
        let global = self.global;
        let cell = &global.bufs[buf].words[word];
        if !self.checks {
            return Ok(increment(cell, bound));
        }
        self.shadow::<true>(buf, word, 1, addr, tid, pc, AccessKind::Atomic)?;
        let Some(ordered) = self.ordered else {
            // Race checks on imply the ordered records for a kernel with
            // atomics; without them, only the update.
            return Ok(increment(cell, bound));
        };
        let mut atomics = ordered.lock();
        let atomic = atomics.entry((buf, word)).or_default();
        self.order.at(self.view.stamp);
        let me = self.order.accessor(self.block_id, tid);
        let order = &self.order;
        if let Err(c) = ordered.atomic((buf, word), atomic, me, |b, e| order.knows(tid, b, e)) {
            return Err(self.race(Mem::Global, addr, buf, AccessKind::Atomic, c, true));
        }
        let old = increment(cell, bound);
        self.order.observe(tid, &atomic.released);
        if let Some(release) = self.order.take_release(tid) {
            atomic.released.merge(&release);
        }
        Ok(old)
    }

    /// `fence.acq_rel.gpu` for lanes `m`, in lane order.
    pub(super) fn fence_acq_rel(&mut self, w: &Warp, m: u32) {
        if self.ordered.is_none() {
            return;
        }
        self.order.at(self.view.stamp);
        let mut mm = m;
        while mm != 0 {
            self.order.fence(self.block_id, w.tid0 + mm.trailing_zeros());
            mm &= mm - 1;
        }
    }

    /// The cross-block check of thread `tid`'s plain access to unit `unit`
    /// (a word, or a half-word in a kernel with 16-bit accesses) of buffer
    /// `buf`, in a kernel with atomics: other blocks' accesses conflict
    /// unless release and acquire order them before it.
    #[inline(never)]
    pub(super) fn ordered_access(
        &mut self,
        ordered: &Ordered,
        (buf, unit): (usize, usize),
        tid: u32,
        access: AccessKind,
    ) -> Result<(), Conflict> {
        self.order.at(self.view.stamp);
        let me = self.order.accessor(self.block_id, tid);
        let order = &self.order;
        let knows = |b: u32, e: Event| order.knows(tid, b, e);
        ordered.plain(buf, unit, me, access != AccessKind::Read, knows)
    }
}
