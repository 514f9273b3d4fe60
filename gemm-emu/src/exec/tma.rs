//! The TMA family: `mbarrier`s and the bulk tensor copies that complete on
//! them.
//!
//! The PTX ISA's model: an `mbarrier` counts, per phase, the arrivals
//! still missing (`mbarrier.init` sets how many a phase waits for) and a
//! transaction count (`mbarrier.arrive.expect_tx` raises it by the bytes to
//! come before arriving; every byte a `cp.async.bulk.tensor` lands lowers
//! it). A phase completes when both are zero; the barrier then starts the
//! next phase. `mbarrier.try_wait.parity q` answers whether the phase of
//! parity `q` has completed, that is whether the current phase's parity
//! differs from `q`; a thread that sees it complete sees every byte of
//! the copies that completed on it, and everything the arriving threads
//! did before arriving.
//!
//! The emulator
//!
//! - reads the source of a bulk copy when it is issued, checks the
//!   destination (inside one array, aligned, no copy in flight to it, no
//!   `wgmma` in flight reading it) and records the copy as a write by the
//!   issuing thread for the race detector, then marks the destination
//!   words *in flight*: any access to them is an
//!   [`FaultKind::AsyncCopyInFlight`] until the copy lands;
//! - lands copies as late as it can: only when no warp of the block can
//!   run, and some wait on a phase whose arrivals are all in, does it land
//!   that barrier's copies, oldest first, until the transaction count is
//!   zero (more bytes than expected is [`TmaFault::TooManyBytes`]), and
//!   complete the phase. So reading a box before its barrier's phase
//!   completes reads bytes in flight, and is reported wherever it happens;
//!   and the warps waiting go on together, in one interval, as a barrier
//!   releases them (the race detector's folding of concurrent reads
//!   assumes as much);
//! - blocks a `try_wait` until its phase completes (a suspended thread the
//!   time limit never wakes: a legal `try_wait`), so a kernel's retry loop
//!   runs once; a block whose remaining threads all wait on phases that
//!   cannot complete is a [`TmaFault::Deadlock`];
//! - orders, for the race detector, the arriving warps' knowledge and the
//!   issuing warps' intervals (their copies' writes) before every warp that
//!   sees the phase complete, as a barrier does;
//! - lands a box's words for `wgmma` as the async proxy's writes: visible
//!   without `fence.proxy.async`, f32 bits read as TF32 by truncation,
//!   16-bit elements as they are.
//!
//! A box is laid out as its map says: row after row of `box[0]` elements
//! of 2, 4 or 8 bytes (f16 and bf16; f32 and the c32 pair; f64), each row
//! a multiple of 16 bytes, at most 256 elements along each dimension, with
//! the 128-byte swizzle (rows of exactly 128 bytes: 64 16-bit, 32 32-bit
//! or 16 64-bit elements; 16-byte chunk `c` of row `r` at chunk
//! `c ^ (r mod 8)`, the destination 1024-byte aligned) or without;
//! elements outside the tensor land as zeros. The emulator's map stores
//! the element size itself (`tensor_map.rs`), not the driver's data-type
//! code, so f16 and bf16 maps are alike to it.

use super::{LaneTrap, Trap, WARP, Warp, Worker, first};
use crate::error::{AccessKind, Fault, FaultKind, TmaFault};
use crate::memory::{MAX_WARPS, PARAM_WINDOW};
use crate::program::{Base, Mem, Src, TensorLoad};
use crate::tensor_map::{self, Decoded};

/// The `barrier` of a group parked at a `try_wait` (named barriers are
/// 0..16).
pub(super) const MBARRIER_WAIT: u32 = u32::MAX;

/// Marks a shared word in flight from bulk copy `slot`: `BULK | slot` in
/// [`super::async_copy::AsyncCopies`]'s table (a `cp.async` is `1 + slot`).
pub(super) const BULK: u32 = 1 << 31;

/// One `mbarrier` of the block.
#[derive(Clone, Debug)]
struct Mbarrier {
    /// The shared word of its 8 bytes.
    word: u32,
    /// Arrivals each phase waits for.
    count: u32,
    /// Arrivals the current phase still misses.
    missing: u32,
    /// The current phase's transaction count.
    tx: i64,
    /// Phases completed.
    phase: u32,
    /// The current phase's knowledge: arrivals and copies.
    join: [u32; MAX_WARPS],
    /// The last completed phase's.
    done: [u32; MAX_WARPS],
    /// The stamp of the interval its waiters go on in.
    done_stamp: u32,
    /// Bulk copies completing on it, oldest first.
    copies: Vec<u32>,
}

/// One bulk copy in flight.
#[derive(Clone, Debug, Default)]
struct Bulk {
    /// The shared words it writes and their values.
    words: Vec<(u32, u32)>,
    /// The issuing thread and its instruction.
    thread: u32,
    pc: u32,
}

/// The block's `mbarrier`s and bulk copies in flight.
#[derive(Debug, Default)]
pub(super) struct TmaState {
    bars: Vec<Mbarrier>,
    bulks: Vec<Bulk>,
    free: Vec<u32>,
    /// Per warp, the barrier and parity its parked group waits on.
    waits: Vec<Option<(usize, u32)>>,
}

impl TmaState {
    /// Forgets everything, for a new block of `warps` warps.
    pub fn reset(&mut self, warps: usize) {
        self.bars.clear();
        self.bulks.clear();
        self.free.clear();
        self.waits.clear();
        self.waits.resize(warps, None);
    }

    fn find(&self, word: u32) -> Option<usize> {
        self.bars.iter().position(|b| b.word == word)
    }
}

impl Worker<'_> {
    /// The barrier at shared address `addr` (8-byte aligned, in an array).
    fn mbarrier_at(&self, addr: u64) -> Result<usize, Trap> {
        let (_, word) = self.locate(Mem::Shared, AccessKind::Write, addr, 8, 8)?;
        self.tma.find(word as u32).ok_or(Trap::Kind(FaultKind::Tma(TmaFault::Uninitialized { addr })))
    }

    /// `mbarrier.init` for lanes `m`.
    pub(super) fn mbarrier_init(
        &mut self,
        w: &Warp,
        m: u32,
        (base, off): (Base, i64),
        count: u32,
    ) -> Result<(), LaneTrap> {
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        for l in lanes_of(m) {
            let addr = addrs[l as usize];
            let (_, word) = self.locate(Mem::Shared, AccessKind::Write, addr, 8, 8).map_err(|t| (t, l))?;
            let bar = Mbarrier {
                word: word as u32,
                count,
                missing: count,
                tx: 0,
                phase: 0,
                join: [0; MAX_WARPS],
                done: [0; MAX_WARPS],
                done_stamp: 0,
                copies: Vec::new(),
            };
            match self.tma.find(word as u32) {
                Some(i) if !self.tma.bars[i].copies.is_empty() => {
                    let copies = self.tma.bars[i].copies.len() as u32;
                    return Err((Trap::Kind(FaultKind::Tma(TmaFault::Reinitialized { addr, copies })), l));
                }
                Some(i) => self.tma.bars[i] = bar,
                None => self.tma.bars.push(bar),
            }
        }
        Ok(())
    }

    /// `mbarrier.arrive.expect_tx` for lanes `m`: each raises the phase's
    /// transaction count by `bytes` and arrives; the warp goes on in a new
    /// interval.
    pub(super) fn mbarrier_expect_tx(
        &mut self,
        w: &Warp,
        m: u32,
        (base, off): (Base, i64),
        bytes: u32,
    ) -> Result<(), LaneTrap> {
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        let u = (w.tid0 / WARP as u32) as usize;
        for l in lanes_of(m) {
            let addr = addrs[l as usize];
            let i = self.mbarrier_at(addr).map_err(|t| (t, l))?;
            let bar = &mut self.tma.bars[i];
            if bar.missing == 0 {
                return Err((Trap::Kind(FaultKind::Tma(TmaFault::OverArrived { addr })), l));
            }
            bar.tx += i64::from(bytes);
            bar.missing -= 1;
            self.clocks.release_into(u, &mut bar.join);
        }
        // Later accesses of the warp are not ordered before the waiters.
        self.clocks.new_interval(u);
        self.view = self.clocks.view(u);
        Ok(())
    }

    /// `cp.async.bulk.tensor` (instruction `load`) for lanes `m`.
    pub(super) fn tensor_load(
        &mut self,
        w: &Warp,
        pc: u32,
        m: u32,
        load: &TensorLoad,
    ) -> Result<(), LaneTrap> {
        let (mut dsts, mut bars) = ([0; WARP], [0; WARP]);
        Self::addresses(w, m, load.dst, load.dst_off, &mut dsts)?;
        Self::addresses(w, m, load.bar, load.bar_off, &mut bars)?;
        super::lanes::need(w, Src::R(load.map), m)?;
        for c in load.coords {
            super::lanes::need(w, c, m)?;
        }
        for l in lanes_of(m) {
            let lane = l as usize;
            let coord = |c: Src| match c {
                Src::R(r) => w.vals[r as usize][lane] as u32 as i32,
                Src::I(v) => v as u32 as i32,
            };
            let coords = load.coords.map(coord);
            let map = self.map_at(w.vals[load.map as usize][lane]).map_err(|t| (t, l))?;
            let bar = self.mbarrier_at(bars[lane]).map_err(|t| (t, l))?;
            self.issue_box(&map, coords, dsts[lane], (bar, w.tid0 + l, pc)).map_err(|t| (t, l))?;
        }
        Ok(())
    }

    /// The tensor map whose generic address is `addr`: a tensor map
    /// parameter's, filled by the launch.
    fn map_at(&self, addr: u64) -> Result<Decoded, Trap> {
        let not_a_map = || Trap::Kind(FaultKind::Tma(TmaFault::NotAMap { addr }));
        let off = addr.checked_sub(PARAM_WINDOW).ok_or_else(not_a_map)?;
        let (i, _) = self
            .prog
            .param_offsets
            .iter()
            .enumerate()
            .find(|&(_, &o)| u64::from(o) == off)
            .ok_or_else(not_a_map)?;
        if self.prog.params[i].ty != gemm_codegen::ptx::ParamType::TensorMap {
            return Err(not_a_map());
        }
        let bytes = &self.info.params[off as usize..off as usize + 128];
        let map = tensor_map::decode(bytes).ok_or_else(not_a_map)?;
        let unsupported = |what: String| Trap::Kind(FaultKind::Tma(TmaFault::UnsupportedMap { what }));
        if let Some(b) = map.box_dims.iter().find(|&&b| b == 0 || b > 256) {
            return Err(unsupported(format!("a box dimension of {b} (1 to 256)")));
        }
        if !matches!(map.element_bytes, 2 | 4 | 8) {
            return Err(unsupported(format!("elements of {} bytes (2, 4 or 8)", map.element_bytes)));
        }
        if !(map.box_dims[0] * map.element_bytes).is_multiple_of(16) {
            return Err(unsupported(format!(
                "box rows of {} bytes (the driver wants a multiple of 16)",
                map.box_dims[0] * map.element_bytes
            )));
        }
        if map.swizzle_128 && map.box_dims[0] * map.element_bytes != 128 {
            return Err(unsupported(format!(
                "box rows of {} bytes with the 128-byte swizzle (the emulator models rows of exactly 128)",
                map.box_dims[0] * map.element_bytes
            )));
        }
        Ok(map)
    }

    /// Issues one thread's copy of the box at `coords` of `map` to shared
    /// `dst`, completing on barrier `bar`.
    fn issue_box(
        &mut self,
        map: &Decoded,
        coords: [i32; 3],
        dst: u64,
        (bar, tid, pc): (usize, u32, u32),
    ) -> Result<(), Trap> {
        let align = if map.swizzle_128 { 1024 } else { 128 };
        if !dst.is_multiple_of(align) {
            return Err(Trap::Kind(FaultKind::Tma(TmaFault::MisalignedBox { addr: dst, align })));
        }
        let bytes = map.box_bytes();
        let Ok(len) = u32::try_from(bytes) else {
            return Err(Trap::Kind(FaultKind::Tma(TmaFault::UnsupportedMap {
                what: format!("a box of {bytes} bytes"),
            })));
        };
        let (_, first_word) = self.locate(Mem::Shared, AccessKind::Write, dst, len, 16)?;
        let esz = u64::from(map.element_bytes);
        let [b0, b1, b2] = map.box_dims.map(u64::from);
        // The box's bytes as they land, word by word; elements outside the
        // tensor are zeros.
        let mut image = vec![0u32; (bytes / 4) as usize];
        for i2 in 0..b2 {
            for i1 in 0..b1 {
                for i0 in 0..b0 {
                    let at = [i0, i1, i2];
                    let x: [i64; 3] = std::array::from_fn(|d| i64::from(coords[d]) + at[d] as i64);
                    if !(0..3).all(|d| x[d] >= 0 && (x[d] as u64) < map.dims[d]) {
                        continue;
                    }
                    let src = map.base
                        + x[0] as u64 * esz
                        + x[1] as u64 * map.strides[0]
                        + x[2] as u64 * map.strides[1];
                    let linear = ((i2 * b1 + i1) * b0 + i0) * esz;
                    let place = if map.swizzle_128 { swizzle_128(linear) } else { linear };
                    self.box_element(src, esz as u32, (tid, pc), &mut image, place)?;
                }
            }
        }
        let words: Vec<(u32, u32)> =
            image.into_iter().enumerate().map(|(i, v)| (first_word as u32 + i as u32, v)).collect();
        // The destination: nothing in flight to it, no `wgmma` in flight
        // reading it, and a write of the issuing thread now.
        for &(word, _) in &words {
            let word = word as usize;
            self.not_in_flight(AccessKind::Write, word, 1)?;
            if self.proxy.active {
                self.async_proxy_write(word)?;
            }
            if self.checks {
                self.shadow::<false>(0, word, 1, 4 * word as u64, tid, pc, AccessKind::Write)?;
            }
        }
        let slot = match self.tma.free.pop() {
            Some(s) => s,
            None => {
                self.tma.bulks.push(Bulk::default());
                self.tma.bulks.len() as u32 - 1
            }
        };
        for &(word, _) in &words {
            self.copies.inflight[word as usize] = BULK | slot;
        }
        self.copies.pending += 1;
        self.stats.async_copy_bytes += bytes;
        self.tma.bulks[slot as usize] = Bulk { words, thread: tid, pc };
        let u = (tid / WARP as u32) as usize;
        let stamp = self.view.stamp;
        let bar = &mut self.tma.bars[bar];
        bar.join[u] = bar.join[u].max(stamp);
        bar.copies.push(slot);
        Ok(())
    }

    /// Reads the element of `esz` bytes (2, 4 or 8) at global `src` for
    /// the copy thread `tid` issues at `pc` into byte `place` of `image`.
    /// A 2-byte element is recorded for the race detector as its half-word
    /// in a kernel of half-word records, else as its word (a read, so only
    /// a write to the word's other half by another thread could be
    /// reported: A and B are read-only).
    fn box_element(
        &mut self,
        src: u64,
        esz: u32,
        (tid, pc): (u32, u32),
        image: &mut [u32],
        place: u64,
    ) -> Result<(), Trap> {
        let (buf, word) = self.locate(Mem::Global, AccessKind::Read, src, esz, esz)?;
        if self.checks {
            if esz == 2 && self.global.half_units {
                self.shadow_half(buf, (word, (src >> 1 & 1) as usize), src, tid, pc, AccessKind::Read)?;
            } else {
                let words = esz.div_ceil(4) as usize;
                self.shadow::<true>(buf, word, words, src, tid, pc, AccessKind::Read)?;
            }
        }
        let at = (place / 4) as usize;
        if esz == 2 {
            let half = self.read_word::<true>(buf, word) as u32 >> (8 * (src % 4)) & 0xffff;
            image[at] |= half << (8 * (place % 4));
        } else {
            for k in 0..(esz / 4) as usize {
                image[at + k] = self.read_word::<true>(buf, word + k) as u32;
            }
        }
        Ok(())
    }

    /// Whether the phase of `parity` of barrier `i` has completed.
    fn mbarrier_done(&self, i: usize, parity: u32) -> bool {
        self.tma.bars[i].phase % 2 != parity % 2
    }

    /// Whether the phase of `parity` of barrier `i` has completed, landing
    /// its copies and completing the current phase if it can.
    fn mbarrier_complete(&mut self, i: usize, parity: u32) -> Result<bool, Trap> {
        if self.mbarrier_done(i, parity) {
            return Ok(true);
        }
        let bar = &self.tma.bars[i];
        if bar.missing > 0 {
            return Ok(false);
        }
        while self.tma.bars[i].tx > 0 && !self.tma.bars[i].copies.is_empty() {
            let slot = self.tma.bars[i].copies.remove(0);
            let bulk = std::mem::take(&mut self.tma.bulks[slot as usize]);
            let bytes = 4 * bulk.words.len() as i64;
            let bar = &mut self.tma.bars[i];
            if bytes > bar.tx {
                let addr = 4 * u64::from(bar.word);
                let kind = TmaFault::TooManyBytes { addr, expected: bar.tx, copy_bytes: bytes as u64 };
                return Err(Trap::Kind(FaultKind::Tma(kind)));
            }
            bar.tx -= bytes;
            for &(word, v) in &bulk.words {
                self.smem[word as usize] = v;
                self.copies.inflight[word as usize] = 0;
                if self.proxy.active {
                    self.proxy.record_async_copy(word as usize, bulk.pc);
                }
            }
            self.copies.pending -= 1;
            self.tma.free.push(slot);
        }
        let bar = &mut self.tma.bars[i];
        if bar.tx != 0 {
            return Ok(false);
        }
        bar.phase += 1;
        bar.missing = bar.count;
        bar.done = std::mem::replace(&mut bar.join, [0; MAX_WARPS]);
        bar.done_stamp = self.clocks.fresh();
        Ok(true)
    }

    /// `mbarrier.try_wait.parity` by the lanes `m` of warp `w` (its whole
    /// group): `Ok(true)` once the phase completed, predicate `p` set and
    /// the phase's knowledge acquired; `Ok(false)` to park the group, to be
    /// tried again when the scheduler finds the phase complete.
    pub(super) fn mbarrier_try_wait(
        &mut self,
        w: &mut Warp,
        m: u32,
        (p, base, off, parity): (u32, Base, i64, Src),
    ) -> Result<bool, LaneTrap> {
        let mut addrs = [0; WARP];
        Self::addresses(w, m, base, off, &mut addrs)?;
        super::lanes::need(w, parity, m)?;
        let l0 = first(m);
        let par = |l: u32| match parity {
            Src::R(r) => w.vals[r as usize][l as usize] as u32,
            Src::I(v) => v as u32,
        };
        if lanes_of(m).any(|l| addrs[l as usize] != addrs[l0 as usize] || par(l) % 2 != par(l0) % 2) {
            return Err((Trap::Kind(FaultKind::Tma(TmaFault::DivergentWait)), l0));
        }
        let i = self.mbarrier_at(addrs[l0 as usize]).map_err(|t| (t, l0))?;
        let parity = par(l0);
        let u = (w.tid0 / WARP as u32) as usize;
        if !self.mbarrier_done(i, parity) {
            self.tma.waits[u] = Some((i, parity));
            return Ok(false);
        }
        self.tma.waits[u] = None;
        let (done, stamp) = (self.tma.bars[i].done, self.tma.bars[i].done_stamp);
        self.clocks.acquire(u, &done, stamp);
        self.view = self.clocks.view(u);
        super::lanes::set_pred(w, p, m, m);
        Ok(true)
    }

    /// Whether warp `u`, parked at a `try_wait`, may try again: its phase
    /// has completed.
    pub(super) fn mbarrier_wait_over(&self, u: usize) -> bool {
        self.tma.waits[u].is_none_or(|(i, parity)| self.mbarrier_done(i, parity))
    }

    /// When no warp can run: completes every phase a parked warp waits on
    /// that can complete, landing its copies — so a phase completes only
    /// once every warp that will wait on it waits (as late as the GPU may
    /// land the bytes, and the waiters go on together, as from a barrier).
    /// Whether one did; the fault of a copy overrunning its phase.
    pub(super) fn complete_waited_phases(&mut self) -> Result<bool, Fault> {
        let mut any = false;
        for u in 0..self.tma.waits.len() {
            let Some((i, parity)) = self.tma.waits[u] else { continue };
            match self.mbarrier_complete(i, parity) {
                Ok(done) => any |= done,
                Err(Trap::Kind(kind)) => {
                    let bar = &self.tma.bars[i];
                    let (tid, pc) = bar.copies.first().map_or((32 * u as u32, 0), |&s| self.bulk_issuer(s));
                    return Err(self.fault(kind, tid, pc));
                }
                Err(_) => unreachable!("landing copies reads no register"),
            }
        }
        Ok(any)
    }

    /// The fault of a block whose running threads all wait on `mbarrier`
    /// phases that cannot complete (`waiting` of them; the first, `tid`,
    /// at `pc`), if any thread waits on one.
    pub(super) fn mbarrier_deadlock(&self, waiting: u32, tid: u32, pc: u32) -> Option<Fault> {
        let &(i, _) = self.tma.waits.iter().flatten().next()?;
        let bar = &self.tma.bars[i];
        let in_flight: i64 =
            bar.copies.iter().map(|&s| 4 * self.tma.bulks[s as usize].words.len() as i64).sum();
        let kind = TmaFault::Deadlock {
            waiting,
            addr: 4 * u64::from(bar.word),
            arrivals: bar.missing,
            bytes: bar.tx - in_flight,
        };
        Some(self.fault(FaultKind::Tma(kind), tid, pc))
    }

    /// The fault of a block that ends with bulk copies in flight.
    pub(super) fn bulk_copies_at_end(&self) -> Option<Fault> {
        let waiting = self.tma.bars.iter().flat_map(|b| &b.copies).collect::<Vec<_>>();
        let &&oldest = waiting.iter().min()?;
        let bulk = &self.tma.bulks[oldest as usize];
        let kind = TmaFault::NeverWaited {
            copies: waiting.len() as u32,
            copy_line: self.prog.lines.get(bulk.pc as usize).copied().unwrap_or(0),
        };
        Some(self.fault(FaultKind::Tma(kind), bulk.thread, bulk.pc))
    }

    /// The issuing thread and instruction of bulk copy `slot`.
    pub(super) fn bulk_issuer(&self, slot: u32) -> (u32, u32) {
        let b = &self.tma.bulks[slot as usize];
        (b.thread, b.pc)
    }
}

/// The lanes of `m`, lowest first.
fn lanes_of(m: u32) -> impl Iterator<Item = u32> {
    (0..WARP as u32).filter(move |l| m >> l & 1 == 1)
}

/// Where byte `linear` of a box with 128-byte rows lands under the 128-byte
/// swizzle: chunk `c` of row `r` goes to chunk `c ^ (r mod 8)`.
fn swizzle_128(linear: u64) -> u64 {
    let (row, within) = (linear / 128, linear % 128);
    row * 128 + (((within / 16) ^ (row % 8)) * 16) + within % 16
}
