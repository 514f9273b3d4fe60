//! `cp.async`: copies from global to shared memory that land later.
//!
//! The PTX ISA's model, per thread: each `cp.async` joins the thread's open
//! group; `cp.async.commit_group` closes it; `cp.async.wait_group n` returns
//! once every group but the `n` most recently committed has landed;
//! `cp.async.wait_all` commits and waits for everything. Until then the
//! destination bytes may be written at any moment, so the emulator
//!
//! - checks both addresses and reads the source when the copy is issued
//!   (the GPU's read happens some time before the wait; no kernel can tell
//!   the difference without a race, which the checks report);
//! - marks the destination words *in flight*: any shared access to them by
//!   any thread, another `cp.async` included, is an
//!   [`FaultKind::AsyncCopyInFlight`];
//! - writes the bytes when the issuing thread's wait lands the copy, as a
//!   write by that thread at that moment for the race detector (other
//!   threads must pass a `bar.sync` before reading them) and the
//!   unwritten-read check;
//! - also records a write by the issuing thread when the copy is issued, so
//!   that a read by another thread earlier in the same barrier interval is a
//!   race (the copy may overwrite the bytes before that read happens).
//!
//! Between the two, every access is in flight: together they cover every
//! moment the GPU may write the bytes.
//!
//! With `src-size = 0` nothing is read, so the source address need not lie
//! in a buffer (a guarded-off edge tile's address may point past the
//! matrix), but it must still be aligned to the cp-size, as PTX requires.
//!
//! A thread exiting with copies it never waited for is a fault
//! ([`FaultKind::AsyncCopyNotWaited`]), though the GPU reports nothing: no
//! thread can read those bytes without a race, so the kernel is wrong. A
//! `bar.sync` with copies in flight is legal (and usual) and reports nothing.
//!
//! None of this costs a kernel without `cp.async` more than a test of
//! [`AsyncCopies::pending`] per shared-memory instruction and per exit.

use super::lanes::need;
use super::tma::BULK;
use super::{LaneTrap, Lanes, Trap, WARP, Warp, Worker};
use crate::error::{AccessKind, Fault, FaultKind, MemSpace};
use crate::program::{CpAsync, Mem, Src};

/// One copy in flight.
#[derive(Clone, Copy, Debug)]
struct Copy {
    /// First shared word it writes.
    word: u32,
    /// Words it writes (1, 2 or 4).
    words: u8,
    /// The bytes it lands: what it read, then zeros.
    data: [u32; 4],
    /// Its `cp.async` instruction.
    pc: u32,
    /// The issuing thread.
    thread: u32,
    /// Its group: how many groups the thread had committed when issuing it.
    group: u32,
}

/// One thread's copies.
#[derive(Clone, Debug, Default)]
struct ThreadCopies {
    /// Groups committed so far; the open group is number `committed`.
    committed: u32,
    /// Its copies in flight, oldest first, as slots of [`AsyncCopies::slots`].
    pending: Vec<u32>,
}

/// The `cp.async` copies in flight in one block.
#[derive(Debug, Default)]
pub(super) struct AsyncCopies {
    /// Per shared-window word: 1 + the slot of the copy in flight to it,
    /// [`BULK`] + the slot of a bulk copy's (`tma.rs`), or 0. Empty for a
    /// program without `cp.async` or bulk copies.
    pub inflight: Vec<u32>,
    /// Copies, in slots reused through `free`.
    slots: Vec<Copy>,
    free: Vec<u32>,
    /// Per thread of the block.
    threads: Vec<ThreadCopies>,
    /// Copies in flight in the block, bulk copies included. While it is 0
    /// (always, for a program without `cp.async`), no access needs to look
    /// at the rest.
    pub pending: u32,
}

impl AsyncCopies {
    /// The bookkeeping of a block of `threads` threads and a shared window
    /// of `window_words` words, if the program `used` `cp.async` at all.
    pub fn new(used: bool, window_words: usize, threads: usize) -> AsyncCopies {
        if !used {
            return AsyncCopies::default();
        }
        AsyncCopies {
            inflight: vec![0; window_words],
            threads: vec![ThreadCopies::default(); threads],
            ..AsyncCopies::default()
        }
    }

    /// Forgets everything, for a new block. A block that completed has no
    /// copies in flight; one that faulted may.
    pub fn reset(&mut self) {
        if self.pending != 0 {
            self.inflight.fill(0);
            self.slots.clear();
            self.free.clear();
            self.pending = 0;
        }
        for t in &mut self.threads {
            t.committed = 0;
            t.pending.clear();
        }
    }
}

impl Worker<'_> {
    /// Issues `cp.async` for lanes `m`.
    pub(super) fn cp_async(&mut self, w: &mut Warp, pc: u32, m: u32, c: &CpAsync) -> Result<(), LaneTrap> {
        need(w, c.src_bytes, m)?;
        let (mut dsts, mut srcs): (Lanes, Lanes) = ([0; WARP], [0; WARP]);
        Self::addresses(w, m, c.dst, c.dst_off, &mut dsts)?;
        Self::addresses(w, m, c.src, c.src_off, &mut srcs)?;
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let src_bytes = match c.src_bytes {
                Src::R(r) => w.vals[r as usize][l as usize] as u32,
                Src::I(v) => v as u32,
            };
            self.issue(c, dsts[l as usize], srcs[l as usize], src_bytes, w.tid0 + l, pc)
                .map_err(|t| (t, l))?;
        }
        Ok(())
    }

    /// One thread's copy of `c.bytes` bytes from `src` (of which it reads
    /// `src_bytes`) to `dst`.
    fn issue(
        &mut self,
        c: &CpAsync,
        dst: u64,
        src: u64,
        src_bytes: u32,
        tid: u32,
        pc: u32,
    ) -> Result<(), Trap> {
        let bytes = u32::from(c.bytes);
        if src_bytes > bytes {
            return Err(Trap::Kind(FaultKind::AsyncCopySourceSize { src_bytes, bytes }));
        }
        if src & u64::from(bytes - 1) != 0 {
            let kind =
                FaultKind::Misaligned { space: MemSpace::Global, access: AccessKind::Read, addr: src, bytes };
            return Err(Trap::Kind(kind));
        }
        let mut data = [0u32; 4];
        if src_bytes > 0 {
            let (buf, word) = match self.global.locate(src, src_bytes) {
                Ok((buf, offset)) => (buf, (offset / 4) as usize),
                Err(near) => {
                    let kind = FaultKind::GlobalOutOfBounds {
                        access: AccessKind::Read,
                        addr: src,
                        bytes: src_bytes,
                        near,
                    };
                    return Err(Trap::Kind(kind));
                }
            };
            let words = src_bytes.div_ceil(4) as usize;
            if self.checks {
                self.shadow::<true>(buf, word, words, src, tid, pc, AccessKind::Read)?;
            }
            for (i, d) in data.iter_mut().enumerate().take(words) {
                *d = self.read_word::<true>(buf, word + i) as u32;
            }
            let tail = src_bytes % 4;
            if tail != 0 {
                data[words - 1] &= (1 << (8 * tail)) - 1;
            }
        }
        let (_, word) = self.locate(Mem::Shared, AccessKind::Write, dst, bytes, bytes)?;
        let words = bytes / 4;
        self.not_in_flight(AccessKind::Write, word, words)?;
        if self.proxy.active {
            self.generic_write(word, words as usize, tid, pc)?;
        }
        if self.checks {
            self.shadow::<false>(0, word, words as usize, dst, tid, pc, AccessKind::Write)?;
        }

        let t = &mut self.copies;
        let copy = Copy {
            word: word as u32,
            words: words as u8,
            data,
            pc,
            thread: tid,
            group: t.threads[tid as usize].committed,
        };
        let slot = match t.free.pop() {
            Some(s) => {
                t.slots[s as usize] = copy;
                s
            }
            None => {
                t.slots.push(copy);
                t.slots.len() as u32 - 1
            }
        };
        t.inflight[word..word + words as usize].fill(slot + 1);
        t.threads[tid as usize].pending.push(slot);
        t.pending += 1;
        self.stats.async_copy_bytes += u64::from(bytes);
        Ok(())
    }

    /// `cp.async.commit_group` for lanes `m`.
    pub(super) fn cp_async_commit(&mut self, w: &Warp, m: u32) {
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            self.copies.threads[(w.tid0 + l) as usize].committed += 1;
        }
    }

    /// `cp.async.wait_group keep` (or `cp.async.wait_all`, `keep: None`)
    /// for lanes `m`: lands every copy of each thread but those of its
    /// `keep` most recently committed groups.
    pub(super) fn cp_async_wait(
        &mut self,
        w: &Warp,
        pc: u32,
        m: u32,
        keep: Option<u32>,
    ) -> Result<(), LaneTrap> {
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            self.land(w.tid0 + l, pc, keep).map_err(|t| (t, l))?;
        }
        Ok(())
    }

    fn land(&mut self, tid: u32, pc: u32, keep: Option<u32>) -> Result<(), Trap> {
        let thread = &mut self.copies.threads[tid as usize];
        let done = match keep {
            Some(n) => thread.committed.saturating_sub(n),
            None => {
                thread.committed += 1;
                thread.committed
            }
        };
        let mut pending = std::mem::take(&mut thread.pending);
        let count = pending.iter().take_while(|&&s| self.copies.slots[s as usize].group < done).count();
        let mut result = Ok(());
        for &slot in &pending[..count] {
            let c = self.copies.slots[slot as usize];
            let (word, words) = (c.word as usize, usize::from(c.words));
            self.smem[word..word + words].copy_from_slice(&c.data[..words]);
            self.copies.inflight[word..word + words].fill(0);
            if self.proxy.active {
                self.proxy.record_write(word, words, tid, c.pc, true);
            }
            self.copies.free.push(slot);
            self.copies.pending -= 1;
            if self.checks && result.is_ok() {
                result = self.shadow::<false>(0, word, words, 4 * word as u64, tid, pc, AccessKind::Write);
            }
        }
        pending.drain(..count);
        self.copies.threads[tid as usize].pending = pending;
        result
    }

    /// Faults if one of lanes `m`, exiting at `pc`, has copies in flight.
    #[inline(always)]
    pub(super) fn copies_at_exit(&self, w: &Warp, m: u32, pc: u32) -> Result<(), Fault> {
        if self.copies.pending == 0 {
            return Ok(());
        }
        self.copies_at_exit_slow(w, m, pc)
    }

    #[cold]
    fn copies_at_exit_slow(&self, w: &Warp, m: u32, pc: u32) -> Result<(), Fault> {
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let pending = &self.copies.threads[(w.tid0 + l) as usize].pending;
            if let Some(&oldest) = pending.first() {
                let copy_pc = self.copies.slots[oldest as usize].pc as usize;
                let kind = FaultKind::AsyncCopyNotWaited {
                    copies: pending.len() as u32,
                    copy_line: self.prog.lines.get(copy_pc).copied().unwrap_or(0),
                };
                return Err(self.fault(kind, w.tid0 + l, pc));
            }
        }
        Ok(())
    }

    /// Faults if the shared access of `bytes` bytes of one of lanes `m`, at
    /// `addrs`, touches bytes in flight. Checked lane by lane in order, up
    /// to the first lane whose access faults otherwise (its own fault comes
    /// first, from the access itself); kept out of the per-lane loop of the
    /// accesses so that a kernel without copies in flight pays one test per
    /// instruction.
    #[cold]
    #[inline(never)]
    pub(super) fn lanes_not_in_flight(
        &self,
        access: AccessKind,
        addrs: &Lanes,
        m: u32,
        bytes: u32,
    ) -> Result<(), LaneTrap> {
        let mut mm = m;
        while mm != 0 {
            let l = mm.trailing_zeros();
            mm &= mm - 1;
            let Ok((_, word)) = self.locate(Mem::Shared, access, addrs[l as usize], bytes, bytes) else {
                return Ok(());
            };
            self.not_in_flight(access, word, bytes / 4).map_err(|t| (t, l))?;
        }
        Ok(())
    }

    /// Faults if one of `words` shared words from `word` is in flight.
    #[inline(never)]
    pub(super) fn not_in_flight(&self, access: AccessKind, word: usize, words: u32) -> Result<(), Trap> {
        for i in word..word + words as usize {
            let slot = self.copies.inflight[i];
            if slot != 0 {
                let (copy_thread, pc) = if slot & BULK != 0 {
                    self.bulk_issuer(slot & !BULK)
                } else {
                    let c = self.copies.slots[slot as usize - 1];
                    (c.thread, c.pc)
                };
                let addr = 4 * i as u64;
                return Err(Trap::Kind(FaultKind::AsyncCopyInFlight {
                    access,
                    addr,
                    region: self.shared_region(addr).expect("a located shared access lies in an array"),
                    copy_thread,
                    copy_line: self.prog.lines.get(pc as usize).copied().unwrap_or(0),
                }));
            }
        }
        Ok(())
    }
}
