//! Release and acquire across blocks: the happens-before order that
//! `fence.acq_rel.gpu` and `atom` create between blocks, and the per-word
//! records that check accesses of different blocks against it. Used for a
//! kernel with atomics, with race checks on; the parent module's "Race
//! detection" states the rule.
//!
//! # Events and what is known of them
//!
//! An access is an [`Event`] of its block: its thread and its *step*, the
//! barriers completed plus the fences executed in the block before it (a
//! block runs on one worker, one barrier interval after another, so the
//! step only grows). A fence of thread `T`, raising the step to `s` in a
//! barrier interval that began at step `s0`, follows (through `bar.sync`
//! or `T`'s program order) exactly the events of steps below `s0`, of
//! every thread, and `T`'s events of steps below `s`: a down-set of the
//! block's events, a [`Known`]. Likewise an event `b` follows a fence of
//! its block exactly when the fence's interval ended before `b`'s, or the
//! fence is of `b`'s thread and came before it.
//!
//! A [`Knowledge`] maps blocks to what is known of them. A block's
//! [`BlockOrder`] holds what it acquired: per thread for the current
//! interval (what a thread's fence acquires is its own until the next
//! barrier), for the whole block after it. A fence makes a *release*: its
//! block's down-set at the fence and all the fence's thread knows, which
//! the thread's next atomic adds to its word's [`AtomicWord::released`].
//! Every later atomic on the word (the word's modification order is the
//! order atomics take the records' lock in) reads what the word released
//! so far, and its thread's next fence acquires it. So knowledge is
//! transitive: a release carries what its block acquired before it.
//!
//! # Records
//!
//! Per global word (per half-word in a kernel with 16-bit accesses, whose
//! atomics, on whole words, mark both halves), in atomics shared by the
//! workers, [`Ordered`] keeps the last write (block and event), the reads
//! (block and a join of its events, or several blocks) and, when the last
//! writes were atomics, a mark that sends a plain access to the word's log
//! of atomics (per block, the join of its events). An access checks the records of other blocks against
//! what its block and thread know; as in the plain records, each side
//! publishes its own access before looking at the other's, so of two
//! unordered conflicting accesses at least one sees the other. Ordered ones
//! happen in that order on the host too (release and acquire go through the
//! word's lock), so the later one sees the earlier and excuses it.
//!
//! The last write suffices: a write that replaced another was ordered after
//! it (or faulted), so whatever follows it follows both. Reads of one block
//! are joined into one event that is known only when all of them are;
//! reads of two blocks not ordered one after the other become "several
//! blocks", against which every write is a race (conservatively).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Mutex, MutexGuard};

use super::{Conflict, NONE};
use crate::error::AccessKind;

/// Steps are recorded in 21 bits: from this many barriers plus fences in
/// one block on, its events all look alike (later ones are then never known
/// to other blocks: a race may be reported where there is none, never the
/// reverse).
const MAX_STEP: u32 = (1 << 21) - 1;

/// The thread of an [`Event`] standing for accesses of several threads of
/// one barrier interval: known only once the whole interval is.
const ANY_THREAD: u16 = (1 << 11) - 1;

/// A point of one block's run, as the order needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    /// Barriers completed plus fences executed in the block before it, at
    /// most [`MAX_STEP`].
    pub step: u32,
    /// The thread (linear index in the block), or [`ANY_THREAD`].
    pub thread: u16,
}

impl Event {
    /// One event standing for `self` and a later `next` of the same block,
    /// whose barrier interval began at step `next_start`: known only when
    /// both are.
    fn join(self, next: Event, next_start: u32) -> Event {
        if self.step < next_start || self.thread == next.thread {
            // An earlier interval's, or the same thread's: `next` follows it.
            next
        } else {
            Event { step: next.step, thread: ANY_THREAD }
        }
    }
}

/// What is known of one block: a down-set of its events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Known {
    /// Every event of a lower step.
    all: u32,
    /// A thread whose events of a step below the bound are known too (its
    /// accesses before its fence), or `(ANY_THREAD, 0)`.
    first: (u16, u32),
    /// More such threads: rare (several threads of a block releasing in
    /// one barrier interval), so kept out of line.
    more: Vec<(u16, u32)>,
}

impl Known {
    /// What a fence of `thread` at `step`, in a barrier interval that began
    /// at step `start`, follows in its block.
    pub fn at_fence(start: u32, thread: u16, step: u32) -> Known {
        Known { all: start, first: (thread, step), more: Vec::new() }
    }

    /// Whether `event` is known.
    pub fn covers(&self, event: Event) -> bool {
        event.step < self.all
            || event.thread != ANY_THREAD
                && std::iter::once(&self.first)
                    .chain(&self.more)
                    .any(|&(t, bound)| t == event.thread && event.step < bound)
    }

    /// Adds what `other` knows.
    pub fn merge(&mut self, other: &Known) {
        let all = self.all.max(other.all);
        self.all = all;
        self.more.retain(|&(_, bound)| bound > all);
        if self.first.1 <= all {
            self.first = self.more.pop().unwrap_or((ANY_THREAD, 0));
        }
        for &(t, bound) in std::iter::once(&other.first).chain(&other.more) {
            self.add_thread(t, bound);
        }
    }

    fn add_thread(&mut self, thread: u16, bound: u32) {
        if thread == ANY_THREAD || bound <= self.all {
            return;
        }
        if self.first.0 == ANY_THREAD {
            self.first = (thread, bound);
        } else if let Some(e) = std::iter::once(&mut self.first).chain(&mut self.more).find(|e| e.0 == thread)
        {
            e.1 = e.1.max(bound);
        } else {
            self.more.push((thread, bound));
        }
    }
}

/// What is known of other blocks, by block (linear index), sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Knowledge(Vec<(u32, Known)>);

impl Knowledge {
    /// Whether `event` of block `block` is known.
    pub fn covers(&self, block: u32, event: Event) -> bool {
        match self.0.binary_search_by_key(&block, |e| e.0) {
            Ok(i) => self.0[i].1.covers(event),
            Err(_) => false,
        }
    }

    /// Adds `known` of block `block`.
    pub fn add(&mut self, block: u32, known: &Known) {
        match self.0.binary_search_by_key(&block, |e| e.0) {
            Ok(i) => self.0[i].1.merge(known),
            Err(i) => self.0.insert(i, (block, known.clone())),
        }
    }

    /// Adds all `other` knows.
    pub fn merge(&mut self, other: &Knowledge) {
        if other.0.is_empty() {
            return;
        }
        if self.0.is_empty() {
            self.0.clone_from(&other.0);
            return;
        }
        let mine = std::mem::take(&mut self.0);
        let mut out = Vec::with_capacity(mine.len() + other.0.len());
        let mut theirs = other.0.iter().peekable();
        for (block, mut known) in mine {
            while let Some((b, k)) = theirs.next_if(|e| e.0 < block) {
                out.push((*b, k.clone()));
            }
            if let Some((_, k)) = theirs.next_if(|e| e.0 == block) {
                known.merge(k);
            }
            out.push((block, known));
        }
        out.extend(theirs.cloned());
        self.0 = out;
    }
}

/// One block's side of the order, kept by the worker running it: the step,
/// what the block acquired, and what its threads' fences release. Its maps
/// stay empty, and unallocated, in a block without fences and atomics.
#[derive(Debug, Default)]
pub(crate) struct BlockOrder {
    /// The block's first epoch (the worker's barrier-interval number).
    epoch0: u32,
    /// Fences executed in the block (one per thread executing one).
    fences: u32,
    /// The epoch the fields below are current for.
    epoch: u32,
    /// The step that epoch began at.
    epoch_start: u32,
    /// Acquired in earlier epochs: known to every thread.
    known: Knowledge,
    /// Acquired in this epoch, per thread: known to that thread only.
    thread_known: BTreeMap<u16, Knowledge>,
    /// Per thread, what its atomics read since its last fence.
    pending: BTreeMap<u16, Knowledge>,
    /// Per thread, what its last fence releases at its next atomic.
    release: BTreeMap<u16, Knowledge>,
}

impl BlockOrder {
    /// Forgets everything, for a new block starting in epoch `epoch0`.
    pub fn reset(&mut self, epoch0: u32) {
        *self = BlockOrder { epoch0, epoch: epoch0, ..BlockOrder::default() };
    }

    /// Brings the view up to `epoch`: after a barrier, what any thread
    /// acquired before it is every thread's.
    pub fn at(&mut self, epoch: u32) {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.epoch_start = self.step();
            for k in std::mem::take(&mut self.thread_known).into_values() {
                self.known.merge(&k);
            }
        }
    }

    /// The current step (after [`Self::at`]).
    fn step(&self) -> u32 {
        self.epoch.wrapping_sub(self.epoch0).saturating_add(self.fences).min(MAX_STEP)
    }

    /// Who accesses now: block `block`'s thread `thread` (after
    /// [`Self::at`]).
    pub fn accessor(&self, block: u32, thread: u32) -> Accessor {
        Accessor {
            block,
            event: Event { step: self.step(), thread: thread as u16 },
            epoch_start: self.epoch_start,
        }
    }

    /// Whether thread `thread` knows `event` of block `block` (after
    /// [`Self::at`]).
    pub fn knows(&self, thread: u32, block: u32, event: Event) -> bool {
        self.known.covers(block, event)
            || self.thread_known.get(&(thread as u16)).is_some_and(|k| k.covers(block, event))
    }

    /// An atomic of `thread` read what its word has `released`: the
    /// thread's next fence acquires it.
    pub fn observe(&mut self, thread: u32, released: &Knowledge) {
        if !released.0.is_empty() {
            self.pending.entry(thread as u16).or_default().merge(released);
        }
    }

    /// What `thread`'s atomic now releases: what its last fence, if it has
    /// not been released yet, followed.
    pub fn take_release(&mut self, thread: u32) -> Option<Knowledge> {
        self.release.remove(&(thread as u16))
    }

    /// A `fence.acq_rel.gpu` of thread `thread` of block `block` (after
    /// [`Self::at`]): acquires what the thread's atomics read since its
    /// last fence, and makes a release of all it knows and its block's
    /// events before it.
    pub fn fence(&mut self, block: u32, thread: u32) {
        let t = thread as u16;
        if let Some(acquired) = self.pending.remove(&t) {
            self.thread_known.entry(t).or_default().merge(&acquired);
        }
        self.fences = self.fences.saturating_add(1);
        let mut release = self.known.clone();
        if let Some(k) = self.thread_known.get(&t) {
            release.merge(k);
        }
        release.add(block, &Known::at_fence(self.epoch_start, t, self.step()));
        self.release.insert(t, release);
    }
}

/// An access's block, event, and the step its barrier interval began at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Accessor {
    pub block: u32,
    pub event: Event,
    pub epoch_start: u32,
}

/// A record of one word's accesses: no access ([`NONE`] in the block
/// bits), several blocks' ([`SEVERAL`]), or one block's event.
enum Record {
    None,
    Several,
    Access(u32, Event),
}

/// The block bits of a [`Record`] of several blocks.
const SEVERAL: u32 = NONE - 1;

const EMPTY: u64 = u64::MAX;
const SEVERAL_RECORD: u64 = (SEVERAL as u64) << 32;

/// Block in the high 32 bits, step in the next 21, thread in the low 11.
fn pack(block: u32, e: Event) -> u64 {
    u64::from(block) << 32 | u64::from(e.step.min(MAX_STEP)) << 11 | u64::from(e.thread & ANY_THREAD)
}

fn unpack(r: u64) -> Record {
    match (r >> 32) as u32 {
        NONE => Record::None,
        SEVERAL => Record::Several,
        block => Record::Access(block, Event { step: (r as u32) >> 11, thread: r as u16 & ANY_THREAD }),
    }
}

/// What the atomics on one word have done.
#[derive(Debug, Default)]
pub(crate) struct AtomicWord {
    /// What the releasing atomics on it released so far: what a later one
    /// reads.
    pub released: Knowledge,
    /// The atomics since the last plain write, per block (sorted): the join
    /// of its events.
    log: Vec<(u32, Event)>,
}

/// The words atomics touched, by buffer and word.
pub(crate) type AtomicWords = HashMap<(usize, usize), AtomicWord>;

/// The cross-block records of a run of a kernel with atomics, per *unit*
/// of each buffer: its words, or, in a kernel with 16-bit accesses, its
/// half-words (two a word, `per_word`). Atomics are on whole words.
#[derive(Debug)]
pub(crate) struct Ordered {
    /// Per buffer, per unit: the last plain write, [`SEVERAL_RECORD`] when
    /// atomics came after it (see the word's [`AtomicWord`]), or
    /// [`EMPTY`].
    writer: Vec<Vec<AtomicU64>>,
    /// Per buffer, per unit: the reads of one block (the join of their
    /// events), [`SEVERAL_RECORD`] for several blocks, or [`EMPTY`].
    reader: Vec<Vec<AtomicU64>>,
    /// Units a word: 1, or 2 for half-words.
    per_word: usize,
    atomics: Mutex<AtomicWords>,
}

fn conflict(block: u32, other_access: AccessKind) -> Conflict {
    Conflict { other: block, other_access, other_pc: NONE }
}

impl Ordered {
    /// Empty records for buffers of these many words, `per_word` units a
    /// word (1, or 2 for half-words).
    pub fn new(words: impl Iterator<Item = usize>, per_word: usize) -> Ordered {
        let (mut writer, mut reader) = (Vec::new(), Vec::new());
        for n in words {
            writer.push((0..n * per_word).map(|_| AtomicU64::new(EMPTY)).collect());
            reader.push((0..n * per_word).map(|_| AtomicU64::new(EMPTY)).collect());
        }
        Ordered { writer, reader, per_word, atomics: Mutex::new(HashMap::new()) }
    }

    /// The atomics' state, locked: an atomic holds it from its check to its
    /// update of the word.
    pub fn lock(&self) -> MutexGuard<'_, AtomicWords> {
        self.atomics.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a plain read or write of unit `unit` of buffer `buf` and
    /// reports a conflicting access of another block that its accessor
    /// does not `know` (block, event).
    pub fn plain(
        &self,
        buf: usize,
        unit: usize,
        me: Accessor,
        write: bool,
        knows: impl Fn(u32, Event) -> bool,
    ) -> Result<(), Conflict> {
        let (writer, reader) = (&self.writer[buf][unit], &self.reader[buf][unit]);
        if write {
            let old = writer.swap(pack(me.block, me.event), SeqCst);
            self.after_writes(buf, unit, old, me.block, true, &knows)?;
            return after_reads(reader.load(SeqCst), me.block, &knows);
        }
        let mut cur = reader.load(SeqCst);
        loop {
            let new = match unpack(cur) {
                Record::None => pack(me.block, me.event),
                Record::Several => break,
                Record::Access(b, e) if b == me.block => pack(b, e.join(me.event, me.epoch_start)),
                // Replace a read this one follows; otherwise both stay.
                Record::Access(b, e) if knows(b, e) => pack(me.block, me.event),
                Record::Access(..) => SEVERAL_RECORD,
            };
            if new == cur {
                break;
            }
            match reader.compare_exchange(cur, new, SeqCst, SeqCst) {
                Ok(_) => break,
                Err(now) => cur = now,
            }
        }
        self.after_writes(buf, unit, writer.load(SeqCst), me.block, false, &knows)
    }

    /// Records an atomic on word `word` of buffer `buf`, whose state
    /// `atomic` is (under [`Self::lock`]), and reports a conflicting plain
    /// access of another block its accessor does not `know`.
    pub fn atomic(
        &self,
        (buf, word): (usize, usize),
        atomic: &mut AtomicWord,
        me: Accessor,
        knows: impl Fn(u32, Event) -> bool,
    ) -> Result<(), Conflict> {
        for unit in word * self.per_word..(word + 1) * self.per_word {
            let old = self.writer[buf][unit].swap(SEVERAL_RECORD, SeqCst);
            if let Record::Access(b, e) = unpack(old)
                && b != me.block
                && !knows(b, e)
            {
                return Err(conflict(b, AccessKind::Write));
            }
            after_reads(self.reader[buf][unit].load(SeqCst), me.block, &knows)?;
        }
        match atomic.log.binary_search_by_key(&me.block, |e| e.0) {
            Ok(i) => atomic.log[i].1 = atomic.log[i].1.join(me.event, me.epoch_start),
            Err(i) => atomic.log.insert(i, (me.block, me.event)),
        }
        Ok(())
    }

    /// Checks the write record `old` a plain access of block `block` to
    /// unit `unit` found (and, if it marks atomics, its word's log, which a
    /// `write` that follows them all replaces where units are words; with
    /// half-words the log stays, as the other half's record may still send
    /// a later access to it).
    fn after_writes(
        &self,
        buf: usize,
        unit: usize,
        old: u64,
        block: u32,
        write: bool,
        knows: &impl Fn(u32, Event) -> bool,
    ) -> Result<(), Conflict> {
        match unpack(old) {
            Record::None => Ok(()),
            Record::Access(b, e) if b == block || knows(b, e) => Ok(()),
            Record::Access(b, _) => Err(conflict(b, AccessKind::Write)),
            Record::Several => {
                let mut atomics = self.lock();
                let Some(atomic) = atomics.get_mut(&(buf, unit / self.per_word)) else { return Ok(()) };
                if let Some(&(b, _)) = atomic.log.iter().find(|&&(b, e)| b != block && !knows(b, e)) {
                    return Err(conflict(b, AccessKind::Atomic));
                }
                if write && self.per_word == 1 {
                    atomic.log.clear();
                }
                Ok(())
            }
        }
    }
}

/// Checks the read record `r` a write or atomic of block `block` found.
fn after_reads(r: u64, block: u32, knows: &impl Fn(u32, Event) -> bool) -> Result<(), Conflict> {
    match unpack(r) {
        Record::None => Ok(()),
        Record::Several => Err(conflict(NONE, AccessKind::Read)),
        Record::Access(b, e) if b == block || knows(b, e) => Ok(()),
        Record::Access(b, _) => Err(conflict(b, AccessKind::Read)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(step: u32, thread: u16) -> Event {
        Event { step, thread }
    }

    #[test]
    fn a_fence_follows_earlier_intervals_and_its_own_thread() {
        // Thread 0's fence at step 5 of an interval that began at step 3.
        let k = Known::at_fence(3, 0, 5);
        assert!(k.covers(ev(2, 7)), "an earlier interval's access by any thread");
        assert!(k.covers(ev(4, 0)), "the fence's own thread, before it");
        assert!(!k.covers(ev(4, 7)), "another thread of the fence's interval");
        assert!(!k.covers(ev(5, 0)), "the fence's thread after it");
        assert!(k.covers(ev(2, ANY_THREAD)), "a join of an earlier interval's accesses");
        assert!(!k.covers(ev(4, ANY_THREAD)), "a join of several threads of the interval");
        // Merging keeps both threads' bounds, and drops those `all` passes.
        let mut m = k.clone();
        m.merge(&Known::at_fence(3, 7, 6));
        assert!(m.covers(ev(4, 0)) && m.covers(ev(5, 7)) && !m.covers(ev(6, 7)));
        m.merge(&Known::at_fence(9, 1, 10));
        assert_eq!((m.all, m.first, m.more.len()), (9, (1, 10), 0));
    }

    #[test]
    fn knowledge_merges_by_block() {
        let mut a = Knowledge::default();
        a.add(4, &Known::at_fence(2, 0, 3));
        a.add(1, &Known::at_fence(5, 0, 6));
        let mut b = Knowledge::default();
        b.add(4, &Known::at_fence(7, 1, 8));
        b.add(9, &Known::at_fence(1, 0, 2));
        a.merge(&b);
        assert_eq!(a.0.iter().map(|e| e.0).collect::<Vec<_>>(), [1, 4, 9]);
        assert!(a.covers(4, ev(6, 3)) && a.covers(9, ev(0, 3)) && !a.covers(9, ev(1, 3)));
        assert!(!a.covers(2, ev(0, 0)));
    }

    #[test]
    fn joined_events_are_known_only_with_all_they_stand_for() {
        // Same thread: the later one. Earlier interval: the later one.
        assert_eq!(ev(3, 1).join(ev(4, 1), 4), ev(4, 1));
        assert_eq!(ev(3, 1).join(ev(4, 2), 4), ev(4, 2));
        // Two threads of one interval: either thread's fence alone is not enough.
        assert_eq!(ev(4, 1).join(ev(4, 2), 4), ev(4, ANY_THREAD));
        assert!(unpack(pack(7, ev(MAX_STEP + 5, ANY_THREAD))).is_access(7, ev(MAX_STEP, ANY_THREAD)));
    }

    impl Record {
        fn is_access(&self, block: u32, e: Event) -> bool {
            matches!(*self, Record::Access(b, x) if b == block && x == e)
        }
    }

    #[test]
    fn a_read_of_a_write_needs_the_write_known() {
        let o = Ordered::new([4].into_iter(), 1);
        let me = |block, step, thread| Accessor { block, event: ev(step, thread), epoch_start: step };
        o.plain(0, 0, me(1, 0, 0), true, |_, _| false).unwrap();
        // Block 2 knows nothing of block 1: the read races with the write.
        let c = o.plain(0, 0, me(2, 3, 0), false, |_, _| false).unwrap_err();
        assert_eq!((c.other, c.other_access), (1, AccessKind::Write));
        // Block 3 knows block 1's steps below 1.
        let knows = |b, e: Event| b == 1 && e.step < 1;
        o.plain(0, 1, me(1, 0, 5), true, |_, _| false).unwrap();
        o.plain(0, 1, me(3, 2, 0), false, knows).unwrap();
        // A write after that read by a block that does not know it races.
        let c = o.plain(0, 1, me(4, 0, 0), true, |b, _| b == 1).unwrap_err();
        assert_eq!((c.other, c.other_access), (3, AccessKind::Read));
    }

    #[test]
    fn atomics_race_with_plain_accesses_only() {
        let o = Ordered::new([2].into_iter(), 1);
        let me = |block| Accessor { block, event: ev(0, 0), epoch_start: 0 };
        let mut table = o.lock();
        let word = table.entry((0, 0)).or_default();
        for block in 0..3 {
            o.atomic((0, 0), word, me(block), |_, _| false).unwrap();
        }
        assert_eq!(word.log.len(), 3);
        drop(table);
        // A plain read must follow every block's atomic.
        let c = o.plain(0, 0, me(5), false, |b, _| b != 1).unwrap_err();
        assert_eq!((c.other, c.other_access), (1, AccessKind::Atomic));
        o.plain(0, 0, me(6), false, |_, _| true).unwrap();
    }
}
