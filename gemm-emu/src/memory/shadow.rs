//! A word's race-check record: who last wrote it and who read it since,
//! with the stamps ([`View`]) of their accesses.

use super::{AccessKind, Conflict, NONE, View};

/// No thread, in a [`Shadow`].
const NO_THREAD: u16 = u16::MAX;
/// The writer of a [`Shadow`] whose word several threads changed with
/// atomics in one interval (which do not race with one another).
const ATOMIC_THREADS: u16 = u16::MAX - 1;

/// Who touched one word, with the stamps of their accesses: the hot part,
/// 24 bytes, read on every access. Thread numbers are a block's (at most
/// 1024); the markers above them stand for several threads or none, and
/// [`View::ordered`] treats them as any warp.
///
/// The last write is kept, and two reads: a read ordered after the first
/// replaces it (whatever races with the older read races with the newer,
/// by transitivity), a read concurrent with both is folded into the second
/// (`r2_many`: the stamp is the latest of them, and a write must be
/// ordered after it in every warp that made one of them, `r2_warps`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shadow {
    w_stamp: u32,
    r_stamp: u32,
    r2_stamp: u32,
    w_thread: u16,
    r_thread: u16,
    /// A read concurrent with `r_thread`'s, or [`NO_THREAD`].
    r2_thread: u16,
    /// Whether `r2` stands for several reads (`r2_thread` is one of them).
    r2_many: bool,
    /// The warps of the reads `r2` stands for, a bit each.
    r2_warps: u32,
}

impl Default for Shadow {
    fn default() -> Shadow {
        Shadow {
            w_stamp: 0,
            r_stamp: 0,
            r2_stamp: 0,
            w_thread: NO_THREAD,
            r_thread: NO_THREAD,
            r2_thread: NO_THREAD,
            r2_many: false,
            r2_warps: 0,
        }
    }
}

/// The instructions of the accesses a [`Shadow`] records: the cold part,
/// written when a new thread is recorded and read only to report a race.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ShadowPcs {
    w: u32,
    r: u32,
    r2: u32,
}

/// The bit of `thread`'s warp in [`Shadow::r2_warps`] (every bit for a
/// marker standing for several threads or none).
fn warp_bit(thread: u16) -> u32 {
    if thread >= ATOMIC_THREADS { u32::MAX } else { 1 << (thread / 32) }
}

fn thread_of(t: u16) -> u32 {
    if t == NO_THREAD || t == ATOMIC_THREADS { NONE } else { u32::from(t) }
}

impl Shadow {
    /// Whether the word was written at or after stamp `since`.
    pub fn written_since(&self, since: u32) -> bool {
        self.w_stamp >= since && self.w_stamp != 0
    }

    /// The thread whose write of the word is not ordered before `v`, if one
    /// is (for shared words, which atomics never touch).
    pub fn unordered_writer(&self, v: &View) -> Option<u32> {
        (self.w_thread != NO_THREAD && !v.ordered(self.w_stamp, self.w_thread))
            .then_some(thread_of(self.w_thread))
    }

    /// The last write, if it is another thread's and not ordered before `v`.
    #[inline(always)]
    fn write_conflict(&self, pcs: &ShadowPcs, thread: u16, v: &View) -> Result<(), Conflict> {
        if self.w_thread != thread && !v.ordered(self.w_stamp, self.w_thread) {
            return Err(Conflict {
                other: thread_of(self.w_thread),
                other_access: AccessKind::Write,
                other_pc: pcs.w,
            });
        }
        Ok(())
    }

    /// Whether the second read is `thread`'s own, ordered before `v`, or
    /// absent.
    #[inline(always)]
    fn r2_settled(&self, thread: u16, v: &View) -> bool {
        if self.r2_many {
            // Every read is ordered once the latest stamp among them is, in
            // each warp that read (a warp's reads carry its stamps).
            v.known_to_all(self.r2_stamp) || {
                let mut warps = self.r2_warps;
                let mut all = true;
                while warps != 0 && all {
                    let w = warps.trailing_zeros();
                    warps &= warps - 1;
                    all = v.ordered(self.r2_stamp, (32 * w) as u16);
                }
                all
            }
        } else {
            self.r2_thread == thread || v.ordered(self.r2_stamp, self.r2_thread)
        }
    }

    /// Records a read by `thread` at `pc`, seeing `v`. A second read kept
    /// beside a newer first one stays, ordered or not: it is a read that
    /// happened, and a later write races with it only if it truly does.
    #[inline(always)]
    pub fn read(&mut self, pcs: &mut ShadowPcs, thread: u16, v: &View, pc: u32) -> Result<(), Conflict> {
        self.write_conflict(pcs, thread, v)?;
        if self.r_thread == thread {
            if self.r_stamp != v.stamp {
                (self.r_stamp, pcs.r) = (v.stamp, pc);
            }
        } else if v.ordered(self.r_stamp, self.r_thread) {
            (self.r_stamp, self.r_thread, pcs.r) = (v.stamp, thread, pc);
        } else if self.r2_thread == NO_THREAD || self.r2_settled(thread, v) {
            (self.r2_stamp, self.r2_thread, self.r2_many, pcs.r2) = (v.stamp, thread, false, pc);
            self.r2_warps = warp_bit(thread);
        } else if !self.r2_many || self.r2_stamp < v.stamp || self.r2_warps & warp_bit(thread) == 0 {
            // A third read concurrent with the first: `r2` now stands for
            // several, and a write must follow the latest in every warp
            // that read.
            self.r2_stamp = self.r2_stamp.max(v.stamp);
            self.r2_many = true;
            self.r2_warps |= warp_bit(thread);
        }
        Ok(())
    }

    /// Records a write by `thread` at `pc`, seeing `v`.
    #[inline(always)]
    pub fn write(&mut self, pcs: &mut ShadowPcs, thread: u16, v: &View, pc: u32) -> Result<(), Conflict> {
        self.write_conflict(pcs, thread, v)?;
        self.readers_conflict(pcs, thread, v)?;
        self.w_stamp = v.stamp;
        self.w_thread = thread;
        pcs.w = pc;
        Ok(())
    }

    /// Records an atomic by `thread` at `pc`, seeing `v`: a write that does
    /// not conflict with another thread's atomic. `atomic_at` tells whether
    /// the instruction at a program counter is an atomic.
    pub fn atomic(
        &mut self,
        pcs: &mut ShadowPcs,
        thread: u16,
        v: &View,
        pc: u32,
        atomic_at: impl Fn(u32) -> bool,
    ) -> Result<(), Conflict> {
        let other = self.w_thread != thread && !v.ordered(self.w_stamp, self.w_thread);
        if other && self.w_thread != ATOMIC_THREADS && !atomic_at(pcs.w) {
            return Err(Conflict {
                other: thread_of(self.w_thread),
                other_access: AccessKind::Write,
                other_pc: pcs.w,
            });
        }
        self.readers_conflict(pcs, thread, v)?;
        // Another thread's unordered atomic is kept as `ATOMIC_THREADS`, so
        // that a plain access of either thread conflicts.
        self.w_stamp = if other { self.w_stamp.max(v.stamp) } else { v.stamp };
        self.w_thread = if other { ATOMIC_THREADS } else { thread };
        pcs.w = pc;
        Ok(())
    }

    /// A read by a thread other than `thread` not ordered before `v`, which
    /// a write by `thread` would conflict with.
    #[inline(always)]
    fn readers_conflict(&self, pcs: &ShadowPcs, thread: u16, v: &View) -> Result<(), Conflict> {
        if self.r_thread != thread && !v.ordered(self.r_stamp, self.r_thread) {
            return Err(Conflict {
                other: thread_of(self.r_thread),
                other_access: AccessKind::Read,
                other_pc: pcs.r,
            });
        }
        if self.r2_thread != NO_THREAD && !self.r2_settled(thread, v) {
            return Err(Conflict {
                other: thread_of(self.r2_thread),
                other_access: AccessKind::Read,
                other_pc: pcs.r2,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Clocks;

    /// The view of every warp between the `e`-th and `e + 1`-th block-wide
    /// barrier of a block (`e` from 1).
    fn epoch(e: u32) -> View {
        let mut c = Clocks::default();
        c.start_block(1);
        for _ in 1..e {
            c.arrive(0, 0, None, true).unwrap();
        }
        c.view(0)
    }

    #[test]
    fn shadow_reports_exactly_the_conflicting_pairs() {
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        let (e1, e2) = (epoch(1), epoch(2));
        // Same thread: read, write, read again — no conflict.
        assert!(s.read(p, 1, &e1, 0).is_ok());
        assert!(s.write(p, 1, &e1, 1).is_ok());
        assert!(s.read(p, 1, &e1, 2).is_ok());
        // Another thread reads what thread 1 wrote at instruction 1.
        let c = s.read(p, 2, &e1, 3).unwrap_err();
        assert_eq!((c.other, c.other_pc), (1, 1));
        // A barrier later, thread 2 may read it.
        assert!(s.read(p, 2, &e2, 3).is_ok());
        assert!(s.read(p, 3, &e2, 5).is_ok());
        // Threads 2 and 3 read it: a write by 2 conflicts with 3's read.
        let c = s.write(p, 2, &e2, 4).unwrap_err();
        assert_eq!((c.other, c.other_access, c.other_pc), (3, AccessKind::Read, 5));
        // Write-write.
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.write(p, 5, &epoch(7), 0).unwrap();
        assert_eq!(s.write(p, 6, &epoch(7), 1).unwrap_err().other, 5);
        assert!(s.write(p, 6, &epoch(8), 1).is_ok());
    }

    /// Reads by several threads of two warps, then a write by a warp that
    /// synchronized with both, but not with a fourth warp that never read:
    /// ordered (the fourth warp's old stamp is no read of the word), while
    /// the fourth warp's own write is not.
    #[test]
    fn shadow_orders_a_write_after_many_reads_by_the_warps_that_read() {
        let mut c = Clocks::default();
        c.start_block(4);
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.read(p, 0, &c.view(0), 1).unwrap();
        s.read(p, 32, &c.view(1), 2).unwrap();
        s.read(p, 33, &c.view(1), 3).unwrap();
        for u in 0..3 {
            c.arrive(u, 1, Some(96), true).unwrap();
        }
        assert!(!c.view(2).known_to_all(c.view(0).stamp - 1), "warp 3 is not synchronized");
        let mut other = s;
        assert!(s.write(p, 64, &c.view(2), 4).is_ok());
        let conflict = other.write(p, 96, &c.view(3), 5).unwrap_err();
        assert_eq!(conflict.other_access, AccessKind::Read);
    }

    #[test]
    fn shadow_atomics_conflict_with_plain_accesses_only() {
        // Instructions 10 and 11 are atomics.
        let atomic_at = |pc| pc >= 10;
        let e1 = epoch(1);
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.atomic(p, 1, &e1, 10, atomic_at).unwrap();
        s.atomic(p, 2, &e1, 11, atomic_at).unwrap();
        // A plain read by either thread meets the other's atomic.
        let c = s.read(p, 1, &e1, 3).unwrap_err();
        assert_eq!((c.other, c.other_access, c.other_pc), (NONE, AccessKind::Write, 11));
        // One thread's atomic is its own write; another's plain write
        // conflicts with an atomic, as an atomic with its read.
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.atomic(p, 1, &e1, 10, atomic_at).unwrap();
        s.read(p, 1, &e1, 2).unwrap();
        assert_eq!(s.write(p, 2, &e1, 4).unwrap_err().other, 1);
        assert_eq!(s.atomic(p, 3, &e1, 11, atomic_at).unwrap_err().other_access, AccessKind::Read);
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.write(p, 1, &e1, 4).unwrap();
        assert_eq!(s.atomic(p, 2, &e1, 10, atomic_at).unwrap_err().other, 1);
        assert!(s.atomic(p, 2, &epoch(2), 10, atomic_at).is_ok(), "a barrier later");
    }

    /// Warps 0 and 1 read a word, then warp 0 arrives at barrier 1 and
    /// warp 2 waits there: warp 2 may not write the word, since warp 1's
    /// read is not ordered before it; with warp 1 arrived too it may.
    #[test]
    fn a_write_must_follow_every_concurrent_read() {
        for readers in [2usize, 3] {
            for warp1_arrives in [false, true] {
                let mut c = Clocks::default();
                c.start_block(4);
                let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
                for u in 0..readers {
                    s.read(p, 32 * u as u16, &c.view(u), u as u32).unwrap();
                }
                let count = Some(32 * if warp1_arrives { readers as u32 + 1 } else { 2 });
                c.arrive(3, 1, count, true).unwrap();
                c.arrive(0, 1, count, false).unwrap();
                if warp1_arrives {
                    for u in 1..readers {
                        c.arrive(u, 1, count, false).unwrap();
                    }
                }
                assert!(c.take_released(3));
                let r = s.write(p, 96, &c.view(3), 9);
                if warp1_arrives {
                    r.unwrap();
                } else {
                    let conflict = r.unwrap_err();
                    assert_eq!(
                        (conflict.other, conflict.other_access),
                        (32, AccessKind::Read),
                        "{readers} readers"
                    );
                }
            }
        }
    }
}
