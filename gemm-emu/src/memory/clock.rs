//! Happens-before within a block: a clock per warp and the barriers that
//! join them.
//!
//! A warp's execution is cut into *intervals* by the barriers it meets
//! (`bar.sync` and `bar.arrive`). Each interval has a *stamp*, drawn from
//! one counter that only grows (across all the blocks a worker runs, so a
//! new block finds every record of the last one ordered before it); a
//! warp's stamps grow with it. Each warp `u` also has a knowledge row:
//! `known[u][v]` is the latest stamp of warp `v` whose interval is ordered
//! before `u`'s current point. An access recorded with stamp `x` by a
//! thread of warp `v` is ordered before warp `u`'s current point exactly
//! when `x <= known[u][v]`; the shadow ([`super::Shadow`]) reports any
//! other pair of accesses of different threads to the same word, one of
//! them a write.
//!
//! A barrier joins knowledge. Every warp arriving at barrier `id` (whole
//! warps: the thread count is a multiple of 32) adds its row and its
//! current stamp to the barrier's join. `bar.arrive` then goes on in a new
//! interval knowing nothing new; `bar.sync` waits. When the barrier's count
//! of warps has arrived, every waiting warp takes the join as its row and
//! goes on in a new interval, and the barrier starts over. A warp's own
//! earlier intervals are always ordered before its current one (its lanes
//! run in lockstep).
//!
//! With only block-wide barriers (`bar.sync 0` without a count) every warp
//! takes part in every barrier, so all warps share each stamp and each row:
//! the model is then the barrier-interval epochs of the old race check,
//! exactly.

/// Warps in a block (at most 1024 threads).
pub(crate) const MAX_WARPS: usize = 32;

/// Barriers of a block (`bar.sync 0` … `bar.sync 15`).
pub(crate) const BARRIERS: usize = 16;

/// What one warp knows at its current point: its accesses are recorded
/// with [`View::stamp`] and checked with [`View::ordered`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    /// The stamp of the warp's current interval.
    pub stamp: u32,
    /// Per warp, the latest stamp ordered before this point (for the warp
    /// itself, `stamp - 1`).
    row: [u32; MAX_WARPS],
    /// The least of `row`: what is known of every warp, for a record that
    /// stands for several threads.
    all: u32,
}

impl View {
    /// The view before any block ran.
    pub const START: View = View { stamp: 1, row: [0; MAX_WARPS], all: 0 };

    /// Whether accesses recorded with `stamp` are ordered before this point
    /// whichever warps made them (a record that stands for several).
    #[inline(always)]
    pub fn known_to_all(&self, stamp: u32) -> bool {
        stamp <= self.all
    }

    /// Whether an access recorded with `stamp` by `thread` (another
    /// thread of the block, or a marker above every thread for several
    /// threads or none) is ordered before this point.
    ///
    /// Two shortcuts decide nearly every call without the row: a stamp
    /// every warp knows is ordered, and a stamp equal to this interval's is
    /// not (warps share a stamp only when one barrier released them
    /// together, or at the block's start: concurrent). With block-wide
    /// barriers alone, nothing else occurs.
    #[inline(always)]
    pub fn ordered(&self, stamp: u32, thread: u16) -> bool {
        if self.known_to_all(stamp) {
            return true;
        }
        if stamp == self.stamp {
            return false;
        }
        stamp <= self.row.get(usize::from(thread) / 32).copied().unwrap_or(self.all)
    }
}

/// One barrier's current generation.
#[derive(Clone, Copy, Debug, Default)]
struct Barrier {
    /// Warps arrived (0: the barrier is idle).
    arrived: u32,
    /// Warps the generation waits for, set by its first arrival.
    expected: u32,
    /// The thread count that arrival gave (`None`: the whole block).
    first: Option<u32>,
    /// Warps arrived, one bit each.
    arrivers: u32,
    /// Warps waiting at it (`bar.sync`), one bit each.
    waiting: u32,
    /// The join of the arrived warps' knowledge.
    join: [u32; MAX_WARPS],
}

/// An arrival a barrier refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BadArrival {
    /// It disagrees with the generation's first arrival on the thread count.
    Count {
        /// The first arrival's count (`None`: the whole block).
        expected: Option<u32>,
        /// This arrival's.
        threads: Option<u32>,
    },
    /// The warp already arrived in this generation (the count would take
    /// it for another warp's arrival, and the barrier would complete
    /// without one it waits for).
    Twice,
}

/// The clocks of the block a worker runs.
#[derive(Clone, Debug)]
pub(crate) struct Clocks {
    /// The next stamp to hand out.
    next: u32,
    /// The block's first stamp.
    first: u32,
    /// Per warp, its current stamp.
    stamp: Vec<u32>,
    /// Per warp, its knowledge row.
    known: Vec<[u32; MAX_WARPS]>,
    bars: [Barrier; BARRIERS],
    /// Warps a completed barrier released, one bit each, until the
    /// scheduler takes them ([`Clocks::take_released`]).
    released: u32,
}

impl Default for Clocks {
    fn default() -> Clocks {
        Clocks {
            next: 1,
            first: 1,
            stamp: Vec::new(),
            known: Vec::new(),
            bars: [Barrier::default(); BARRIERS],
            released: 0,
        }
    }
}

impl Clocks {
    /// Starts a block of `warps` warps: one new stamp for all of them, and
    /// everything recorded before it known to each.
    pub fn start_block(&mut self, warps: usize) {
        assert!(warps <= MAX_WARPS, "a block has at most {MAX_WARPS} warps");
        self.first = self.next;
        self.next += 1;
        self.stamp.clear();
        self.stamp.resize(warps, self.first);
        self.known.clear();
        self.known.resize(warps, [self.first - 1; MAX_WARPS]);
        self.bars = [Barrier::default(); BARRIERS];
        self.released = 0;
    }

    /// The block's first stamp: a record at or above it was made in this
    /// block.
    pub fn block_first(&self) -> u32 {
        self.first
    }

    /// What warp `u` knows now.
    pub fn view(&self, u: usize) -> View {
        let mut row = self.known[u];
        row[u] = self.stamp[u] - 1;
        let all = row[..self.stamp.len()].iter().copied().min().unwrap_or(0);
        View { stamp: self.stamp[u], row, all }
    }

    /// Warp `u` arrives at barrier `id`, whose generation completes when
    /// `threads` threads (whole warps; `None`: every warp of the block)
    /// have arrived; `waits`: it waits for that (`bar.sync`)
    /// rather than going on (`bar.arrive`, in a new interval). Completion
    /// releases the waiting warps ([`Clocks::take_released`]); returns
    /// whether this arrival completed the barrier.
    pub fn arrive(
        &mut self,
        u: usize,
        id: u32,
        threads: Option<u32>,
        waits: bool,
    ) -> Result<bool, BadArrival> {
        let warps = threads.map_or(self.stamp.len() as u32, |n| n / 32);
        let bar = &mut self.bars[id as usize];
        if bar.arrived == 0 {
            *bar = Barrier { expected: warps, first: threads, ..Barrier::default() };
        } else if bar.expected != warps {
            return Err(BadArrival::Count { expected: bar.first, threads });
        } else if bar.arrivers >> u & 1 == 1 {
            return Err(BadArrival::Twice);
        }
        bar.arrived += 1;
        bar.arrivers |= 1 << u;
        for (j, k) in bar.join.iter_mut().zip(&self.known[u]) {
            *j = (*j).max(*k);
        }
        bar.join[u] = bar.join[u].max(self.stamp[u]);
        if waits {
            bar.waiting |= 1 << u;
        } else {
            self.stamp[u] = self.next;
            self.next += 1;
        }
        if bar.arrived == bar.expected {
            let done = std::mem::take(bar);
            let stamp = self.next;
            self.next += 1;
            for w in (0..self.stamp.len()).filter(|w| done.waiting >> w & 1 == 1) {
                self.known[w] = done.join;
                self.stamp[w] = stamp;
            }
            self.released |= done.waiting;
            return Ok(true);
        }
        Ok(false)
    }

    /// Warp `u` releases into `join` (an `mbarrier` phase's): its knowledge
    /// and its current interval.
    pub fn release_into(&self, u: usize, join: &mut [u32; MAX_WARPS]) {
        for (j, k) in join.iter_mut().zip(&self.known[u]) {
            *j = (*j).max(*k);
        }
        join[u] = join[u].max(self.stamp[u]);
    }

    /// Warp `u` goes on in a new interval, as after `bar.arrive`: what it
    /// does next is not ordered before a release it made.
    pub fn new_interval(&mut self, u: usize) {
        self.stamp[u] = self.fresh();
    }

    /// A stamp no interval has had: the one the warps that see an
    /// `mbarrier` phase complete go on in ([`Clocks::acquire`]).
    pub fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    /// Warp `u` acquires `join` (a completed `mbarrier` phase's): it knows
    /// everything the join does — from `stamp` (the phase's,
    /// [`Clocks::fresh`] when it completed) if the warp is still before it,
    /// as the warps a barrier releases together share theirs; in its
    /// current interval if it has moved past it since (knowing more needs
    /// no new interval: no other warp knows this one's current interval
    /// before it arrives somewhere, which ends it).
    pub fn acquire(&mut self, u: usize, join: &[u32; MAX_WARPS], stamp: u32) {
        for (k, j) in self.known[u].iter_mut().zip(join) {
            *k = (*k).max(*j);
        }
        self.stamp[u] = self.stamp[u].max(stamp);
    }

    /// Whether a completed barrier released warp `u` since the last call.
    pub fn take_released(&mut self, u: usize) -> bool {
        let bit = 1 << u;
        let was = self.released & bit != 0;
        self.released &= !bit;
        was
    }

    /// Warps arrived at barrier `id` and the count it waits for, if a
    /// generation is under way.
    pub fn pending(&self, id: u32) -> Option<(u32, u32)> {
        let bar = &self.bars[id as usize];
        (bar.arrived > 0).then_some((bar.arrived, bar.expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records of `(stamp, warp)`, as the shadow keeps them.
    fn ordered(c: &Clocks, u: usize, (stamp, warp): (u32, usize)) -> bool {
        c.view(u).ordered(stamp, (32 * warp) as u16)
    }

    #[test]
    fn block_wide_barriers_are_epochs() {
        let mut c = Clocks::default();
        c.start_block(3);
        let s0 = c.view(0).stamp;
        assert!((0..3).all(|u| c.view(u).stamp == s0));
        assert!(!ordered(&c, 1, (s0, 0)), "the same interval is unordered");
        for u in 0..3 {
            assert_eq!(c.arrive(u, 0, None, true), Ok(u == 2));
        }
        assert!((0..3).all(|u| c.take_released(u)));
        let s1 = c.view(0).stamp;
        assert!(s1 > s0 && (0..3).all(|u| c.view(u).stamp == s1));
        assert!((0..3).all(|u| ordered(&c, u, (s0, (u + 1) % 3))));
        assert!(!ordered(&c, 0, (s1, 1)));
    }

    #[test]
    fn an_arrival_releases_the_waiters_only() {
        // Warp 0 produces and arrives; warp 1 waits, warp 2 stays out.
        let mut c = Clocks::default();
        c.start_block(3);
        let produced = c.view(0).stamp;
        c.arrive(1, 1, Some(64), true).unwrap();
        assert!(!c.take_released(1), "one of two warps arrived");
        c.arrive(0, 1, Some(64), false).unwrap();
        assert!(c.take_released(1) && !c.take_released(0) && !c.take_released(2));
        assert!(ordered(&c, 1, (produced, 0)), "the waiter sees the producer's writes");
        assert!(!ordered(&c, 2, (produced, 0)), "a warp outside the barrier does not");
        // The producer's next interval is unknown to the consumer.
        let next = c.view(0).stamp;
        assert!(next > produced && !ordered(&c, 1, (next, 0)));
        // The producer learns nothing of the consumer from its own arrival.
        assert!(!ordered(&c, 0, (produced, 1)));
    }

    #[test]
    fn knowledge_is_transitive() {
        // 0 -> 1 through barrier 1, then 1 -> 2 through barrier 2.
        let mut c = Clocks::default();
        c.start_block(3);
        let first = c.view(0).stamp;
        c.arrive(0, 1, Some(64), false).unwrap();
        c.arrive(1, 1, Some(64), true).unwrap();
        assert!(c.take_released(1));
        c.arrive(1, 2, Some(64), false).unwrap();
        c.arrive(2, 2, Some(64), true).unwrap();
        assert!(c.take_released(2));
        assert!(ordered(&c, 2, (first, 0)));
    }

    #[test]
    fn counts_must_agree() {
        let mut c = Clocks::default();
        c.start_block(4);
        c.arrive(0, 3, Some(128), true).unwrap();
        assert_eq!(
            c.arrive(1, 3, Some(64), true),
            Err(BadArrival::Count { expected: Some(128), threads: Some(64) })
        );
        assert_eq!(c.pending(3), Some((1, 4)));
        c.arrive(2, 3, Some(128), false).unwrap();
        assert_eq!(c.arrive(2, 3, Some(128), false), Err(BadArrival::Twice));
        assert_eq!(c.pending(3), Some((2, 4)));
        assert_eq!(c.pending(4), None);
    }

    #[test]
    fn a_new_block_knows_the_last_one() {
        let mut c = Clocks::default();
        c.start_block(2);
        let old = c.view(1).stamp;
        c.start_block(2);
        assert!(ordered(&c, 0, (old, 1)));
        assert!(c.block_first() > old);
    }
}
