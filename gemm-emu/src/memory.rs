//! Emulated memory: the global buffers, and the shadow state behind the race
//! and initialisation checks.
//!
//! Every access the IR can express is 4, 8 or 16 bytes, aligned to its size
//! (misaligned ones fault first), so memory and its shadow are kept in
//! 4-byte words: two accesses touch the same bytes exactly when they touch
//! the same word. The one exception, a `cp.async` reading fewer bytes than
//! it copies (`src-size`), is recorded as reading every word it touches.
//!
//! # Race detection
//!
//! Within a block, a [`Shadow`] entry per word remembers the last writer and
//! up to two readers of the current barrier interval (an *epoch*). A write
//! conflicts with a write or read of another thread of the same epoch, a read
//! with a write of another thread: exactly the pairs of accesses a barrier
//! would have to order, whatever order the emulator ran the warps in.
//! Epochs increase across the blocks one worker runs, so a new block starts
//! with a clean shadow without clearing it.
//!
//! An atomic (`atom`) is recorded as a write, except that it does not
//! conflict with another thread's atomic: once several threads' atomics
//! touched a word in an epoch, any plain access to it there conflicts.
//!
//! Across blocks (which run in no defined order), each global word records
//! the block that wrote it and the block, or blocks, that read it, in
//! atomics shared by all workers: a write then conflicts with any access of
//! another block, a read with a write of another block. Each side publishes
//! its own access before looking at the other's (sequentially consistent),
//! so at least one of two conflicting accesses sees the other, whichever
//! worker runs them.
//!
//! A kernel with atomics keeps, instead, the records of [`Ordered`]
//! (`order.rs`), which also hold the *event* of each access: its thread and
//! its place among its block's barriers and fences. There, a conflict is
//! excused when release and acquire order the earlier access before the
//! later: block X's access `a` precedes block Y's access `b` when a thread
//! `T` of X executes `fence.acq_rel.gpu` after `a` (`a` being `T`'s own,
//! or any thread's of an epoch that ended before the fence's), then an
//! `atom` on a word `w` (its next atomic), and a thread `U` of Y executes
//! an `atom` on `w` after it, in `w`'s modification order, then
//! `fence.acq_rel.gpu` before `b` (`b` being `U`'s own, or any thread's of
//! a later epoch); or when a chain of such steps through other blocks
//! leads from `a` to `b`. Atomics never conflict with atomics; a plain
//! access conflicts with another block's atomic on the word unless ordered
//! after it. The later access checks the records of the earlier, so the
//! property above holds: ordered accesses also happen in that order on the
//! host (the acquiring atomic reads what the releasing one wrote), so the
//! later sees the earlier's record and excuses it; of two unordered ones,
//! at least one sees the other and reports it. A kernel without atomics
//! pays none of this, nor a kernel run without race checks.

use std::sync::atomic::{AtomicU32, Ordering};

use super::error::{AccessKind, Region};

mod order;

pub(crate) use order::{BlockOrder, Event, Ordered};

/// Bytes between the fake base addresses of consecutive buffers: a pointer's
/// high bits name its buffer.
pub(crate) const BUFFER_STRIDE_LOG2: u32 = 40;

/// The fake global address of buffer `index`.
pub const fn buffer_address(index: usize) -> u64 {
    (index as u64 + 1) << BUFFER_STRIDE_LOG2
}

/// `u32::MAX`: no thread / no block.
pub(crate) const NONE: u32 = u32::MAX;
/// More than one reading block.
const MANY: u32 = u32::MAX - 1;

/// One global buffer during a run.
#[derive(Debug)]
pub(crate) struct GlobalBuffer {
    pub name: String,
    pub len: u64,
    pub words: Vec<AtomicU32>,
    /// Whether a store to it faults.
    pub read_only: bool,
    /// Per word: the block (linear index) that wrote it, or [`NONE`].
    writer: Vec<AtomicU32>,
    /// Per word: the block that read it, [`MANY`], or [`NONE`].
    reader: Vec<AtomicU32>,
}

/// All global buffers of a run.
#[derive(Debug)]
pub(crate) struct Global {
    pub bufs: Vec<GlobalBuffer>,
    /// For a kernel with atomics, with race checks on: the cross-block
    /// records that know release and acquire (the buffers' `writer` and
    /// `reader` are then empty).
    pub ordered: Option<Ordered>,
}

/// A conflicting access found by a shadow check.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conflict {
    /// The other thread (same block) or block (cross-block).
    pub other: u32,
    pub other_access: AccessKind,
    /// The other access's instruction (same block only).
    pub other_pc: u32,
}

impl Global {
    /// Buffers of `bytes`, with names and whether they are read-only, and
    /// the cross-block records of the race checks, if `checks`: those of
    /// [`Ordered`] if the kernel has `atomics`.
    pub fn new(buffers: &[Vec<u8>], names: Vec<(String, bool)>, checks: bool, atomics: bool) -> Global {
        let ordered = (checks && atomics).then(|| Ordered::new(buffers.iter().map(|b| b.len().div_ceil(4))));
        let blocks_only = checks && !atomics;
        let bufs = buffers
            .iter()
            .zip(names)
            .map(|(bytes, (name, read_only))| {
                let n = bytes.len().div_ceil(4);
                let words = (0..n)
                    .map(|i| {
                        let mut w = [0u8; 4];
                        let chunk = &bytes[i * 4..(i * 4 + 4).min(bytes.len())];
                        w[..chunk.len()].copy_from_slice(chunk);
                        AtomicU32::new(u32::from_le_bytes(w))
                    })
                    .collect();
                let track = |n| {
                    if blocks_only { (0..n).map(|_| AtomicU32::new(NONE)).collect() } else { Vec::new() }
                };
                GlobalBuffer {
                    name,
                    len: bytes.len() as u64,
                    words,
                    read_only,
                    writer: track(n),
                    reader: track(n),
                }
            })
            .collect();
        Global { bufs, ordered }
    }

    /// Copies the buffers' bytes back out.
    pub fn write_back(&self, out: &mut [Vec<u8>]) {
        for (buf, bytes) in self.bufs.iter().zip(out) {
            for (i, chunk) in bytes.chunks_mut(4).enumerate() {
                let w = buf.words[i].load(Ordering::Relaxed).to_le_bytes();
                chunk.copy_from_slice(&w[..chunk.len()]);
            }
        }
    }

    /// The buffer and byte offset of `[addr, addr + bytes)`, if wholly
    /// inside one buffer; otherwise the region it points into or past.
    pub fn locate(&self, addr: u64, bytes: u32) -> Result<(usize, u64), Option<Region>> {
        let index = (addr >> BUFFER_STRIDE_LOG2).wrapping_sub(1);
        let offset = addr & ((1 << BUFFER_STRIDE_LOG2) - 1);
        match self.bufs.get(index as usize) {
            Some(b) if offset + u64::from(bytes) <= b.len => Ok((index as usize, offset)),
            _ => Err(self.nearest(addr)),
        }
    }

    /// The buffer nearest below or above `addr`, for messages.
    fn nearest(&self, addr: u64) -> Option<Region> {
        self.bufs
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let base = buffer_address(i);
                (addr.abs_diff(base).min(addr.abs_diff(base + b.len)), base, b)
            })
            .min_by_key(|&(d, _, _)| d)
            .map(|(_, base, b)| Region {
                name: b.name.clone(),
                offset: addr.wrapping_sub(base) as i64,
                len: b.len,
            })
    }

    pub fn region(&self, buf: usize, offset: u64) -> Region {
        let b = &self.bufs[buf];
        Region { name: b.name.clone(), offset: offset as i64, len: b.len }
    }

    /// Records block `block`'s access to word `word` of buffer `buf` and
    /// reports a conflicting access by another block. For a kernel without
    /// atomics (with them, [`Ordered`] keeps the records); an atomic would
    /// count as a write.
    pub fn cross_block(
        &self,
        buf: usize,
        word: usize,
        block: u32,
        access: AccessKind,
    ) -> Result<(), Conflict> {
        let b = &self.bufs[buf];
        let (writer, reader) = (&b.writer[word], &b.reader[word]);
        match access {
            AccessKind::Write | AccessKind::Atomic => {
                let old = writer.swap(block, Ordering::SeqCst);
                if old != NONE && old != block {
                    return Err(Conflict { other: old, other_access: AccessKind::Write, other_pc: NONE });
                }
                let r = reader.load(Ordering::SeqCst);
                if r != NONE && r != block {
                    // With several readers, one of them is another block; we
                    // do not know which, so name the writer's own view.
                    let other = if r == MANY { NONE } else { r };
                    return Err(Conflict { other, other_access: AccessKind::Read, other_pc: NONE });
                }
            }
            AccessKind::Read => {
                let r = reader.load(Ordering::SeqCst);
                if r != block && r != MANY {
                    let set = if r == NONE {
                        reader.compare_exchange(NONE, block, Ordering::SeqCst, Ordering::SeqCst)
                    } else {
                        Err(r)
                    };
                    if set.is_err() {
                        reader.store(MANY, Ordering::SeqCst);
                    }
                }
                let w = writer.load(Ordering::SeqCst);
                if w != NONE && w != block {
                    return Err(Conflict { other: w, other_access: AccessKind::Write, other_pc: NONE });
                }
            }
        }
        Ok(())
    }
}

/// No thread, in a [`Shadow`].
const NO_THREAD: u16 = u16::MAX;
/// The writer of a [`Shadow`] whose word several threads changed with
/// atomics in one epoch (which do not race with one another).
const ATOMIC_THREADS: u16 = u16::MAX - 1;

/// Who touched one word in which barrier interval: the hot part, 16 bytes,
/// read on every access. Thread numbers are a block's (at most 1024).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shadow {
    w_epoch: u32,
    r_epoch: u32,
    w_thread: u16,
    r_thread: u16,
    /// A second reader of `r_epoch`, other than `r_thread`, or [`NO_THREAD`].
    r2_thread: u16,
}

impl Default for Shadow {
    fn default() -> Shadow {
        Shadow { w_epoch: 0, r_epoch: 0, w_thread: NO_THREAD, r_thread: NO_THREAD, r2_thread: NO_THREAD }
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

fn thread_of(t: u16) -> u32 {
    if t == NO_THREAD || t == ATOMIC_THREADS { NONE } else { u32::from(t) }
}

impl Shadow {
    /// Whether the word was written in an epoch at or after `since`.
    pub fn written_since(&self, since: u32) -> bool {
        self.w_epoch >= since && self.w_epoch != 0
    }

    /// The thread that wrote the word in `epoch`, if one did (for shared
    /// words, which atomics never touch).
    pub fn writer_in(&self, epoch: u32) -> Option<u32> {
        (self.w_epoch == epoch && self.w_thread != NO_THREAD).then_some(thread_of(self.w_thread))
    }

    /// Records a read by `thread` at `pc` in `epoch`.
    #[inline(always)]
    pub fn read(&mut self, pcs: &mut ShadowPcs, thread: u16, epoch: u32, pc: u32) -> Result<(), Conflict> {
        if self.w_epoch == epoch && self.w_thread != thread {
            return Err(Conflict {
                other: thread_of(self.w_thread),
                other_access: AccessKind::Write,
                other_pc: pcs.w,
            });
        }
        if self.r_epoch != epoch {
            self.r_epoch = epoch;
            self.r_thread = thread;
            self.r2_thread = NO_THREAD;
            pcs.r = pc;
        } else if self.r_thread != thread && self.r2_thread == NO_THREAD {
            self.r2_thread = thread;
            pcs.r2 = pc;
        }
        Ok(())
    }

    /// Records a write by `thread` at `pc` in `epoch`.
    #[inline(always)]
    pub fn write(&mut self, pcs: &mut ShadowPcs, thread: u16, epoch: u32, pc: u32) -> Result<(), Conflict> {
        if self.w_epoch == epoch && self.w_thread != thread {
            return Err(Conflict {
                other: thread_of(self.w_thread),
                other_access: AccessKind::Write,
                other_pc: pcs.w,
            });
        }
        self.readers_conflict(pcs, thread, epoch)?;
        self.w_epoch = epoch;
        self.w_thread = thread;
        pcs.w = pc;
        Ok(())
    }

    /// Records an atomic by `thread` at `pc` in `epoch`: a write that does
    /// not conflict with another thread's atomic. `atomic_at` tells whether
    /// the instruction at a program counter is an atomic.
    pub fn atomic(
        &mut self,
        pcs: &mut ShadowPcs,
        thread: u16,
        epoch: u32,
        pc: u32,
        atomic_at: impl Fn(u32) -> bool,
    ) -> Result<(), Conflict> {
        let other = self.w_epoch == epoch && self.w_thread != thread;
        if other && self.w_thread != ATOMIC_THREADS && !atomic_at(pcs.w) {
            return Err(Conflict {
                other: thread_of(self.w_thread),
                other_access: AccessKind::Write,
                other_pc: pcs.w,
            });
        }
        self.readers_conflict(pcs, thread, epoch)?;
        self.w_epoch = epoch;
        // Another thread's atomic of this epoch is kept as `ATOMIC_THREADS`,
        // so that a plain access of either thread conflicts.
        self.w_thread = if other { ATOMIC_THREADS } else { thread };
        pcs.w = pc;
        Ok(())
    }

    /// A read of `epoch` by a thread other than `thread`, which a write by
    /// `thread` would conflict with.
    #[inline(always)]
    fn readers_conflict(&self, pcs: &ShadowPcs, thread: u16, epoch: u32) -> Result<(), Conflict> {
        if self.r_epoch == epoch {
            if self.r_thread != thread {
                return Err(Conflict {
                    other: thread_of(self.r_thread),
                    other_access: AccessKind::Read,
                    other_pc: pcs.r,
                });
            }
            if self.r2_thread != NO_THREAD {
                return Err(Conflict {
                    other: thread_of(self.r2_thread),
                    other_access: AccessKind::Read,
                    other_pc: pcs.r2,
                });
            }
        }
        Ok(())
    }
}

/// Shadow state for a run of words: hot entries and their instructions.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShadowWords {
    hot: Vec<Shadow>,
    cold: Vec<ShadowPcs>,
}

impl ShadowWords {
    pub fn new(words: usize) -> ShadowWords {
        ShadowWords { hot: vec![Shadow::default(); words], cold: vec![ShadowPcs::default(); words] }
    }

    #[inline(always)]
    pub fn entry(&mut self, word: usize) -> (&mut Shadow, &mut ShadowPcs) {
        (&mut self.hot[word], &mut self.cold[word])
    }
}

/// Words per page of a [`PagedShadow`].
const PAGE_WORDS: usize = 1024;

/// Shadow entries for the words of one global buffer, allocated a page at a
/// time as the blocks of one worker touch them.
#[derive(Debug, Default)]
pub(crate) struct PagedShadow {
    pages: Vec<Option<Box<ShadowWords>>>,
}

impl PagedShadow {
    pub fn new(words: usize) -> PagedShadow {
        PagedShadow { pages: (0..words.div_ceil(PAGE_WORDS)).map(|_| None).collect() }
    }

    #[inline(always)]
    pub fn entry(&mut self, word: usize) -> (&mut Shadow, &mut ShadowPcs) {
        let page =
            self.pages[word / PAGE_WORDS].get_or_insert_with(|| Box::new(ShadowWords::new(PAGE_WORDS)));
        page.entry(word % PAGE_WORDS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_reports_exactly_the_conflicting_pairs() {
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        // Same thread: read, write, read again — no conflict.
        assert!(s.read(p, 1, 1, 0).is_ok());
        assert!(s.write(p, 1, 1, 1).is_ok());
        assert!(s.read(p, 1, 1, 2).is_ok());
        // Another thread reads what thread 1 wrote at instruction 1.
        let c = s.read(p, 2, 1, 3).unwrap_err();
        assert_eq!((c.other, c.other_pc), (1, 1));
        // A barrier later, thread 2 may read it.
        assert!(s.read(p, 2, 2, 3).is_ok());
        assert!(s.read(p, 3, 2, 5).is_ok());
        // Threads 2 and 3 read it: a write by 2 conflicts with 3's read.
        let c = s.write(p, 2, 2, 4).unwrap_err();
        assert_eq!((c.other, c.other_access, c.other_pc), (3, AccessKind::Read, 5));
        // Write-write.
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.write(p, 5, 7, 0).unwrap();
        assert_eq!(s.write(p, 6, 7, 1).unwrap_err().other, 5);
        assert!(s.write(p, 6, 8, 1).is_ok());
    }

    #[test]
    fn shadow_atomics_conflict_with_plain_accesses_only() {
        // Instructions 10 and 11 are atomics.
        let atomic_at = |pc| pc >= 10;
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.atomic(p, 1, 1, 10, atomic_at).unwrap();
        s.atomic(p, 2, 1, 11, atomic_at).unwrap();
        // A plain read by either thread meets the other's atomic.
        let c = s.read(p, 1, 1, 3).unwrap_err();
        assert_eq!((c.other, c.other_access, c.other_pc), (NONE, AccessKind::Write, 11));
        // One thread's atomic is its own write; another's plain write
        // conflicts with an atomic, as an atomic with its read.
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.atomic(p, 1, 1, 10, atomic_at).unwrap();
        s.read(p, 1, 1, 2).unwrap();
        assert_eq!(s.write(p, 2, 1, 4).unwrap_err().other, 1);
        assert_eq!(s.atomic(p, 3, 1, 11, atomic_at).unwrap_err().other_access, AccessKind::Read);
        let (mut s, p) = (Shadow::default(), &mut ShadowPcs::default());
        s.write(p, 1, 1, 4).unwrap();
        assert_eq!(s.atomic(p, 2, 1, 10, atomic_at).unwrap_err().other, 1);
        assert!(s.atomic(p, 2, 2, 10, atomic_at).is_ok(), "a barrier later");
    }

    #[test]
    fn buffers_are_found_by_address() {
        let g = Global::new(
            &[vec![0; 10], vec![0; 64]],
            vec![("x".into(), false), ("y".into(), false)],
            true,
            false,
        );
        assert_eq!(g.locate(buffer_address(1) + 8, 8).unwrap(), (1, 8));
        // Straddling the end.
        let r = g.locate(buffer_address(0) + 8, 4).unwrap_err().unwrap();
        assert_eq!((r.name.as_str(), r.offset), ("x", 8));
        // Just before a buffer.
        let r = g.locate(buffer_address(1) - 4, 4).unwrap_err().unwrap();
        assert_eq!((r.name.as_str(), r.offset), ("y", -4));
        assert!(g.locate(0, 4).unwrap_err().is_some());
    }

    #[test]
    fn cross_block_conflicts_are_seen_by_either_side() {
        let g = Global::new(&[vec![0; 16]], vec![("c".into(), false)], true, false);
        g.cross_block(0, 0, 1, AccessKind::Read).unwrap();
        g.cross_block(0, 0, 2, AccessKind::Read).unwrap();
        assert!(g.cross_block(0, 0, 1, AccessKind::Write).is_err());
        g.cross_block(0, 1, 3, AccessKind::Write).unwrap();
        g.cross_block(0, 1, 3, AccessKind::Read).unwrap();
        assert_eq!(g.cross_block(0, 1, 4, AccessKind::Read).unwrap_err().other, 3);
    }
}
