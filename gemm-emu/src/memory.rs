//! Emulated memory: the global buffers, and the shadow state behind the race
//! and initialisation checks.
//!
//! Every access the IR can express is 2, 4, 8 or 16 bytes, aligned to its
//! size (misaligned ones fault first), so memory is kept in 4-byte words,
//! and so is its shadow, the race records: two accesses touch the same
//! bytes exactly when they touch the same word. Except for the 2-byte
//! accesses (`ld.global.b16`, `st.global.b16` of the 16-bit precisions,
//! global memory only): in a kernel that has them, the global records are
//! per half-word (*units* of 2 bytes, [`Global::half_units`]), each access
//! recording the halves it touches, so that two threads or blocks storing
//! the two halves of one word (neighbouring elements of C) do not race.
//! Shared memory's records stay per word. The other exceptions are read
//! conservatively: a `cp.async` reading fewer bytes than it copies
//! (`src-size`) is recorded as reading every word it touches, and a TMA
//! box's 2-byte element, in a kernel of word records, as reading its word.
//!
//! # Race detection
//!
//! Within a block, a [`Shadow`] entry per word remembers the last write and
//! the reads since, each with its thread and the *stamp* of its warp's
//! barrier interval (`clock.rs`: a clock per warp, joined at barriers). A
//! write conflicts with a write or read of another thread not ordered
//! before it, a read with such a write: exactly the pairs of accesses the
//! barriers would have to order, whatever order the emulator ran the warps
//! in. Stamps increase across the blocks one worker runs, so a new block
//! starts with a clean shadow without clearing it.
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

mod clock;
mod order;
mod shadow;

pub(crate) use clock::{BARRIERS, BadArrival, Clocks, MAX_WARPS, View};
pub(crate) use order::{BlockOrder, Event, Ordered};
pub(crate) use shadow::{Shadow, ShadowPcs};

/// Bytes between the fake base addresses of consecutive buffers: a pointer's
/// high bits name its buffer.
pub(crate) const BUFFER_STRIDE_LOG2: u32 = 40;

/// The fake global address of buffer `index`.
pub const fn buffer_address(index: usize) -> u64 {
    (index as u64 + 1) << BUFFER_STRIDE_LOG2
}

/// The generic address of byte 0 of the parameter image (`cvta.param`): far
/// above every buffer.
pub(crate) const PARAM_WINDOW: u64 = 1 << 62;

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
    /// Whether the race records (the workers' shadows, the buffers'
    /// `writer` and `reader`, [`Ordered`]'s) are per half-word, two units a
    /// word, rather than per word: for a kernel with 16-bit accesses.
    pub half_units: bool,
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
    /// [`Ordered`] if the kernel has `atomics`; per half-word if
    /// `half_units` (a kernel with 16-bit accesses).
    pub fn new(
        buffers: &[Vec<u8>],
        names: Vec<(String, bool)>,
        checks: bool,
        (atomics, half_units): (bool, bool),
    ) -> Global {
        let per_word = if half_units { 2 } else { 1 };
        let ordered =
            (checks && atomics).then(|| Ordered::new(buffers.iter().map(|b| b.len().div_ceil(4)), per_word));
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
                    writer: track(n * per_word),
                    reader: track(n * per_word),
                }
            })
            .collect();
        Global { bufs, half_units, ordered }
    }

    /// The race records' units of buffer `buf`: its words, or twice as
    /// many half-words ([`Global::half_units`]).
    pub fn units(&self, buf: usize) -> usize {
        self.bufs[buf].words.len() * if self.half_units { 2 } else { 1 }
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

    /// Records block `block`'s access to unit `unit` (a word, or a
    /// half-word: [`Global::half_units`]) of buffer `buf` and reports a
    /// conflicting access by another block. For a kernel without atomics
    /// (with them, [`Ordered`] keeps the records); an atomic would count as
    /// a write.
    pub fn cross_block(
        &self,
        buf: usize,
        unit: usize,
        block: u32,
        access: AccessKind,
    ) -> Result<(), Conflict> {
        let b = &self.bufs[buf];
        let (writer, reader) = (&b.writer[unit], &b.reader[unit]);
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
    fn buffers_are_found_by_address() {
        let g = Global::new(
            &[vec![0; 10], vec![0; 64]],
            vec![("x".into(), false), ("y".into(), false)],
            true,
            (false, false),
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
        let g = Global::new(&[vec![0; 16]], vec![("c".into(), false)], true, (false, false));
        g.cross_block(0, 0, 1, AccessKind::Read).unwrap();
        g.cross_block(0, 0, 2, AccessKind::Read).unwrap();
        assert!(g.cross_block(0, 0, 1, AccessKind::Write).is_err());
        g.cross_block(0, 1, 3, AccessKind::Write).unwrap();
        g.cross_block(0, 1, 3, AccessKind::Read).unwrap();
        assert_eq!(g.cross_block(0, 1, 4, AccessKind::Read).unwrap_err().other, 3);
    }
}
